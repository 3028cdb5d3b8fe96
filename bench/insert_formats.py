#!/usr/bin/env python3
"""INSERT ... FORMAT CSV / JSONEachRow from a file: Strata, chdb and DuckDB side by side.

Writes N rows of the seed table's shape `(A Int64, S String, D Date)` as CSV and
as JSONEachRow, then loads each file into a fresh MergeTree table (DuckDB: a
native table) and reports rows per second and the ratio of each engine's time
to Strata's. Strata reads the file on stdin (`INSERT INTO t FORMAT CSV`) and is
timed by `--time`; chdb runs `INSERT INTO t SELECT * FROM file(...)` and DuckDB
`COPY t FROM ...`, both timed in-process. Median of `--runs`.

Usage: python3 bench/insert_formats.py [--rows 10000000] [--runs 3] [--strata-binary PATH]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CREATE = "CREATE TABLE t (A Int64, S String, D Date) ENGINE = MergeTree PARTITION BY D ORDER BY A"


def strata_default():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "strata")


def write_files(directory, rows):
    csv_path = os.path.join(directory, "rows.csv")
    json_path = os.path.join(directory, "rows.jsonl")
    per_day = max(rows // 7, 1)
    with open(csv_path, "w") as csv, open(json_path, "w") as jsonl:
        for n in range(rows):
            day = f"2026-11-{22 - n // per_day:02d}"
            csv.write(f"{n},{n},{day}\n")
            jsonl.write(f'{{"A":{n},"S":"{n}","D":"{day}"}}\n')
    return {"CSV": csv_path, "JSONEachRow": json_path}


def strata_seconds(binary, path, fmt, data_path):
    subprocess.run([binary, "local", "--path", path, "-q", CREATE], check=True)
    with open(data_path, "rb") as data:
        out = subprocess.run(
            [binary, "local", "--path", path, "--time", "-q", f"INSERT INTO t FORMAT {fmt}"],
            stdin=data, capture_output=True, text=True, check=True)
    return float(re.findall(r"^(\d+\.\d+)$", out.stderr, re.M)[-1])


def chdb_seconds(path, fmt, data_path):
    script = (
        "import time; from chdb import session; s = session.Session(%r); s.query(%r); "
        "t = time.time(); s.query(\"INSERT INTO t SELECT * FROM file(%r, %s, 'A Int64, S String, D Date')\"); "
        "print(time.time() - t)" % (path, CREATE, data_path, fmt))
    out = subprocess.run(["python3", "-c", script], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def duckdb_seconds(path, fmt, data_path):
    reader = "read_csv" if fmt == "CSV" else "read_json"
    columns = "{'A': 'BIGINT', 'S': 'VARCHAR', 'D': 'DATE'}"
    options = f"columns = {columns}" + (", header = false" if fmt == "CSV" else ", format = 'newline_delimited'")
    script = (
        "import time, duckdb; c = duckdb.connect(%r); c.execute('CREATE TABLE t (A BIGINT, S VARCHAR, D DATE)'); "
        "t = time.time(); c.execute(\"INSERT INTO t SELECT * FROM %s(%r, %s)\"); print(time.time() - t)"
        % (os.path.join(path, "db.duckdb"), reader, data_path, options))
    out = subprocess.run(["python3", "-c", script], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strata-binary", default=strata_default())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        files = write_files(work, args.rows)
        print(f"rows: {args.rows:,}")
        print("| format | Strata s | Strata rows/s | chdb s | chdb / Strata | DuckDB s | DuckDB / Strata |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for fmt, data_path in files.items():
            times = {"strata": [], "chdb": [], "duckdb": []}
            for _ in range(args.runs):
                for engine, run in (("strata", lambda p: strata_seconds(args.strata_binary, p, fmt, data_path)),
                                    ("chdb", lambda p: chdb_seconds(p, fmt, data_path)),
                                    ("duckdb", lambda p: duckdb_seconds(p, fmt, data_path))):
                    with tempfile.TemporaryDirectory(dir=work) as path:
                        times[engine].append(run(path))
            s, c, d = (statistics.median(times[e]) for e in ("strata", "chdb", "duckdb"))
            print(f"| {fmt} | {s:.2f} | {args.rows / s / 1e6:.1f}M | {c:.2f} | {c / s:.2f}x | {d:.2f} | {d / s:.2f}x |")


if __name__ == "__main__":
    main()
