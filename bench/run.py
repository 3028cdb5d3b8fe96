#!/usr/bin/env python3
"""Runs Strata, ClickHouse (chdb) and DuckDB side by side on the same queries.

    python3 bench/run.py [--scale small|full] [--only NAME] [--engines strata,chdb,duckdb] [--runs 5]

Each query runs in a fresh process, engines alternating (A B C A B C ...), after
one warm-up run each. Time is the process's wall time; peak memory is the
process's maximum resident set size as the kernel reports it (wait4 rusage).
Results are checked against the workload's expected value and against each
other. Strata is built in release mode first if needed.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ROOT / "bench" / "workloads"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
STRATA = TARGET / "release" / "strata"

PYTHON_ENGINES = {
    "chdb": "import chdb, sys; sys.stdout.write(chdb.query(sys.argv[1], 'TSV').bytes().decode())",
    "duckdb": "import duckdb, sys; c = duckdb.connect(); c.execute('SET enable_progress_bar = false'); print(c.sql(sys.argv[1]).fetchall()[0][0])",
}


def command(engine, sql):
    if engine == "strata":
        return [str(STRATA), "local", "-q", sql]
    return [sys.executable, "-c", PYTHON_ENGINES[engine], sql]


def run_once(engine, sql):
    """Runs one query in a fresh process: (seconds, peak RSS bytes, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command(engine, sql), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()  # results are one line; stderr is read after
    err = proc.stderr.read()
    # wait4 gives this child's own peak RSS (ru_maxrss is in KiB on Linux).
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{engine} failed: {err.decode(errors='replace').strip()[:500]}")
    return elapsed, usage.ru_maxrss * 1024, out.decode().strip()


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem, "platform": platform.platform()}


def versions(engines):
    found = {}
    if "strata" in engines:
        found["strata"] = subprocess.run([str(STRATA), "--version"], capture_output=True, text=True).stdout.strip()
    for engine in ("chdb", "duckdb"):
        if engine in engines:
            code = f"import {engine}; print({engine}.__version__)"
            found[engine] = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    return found


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}"
        n /= 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="small", choices=["small", "full"])
    parser.add_argument("--only", action="append", help="workload name (repeatable)")
    parser.add_argument("--engines", default="strata,chdb,duckdb")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", default=str(ROOT / "build" / "bench" / "results.json"))
    args = parser.parse_args()
    engines = args.engines.split(",")

    if "strata" in engines:
        subprocess.run(["cargo", "build", "--release", "-p", "strata-cli"], cwd=ROOT, check=True)

    workloads = [tomllib.loads(p.read_text()) for p in sorted(WORKLOADS.glob("*.toml"))]
    if args.only:
        workloads = [w for w in workloads if w["name"] in args.only]

    report = {"machine": machine(), "versions": versions(engines), "scale": args.scale, "results": []}
    print(f"# {report['machine']['cpu']}, {report['machine']['cores']} cores; {report['versions']}")
    print(f"{'workload':<18} {'engine':<8} {'median s':>9} {'min s':>8} {'max s':>8} {'peak RSS':>11} {'time vs strata':>15}")
    for workload in workloads:
        n = workload["scales"][args.scale]
        expected = str(eval(workload["expected"].format(n=n)))  # arithmetic on the scale only
        runs = {engine: [] for engine in engines}
        outputs = {}
        for round_index in range(args.runs + 1):
            for engine in engines:
                sql = workload["sql"][engine].format(n=n)
                seconds, rss, out = run_once(engine, sql)
                outputs[engine] = out
                if round_index > 0:
                    runs[engine].append({"seconds": seconds, "peak_rss": rss})
        strata_median = None
        for engine in engines:
            times = [r["seconds"] for r in runs[engine]]
            median = statistics.median(times)
            if engine == "strata":
                strata_median = median
            peak = max(r["peak_rss"] for r in runs[engine])
            ratio = f"{median / strata_median:.2f}x" if strata_median else "-"
            flag = "" if outputs[engine] == expected else f"  MISMATCH: got {outputs[engine]!r}, expected {expected!r}"
            print(f"{workload['name']:<18} {engine:<8} {median:>9.3f} {min(times):>8.3f} {max(times):>8.3f} "
                  f"{human_bytes(peak):>11} {ratio:>15}{flag}")
            report["results"].append({"workload": workload["name"], "n": n, "engine": engine, "runs": runs[engine],
                                      "median_seconds": median, "peak_rss": peak, "output": outputs[engine],
                                      "correct": outputs[engine] == expected})
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(report, indent=2))
    print(f"\nAll runs: {args.output}")


if __name__ == "__main__":
    main()
