#!/usr/bin/env python3
"""The mutation benchmark (seed 004): Strata, chdb and DuckDB side by side.

Builds the seed table `t (A Int64, S String, D Date) PARTITION BY D ORDER BY A`
of N rows (7 partitions) once per engine, then runs each statement of the seed
on a fresh copy of it: a lightweight DELETE, an ALTER DELETE and an ALTER UPDATE,
each by the key `A` and by the non-key `S`, and `UPDATE ... SET` by the key and
by `S` (chdb runs those on a copy made with `enable_block_number_column` and
`enable_block_offset_column`, which its lightweight updates need).
For Strata and chdb the bytes read and written and the parts rewritten are the
differences of `system.events` around the statement, in the process that ran
it (ReadBufferFromFileDescriptorReadBytes, WriteBufferFromFileDescriptorWriteBytes,
MutationTotalParts - MutationUntouchedParts); DuckDB runs DELETE and UPDATE on a
native table and is timed only. A check query after each statement must give
the same answer in every engine.

Usage: python3 bench/mutations.py [--rows 70000000] [--strata-binary PATH]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.report import human_bytes  # noqa: E402
from merge_tree_seed import create_sql, strata_default  # noqa: E402

EVENTS = ("ReadBufferFromFileDescriptorReadBytes", "WriteBufferFromFileDescriptorWriteBytes",
          "MutationTotalParts", "MutationUntouchedParts")
EVENTS_SQL = ("SELECT event, value FROM system.events WHERE event IN ("
              + ", ".join(f"'{e}'" for e in EVENTS) + ")")
CHECK_SQL = "SELECT count(), countIf(S = '') FROM t"


def statements(rows):
    """(name, ClickHouse SQL, DuckDB SQL); each targets a different row."""
    key = lambda share: rows * share // 100  # noqa: E731
    sync = " SETTINGS mutations_sync = 2"
    return [
        ("DELETE FROM by A", f"DELETE FROM t WHERE A = {key(14)}", f"DELETE FROM t WHERE A = {key(14)}"),
        ("ALTER DELETE by A", f"ALTER TABLE t DELETE WHERE A = {key(29)}{sync}", f"DELETE FROM t WHERE A = {key(29)}"),
        ("ALTER UPDATE by A", f"ALTER TABLE t UPDATE S = '' WHERE A = {key(43)}{sync}",
         f"UPDATE t SET S = '' WHERE A = {key(43)}"),
        ("DELETE FROM by S", f"DELETE FROM t WHERE S = '{key(57)}'", f"DELETE FROM t WHERE S = '{key(57)}'"),
        ("ALTER DELETE by S", f"ALTER TABLE t DELETE WHERE S = '{key(71)}'{sync}",
         f"DELETE FROM t WHERE S = '{key(71)}'"),
        ("ALTER UPDATE by S", f"ALTER TABLE t UPDATE S = '' WHERE S = '{key(86)}'{sync}",
         f"UPDATE t SET S = '' WHERE S = '{key(86)}'"),
        ("UPDATE SET by A", f"UPDATE t SET S = '' WHERE A = {key(93)}", f"UPDATE t SET S = '' WHERE A = {key(93)}"),
        ("UPDATE SET by S", f"UPDATE t SET S = '' WHERE S = '{key(97)}'",
         f"UPDATE t SET S = '' WHERE S = '{key(97)}'"),
    ]

# Table settings chdb's lightweight updates (UPDATE ... SET) need.
PATCH_SETTINGS = ", enable_block_number_column = 1, enable_block_offset_column = 1"


def parse_events(text, events=EVENTS):
    values = dict.fromkeys(events, 0)
    for line in text.strip().splitlines():
        name, value = line.split("\t")
        values[name] = int(value)
    return values


def delta(before, after):
    return {e: after[e] - before[e] for e in EVENTS}


def run_strata(binary, path, sql):
    """One process: events, the statement, events, the check; the statement's time."""
    script = (f"SELECT '#before';\n{EVENTS_SQL};\n{sql};\nSELECT '#after';\n{EVENTS_SQL};\n"
              f"SELECT '#check';\n{CHECK_SQL}")
    out = subprocess.run([binary, "local", "--path", path, "--time", "--queries-file", "/dev/stdin"],
                         input=script, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1][:120]}
    times = [float(x) for x in re.findall(r"^(\d+\.\d+)$", out.stderr, re.M)]
    sections = dict(re.findall(r"^#(\w+)\n((?:(?!#).*\n?)*)", out.stdout, re.M))
    return {"seconds": times[2],
            "events": delta(parse_events(sections["before"]), parse_events(sections["after"])),
            "check": sections["check"].strip()}


CHDB_STEP = """
import json, sys, time
from chdb import session
s = session.Session(sys.argv[1])
events = lambda: s.query(sys.argv[3], "TSV").bytes().decode()
before = events()
start = time.perf_counter()
try:
    s.query(sys.argv[2])
except Exception as e:
    print(json.dumps({"error": str(e).splitlines()[0][:120]}))
    sys.exit()
elapsed = time.perf_counter() - start
after = events()
check = s.query(sys.argv[4], "TSV").bytes().decode().strip()
print(json.dumps({"seconds": elapsed, "before": before, "after": after, "check": check}))
"""

DUCKDB_STEP = """
import json, sys, time, duckdb
c = duckdb.connect(sys.argv[1])
start = time.perf_counter()
c.execute(sys.argv[2])
elapsed = time.perf_counter() - start
check = c.execute("SELECT count(*), count(*) FILTER (WHERE S = '') FROM t").fetchone()
print(json.dumps({"seconds": elapsed, "check": f"{check[0]}\\t{check[1]}"}))
"""


def run_python(script, *args):
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fresh_copy(base, root, name):
    path = os.path.join(root, name)
    if os.path.isdir(base):
        shutil.copytree(base, path, symlinks=True)
    else:
        shutil.copy(base, path)
    return path


def build(binary, root, rows):
    create, insert = create_sql(rows)
    strata = os.path.join(root, "strata_base")
    for sql in (create, insert, "OPTIMIZE TABLE t FINAL"):
        subprocess.run([binary, "local", "--path", strata, "-q", sql], check=True)
    chdb = os.path.join(root, "chdb_base")
    chdb_patch = os.path.join(root, "chdb_patch_base")
    for path, extra in ((chdb, ""), (chdb_patch, PATCH_SETTINGS)):
        for sql in (create + " SETTINGS min_bytes_for_wide_part = 0" + extra, insert, "OPTIMIZE TABLE t FINAL"):
            run_python("import sys\nfrom chdb import session\nsession.Session(sys.argv[1]).query(sys.argv[2])\n"
                       "print('{}')", path, sql)
    duck = os.path.join(root, "duck_base.db")
    per_partition = rows // 7
    for sql in ("CREATE TABLE t (A BIGINT, S VARCHAR, D DATE)",
                f"INSERT INTO t SELECT range, range::VARCHAR, DATE '2026-11-22' - (range // {per_partition})::INTEGER "
                f"FROM range({rows})"):
        run_python("import sys, duckdb\nduckdb.connect(sys.argv[1]).execute(sys.argv[2])\nprint('{}')", duck, sql)
    return strata, (chdb, chdb_patch), duck


def cell(result, base):
    if "error" in result:
        return f"fails: {result['error']}"
    text = f"{result['seconds']:.2f} s"
    if base and "seconds" in base and base is not result:
        text += f" x{result['seconds'] / base['seconds']:.2f}"
    events = result.get("events")
    if events:
        rewritten = events["MutationTotalParts"] - events["MutationUntouchedParts"]
        text += (f", read {human_bytes(events['ReadBufferFromFileDescriptorReadBytes'])}"
                 f", wrote {human_bytes(events['WriteBufferFromFileDescriptorWriteBytes'])}"
                 f", {rewritten} of {events['MutationTotalParts']} parts rewritten")
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=70_000_000)
    parser.add_argument("--strata-binary", default=strata_default())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        strata_base, chdb_base, duck_base = build(args.strata_binary, root, args.rows)
        rows = []
        for index, (name, sql, duck_sql) in enumerate(statements(args.rows)):
            strata = run_strata(args.strata_binary, fresh_copy(strata_base, root, f"s{index}"), sql)
            base = chdb_base[1] if sql.startswith("UPDATE") else chdb_base[0]
            chdb = run_python(CHDB_STEP, fresh_copy(base, root, f"c{index}"), sql, EVENTS_SQL, CHECK_SQL)
            if "before" in chdb:
                chdb["events"] = delta(parse_events(chdb["before"]), parse_events(chdb["after"]))
            duck = run_python(DUCKDB_STEP, fresh_copy(duck_base, root, f"d{index}.db"), duck_sql)
            checks = {r.get("check") for r in (strata, chdb, duck) if "check" in r}
            rows.append((name, sql, strata, chdb, duck, "same" if len(checks) == 1 else f"DIFFER {checks}"))
            for path in (f"s{index}", f"c{index}"):
                shutil.rmtree(os.path.join(root, path), ignore_errors=True)
            os.remove(os.path.join(root, f"d{index}.db"))
    print(f"N = {args.rows:,}, one run each on a fresh copy; xN = engine / Strata (above 1: Strata faster)\n")
    print("| statement | Strata | chdb | DuckDB | check |")
    print("|---|---|---|---|---|")
    for name, sql, strata, chdb, duck, check in rows:
        print(f"| {name} | {cell(strata, strata)} | {cell(chdb, strata)} | {cell(duck, strata)} | {check} |")


if __name__ == "__main__":
    main()
