#!/usr/bin/env python3
"""Queries larger than memory: Strata, chdb and DuckDB side by side.

The seed's INTERSECT at N rows, in two forms: as written (both sides sorted)
and with a hash of `number` on both sides, so order cannot help; a GROUP BY
with N distinct keys (`group_by`), and with N distinct string keys and
plain aggregates (`group_by_strings`); an ORDER BY of N rows (`order_by`, the
last row of the sorted whole, so no engine ships N rows to Python), and the
same over parallel input (`order_by_parallel`, `numbers_mt`); an inner
join of two N-row sides on a hashed key with a payload column each
(`join`, N rows out; `left_join`: the right side has every other key), and
an inner join of two `numbers(N)` on `number` (`sorted_join`: both sides
sorted on the key). Each runs unlimited, then under 50%, 25% and 10% of
Strata's unlimited peak for it (for the sorted forms, which need almost no
tracked memory in Strata, those of their hashed forms; every engine gets the
same absolute limits): Strata and chdb with
`max_memory_usage`, DuckDB with `memory_limit` and a temporary directory.
Each engine runs in its own process; the table shows seconds, the process's
peak RSS, and the ratio of each engine's time to Strata's, then the same
times as a text plot against the limit. A failure (for chdb:
MEMORY_LIMIT_EXCEEDED) is shown as such. Then Strata at the smallest
limit with each `temporary_data_compression`: time and compression ratio.

With `--runs N`, every cell is the run of median time among N (one run of
a large hash join on this machine varies by up to 2x).

Usage: python3 bench/spill.py [--rows 100000000] [--runs 1] [--strata-binary PATH]
"""
import argparse
import os
import re
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

FORMS = {
    "sorted": ("number", "range"),
    "hashed": ("intHash64(number)", "hash(range)"),
}
# GROUP BY forms: the key, as ClickHouse and as DuckDB write it.
GROUP_KEYS = {
    "group_by": ("intHash64(number)", "hash(range)"),
    "group_by_strings": ("toString(intHash64(number))", "CAST(hash(range) AS VARCHAR)"),
}
# Join forms: the join, and the right side's filter (every key, or half).
JOINS = {"join": ("JOIN", "1"), "left_join": ("LEFT JOIN", "number % 2 = 0")}
WORKLOADS = [*GROUP_KEYS, "order_by", "order_by_parallel", *JOINS, "sorted_join"]
# Forms that need almost no tracked memory take the limits of their hashed twin.
LIMITS_OF = {"sorted": "hashed", "sorted_join": "join"}


def strata_default():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "strata")


def clickhouse_query(form, rows):
    if form == "sorted_join":
        return (f"SELECT count(), sum(b.number) FROM numbers({rows}) AS a "
                f"JOIN numbers({rows}) AS b ON a.number = b.number")
    if form in JOINS:
        join, keep = JOINS[form]
        return (f"SELECT count(), sum(a.v), sum(b.w) FROM "
                f"(SELECT intHash64(number) AS k, number AS v FROM numbers({rows})) AS a {join} "
                f"(SELECT intHash64(number) AS k, number AS w FROM numbers({rows}) WHERE {keep}) AS b "
                f"ON a.k = b.k")
    if form in GROUP_KEYS:
        return (f"SELECT count(), sum(c) FROM (SELECT {GROUP_KEYS[form][0]} AS k, count() AS c "
                f"FROM numbers_mt({rows}) GROUP BY k)")
    if form in ("order_by", "order_by_parallel"):
        source = "numbers" if form == "order_by" else "numbers_mt"
        return (f"SELECT h FROM (SELECT intHash64(number) AS h FROM {source}({rows})) "
                f"ORDER BY h LIMIT 1 OFFSET {rows - 1}")
    key = FORMS[form][0]
    side = f"SELECT {key} FROM numbers(1, {rows})"
    return f"SELECT count() FROM ({side} INTERSECT {side})"


def duckdb_query(form, rows):
    if form == "sorted_join":
        return (f"SELECT count(*), sum(b.range) FROM range({rows}) AS a "
                f"JOIN range({rows}) AS b ON a.range = b.range")
    if form in JOINS:
        join, keep = JOINS[form]
        keep = keep.replace("number", "range")
        return (f"SELECT count(*), sum(a.v), sum(b.w) FROM "
                f"(SELECT hash(range) AS k, range AS v FROM range({rows})) AS a {join} "
                f"(SELECT hash(range) AS k, range AS w FROM range({rows}) WHERE {keep}) AS b "
                f"ON a.k = b.k")
    if form in GROUP_KEYS:
        return (f"SELECT count(*), sum(c) FROM (SELECT {GROUP_KEYS[form][1]} AS k, count(*) AS c "
                f"FROM range({rows}) GROUP BY k)")
    if form in ("order_by", "order_by_parallel"):
        return (f"SELECT h FROM (SELECT hash(range) AS h FROM range({rows})) "
                f"ORDER BY h LIMIT 1 OFFSET {rows - 1}")
    key = FORMS[form][1]
    side = f"SELECT {key} FROM range(1, {rows + 1})"
    # ClickHouse's INTERSECT is INTERSECT ALL (its intersect_default_mode),
    # which counts copies as DuckDB's INTERSECT ALL does.
    return f"SELECT count(*) FROM ({side} INTERSECT ALL {side})"


def timed(command):
    """Runs a command; (seconds, its peak RSS in bytes, stdout+stderr, ok)."""
    started = time.time()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.time() - started
        out.seek(0)
        return seconds, usage.ru_maxrss * 1024, out.read(), child.returncode == 0


def strata(binary, query, limit, extra=""):
    settings = f"max_memory_usage = {limit}" + (f", {extra}" if extra else "")
    seconds, rss, output, ok = timed(
        [binary, "local", "--time", "--print-profile-events", "-q", f"{query} SETTINGS {settings}"])
    peak = re.search(r"Peak memory usage: ([\d.]+) (\w+)", output)
    spill = re.search(r"Temporary data: ([\d.]+ \w+) spilled, ([\d.]+ \w+) compressed \(([\d.]+)x\)", output)
    disk = re.search(r"([\d.]+ \w+) written to disk", output)
    inner = re.findall(r"^(\d+\.\d+)$", output, re.M)
    return {
        "seconds": float(inner[-1]) if ok and inner else seconds,
        "rss": rss,
        "ok": ok,
        "peak": peak_bytes(peak) if peak else None,
        "spill": spill.groups() if spill else None,
        "disk": disk.group(1) if disk else "-",
        "error": None if ok else output.strip().splitlines()[-1][:120],
    }


def peak_bytes(match):
    value, unit = float(match.group(1)), match.group(2)
    scale = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
    return int(value * scale)


def chdb(query, limit):
    script = (
        "import time, chdb; t = time.time(); "
        "r = chdb.query(%r); print(r); print('SECONDS', time.time() - t)"
        % f"{query} SETTINGS max_memory_usage = {limit}")
    seconds, rss, output, ok = timed(["python3", "-c", script])
    inner = re.search(r"SECONDS ([\d.]+)", output)
    ok = ok and inner is not None
    return {"seconds": float(inner.group(1)) if ok else seconds, "rss": rss, "ok": ok,
            "error": None if ok else output.strip().splitlines()[-1][:120]}


def duckdb(query, limit, tmp):
    memory = f"SET memory_limit = '{max(limit // (1 << 20), 1)}MB'; " if limit else ""
    script = (
        "import time, duckdb; c = duckdb.connect(); c.execute(\"SET temp_directory = %r\"); "
        "%s t = time.time(); print(c.execute(%r).fetchall()); print('SECONDS', time.time() - t)"
        % (tmp, f"c.execute(\"{memory.strip().rstrip(';')}\");" if memory else "", query))
    seconds, rss, output, ok = timed(["python3", "-c", script])
    inner = re.search(r"SECONDS ([\d.]+)", output)
    ok = ok and inner is not None
    return {"seconds": float(inner.group(1)) if ok else seconds, "rss": rss, "ok": ok,
            "error": None if ok else output.strip().splitlines()[-1][:120]}


def median_run(runs, measure):
    """The run of median time among `runs` calls of `measure`; a failure
    counts as slowest."""
    results = [measure() for _ in range(runs)]
    results.sort(key=lambda r: (not r["ok"], r["seconds"]))
    return results[(len(results) - 1) // 2]


def cell(result, strata_seconds):
    if not result["ok"]:
        return "fails", "", ""
    rss = f"{result['rss'] / (1 << 20):.0f}"
    ratio = f"{result['seconds'] / strata_seconds:.2f}x" if strata_seconds else ""
    return f"{result['seconds']:.2f}", rss, ratio


def text_plot(points):
    """Seconds against limit as bars, one per engine and limit; `points` is
    [(limit label, [(engine, result)])]."""
    longest = max((r["seconds"] for _, runs in points for _, r in runs if r["ok"]), default=1)
    width = 50
    lines = ["```"]
    for label, runs in points:
        for i, (engine, result) in enumerate(runs):
            head = f"{label if i == 0 else '':>16} {engine:<7}"
            if result["ok"]:
                bar = "#" * max(1, round(result["seconds"] / longest * width))
                lines.append(f"{head}|{bar} {result['seconds']:.2f} s")
            else:
                lines.append(f"{head}| fails")
    lines.append("```")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--strata-binary", default=strata_default())
    parser.add_argument("--forms", default="sorted,hashed," + ",".join(WORKLOADS))
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"rows: {args.rows:,}")
    with tempfile.TemporaryDirectory() as tmp:
        peaks = {}
        for form in args.forms.split(","):
            query = clickhouse_query(form, args.rows)
            unlimited = median_run(args.runs, lambda: strata(args.strata_binary, query, 0))
            peaks[form] = unlimited["peak"]
            twin = LIMITS_OF.get(form)
            if twin is not None and twin not in peaks:
                peaks[twin] = strata(args.strata_binary, clickhouse_query(twin, args.rows), 0)["peak"]
            peak = peaks[twin or form]
            print(f"\n## {form}: {query}\n")
            print(f"Limits from a peak of {peak / (1 << 20):.0f} MiB\n")
            print("| limit | Strata s | Strata RSS MiB | chdb s | chdb RSS MiB | chdb / Strata | DuckDB s | DuckDB RSS MiB | DuckDB / Strata |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            smallest = None
            points = []
            for share in [None, 0.5, 0.25, 0.1]:
                limit = 0 if share is None else int(peak * share)
                ours = unlimited if share is None else median_run(
                    args.runs, lambda: strata(args.strata_binary, query, limit))
                theirs = median_run(args.runs, lambda: chdb(query, limit))
                duck = median_run(args.runs, lambda: duckdb(duckdb_query(form, args.rows), limit, tmp))
                base = ours["seconds"] if ours["ok"] else None
                label = "unlimited" if share is None else f"{int(share * 100)}% ({limit / (1 << 20):.0f} MiB)"
                s = cell(ours, None)
                c = cell(theirs, base)
                d = cell(duck, base)
                print(f"| {label} | {s[0]} | {s[1]} | {c[0]} | {c[1]} | {c[2]} | {d[0]} | {d[1]} | {d[2]} |", flush=True)
                if not ours["ok"]:
                    print(f"  Strata failed: {ours['error']}")
                smallest = limit
                points.append((label, [("Strata", ours), ("chdb", theirs), ("DuckDB", duck)]))
            print("\nSeconds against the limit:\n")
            print(text_plot(points))
            print("\nStrata at the smallest limit by temporary_data_compression:\n")
            print("| codec | s | spilled | stored | ratio | written to disk |")
            print("|---|---:|---:|---:|---:|---:|")
            for codec in ["none", "lz4", "zstd"]:
                r = median_run(args.runs, lambda: strata(
                    args.strata_binary, query, smallest, f"temporary_data_compression = '{codec}'"))
                spilled, stored, ratio = r["spill"] or ("-", "-", "-")
                print(f"| {codec} | {r['seconds']:.2f} | {spilled} | {stored} | {ratio} | {r['disk']} |", flush=True)


if __name__ == "__main__":
    main()
