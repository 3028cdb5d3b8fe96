#!/usr/bin/env python3
"""TPC-H on Strata, ClickHouse (chdb) and DuckDB side by side.

    python3 bench/tpch.py [--scale-factor 1] [--runs 3] [--queries 1,6,13] [--engines strata,chdb,duckdb]

Generates the data with `tpchgen-cli` (installed into build/tools by `cargo
install` when missing) as Parquet in build/bench/tpch/sf<N>, loads it into
MergeTree tables (Strata, chdb; bench/tpch/schema.sql) and native tables
(DuckDB), then runs the 22 queries (bench/tpch/queries, ClickHouse's SQL, run
by DuckDB as they are), each in a fresh process, engines alternating, after one
warm-up run. The ClickHouse engines run with `join_use_nulls = 1`: the standard
semantics Q13's outer join counts on. Every answer is compared with the other
engines' (numbers within a relative 1e-9, or the last digit the shorter shows;
rows that tie on the ORDER BY may come in another order).
Prints per-query medians, the geometric mean and load times; exits 1 when an
engine failed a query or answers differ.
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from run import ensure_environment, strata_binary  # noqa: E402

TPCHGEN_VERSION = "4.0.0"
TOOLS = ROOT / "build" / "tools"
TABLES = ("nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem")
CLICKHOUSE_SETTINGS = " SETTINGS join_use_nulls = 1"
TOLERANCE = 1e-9

CHDB_CHILD = """
import sys, time
from chdb import session
s = session.Session(sys.argv[1])
start = time.perf_counter()
for statement in sys.argv[2:]:
    out = s.query(statement, "TSV").bytes()
seconds = time.perf_counter() - start
sys.stdout.write(out.decode())
sys.stderr.write(f"{seconds:.6f}\\n")
"""

DUCKDB_CHILD = """
import sys, time, duckdb
c = duckdb.connect(sys.argv[1])
c.execute("SET enable_progress_bar = false")
start = time.perf_counter()
for statement in sys.argv[2:]:
    rows = c.execute(statement).fetchall()
seconds = time.perf_counter() - start
for row in rows:
    print("\\t".join("\\\\N" if v is None else str(v) for v in row))
sys.stderr.write(f"{seconds:.6f}\\n")
"""


def tpchgen():
    binary = TOOLS / "bin" / "tpchgen-cli"
    if not binary.exists():
        print(f"installing tpchgen-cli {TPCHGEN_VERSION} into {TOOLS} ...", file=sys.stderr)
        subprocess.run(["cargo", "install", "--locked", "--root", str(TOOLS), "tpchgen-cli",
                        "--version", TPCHGEN_VERSION], check=True)
    return binary


def generate(scale_factor):
    data = ROOT / "build" / "bench" / "tpch" / f"sf{scale_factor:g}"
    done = data / "complete"
    if not done.exists():
        data.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(tpchgen()), "parquet", "-s", f"{scale_factor:g}", "-o", str(data),
                        "--overwrite"], check=True)
        done.write_text("")
    return data


def queries(scale_factor, selected):
    """{number: SQL}; Q11's fraction is 0.0001 / SF, as the specification scales it."""
    result = {}
    for path in sorted((HERE / "tpch" / "queries").glob("*.sql")):
        number = int(path.stem)
        if not selected or number in selected:
            result[number] = path.read_text().strip().format(fraction=f"{0.0001 / scale_factor:.10f}")
    return result


class Engine:
    def __init__(self, name, root, binary):
        self.name, self.binary = name, binary
        self.path = str(root / (name + (".db" if name == "duckdb" else "")))

    def argv(self, statements):
        if self.name == "strata":
            return [str(self.binary), "local", "--path", self.path, "--time", "--format", "TSV",
                    "--multiquery", "-q", ";\n".join(statements)]
        child = CHDB_CHILD if self.name == "chdb" else DUCKDB_CHILD
        return [sys.executable, "-c", child, self.path, *statements]

    def query(self, sql):
        return sql + CLICKHOUSE_SETTINGS if self.name != "duckdb" else sql

    def load_statements(self, data):
        if self.name == "duckdb":
            return [f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data / t}.parquet')" for t in TABLES]
        schema = [s.strip() for s in (HERE / "tpch" / "schema.sql").read_text().split(";") if s.strip()]
        return schema + [f"INSERT INTO {t} SELECT * FROM file('{data / t}.parquet')" for t in TABLES]


def decimals(text):
    return len(text.partition(".")[2]) if "e" not in text.lower() else 17


def numbers_equal(x, y):
    """Within TOLERANCE, or within the last digit the shorter one shows: ClickHouse
    divides Decimals in the dividend's scale (Q8's share is 0.0344), DuckDB in DOUBLE."""
    fx, fy = number(x), number(y)
    if fx is None or fy is None:
        return False
    allowed = TOLERANCE * max(abs(fx), abs(fy), 1.0)
    if decimals(x) != decimals(y):
        allowed = max(allowed, 10.0 ** -min(decimals(x), decimals(y)))
    return abs(fx - fy) <= allowed


def difference(reference, other):
    """None when two TSV answers agree, else the first difference."""
    a = [line.split("\t") for line in reference.strip().splitlines()]
    b = [line.split("\t") for line in other.strip().splitlines()]
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    for i, (ra, rb) in enumerate(zip(a, b), 1):
        if len(ra) != len(rb):
            return f"row {i}: {len(ra)} columns against {len(rb)}"
        for c, (x, y) in enumerate(zip(ra, rb), 1):
            if x != y and not numbers_equal(x, y):
                return f"row {i}, column {c}: {x!r} against {y!r}"
    return None


def ordered_apart(reference, other):
    """Whether two answers hold the same rows, ordered differently: rows that
    tie on a query's ORDER BY (Q11's equal values at SF10) may come in any order."""
    def rows(text):
        parsed = [line.split("\t") for line in text.strip().splitlines()]
        return sorted(parsed, key=lambda row: [(0, number(c), "") if number(c) is not None else (1, 0.0, c) for c in row])
    a, b = rows(reference), rows(other)
    return len(a) == len(b) and all(
        len(ra) == len(rb) and all(x == y or numbers_equal(x, y) for x, y in zip(ra, rb))
        for ra, rb in zip(a, b))


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale-factor", type=float, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", help="comma-separated query numbers (default: all 22)")
    parser.add_argument("--engines", default="strata,chdb,duckdb")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds before a run is killed")
    parser.add_argument("--strata-binary", help="a prebuilt strata instead of building one")
    parser.add_argument("--no-venv", action="store_true", help="use the current Python as is")
    args = parser.parse_args()
    if not args.no_venv:
        ensure_environment(__file__)
    from harness.measure import run_process

    names = args.engines.split(",")
    binary = strata_binary(args.strata_binary)
    if "strata" in names and not args.strata_binary:
        subprocess.run(["cargo", "build", "--release", "-p", "strata-cli"], cwd=ROOT, check=True)
    data = generate(args.scale_factor)
    selected = {int(q) for q in args.queries.split(",")} if args.queries else set()
    sql = queries(args.scale_factor, selected)

    with tempfile.TemporaryDirectory(dir=data) as root:
        engines = [Engine(name, Path(root), binary) for name in names]
        print(f"# TPC-H SF{args.scale_factor:g}: load s, then per-query medians of {args.runs} runs "
              "(seconds measured inside each engine; ratios engine / Strata)")
        for engine in engines:
            run = run_process(engine.argv(engine.load_statements(data)), args.timeout)
            if run.error:
                sys.exit(f"{engine.name} failed to load: {run.error}")
            print(f"load {engine.name}: {run.wall_seconds:.2f} s")
        times = {e.name: {} for e in engines}
        answers = {e.name: {} for e in engines}
        failures = []
        header = "| query | " + " | ".join(names) + " | answers |"
        print("\n" + header + "\n|---|" + "---:|" * len(names) + "---|")
        for number, text in sql.items():
            runs = {e.name: [] for e in engines}
            for round_index in range(1 + args.runs):
                for engine in engines:
                    if answers[engine.name].get(number, "") is None:
                        continue  # failed once: not run again
                    run = run_process(engine.argv([engine.query(text)]), args.timeout)
                    if run.error:
                        answers[engine.name][number] = None
                        failures.append(f"Q{number} {engine.name}: {run.error.splitlines()[-1][:300]}")
                        continue
                    answers[engine.name].setdefault(number, run.output)
                    if round_index > 0:
                        runs[engine.name].append(run.query_seconds)
            for name in names:
                times[name][number] = statistics.median(runs[name]) if runs[name] else None
            check = "same"
            reference = answers[names[0]].get(number)
            for name in names[1:]:
                other = answers[name].get(number)
                if reference is None or other is None:
                    check = "not compared"
                    continue
                different = difference(reference, other)
                if different and ordered_apart(reference, other):
                    check = "same rows, ties ordered differently"
                elif different:
                    check = f"{name} differs: {different}"
                    failures.append(f"Q{number}: {name} differs from {names[0]}: {different}")
            base = times[names[0]][number]
            cells = [cell(times[name][number], base if name != names[0] else None) for name in names]
            print(f"| Q{number} | " + " | ".join(cells) + f" | {check} |", flush=True)
        means = [geometric_mean(list(times[name].values())) for name in names]
        print("| geometric mean | " + " | ".join(cell(m, means[0] if i else None) for i, m in enumerate(means)) + " | |")
    if failures:
        print("\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)


def cell(seconds, base):
    if seconds is None:
        return "failed"
    ratio = f" x{seconds / base:.2f}" if base else ""
    return f"{seconds:.3f}{ratio}"


def geometric_mean(values):
    if not values or any(v is None or v <= 0 for v in values):
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


if __name__ == "__main__":
    main()
