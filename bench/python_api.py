#!/usr/bin/env python3
"""`import strata` beside chdb and DuckDB, in one Python process each.

Measures the median of `--runs` runs, in seconds, of:
  - an aggregation whose result is small (the engine's speed);
  - 1e7 rows of (UInt64, String) into a pyarrow Table and a pandas DataFrame
    (the cost of handing a large result to Python);
  - a GROUP BY over a pandas DataFrame of 1e7 rows named in the query (the
    cost of reading Python data).
Run it with an interpreter that has all three installed, the Strata package
as users get it (a release build):

    python3 -m venv /tmp/v && /tmp/v/bin/pip install ./crates/python chdb duckdb pandas
    /tmp/v/bin/python bench/python_api.py [--runs 3]
"""
import argparse
import statistics
import time

AGGREGATE = "SELECT number % 1000 AS k, count(), sum(number) FROM numbers(100000000) GROUP BY k"
ROWS = "SELECT number, toString(number) AS s FROM numbers(10000000)"
DUCK_AGGREGATE = "SELECT range % 1000 AS k, count(*), sum(range) FROM range(100000000) GROUP BY k"
DUCK_ROWS = "SELECT range AS number, CAST(range AS VARCHAR) AS s FROM range(10000000)"
FRAME_QUERY = "SELECT k, count(), sum(v) FROM frame GROUP BY k"


def median_seconds(work, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def duckdb_table(query):
    """DuckDB's result as a whole pyarrow Table (its `.arrow()` may be a lazy reader)."""
    import duckdb
    result = duckdb.sql(query).arrow()
    return result.read_all() if hasattr(result, "read_all") else result


def engines():
    import chdb
    import duckdb
    import strata
    # chdb reads a DataFrame through its Python() table function.
    chdb_frame = FRAME_QUERY.replace("FROM frame", "FROM Python(frame)")
    return {
        "strata": {
            "aggregate": lambda: strata.sql(AGGREGATE).arrow(),
            "rows to Arrow": lambda: strata.sql(ROWS).arrow(),
            "rows to pandas": lambda: strata.sql(ROWS).df(),
            "GROUP BY a DataFrame": lambda: strata.sql(FRAME_QUERY).arrow(),
        },
        "chdb": {
            "aggregate": lambda: chdb.query(AGGREGATE, "ArrowTable"),
            "rows to Arrow": lambda: chdb.query(ROWS, "ArrowTable"),
            "rows to pandas": lambda: chdb.query(ROWS, "DataFrame"),
            "GROUP BY a DataFrame": lambda: chdb.query(chdb_frame, "ArrowTable"),
        },
        "duckdb": {
            "aggregate": lambda: duckdb_table(DUCK_AGGREGATE),
            "rows to Arrow": lambda: duckdb_table(DUCK_ROWS),
            "rows to pandas": lambda: duckdb.sql(DUCK_ROWS).df(),
            "GROUP BY a DataFrame": lambda: duckdb_table(FRAME_QUERY),
        },
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import pandas as pd
    frame = pd.DataFrame({"k": [i % 1000 for i in range(10_000_000)],
                          "v": range(10_000_000)})
    table = engines()
    globals()["frame"] = frame  # the engines find DataFrames by name
    names = list(table["strata"])
    print("| workload | strata | chdb | duckdb | chdb / strata | duckdb / strata |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        seconds = {engine: median_seconds(table[engine][name], args.runs) for engine in table}
        s = seconds["strata"]
        print(f"| {name} | {s:.3f} | {seconds['chdb']:.3f} | {seconds['duckdb']:.3f} "
              f"| {seconds['chdb'] / s:.2f} | {seconds['duckdb'] / s:.2f} |", flush=True)


if __name__ == "__main__":
    main()
