#!/usr/bin/env python3
"""`strata server` over HTTP beside chdb and DuckDB in-process.

Measures, for `strata server` (release build) on a loopback port:
  - `SELECT 1` and a point lookup by key on a MergeTree table of 1e6 rows,
    over HTTP/1.1 keep-alive at 1, 8 and 64 concurrent clients (one process
    per client, so Python's GIL does not cap the rate): queries per second,
    p50 and p99 latency;
  - INSERT of 1e7 rows `(k UInt64, v String)` through clickhouse-connect
    (Native format, LZ4 compression) into a MergeTree table: rows per second.
The embedded references run the same statements in-process on one thread:
chdb (ClickHouse) and DuckDB; their INSERT reads the same rows from a
pandas DataFrame. They pay no network hop: the gap is the cost of the server.
Clients and server share this machine's cores.

Usage: python3 bench/http_server.py [--seconds 5] [--insert-rows 10000000] [--strata-binary PATH]
"""
import argparse
import http.client
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE_ROWS = 1_000_000
CREATE_KV = "CREATE TABLE kv (k UInt64, v String) ENGINE = MergeTree ORDER BY k"
FILL_KV = f"INSERT INTO kv SELECT number, toString(number) FROM numbers({TABLE_ROWS})"


def strata_default():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "strata")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def point_query(rng):
    return f"SELECT v FROM kv WHERE k = {rng.randrange(TABLE_ROWS)}"


def select_one(_rng):
    return "SELECT 1"


def http_worker(port, make_query, seconds, out):
    """One keep-alive client: latencies in seconds of every query it ran."""
    rng = random.Random(os.getpid())
    connection = http.client.HTTPConnection("127.0.0.1", port)
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        target = "/?query=" + urllib.parse.quote(make_query(rng))
        started = time.perf_counter()
        connection.request("GET", target)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        latencies.append(time.perf_counter() - started)
    out.put(latencies)


def over_http(port, make_query, clients, seconds):
    out = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=http_worker, args=(port, make_query, seconds, out))
               for _ in range(clients)]
    for w in workers:
        w.start()
    latencies = [x for _ in workers for x in out.get()]
    for w in workers:
        w.join()
    return summary(latencies, seconds)


def in_process(run, make_query, seconds):
    rng = random.Random(1)
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        query = make_query(rng)
        started = time.perf_counter()
        run(query)
        latencies.append(time.perf_counter() - started)
    return summary(latencies, seconds)


def summary(latencies, seconds):
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    return {"qps": len(latencies) / seconds, "p50_ms": pick(0.50), "p99_ms": pick(0.99)}


def start_server(binary, directory):
    port = free_port()
    process = subprocess.Popen(
        [binary, "server", "--path", os.path.join(directory, "data"), "--http-port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("strata server did not start")


def insert_rows(rows):
    import pandas
    return pandas.DataFrame({"k": range(rows), "v": [str(n) for n in range(rows)]})


def strata_insert(port, frame):
    import clickhouse_connect
    client = clickhouse_connect.get_client(host="127.0.0.1", port=port, compress="lz4")
    client.command("CREATE TABLE ins (k UInt64, v String) ENGINE = MergeTree ORDER BY k")
    started = time.perf_counter()
    client.insert_df("ins", frame)
    seconds = time.perf_counter() - started
    assert client.command("SELECT count() FROM ins") == len(frame)
    return seconds


def chdb_setup(directory):
    from chdb import session
    s = session.Session(os.path.join(directory, "chdb"))
    s.query(CREATE_KV)
    s.query(FILL_KV)
    return s


def chdb_insert(s, frame):
    s.query("CREATE TABLE ins (k UInt64, v String) ENGINE = MergeTree ORDER BY k")
    started = time.perf_counter()
    s.query("INSERT INTO ins SELECT * FROM Python(frame)")
    return time.perf_counter() - started


def duckdb_setup():
    import duckdb
    con = duckdb.connect()
    con.execute("CREATE TABLE kv AS SELECT range AS k, range::VARCHAR AS v FROM range(%d)" % TABLE_ROWS)
    return con


def duckdb_insert(con, frame):
    con.execute("CREATE TABLE ins (k UBIGINT, v VARCHAR)")
    started = time.perf_counter()
    con.execute("INSERT INTO ins SELECT * FROM frame")
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--insert-rows", type=int, default=10_000_000)
    parser.add_argument("--strata-binary", default=strata_default())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        server, port = start_server(args.strata_binary, directory)
        try:
            run_all(args, directory, port)
        finally:
            server.terminate()
            server.wait()


def run_all(args, directory, port):
    import clickhouse_connect
    client = clickhouse_connect.get_client(host="127.0.0.1", port=port)
    client.command(CREATE_KV)
    client.command(FILL_KV)
    chdb_session = chdb_setup(directory)
    duck = duckdb_setup()
    print(f"{'query':<14} {'engine':<22} {'QPS':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for name, make_query in [("SELECT 1", select_one), ("point lookup", point_query)]:
        rows = [(f"strata HTTP x{c}", over_http(port, make_query, c, args.seconds)) for c in (1, 8, 64)]
        rows.append(("chdb in-process x1", in_process(chdb_session.query, make_query, args.seconds)))
        rows.append(("DuckDB in-process x1",
                     in_process(lambda q: duck.execute(q).fetchall(), make_query, args.seconds)))
        for engine, r in rows:
            print(f"{name:<14} {engine:<22} {r['qps']:>9.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}")
    frame = insert_rows(args.insert_rows)
    inserts = [("strata HTTP (clickhouse-connect, Native, LZ4)", strata_insert(port, frame)),
               ("chdb in-process (DataFrame)", chdb_insert(chdb_session, frame)),
               ("DuckDB in-process (DataFrame)", duckdb_insert(duck, frame))]
    strata_seconds = inserts[0][1]
    print(f"\nINSERT of {args.insert_rows:,} rows")
    for engine, seconds in inserts:
        print(f"{engine:<46} {seconds:>7.2f} s {args.insert_rows / seconds / 1e6:>6.2f} M rows/s "
              f"(Strata's time / this: {strata_seconds / seconds:.2f})")


if __name__ == "__main__":
    main()
