#!/usr/bin/env python3
"""Seed 001 re-done for Strata: point lookups by key from concurrent clients
while the data cache holds 100%, 50%, 25% and 10% of the working set, and a
run in which the cache shrinks to 10% and grows back without a stall.

Strata runs as `strata server` (release build) on a loopback port with a
configuration file naming the cache sizes; a size changes by rewriting the
file and `SYSTEM RELOAD CONFIG`, while clients keep querying. Clients are
processes on HTTP/1.1 keep-alive; keys are drawn uniform or Pareto
(sysbench's formula, h = 0.2: about 80% of lookups go to 20% of the keys).
The cache is measured two ways at each size: decoded granules only (the hot
tier, `use_uncompressed_cache = 1`) and compressed granules only (the warm
tier, the same bytes). The working set is what the hot tier holds after
every granule was read once.

With `--disk s3` the table's column data lives in a local S3 server
(s3s-fs from build/tools, which `scripts/setup.sh --tests` installs), so a
granule the cache misses costs a GET, as on a remote disk.

Anchors, in-process at the same concurrency (threads): chdb (a MergeTree
table in a path, `use_uncompressed_cache = 1`) and DuckDB (a native table
with a PRIMARY KEY, so an ART index). Clients and server share this
machine's cores.

Usage: python3 bench/data_cache.py [--rows 4000000] [--clients 16] [--seconds 5]
                                   [--disk local|s3] [--strata-binary PATH] [--plot FILE]
"""
import argparse
import http.client
import math
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_LIMIT = 4 << 30
SIZES = [1.0, 0.5, 0.25, 0.1]
PARETO_H = 0.2


def pareto_key(rng, rows):
    """sysbench's Pareto draw: key = rows * u^(log h / log(1 - h))."""
    exponent = math.log(PARETO_H) / math.log(1.0 - PARETO_H)
    return min(rows - 1, int(rows * rng.random() ** exponent))


def uniform_key(rng, rows):
    return rng.randrange(rows)


DISTRIBUTIONS = {"uniform": uniform_key, "pareto": pareto_key}


def lookup(key):
    return f"SELECT v FROM kv WHERE k = {key}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3:
    """s3s-fs on a loopback port, serving a bucket in `directory`."""

    KEY, SECRET = "strata", "strata-secret"

    def __init__(self, directory):
        binary = os.path.join(HERE, "..", "build", "tools", "bin", "s3s-fs")
        if not os.path.exists(binary):
            sys.exit(f"{binary} is missing: scripts/setup.sh --tests installs it")
        os.makedirs(os.path.join(directory, "bucket"))
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port),
             "--access-key", self.KEY, "--secret-key", self.SECRET, directory],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, "s3s-fs")

    def config(self):
        return f"""  <storage_configuration><disks><s3>
    <type>s3</type>
    <endpoint>http://127.0.0.1:{self.port}/bucket/data/</endpoint>
    <access_key_id>{self.KEY}</access_key_id>
    <secret_access_key>{self.SECRET}</secret_access_key>
  </s3></disks></storage_configuration>
"""

    def stop(self):
        self.process.terminate()
        self.process.wait()


def wait_for_port(port, what):
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not start")


class Server:
    """`strata server` whose cache sizes follow a configuration file."""

    def __init__(self, binary, directory, s3=None):
        self.s3 = s3
        self.directory = directory
        self.config = os.path.join(directory, "config.xml")
        self.port = free_port()
        self.write_config(8 << 30, 8 << 30)
        self.process = subprocess.Popen(
            [binary, "server", "--config-file", self.config],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, "strata server")

    def write_config(self, uncompressed, page):
        with open(self.config, "w") as f:
            f.write(f"""<clickhouse>
  <http_port>{getattr(self, 'port', 0)}</http_port>
  <path>{os.path.join(self.directory, 'data')}</path>
  <max_server_memory_usage>{SERVER_LIMIT}</max_server_memory_usage>
  <uncompressed_cache_size>{int(uncompressed)}</uncompressed_cache_size>
  <page_cache_max_size>{int(page)}</page_cache_max_size>
{self.s3.config() if self.s3 else ""}</clickhouse>
""")

    def resize(self, uncompressed, page):
        self.write_config(uncompressed, page)
        self.query("SYSTEM RELOAD CONFIG")

    def query(self, sql, **settings):
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        params = urllib.parse.urlencode({"query": sql, **settings})
        connection.request("POST", "/?" + params)
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 200, body
        return body

    def event(self, name):
        text = self.query(f"SELECT value FROM system.events WHERE event = '{name}'").strip()
        return int(text or 0)

    def metric(self, name):
        return float(self.query(f"SELECT value FROM system.asynchronous_metrics WHERE metric = '{name}'"))

    def stop(self):
        self.process.terminate()
        self.process.wait()


def http_client(port, rows, distribution, settings, seconds, seed, out):
    """One keep-alive client: (finish time, latency) of every lookup."""
    rng = random.Random(seed)
    draw = DISTRIBUTIONS[distribution]
    connection = http.client.HTTPConnection("127.0.0.1", port)
    suffix = "&" + urllib.parse.urlencode(settings)
    samples = []
    start = time.time()
    while time.time() - start < seconds:
        key = draw(rng, rows)
        sent = time.perf_counter()
        connection.request("GET", "/?query=" + urllib.parse.quote(lookup(key)) + suffix)
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200 and body == f"{key}\n".encode(), (key, body)
        samples.append((time.time(), time.perf_counter() - sent))
    out.put(samples)


def over_http(server, rows, distribution, settings, clients, seconds, during=None):
    out = multiprocessing.Queue()
    workers = [multiprocessing.Process(
        target=http_client, args=(server.port, rows, distribution, settings, seconds, i, out))
        for i in range(clients)]
    started = time.time()
    for w in workers:
        w.start()
    if during:
        during(started)
    samples = [s for _ in workers for s in out.get()]
    for w in workers:
        w.join()
    return started, samples


def in_threads(run, rows, distribution, clients, seconds):
    samples = []
    lock = threading.Lock()

    def client(seed):
        rng = random.Random(seed)
        draw = DISTRIBUTIONS[distribution]
        mine = []
        start = time.time()
        while time.time() - start < seconds:
            sent = time.perf_counter()
            run(lookup(draw(rng, rows)))
            mine.append((time.time(), time.perf_counter() - sent))
        with lock:
            samples.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return samples


def percentile(latencies, q):
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def summary(samples, seconds):
    latencies = [latency for _, latency in samples]
    return len(latencies) / seconds, percentile(latencies, 0.95)


def working_set(server, rows, granularity):
    """Reads every granule once through the hot tier; the bytes it then holds."""
    server.query("SYSTEM DROP UNCOMPRESSED CACHE")
    keys = ",".join(str(k) for k in range(0, rows, granularity))
    server.query(f"SELECT count() FROM kv WHERE k IN ({keys}) FORMAT Null",
                 use_uncompressed_cache=1, merge_tree_max_rows_to_use_cache=rows * 2)
    return server.metric("UncompressedCacheBytes")


def measure_strata(server, args, working):
    results = []
    tiers = [("decoded", {"use_uncompressed_cache": 1}, lambda b: (b, 0)),
             ("compressed", {"use_uncompressed_cache": 0}, lambda b: (0, b))]
    for tier, settings, sizes in tiers:
        for distribution in DISTRIBUTIONS:
            for share in SIZES:
                server.resize(*sizes(working * share))
                # Warm the cache at this size before counting.
                over_http(server, args.rows, distribution, settings, args.clients, args.warmup)
                gets = server.event("S3GetObject")
                _, samples = over_http(server, args.rows, distribution, settings, args.clients,
                                       args.seconds)
                gets = (server.event("S3GetObject") - gets) / max(1, len(samples))
                qps, p95 = summary(samples, args.seconds)
                results.append((f"strata, {tier}", distribution, share, qps, p95, gets))
                print(f"strata {tier:<10} {distribution:<8} {share:>5.0%} {qps:>8.0f} QPS "
                      f"p95 {p95:.2f} ms, {gets:.2f} GETs per lookup", file=sys.stderr)
    return results


def resize_run(server, args, working):
    """Pareto lookups for 3 x `resize_phase` seconds: the hot tier at 100%,
    shrunk to 10%, grown back. QPS per second, and p99 around each change."""
    phase = args.resize_phase
    changes = []

    def resizer(started):
        time.sleep(max(0.0, started + phase - time.time()))
        changes.append(time.time())
        server.resize(working * 0.1, 0)
        time.sleep(max(0.0, started + 2 * phase - time.time()))
        changes.append(time.time())
        server.resize(working * 1.0, 0)

    server.resize(working, 0)
    settings = {"use_uncompressed_cache": 1}
    over_http(server, args.rows, "pareto", settings, args.clients, args.warmup)
    started, samples = over_http(server, args.rows, "pareto", settings, args.clients, 3 * phase,
                                 during=lambda s: threading.Thread(target=resizer, args=(s,)).start())
    per_second = [0] * int(3 * phase + 1)
    for finished, _ in samples:
        second = int(finished - started)
        if 0 <= second < len(per_second):
            per_second[second] += 1
    steady = [lat for t, lat in samples if started + 1 <= t < changes[0]]
    around = [lat for t, lat in samples
              if any(c <= t < c + 1 for c in changes)]
    return per_second[:-1], percentile(steady, 0.99), percentile(around, 0.99)


def chdb_anchor(directory, args):
    from chdb import session
    s = session.Session(os.path.join(directory, "chdb"))
    s.query("CREATE TABLE kv (k UInt64, v String) ENGINE = MergeTree ORDER BY k")
    s.query(f"INSERT INTO kv SELECT number, toString(number) FROM numbers({args.rows})")
    lock = threading.Lock()

    def run(query):
        # One chdb session serves one query at a time.
        with lock:
            s.query(query + " SETTINGS use_uncompressed_cache = 1")

    return [("chdb", d, 1.0, *summary(in_threads(run, args.rows, d, args.clients, args.seconds),
                                      args.seconds), 0) for d in DISTRIBUTIONS]


def duckdb_anchor(args):
    import duckdb
    con = duckdb.connect()
    con.execute("CREATE TABLE kv (k UBIGINT PRIMARY KEY, v VARCHAR)")
    con.execute(f"INSERT INTO kv SELECT range, range::VARCHAR FROM range({args.rows})")
    local = threading.local()

    def run(query):
        if not hasattr(local, "cursor"):
            local.cursor = con.cursor()
        local.cursor.execute(query).fetchall()

    return [("DuckDB", d, 1.0, *summary(in_threads(run, args.rows, d, args.clients, args.seconds),
                                        args.seconds), 0) for d in DISTRIBUTIONS]


def plot(per_second, phase, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot(range(len(per_second)), per_second, marker="o")
    for change, label in [(phase, "shrink to 10%"), (2 * phase, "grow to 100%")]:
        ax.axvline(change, color="grey", linestyle="--")
        ax.text(change, max(per_second) * 0.05, " " + label)
    ax.set_xlabel("second")
    ax.set_ylabel("queries per second")
    ax.set_ylim(bottom=0)
    ax.set_title("Strata point lookups (Pareto) while the decoded-block cache is resized")
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {path}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--resize-phase", type=float, default=10)
    parser.add_argument("--disk", choices=["local", "s3"], default="local")
    parser.add_argument("--strata-binary")
    parser.add_argument("--plot", default=os.path.join(HERE, "..", "build", "bench",
                                                       "data_cache_resize.png"))
    parser.add_argument("--no-venv", action="store_true")
    args = parser.parse_args()
    if not args.no_venv:
        sys.path.insert(0, HERE)
        import run
        run.ensure_environment(os.path.abspath(__file__))
        args.strata_binary = args.strata_binary or str(run.strata_binary(None))
    with tempfile.TemporaryDirectory() as directory:
        s3 = S3(os.path.join(directory, "s3")) if args.disk == "s3" else None
        server = Server(args.strata_binary, directory, s3)
        table_settings = " SETTINGS disk = 's3'" if s3 else ""
        try:
            server.query("CREATE TABLE kv (k UInt64, v String) ENGINE = MergeTree ORDER BY k"
                         + table_settings)
            server.query(f"INSERT INTO kv SELECT number, toString(number) FROM numbers({args.rows})")
            server.query("OPTIMIZE TABLE kv FINAL")
            working = working_set(server, args.rows, 8192)
            print(f"working set: {working / 2**20:.1f} MiB decoded", file=sys.stderr)
            results = measure_strata(server, args, working)
            per_second, steady_p99, resize_p99 = resize_run(server, args, working)
        finally:
            server.stop()
            if s3:
                s3.stop()
        results += chdb_anchor(directory, args)
        results += duckdb_anchor(args)
    print(f"\n{args.rows:,} rows on the {args.disk} disk, {args.clients} clients, "
          f"{args.seconds:g} s per row; "
          f"working set {working / 2**20:.1f} MiB decoded")
    print("| engine | keys | cache | QPS | p95 ms | S3 GETs per lookup |")
    print("|---|---|---:|---:|---:|---:|")
    for engine, distribution, share, qps, p95, gets in results:
        print(f"| {engine} | {distribution} | {share:.0%} | {qps:,.0f} | {p95:.2f} | {gets:.2f} |")
    print(f"\nresize run (Pareto, decoded tier 100% -> 10% at {args.resize_phase:g} s "
          f"-> 100% at {2 * args.resize_phase:g} s): QPS per second {per_second}")
    print(f"p99 steady {steady_p99:.2f} ms; p99 in the second after each resize {resize_p99:.2f} ms; "
          f"lowest second {min(per_second)} QPS")
    plot(per_second, args.resize_phase, os.path.abspath(args.plot))


if __name__ == "__main__":
    main()
