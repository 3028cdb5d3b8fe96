#!/usr/bin/env python3
"""The MergeTree seed benchmark (seed 004): Strata, chdb and DuckDB side by side.

Creates `t (A Int64, S String, D Date) PARTITION BY D ORDER BY A`, inserts N rows
(7 partitions of N/7 for N = 7e7), then times a point lookup on the key and a
full scan of the String column, and reads each column's bytes on disk. Each
engine keeps its table in a fresh directory; each step runs in its own process,
timed inside it (chdb and DuckDB) or by `--time` (Strata).

Usage: python3 bench/merge_tree_seed.py [--rows 70000000] [--runs 3] [--insert-runs 3] [--strata-binary PATH]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.report import human_bytes  # noqa: E402


def strata_default():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "strata")


def create_sql(rows):
    per_partition = rows // 7
    return (
        "CREATE TABLE t (A Int64, S String, D Date) ENGINE = MergeTree PARTITION BY D ORDER BY A",
        f"INSERT INTO t SELECT number, toString(number), toDate('2026-11-22') - intDiv(number, {per_partition}) FROM numbers({rows})",
    )


def point_sql(rows):
    return f"SELECT * FROM t WHERE A = {rows * 7 // 10}"


def scan_sql(rows):
    return f"SELECT * FROM t WHERE S = '{rows * 7 // 10}'"


SIZES_SQL = ("SELECT column, sum(column_data_compressed_bytes) FROM system.parts_columns "
             "WHERE table = 't' AND active = 1 GROUP BY column ORDER BY column")


def run_strata(binary, path, sql, profile=False):
    args = [binary, "local", "--path", path, "--time", "-q", sql]
    if profile:
        args.append("--print-profile-events")
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    seconds = [float(x) for x in re.findall(r"^(\d+\.\d+)$", out.stderr, re.M)]
    rows_read = re.findall(r"Processed ([\d.]+ (?:thousand |million |billion )?rows)", out.stderr)
    return out.stdout, (seconds[-1] if seconds else None), (rows_read[-1] if rows_read else "")


CHDB_STEP = """
import json, sys, time
from chdb import session
s = session.Session(sys.argv[1])
start = time.perf_counter()
r = s.query(sys.argv[2], "TSV")
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "out": r.bytes().decode()}))
"""

DUCKDB_STEP = """
import json, sys, time, duckdb
c = duckdb.connect(sys.argv[1])
start = time.perf_counter()
out = c.execute(sys.argv[2]).fetchall()
print(json.dumps({"seconds": time.perf_counter() - start, "out": str(out)[:200]}))
"""


def run_python(script, path, sql):
    out = subprocess.run([sys.executable, "-c", script, path, sql],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=70_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--insert-runs", type=int, default=3,
                        help="inserts into fresh tables; the last one's table is queried")
    parser.add_argument("--strata-binary", default=strata_default())
    args = parser.parse_args()
    rows = args.rows
    create, insert = create_sql(rows)
    results = {}
    with tempfile.TemporaryDirectory() as root:
        # Strata
        inserts = []
        for run in range(args.insert_runs):
            path = os.path.join(root, f"strata{run}")
            run_strata(args.strata_binary, path, create)
            inserts.append(run_strata(args.strata_binary, path, insert)[1])
        insert_s = median(inserts)
        run_strata(args.strata_binary, path, "OPTIMIZE TABLE t FINAL")
        point, scan = [], []
        for _ in range(args.runs):
            _, s, point_rows = run_strata(args.strata_binary, path, point_sql(rows), profile=True)
            point.append(s)
            _, s, _ = run_strata(args.strata_binary, path, scan_sql(rows))
            scan.append(s)
        sizes, _, _ = run_strata(args.strata_binary, path, SIZES_SQL)
        results["Strata"] = dict(insert=insert_s, point=median(point), point_rows=point_rows,
                                 scan=median(scan), sizes=sizes.strip())

        # chdb
        inserts = []
        for run in range(args.insert_runs):
            path = os.path.join(root, f"chdb{run}")
            run_python(CHDB_STEP, path, create + " SETTINGS min_bytes_for_wide_part = 0")
            inserts.append(run_python(CHDB_STEP, path, insert)["seconds"])
        insert_s = median(inserts)
        run_python(CHDB_STEP, path, "OPTIMIZE TABLE t FINAL")
        point, scan = [], []
        for _ in range(args.runs):
            point.append(run_python(CHDB_STEP, path, point_sql(rows))["seconds"])
            scan.append(run_python(CHDB_STEP, path, scan_sql(rows))["seconds"])
        # chdb's result does not carry rows read; its index analysis does.
        plan = run_python(CHDB_STEP, path, "EXPLAIN indexes = 1 " + point_sql(rows))["out"]
        granules = re.findall(r"Granules: (\d+/\d+)", plan)
        sizes = run_python(CHDB_STEP, path, SIZES_SQL)["out"]
        results["chdb"] = dict(insert=insert_s, point=median(point), point_rows=f"granules {granules[-1] if granules else '?'}",
                               scan=median(scan), sizes=sizes.strip())

        # DuckDB: a native table, no partitioning; an ART index is not built.
        per_partition = rows // 7
        inserts = []
        for run in range(args.insert_runs):
            path = os.path.join(root, f"duck{run}.db")
            run_python(DUCKDB_STEP, path, "CREATE TABLE t (A BIGINT, S VARCHAR, D DATE)")
            inserts.append(run_python(DUCKDB_STEP, path,
                                      f"INSERT INTO t SELECT range, range::VARCHAR, DATE '2026-11-22' - (range // {per_partition})::INTEGER FROM range({rows})")["seconds"])
        insert_s = median(inserts)
        point, scan = [], []
        for _ in range(args.runs):
            point.append(run_python(DUCKDB_STEP, path, point_sql(rows))["seconds"])
            scan.append(run_python(DUCKDB_STEP, path, scan_sql(rows))["seconds"])
        results["DuckDB"] = dict(insert=insert_s, point=median(point), point_rows="",
                                 scan=median(scan), sizes=f"file {human_bytes(os.path.getsize(path))}")

    base = results["Strata"]
    print(f"N = {rows:,}, medians of {args.insert_runs} inserts and {args.runs} query runs; "
          "ratios = engine / Strata (above 1: Strata faster)\n")
    print("| engine | insert s (M rows/s) | point lookup s | rows read | String scan s (M rows/s) |")
    print("|---|---:|---:|---|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['insert']:.2f} ({rows / r['insert'] / 1e6:.1f}) x{r['insert'] / base['insert']:.2f} "
              f"| {r['point']:.3f} x{r['point'] / base['point']:.2f} | {r['point_rows']} "
              f"| {r['scan']:.2f} ({rows / r['scan'] / 1e6:.1f}) x{r['scan'] / base['scan']:.2f} |")
    print()
    for name in ("Strata", "chdb", "DuckDB"):
        print(f"{name} bytes by column: {results[name]['sizes']!r}")


if __name__ == "__main__":
    main()
