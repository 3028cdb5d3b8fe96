"""How each engine runs one query in a fresh process. Every child prints the
result as TSV on stdout and, as its last stderr line, the seconds the query
itself took, so process start-up (large for the Python engines) is visible
apart from query time."""
import sys

PYTHON_CHILDREN = {
    "chdb": """
import sys, time
from chdb import session
s = session.Session()
limit = int(sys.argv[2])
if limit:
    s.query(f"SET max_memory_usage = {limit}")
start = time.perf_counter()
out = s.query(sys.argv[1], "TSV").bytes()
seconds = time.perf_counter() - start
sys.stdout.write(out.decode())
sys.stderr.write(f"{seconds:.6f}\\n")
""",
    "duckdb": """
import sys, time, duckdb
c = duckdb.connect()
c.execute("SET enable_progress_bar = false")
limit = int(sys.argv[2])
if limit:
    c.execute(f"SET memory_limit = '{limit}B'")
start = time.perf_counter()
rows = c.sql(sys.argv[1]).fetchall()
seconds = time.perf_counter() - start
for row in rows:
    print("\\t".join("\\\\N" if v is None else str(v) for v in row))
sys.stderr.write(f"{seconds:.6f}\\n")
""",
}


def command(engine, sql, memory_limit, strata_binary, python=sys.executable):
    """argv for one run; memory_limit in bytes, 0 for none."""
    if engine == "strata":
        argv = [str(strata_binary), "local", "--time", "--format", "TSV"]
        if memory_limit:
            argv.append(f"--max_memory_usage={memory_limit}")
        return argv + ["-q", sql]
    if engine in PYTHON_CHILDREN:
        return [python, "-c", PYTHON_CHILDREN[engine], sql, str(memory_limit)]
    raise ValueError(f"unknown engine {engine!r}")


def version_command(engine, strata_binary, python=sys.executable):
    if engine == "strata":
        return [str(strata_binary), "--version"]
    return [python, "-c", f"import {engine}; print({engine}.__version__)"]
