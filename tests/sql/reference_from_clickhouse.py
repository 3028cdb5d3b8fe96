#!/usr/bin/env python3
"""Writes each tests/sql/NAME.reference from what ClickHouse (chdb) prints.

Usage: python3 tests/sql/reference_from_clickhouse.py [NAME.sql ...]

Statements annotated `-- { serverError NAME }` must fail in ClickHouse with that
error; their output is left out, as the Rust harness leaves it out. A file whose
first line is `-- strata-only` has a hand-written reference and is skipped.
"""
import re
import sys
from pathlib import Path

import chdb
from chdb import session as chs

HERE = Path(__file__).resolve().parent


def statements(sql):
    """Yields (statement, expected_error) pairs, splitting on top-level semicolons."""
    out, current, i, quote = [], [], 0, None
    while i < len(sql):
        c = sql[i]
        if quote:
            current.append(c)
            if c == "\\":
                current.append(sql[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
            current.append(c)
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = len(sql) if end < 0 else end
            current.append(" ")
            i = end
            continue
        elif c == ";":
            text = "".join(current).strip()
            line_end = sql.find("\n", i)
            rest = sql[i + 1: len(sql) if line_end < 0 else line_end]
            m = re.search(r"serverError\s+([A-Z_0-9]+)", rest)
            if text:
                out.append((text, m.group(1) if m else None))
            current = []
        else:
            current.append(c)
        i += 1
    text = "".join(current).strip()
    if text:
        out.append((text, None))
    return out


def reference(path):
    sess = chs.Session()
    chunks = []
    for text, error in statements(path.read_text()):
        try:
            result = sess.query(text, "TabSeparated")
            if error:
                raise SystemExit(f"{path.name}: `{text}` should fail with {error} but succeeded")
            chunks.append(result.bytes().decode())
        except RuntimeError as e:
            if not error:
                raise SystemExit(f"{path.name}: `{text}` failed in ClickHouse: {e}")
            if f"({error})" not in str(e):
                raise SystemExit(f"{path.name}: `{text}` failed with another error than {error}: {e}")
    sess.close()
    return "".join(chunks)


def main():
    names = sys.argv[1:] or sorted(p.name for p in HERE.glob("*.sql"))
    for name in names:
        path = HERE / name
        if path.read_text().startswith("-- strata-only"):
            print(f"skip {name} (hand-written reference)")
            continue
        path.with_suffix(".reference").write_text(reference(path))
        print(f"wrote {path.with_suffix('.reference').name}")


if __name__ == "__main__":
    main()
