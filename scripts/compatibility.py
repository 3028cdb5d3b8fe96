#!/usr/bin/env python3
"""Compares the names Strata knows with ClickHouse's (chdb), by family.

Usage: python3 scripts/compatibility.py [--strata PATH] [--missing]

Prints a Markdown table per kind (functions by ClickHouse category, settings,
table engines, formats, data types): how many of ClickHouse's names Strata's
system tables list. With --missing it also lists the names still missing.
Run it where chdb is installed (bench/requirements.txt), not in CI.
"""
import argparse
import subprocess
from collections import defaultdict
from pathlib import Path

import chdb

ROOT = Path(__file__).resolve().parent.parent

# Each kind: ClickHouse's query (name, family) and Strata's query (name).
KINDS = {
    "functions": (
        "SELECT name, if(is_aggregate, 'Aggregate', if(categories = '', 'Uncategorized', "
        "splitByString(', ', categories)[1])) FROM system.functions",
        "SELECT name FROM system.functions",
    ),
    "settings": (
        "SELECT name, 'Settings' FROM system.settings",
        "SELECT name FROM system.settings",
    ),
    "table engines": (
        "SELECT name, 'Table engines' FROM system.table_engines",
        "SELECT name FROM system.table_engines",
    ),
    "formats": (
        "SELECT name, if(is_input, if(is_output, 'Input and output', 'Input'), 'Output') "
        "FROM system.formats",
        "SELECT name FROM system.formats",
    ),
    "data types": (
        "SELECT name, 'Data types' FROM system.data_type_families WHERE alias_to = ''",
        "SELECT name FROM system.data_type_families",
    ),
}


def clickhouse(query):
    text = chdb.query(query, "TSVRaw").bytes().decode()
    return [line.split("\t") for line in text.splitlines() if line]


def strata(binary, query):
    out = subprocess.run(
        [binary, "local", "-q", query, "--format", "TSVRaw"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return None
    return {line for line in out.stdout.splitlines() if line}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strata", default=str(ROOT / "target/debug/strata"))
    parser.add_argument("--missing", action="store_true")
    args = parser.parse_args()
    version = clickhouse("SELECT version()")[0][0]
    print(f"Compared with ClickHouse {version} (chdb {chdb.__version__}).\n")
    for kind, (theirs, ours) in KINDS.items():
        known = strata(args.strata, ours)
        if known is None:
            print(f"### {kind}\n\nStrata has no system table for {kind} yet.\n")
            continue
        families = defaultdict(list)
        for name, family in clickhouse(theirs):
            families[family].append(name)
        print(f"### {kind}\n")
        print("| family | ClickHouse | Strata | share |")
        print("|---|---:|---:|---:|")
        total = have = 0
        for family, names in sorted(families.items(), key=lambda f: -len(f[1])):
            present = sum(1 for n in names if n in known)
            total, have = total + len(names), have + present
            print(f"| {family} | {len(names)} | {present} | {present / len(names):.0%} |")
        print(f"| **all** | **{total}** | **{have}** | **{have / total:.0%}** |\n")
        if args.missing:
            for family, names in sorted(families.items()):
                missing = sorted(n for n in names if n not in known)
                if missing:
                    print(f"- {family}: {', '.join(missing)}")
            print()


if __name__ == "__main__":
    main()
