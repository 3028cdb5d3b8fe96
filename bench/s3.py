#!/usr/bin/env python3
"""The object-storage benchmark (seed 004 on S3): Strata and chdb side by side.

Starts s3s-fs (which `scripts/setup.sh --tests` installs into build/tools) on a
loopback port, then in each engine builds the seed table
`t (A Int64, S String, D Date) PARTITION BY D ORDER BY A` of N rows (7
partitions) on an S3 disk in that server (Strata: a disk in a config file;
chdb: `SETTINGS disk = disk(type = s3, ...)`), and the same table on local
disk. Each step runs in a fresh process (cold: no cache of either engine holds
the data), timed inside it (chdb) or by `--time` (Strata):

- the insert;
- a point lookup by key, `SELECT * FROM t WHERE A = X`;
- the seed's scan of S, `SELECT * FROM t WHERE S = 'X'`;
- a full scan of S that no index or bound can skip, `WHERE S LIKE '%X%'`,
  on S3 and on local disk (rows per second of each), and the same with
  `remote_filesystem_read_prefetch = 0` (one request at a time per stream);
- the full scan again in the same process (warm: Strata's page cache; chdb
  reads S3 again, as it keeps no cache for a disk without a filesystem cache);
- the full scan of a third table, on a `cache` disk over the S3 disk (a local
  filesystem cache of its objects, 10 GiB): cold (the cache empty, filled by
  the scan) and again in the same process (read from the cache).

GETs and bytes fetched are differences of `system.events` (S3GetObject,
ReadBufferFromS3Bytes) around the statement, in the process that ran it.

Usage: python3 bench/s3.py [--rows 70000000] [--runs 3] [--strata-binary PATH]
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.report import human_bytes  # noqa: E402
from merge_tree_seed import create_sql, strata_default  # noqa: E402
from mutations import parse_events  # noqa: E402

ACCESS_KEY, SECRET_KEY, BUCKET = "strata", "strata-secret", "bucket"
EVENTS = ("S3GetObject", "ReadBufferFromS3Bytes")
EVENTS_SQL = ("SELECT event, value FROM system.events WHERE event IN ("
              + ", ".join(f"'{e}'" for e in EVENTS) + ")")


def queries(rows):
    """(name, SQL) of each measured query."""
    key = rows * 7 // 10
    return [
        ("point lookup by A", f"SELECT * FROM t WHERE A = {key}"),
        ("seed scan of S", f"SELECT * FROM t WHERE S = '{key}'"),
        ("full scan of S", "SELECT count() FROM t WHERE S LIKE '%77777%'"),
        ("full scan of S, no read-ahead",
         "SELECT count() FROM t WHERE S LIKE '%77777%' SETTINGS remote_filesystem_read_prefetch = 0"),
    ]


def start_s3s(root):
    binary = os.path.join(HERE, "..", "build", "tools", "bin", "s3s-fs")
    if not os.path.exists(binary):
        sys.exit(f"{binary} is missing: run scripts/setup.sh --tests")
    os.makedirs(os.path.join(root, BUCKET))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(port),
                               "--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY, root],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            time.sleep(0.05)
    sys.exit("s3s-fs did not start")


def strata_step(binary, path, config, sql, warm=False):
    """Seconds, GETs and bytes of `sql` (its second run when `warm`)."""
    repeat = f"{sql};\n" if warm else ""
    script = (f"{repeat}SELECT '#before';\n{EVENTS_SQL};\nSELECT '#result';\n{sql};\n"
              f"SELECT '#after';\n{EVENTS_SQL};\n")
    out = subprocess.run([binary, "local", "--path", path, "--config-file", config, "--time",
                          "--queries-file", "/dev/stdin"],
                         input=script, capture_output=True, text=True, check=True)
    times = [float(x) for x in re.findall(r"^(\d+\.\d+)$", out.stderr, re.M)]
    sections = dict(re.findall(r"^#(\w+)\n((?:(?!#).*\n?)*)", out.stdout, re.M))
    before, after = (parse_events(sections[s], EVENTS) for s in ("before", "after"))
    return {"seconds": times[-3], **{e: after[e] - before[e] for e in EVENTS}}


CHDB_STEP = """
import json, sys, time
from chdb import session
s = session.Session(sys.argv[1])
events = lambda: dict(tuple(l.split("\\t")) for l in s.query(sys.argv[3], "TSV").bytes().decode().splitlines())
if sys.argv[4] == "warm":
    s.query(sys.argv[2])
before = events()
start = time.perf_counter()
s.query(sys.argv[2])
elapsed = time.perf_counter() - start
after = events()
print(json.dumps({"seconds": elapsed, **{e: int(after.get(e, 0)) - int(before.get(e, 0))
                                          for e in ("S3GetObject", "ReadBufferFromS3Bytes")}}))
"""


def chdb_step(path, sql, warm=False):
    out = subprocess.run([sys.executable, "-c", CHDB_STEP, path, sql, EVENTS_SQL,
                          "warm" if warm else "cold"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_step(steps):
    return {k: statistics.median(s[k] for s in steps) for k in steps[0]}


def measure(step, rows, runs):
    """Every step of the table: insert done before; queries cold, the full scan warm too."""
    results = {}
    for name, sql in queries(rows):
        results[name] = median_step([step(sql, False) for _ in range(runs)])
    results["full scan of S, warm"] = median_step([step(queries(rows)[2][1], True) for _ in range(runs)])
    return results


def measure_cache(step, rows, runs):
    """The full scan through a cache disk: cold, then warm in the same process."""
    scan = queries(rows)[2][1]
    return {"cold": median_step([step(scan, False) for _ in range(runs)]),
            "warm": median_step([step(scan, True) for _ in range(runs)])}


def build_strata(binary, root, port, rows):
    config = os.path.join(root, "strata.xml")
    with open(config, "w") as f:
        f.write(f"""<clickhouse><storage_configuration><disks><s3><type>s3</type>
<endpoint>http://127.0.0.1:{port}/{BUCKET}/strata/</endpoint>
<access_key_id>{ACCESS_KEY}</access_key_id><secret_access_key>{SECRET_KEY}</secret_access_key>
</s3><s3cache><type>cache</type><disk>s3</disk><path>s3cache</path><max_size>10Gi</max_size>
</s3cache></disks></storage_configuration></clickhouse>""")
    create, insert = create_sql(rows)
    paths, inserts = {}, {}
    for where, settings in (("s3", " SETTINGS disk = 's3'"), ("local", ""),
                            ("cache", " SETTINGS disk = 's3cache'")):
        path = os.path.join(root, f"strata_{where}")
        run = lambda sql: subprocess.run(  # noqa: E731
            [binary, "local", "--path", path, "--config-file", config, "--time", "-q", sql],
            capture_output=True, text=True, check=True)
        run(create + settings)
        out = run(insert)
        inserts[where] = float(re.findall(r"^(\d+\.\d+)$", out.stderr, re.M)[-1])
        run("OPTIMIZE TABLE t FINAL")
        paths[where] = path
    return config, paths, inserts


def build_chdb(root, port, rows):
    disk = (f"disk(type = s3, endpoint = 'http://127.0.0.1:{port}/{BUCKET}/chdb/', "
            f"access_key_id = '{ACCESS_KEY}', secret_access_key = '{SECRET_KEY}')")
    cached = f"disk(type = cache, max_size = '10Gi', path = 'chdb_cache', disk = {disk})"
    create, insert = create_sql(rows)
    paths, inserts = {}, {}
    for where, settings in (("s3", f" SETTINGS disk = {disk}"), ("local", ""),
                            ("cache", f" SETTINGS disk = {cached}")):
        path = os.path.join(root, f"chdb_{where}")
        chdb_step(path, create + settings)
        inserts[where] = chdb_step(path, insert)["seconds"]
        chdb_step(path, "OPTIMIZE TABLE t FINAL")
        paths[where] = path
    return paths, inserts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=70_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strata-binary", default=strata_default())
    args = parser.parse_args()
    rows = args.rows
    with tempfile.TemporaryDirectory() as root:
        server, port = start_s3s(os.path.join(root, "s3"))
        try:
            config, paths, strata_inserts = build_strata(args.strata_binary, root, port, rows)
            strata_at = lambda where: lambda sql, warm: strata_step(  # noqa: E731
                args.strata_binary, paths[where], config, sql, warm)
            strata = {where: measure(strata_at(where), rows, args.runs) for where in ("s3", "local")}
            strata_cache = measure_cache(strata_at("cache"), rows, args.runs)
            chdb_paths, chdb_inserts = build_chdb(root, port, rows)
            chdb_at = lambda where: lambda sql, warm: chdb_step(chdb_paths[where], sql, warm)  # noqa: E731
            chdb = {where: measure(chdb_at(where), rows, args.runs) for where in ("s3", "local")}
            chdb_cache = measure_cache(chdb_at("cache"), rows, args.runs)
        finally:
            server.kill()
    print(f"N = {rows:,} on s3s-fs (loopback); medians of {args.runs} runs, each in a fresh process; "
          "ratio = chdb / Strata (above 1: Strata faster)\n")
    print("| step | Strata on S3 | chdb on S3 | Strata, local disk | chdb, local disk |")
    print("|---|---|---|---|---|")
    print(f"| insert | {strata_inserts['s3']:.2f} s | {chdb_inserts['s3']:.2f} s "
          f"x{chdb_inserts['s3'] / strata_inserts['s3']:.2f} | {strata_inserts['local']:.2f} s "
          f"| {chdb_inserts['local']:.2f} s |")
    for name in strata["s3"]:
        s, c = strata["s3"][name], chdb["s3"][name]
        full = "full" in name
        print(f"| {name} | {cell(s, rows, full)} | {cell(c, rows, full)} x{c['seconds'] / s['seconds']:.2f} "
              f"| {strata['local'][name]['seconds']:.3f} s{rate(strata['local'][name], rows, full)} "
              f"| {chdb['local'][name]['seconds']:.3f} s{rate(chdb['local'][name], rows, full)} |")
    print("\n| full scan of S on a cache disk over S3 | Strata | chdb |")
    print("|---|---|---|")
    for run in ("cold", "warm"):
        s, c = strata_cache[run], chdb_cache[run]
        print(f"| {run} | {cell(s, rows, True)} | {cell(c, rows, True)} x{c['seconds'] / s['seconds']:.2f} |")


def rate(result, rows, full):
    return f", {rows / result['seconds'] / 1e6:.1f} M rows/s" if full else ""


def cell(result, rows, full):
    return (f"{result['seconds']:.3f} s{rate(result, rows, full)}, {result['S3GetObject']:.0f} GETs, "
            f"{human_bytes(result['ReadBufferFromS3Bytes'])}")


if __name__ == "__main__":
    main()
