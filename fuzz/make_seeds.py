#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz corpora (fuzz/corpus/<target>/seed-*)
with a Strata binary: SQL statements from tests/sql, every input format's
rendering of a few rows, and real part directories.

    python3 fuzz/make_seeds.py target/debug/strata
"""
import pathlib
import re
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
# The fixture's columns (crates/fuzz/src/lib.rs).
COLUMNS = ("a UInt64, s String, n Nullable(Int32), d Date, f Float64, arr Array(String), "
           "dec Decimal(18, 4), dt DateTime64(3), e Enum8('x' = 1, 'y' = 2), "
           "fs FixedString(4), u UUID, b Bool")
ROWS = ("SELECT number, toString(number), if(number % 3 = 0, NULL, number), toDate(number), "
        "number / 7, [toString(number), 'x'], number / 3, toDateTime64(number, 3), "
        "if(number % 2, 'x', 'y'), 'abcd', generateUUIDv4(), number % 2 FROM numbers({n})")
# Input format names, in InputFormat::NAMES order (crates/formats/src/input/mod.rs).
FORMATS = ["CSV", "CSVWithNames", "CSVWithNamesAndTypes", "TabSeparated", "TSV",
           "TabSeparatedWithNames", "TSVWithNames", "TabSeparatedWithNamesAndTypes",
           "TSVWithNamesAndTypes", "JSONEachRow", "JSONLines", "NDJSON", "Parquet", "Native",
           "RowBinary", "RowBinaryWithNames", "RowBinaryWithNamesAndTypes", "Arrow",
           "ArrowStream"]
# Tables whose parts seed the part target: codecs, partitions, a deleted row
# and an updated value (patches) give the reader's other paths.
PART_TABLES = [
    "ENGINE = MergeTree ORDER BY (a, d) SETTINGS index_granularity = 3",
    "ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY a SETTINGS index_granularity = 4",
]


def strata(binary, *args, stdin=None):
    return subprocess.run([binary, "local", *args], input=stdin, capture_output=True,
                          check=True).stdout


def write(target, name, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"seed-{name}").write_bytes(data)


def sql_seeds():
    statements = [
        "SELECT a, s, count() FROM t WHERE n > 3 GROUP BY a, s ORDER BY a LIMIT 5",
        "SELECT * FROM mem AS l JOIN t AS r USING (a) WHERE r.e = 'x'",
        "SELECT arrayJoin(arr), sum(dec) OVER (PARTITION BY d) FROM t",
        "SELECT COLUMNS('^d') APPLY(max) FROM t SETTINGS max_threads = 1",
        "WITH x AS (SELECT a FROM t) SELECT a IN (SELECT a FROM x) FROM mem",
    ]
    for path in sorted((ROOT / "tests" / "sql").glob("*.sql")):
        text = path.read_text()
        for statement in re.split(r";\s*\n", text):
            lines = [l for l in statement.splitlines() if not l.strip().startswith("--")]
            statement = "\n".join(lines).strip()
            if statement.upper().startswith(("SELECT", "WITH")) and len(statement) < 600:
                statements.append(statement)
                break  # one per file keeps the seeds varied and few
    for i, statement in enumerate(statements):
        write("sql", f"{i:03}", statement.encode())


def format_seeds(binary):
    for i, name in enumerate(FORMATS):
        data = strata(binary, "-q", f"{ROWS.format(n=5)} FORMAT {name}")
        write("input_format", name, bytes([i, 0]) + data)
    values = strata(binary, "-q", f"{ROWS.format(n=3)} FORMAT Values")
    write("input_format", "Values", bytes([len(FORMATS), 0]) + values)


def frame(directory):
    framed = b""
    for file in sorted(directory.iterdir()):
        data = file.read_bytes()
        framed += file.name.encode() + b"\0" + struct.pack("<I", len(data)) + data
    return framed


def part_seeds(binary):
    for i, engine in enumerate(PART_TABLES):
        with tempfile.TemporaryDirectory() as path:
            strata(binary, "--path", path, "-q",
                   f"CREATE TABLE t ({COLUMNS}) {engine}; INSERT INTO t {ROWS.format(n=10)}; "
                   "DELETE FROM t WHERE a = 4; "
                   "ALTER TABLE t UPDATE s = 'new' WHERE a = 5 SETTINGS mutations_sync = 2")
            for n, part in enumerate(sorted(pathlib.Path(path, "store").glob("*/*/*_*_*"))):
                write("part", f"{i}-{n}", frame(part))


if __name__ == "__main__":
    sql_seeds()
    format_seeds(sys.argv[1])
    part_seeds(sys.argv[1])
