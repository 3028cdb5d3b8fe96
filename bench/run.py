#!/usr/bin/env python3
"""Runs Strata, ClickHouse (chdb) and DuckDB side by side on the same queries.

    python3 bench/run.py [--scale small|full|sizes] [--only NAME] [--engines strata,chdb,duckdb]
                         [--runs 5] [--warmup 1] [--memory-limit none|sweep|SIZE]

The first run creates a pinned Python environment (bench/requirements.txt) in
build/bench/venv and re-runs itself there; Strata is built in release mode.
Each query runs in a fresh process, engines alternating (A B C A B C ...),
after warm-up runs. Query time is what each engine measured around the query;
process time and peak RSS (wait4) are the OS's. Every answer is checked
against the workload's expectation and against the other engines.
"""
import argparse
import datetime
import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "bench"
VENV = BUILD / "venv"
REQUIREMENTS = ROOT / "bench" / "requirements.txt"


def ensure_environment(script=__file__):
    """Re-executes `script` under build/bench/venv with the pinned requirements installed.
    System site packages stay visible so an already installed pinned version is
    reused instead of downloaded again; pins still win inside the venv."""
    python = VENV / "bin" / "python"
    stamp = VENV / "requirements.sha256"
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if not (stamp.exists() and stamp.read_text() == digest):
        print(f"setting up {VENV} from {REQUIREMENTS.name} ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, system_site_packages=True, clear=True).create(VENV)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], check=True)
        stamp.write_text(digest)
    if Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(str(python), [str(python), script, *sys.argv[1:]])


def strata_binary(override):
    if override:
        return Path(override).resolve()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "strata"


def memory_limits(workload, option):
    from harness.workload import parse_size
    if option == "none":
        return [0]
    if option == "sweep":
        return workload.memory_limits or [0]
    return [parse_size(option)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="small", choices=["small", "full", "sizes"])
    parser.add_argument("--only", action="append", help="workload name (repeatable)")
    parser.add_argument("--engines", default="strata,chdb,duckdb")
    parser.add_argument("--runs", type=int, default=5, help="counted runs per engine (at least 5 for reports)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--memory-limit", default="none", help="none, sweep (the workload's list), or a size")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds before a run is killed")
    parser.add_argument("--output", default=str(BUILD / "results.json"))
    parser.add_argument("--strata-binary", help="a prebuilt strata to measure instead of building one "
                        "(to compare two builds)")
    parser.add_argument("--no-venv", action="store_true", help="use the current Python as is")
    args = parser.parse_args()
    if not args.no_venv:
        ensure_environment()

    sys.path.insert(0, str(ROOT / "bench"))
    from harness import check, engines as engine_commands, machine, measure, report, stats, workload as workloads

    engines = args.engines.split(",")
    unknown = [e for e in engines if e not in workloads.ENGINES]
    if unknown:
        parser.error(f"unknown engines {unknown}; known: {', '.join(workloads.ENGINES)}")
    binary = strata_binary(args.strata_binary)
    if "strata" in engines and not args.strata_binary:
        subprocess.run(["cargo", "build", "--release", "-p", "strata-cli"], cwd=ROOT, check=True)

    selected = workloads.load_all(ROOT / "bench" / "workloads")
    if args.only:
        selected = [w for w in selected if w.name in args.only]
        if not selected:
            parser.error(f"no workload named {args.only}")

    versions = {e: subprocess.run(engine_commands.version_command(e, binary), capture_output=True,
                                  text=True).stdout.strip() for e in engines}
    description = machine.describe()
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(f"# {date}: {description['cpu']}, {description['cores']} cores, "
          f"{report.human_bytes(description['memory_bytes'])} RAM, cgroup limit "
          f"{report.human_bytes(description['cgroup_memory_limit']) if description['cgroup_memory_limit'] else 'none'}")
    print("# " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print("# query s: medians measured by each engine around the query; process s includes start-up.")
    print(report.HEADER)

    results = []
    mismatches = 0
    for w in selected:
        for n in w.sizes(args.scale):
            for limit in memory_limits(w, args.memory_limit):
                runs = {e: [] for e in engines}
                outputs = {}
                for round_index in range(args.warmup + args.runs):
                    for e in engines:
                        sql = w.sql[e].format(n=n)
                        run = measure.run_process(engine_commands.command(e, sql, limit, binary), args.timeout)
                        if round_index >= args.warmup or run.error:
                            runs[e].append(run)
                        if not run.error:
                            outputs.setdefault(e, run.output)
                case = []
                for e in engines:
                    errors = [r.error for r in runs[e] if r.error]
                    status = "ok"
                    if errors:
                        status = "failed: " + errors[0].splitlines()[-1][:120]
                    else:
                        wrong = check.check_expected(w, n, outputs[e])
                        if wrong is None and e != engines[0] and engines[0] in outputs:
                            different = check.compare(outputs[engines[0]], outputs[e], w.compare_columns, w.tolerance)
                            if different:
                                wrong = f"differs from {engines[0]}: {different}"
                        if wrong:
                            status = "MISMATCH " + wrong
                            mismatches += 1
                    ok_runs = [r for r in runs[e] if not r.error]
                    case.append({"workload": w.name, "n": n, "memory_limit": limit, "engine": e, "status": status,
                                 "query_seconds": stats.summarize([r.query_seconds for r in ok_runs]),
                                 "wall_seconds": stats.summarize([r.wall_seconds for r in ok_runs]),
                                 "peak_rss": max((r.peak_rss for r in runs[e]), default=None),
                                 "output": outputs.get(e, "")[:2000],
                                 "runs": [r.__dict__ | {"output": None} for r in runs[e]]})
                base = case[0] if case[0]["engine"] == "strata" else None
                for r in case:
                    q = (r["query_seconds"] or {}).get("median")
                    bq = ((base or {}).get("query_seconds") or {}).get("median")
                    r["time_ratio"] = stats.ratio(q, bq)
                    r["rss_ratio"] = stats.ratio(r["peak_rss"], (base or {}).get("peak_rss"))
                    print(report.row(r), flush=True)
                results.extend(case)

    full = {"date": date, "machine": description, "versions": versions, "scale": args.scale,
            "runs": args.runs, "warmup": args.warmup, "results": results}
    report.write_json(args.output, full)
    markdown = Path(args.output).with_suffix(".md")
    markdown.write_text(report.markdown_table(results, description, versions, date) + "\n")
    plots = report.plot(results, Path(args.output).parent / "plots")
    print(f"\nAll runs: {args.output}; table: {markdown}" + "".join(f"\nplot: {p}" for p in plots))
    if mismatches:
        print(f"\n!!! {mismatches} WRONG OR DIFFERING ANSWERS: see status above !!!", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
