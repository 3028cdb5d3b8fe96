#!/usr/bin/env python3
"""Differential fuzzing of Strata against ClickHouse (chdb).

Each batch creates a few random tables (every column type Strata has, Nullable
and Array columns, Memory and MergeTree engines, NULLs, empty strings, type
extremes, duplicate rows, empty tables), then generates random SELECTs over them:
expressions, WHERE, GROUP BY with aggregates, HAVING, DISTINCT, joins, UNION ALL,
subqueries, IN lists, ORDER BY every output column, LIMIT/OFFSET. The batch runs
in one `strata local` process and in one chdb session, and the TabSeparated
outputs are compared:

  wrong-result      both succeed, the rows differ (as multisets)
  digits            numbers differ in their last digits (outside float sums)
  wrong-order       the same rows in another order
  strata-error      chdb succeeds, Strata fails
  strata-crash      Strata dies or hangs on the statement
  strata-accepts    Strata succeeds, chdb fails
  error-code        both fail, with different error codes (lower priority)

With --tlp it runs on Strata alone and checks ternary logic partitioning: a
query's rows equal those of the same query under WHERE p, WHERE NOT p and WHERE
p IS NULL together, and count/sum/min/max/GROUP BY/DISTINCT recombine from the
three parts.

Usage (the venv has chdb: python3 -m venv build/fuzz-venv && build/fuzz-venv/bin/pip install chdb):

  F="build/fuzz-venv/bin/python tests/fuzz/differential.py --strata target/debug/strata"
  $F --seed 1 --queries 2000 --report build/fuzz-report    # a repro file per difference
  $F --seed 1 --queries 2000 --tlp --report build/fuzz-tlp
  $F --seed 1 --queries 300 --emit-sql tests/sql/110_differential_seed_1.sql
  build/fuzz-venv/bin/python tests/sql/reference_from_clickhouse.py 110_differential_seed_1.sql

Generation depends on the seed only; the engines' answers decide which queries
--emit-sql keeps. Needs Python 3 and, except in --tlp mode, chdb.
"""
import argparse
import collections
import difflib
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

os.environ["TZ"] = "UTC"  # both engines read dates in the same zone

INT_RANGES = {
    "Int8": (-2**7, 2**7 - 1), "Int16": (-2**15, 2**15 - 1),
    "Int32": (-2**31, 2**31 - 1), "Int64": (-2**63, 2**63 - 1),
    "UInt8": (0, 2**8 - 1), "UInt16": (0, 2**16 - 1),
    "UInt32": (0, 2**32 - 1), "UInt64": (0, 2**64 - 1),
}
SCALARS = list(INT_RANGES) + [
    "Float32", "Float64", "Decimal(9, 2)", "Decimal(18, 4)", "Decimal(38, 10)",
    "String", "FixedString(4)", "Date", "DateTime", "UUID", "Bool",
]
ARRAY_ELEMENTS = ["Int32", "UInt8", "Int64", "Float64", "String", "Date", "Nullable(Int32)"]
STRINGS = ["", "a", "A", "abc", "ABC", "Hello World", " x ", "0", "123", "-1", "1.5",
           "é", "ÀÉ", "日本", "a\tb", "line\nbreak", "it's", "back\\slash", "NULL",
           "zz", "2020-01-01", "%", "_"]
FAMILIES_ORDERED = ("num", "str", "date", "datetime", "bool", "uuid")


# ---------------------------------------------------------------- types and values

@dataclass(frozen=True)
class Type:
    """A column type: base name, Nullable, and the element type of an Array."""
    base: str
    nullable: bool = False
    elem: "Type | None" = None

    @property
    def sql(self):
        text = f"Array({self.elem.sql})" if self.elem else self.base
        return f"Nullable({text})" if self.nullable else text

    @property
    def fam(self):
        return family(self.base) if not self.elem else "array"


def family(base):
    if base in INT_RANGES:
        return "int"
    for prefix, fam in (("Float", "float"), ("Decimal", "decimal"), ("String", "str"),
                        ("FixedString", "str"), ("DateTime", "datetime"), ("Date", "date"),
                        ("UUID", "uuid"), ("Bool", "bool")):
        if base.startswith(prefix):
            return fam
    raise ValueError(base)


def parse_type(text):
    if text.startswith("Nullable("):
        return Type(parse_type(text[9:-1]).base, nullable=True)
    if text.startswith("Array("):
        return Type("Array", elem=parse_type(text[6:-1]))
    return Type(text)


def random_type(rng):
    if rng.random() < 0.12:
        return Type("Array", elem=parse_type(rng.choice(ARRAY_ELEMENTS)))
    return Type(rng.choice(SCALARS), nullable=rng.random() < 0.35)


def quote(text):
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    return "'" + escaped.replace("\t", "\\t").replace("\n", "\\n") + "'"


def random_string(rng, max_len=8):
    if rng.random() < 0.6:
        return rng.choice(STRINGS)
    return "".join(rng.choice("abcxyzAB01 ") for _ in range(rng.randint(1, max_len)))


def int_literal(rng, base):
    lo, hi = INT_RANGES[base]
    picks = [lo, hi, 0, 1, 2, 7, 100, rng.randint(lo, hi), rng.randint(max(lo, -50), min(hi, 50))]
    if lo < 0:
        picks += [-1, lo + 1]
    return str(rng.choice(picks))


def float_literal(rng, base):
    big = "3.4028234e38" if base == "Float32" else "1.7976931348623157e308"
    picks = ["0", "-0.", "1.5", "-2.25", "0.1", "1e10", "-1e-7", big, "-" + big, "1e-30",
             repr(round(rng.uniform(-1000, 1000), 3)), str(rng.randint(-5, 5))]
    if rng.random() < 0.03:
        picks = ["nan", "inf", "-inf"]
    return rng.choice(picks)


def decimal_literal(rng, base):
    precision, scale = (int(x) for x in re.findall(r"\d+", base))
    whole = rng.choice([0, 1, 9, rng.randint(0, 10 ** min(precision - scale, 12) - 1),
                        10 ** (precision - scale) - 1])
    frac = rng.randint(0, 10 ** scale - 1)
    sign = rng.choice(["", "", "-"])
    return f"{sign}{whole}.{frac:0{scale}d}"


def date_literal(rng):
    picks = ["1970-01-01", "2149-06-06", "2000-02-29", "2020-01-01", "1999-12-31"]
    picks.append(f"{rng.randint(1970, 2148)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    return rng.choice(picks)


def datetime_literal(rng):
    picks = ["1970-01-01 00:00:00", "2106-02-07 06:28:15", "2020-02-29 23:59:59",
             "2000-01-01 12:00:00"]
    picks.append(f"{rng.randint(1971, 2100)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
                 f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}")
    return rng.choice(picks)


def uuid_literal(rng):
    picks = ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
             "61f0c404-5cb3-11e7-907b-a6006ad3dba0"]
    picks.append(str(uuid.UUID(int=rng.getrandbits(128))))
    return rng.choice(picks)


def value(rng, t):
    """A literal of type t as written in INSERT ... VALUES."""
    if t.nullable and rng.random() < 0.25:
        return "NULL"
    if t.elem:
        return "[" + ", ".join(value(rng, t.elem) for _ in range(rng.choice([0, 1, 2, 3]))) + "]"
    fam = t.fam
    if fam == "int":
        return int_literal(rng, t.base)
    if fam == "float":
        return float_literal(rng, t.base)
    if fam == "decimal":
        return decimal_literal(rng, t.base)
    if fam == "str":
        limit = int(re.findall(r"\d+", t.base)[0]) if t.base.startswith("Fixed") else 8
        text = random_string(rng, limit)
        return quote(text if len(text.encode()) <= limit else text[:1])
    if fam == "date":
        return quote(date_literal(rng))
    if fam == "datetime":
        return quote(datetime_literal(rng))
    if fam == "uuid":
        return quote(uuid_literal(rng))
    return rng.choice(["true", "false"])


# ---------------------------------------------------------------- tables

@dataclass
class Table:
    name: str
    columns: list  # (name, Type)
    engine: str
    inserts: list = field(default_factory=list)  # INSERT statements

    def create(self):
        cols = ", ".join(f"{n} {t.sql}" for n, t in self.columns)
        return f"CREATE TABLE {self.name} ({cols}) ENGINE = {self.engine}"

    def setup(self):
        return [f"DROP TABLE IF EXISTS {self.name}", self.create()] + self.inserts


def random_engine(rng, columns):
    if rng.random() < 0.4:
        return "Memory"
    keys = [n for n, t in columns if not t.nullable and t.fam not in ("array", "float")]
    if keys and rng.random() < 0.75:
        return f"MergeTree ORDER BY {rng.choice(keys)}"
    return "MergeTree ORDER BY tuple()"


def random_rows(rng, columns):
    rows = []
    for _ in range(rng.choice([0, 1, 3, 5, 8, 12, 20])):
        if rows and rng.random() < 0.2:
            rows.append(rng.choice(rows))  # a duplicate row
        else:
            rows.append("(" + ", ".join(value(rng, t) for _, t in columns) + ")")
    return rows


def random_table(rng, name):
    columns = [(f"c{i}", random_type(rng)) for i in range(rng.randint(2, 5))]
    table = Table(name, columns, random_engine(rng, columns))
    rows = random_rows(rng, columns)
    cut = rng.randint(0, len(rows)) if rng.random() < 0.3 else len(rows)
    for part in (rows[:cut], rows[cut:]):  # sometimes two inserts, so two parts
        if part:
            table.inserts.append(f"INSERT INTO {name} VALUES {', '.join(part)}")
    return table


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class E:
    """A generated expression: SQL text, value family, whether it may be NULL."""
    sql: str
    fam: str
    null: bool = False
    elem: "Type | None" = None  # element type of an array


def is_num(fam):
    return fam in ("int", "float", "decimal")


def wanted(fam, e):
    return is_num(e.fam) if fam == "num" else e.fam == fam


class ExprGen:
    """Random typed expressions over the columns in scope."""

    def __init__(self, rng, scope, tables):
        self.rng, self.scope, self.tables = rng, scope, tables
        self.float_agg = False  # set when a float sum/avg makes digits order-dependent

    def pick(self, *choices):
        return self.rng.choice(choices)

    def columns(self, fam):
        return [c for c in self.scope if wanted(fam, c)]

    def leaf(self, fam):
        cols = self.columns(fam)
        if cols and self.rng.random() < 0.85:
            return self.rng.choice(cols)
        return self.literal(fam)

    def literal(self, fam):
        rng = self.rng
        if fam == "num":
            kind = rng.random()
            if kind < 0.6:
                return E(int_literal(rng, rng.choice(list(INT_RANGES))), "int")
            if kind < 0.85:
                text = float_literal(rng, "Float64")
                return E(text if text[0] != "-" else f"({text})", "float")
            return E(f"toDecimal64('{decimal_literal(rng, 'Decimal(18, 4)')}', 4)", "decimal")
        if fam == "str":
            return E(quote(random_string(rng)), "str")
        if fam == "date":
            return E(f"toDate('{date_literal(rng)}')", "date")
        if fam == "datetime":
            return E(f"toDateTime('{datetime_literal(rng)}')", "datetime")
        if fam == "uuid":
            return E(f"toUUID('{uuid_literal(rng)}')", "uuid")
        if fam == "bool":
            return E(self.pick("true", "false", "1", "0"), "bool")
        return E("NULL", "int", True)

    def expr(self, fam, depth):
        """An expression of family fam: num, str, date, datetime, bool, uuid or any."""
        if fam == "any":
            fams = [f for f in FAMILIES_ORDERED if self.columns(f)] * 3 + ["num", "str", "array"]
            fam = self.rng.choice(fams)
            if fam == "array":
                arrays = self.columns("array")
                return self.rng.choice(arrays) if arrays else self.expr("num", depth)
        if depth <= 0 or self.rng.random() < 0.3:
            return self.leaf(fam)
        make = {"num": self.num, "str": self.str, "date": self.date,
                "datetime": self.datetime, "bool": self.cond, "uuid": self.uuid}[fam]
        return make(depth - 1)

    def num(self, d):
        rng, x = self.rng, lambda: self.expr("num", d)
        kind = rng.randrange(14)
        if kind < 3:
            a, b = x(), x()
            op = self.pick("+", "-", "*", "+", "-")
            return E(f"({a.sql} {op} {b.sql})", arith_fam(a, b), a.null or b.null)
        if kind == 3:
            a, b = x(), x()
            op = self.pick("/", "%", "intDiv")
            fam = "float" if op == "/" else arith_fam(a, b)
            text = f"intDiv({a.sql}, {b.sql})" if op == "intDiv" else f"({a.sql} {op} {b.sql})"
            return E(text, fam, a.null or b.null)
        if kind == 4:
            a = x()
            fn = self.pick("-", "abs", "sign")
            return E(f"{fn}({a.sql})", "int" if fn == "sign" else a.fam, a.null)
        if kind == 5:
            a = x()
            fn, fam = self.pick(("toInt64", "int"), ("toInt32", "int"), ("toUInt8", "int"),
                                ("toFloat64", "float"), ("toInt16", "int"), ("toUInt64", "int"))
            if rng.random() < 0.3:
                return E(f"CAST({a.sql} AS {fn[2:]})", fam, a.null)
            return E(f"{fn}({a.sql})", fam, a.null)
        if kind == 6:
            a = x()
            return E(f"round({a.sql}, {rng.randint(0, 3)})", a.fam, a.null)
        if kind == 7:
            s = self.expr("str", d)
            return E(f"{self.pick('length', 'lengthUTF8')}({s.sql})", "int", s.null)
        if kind == 8:
            return self.conditional("num", d)
        if kind == 9:
            a, b = x(), x()
            return E(f"{self.pick('greatest', 'least')}({a.sql}, {b.sql})", arith_fam(a, b), a.null or b.null)
        if kind == 10:
            date = self.expr(self.pick("date", "datetime"), d)
            fn = self.pick("toYear", "toMonth", "toDayOfMonth", "toDayOfWeek")
            return E(f"{fn}({date.sql})", "int", date.null)
        if kind == 11:
            arrays = self.columns("array")
            if arrays:
                a = rng.choice(arrays)
                return E(f"length({a.sql})", "int")
        if kind == 12 and self.tables:
            t = rng.choice(self.tables)
            col = rng.choice([n for n, ty in t.columns if is_num(ty.fam)] or ["*"])
            agg = "count()" if col == "*" else f"{self.pick('max', 'min', 'count')}({col})"
            return E(f"(SELECT {agg} FROM {t.name})", "int", True)
        return x()

    def conditional(self, fam, d):
        """if, multiIf, coalesce or ifNull with branches of family fam."""
        a, b = self.expr(fam, d), self.expr(fam, d)
        kind = self.rng.randrange(4)
        if kind == 0:
            return E(f"if({self.cond(d).sql}, {a.sql}, {b.sql})", join_fam(a, b), a.null or b.null)
        if kind == 1:
            c = self.expr(fam, d)
            text = f"multiIf({self.cond(d).sql}, {a.sql}, {self.cond(d).sql}, {b.sql}, {c.sql})"
            return E(text, join_fam(a, b, c), a.null or b.null or c.null)
        fn = "coalesce" if kind == 2 else "ifNull"
        return E(f"{fn}({a.sql}, {b.sql})", join_fam(a, b), a.null and b.null)

    def str(self, d):
        rng, s = self.rng, lambda: self.expr("str", d)
        kind = rng.randrange(9)
        if kind == 0:
            a = s()
            return E(f"{self.pick('lower', 'upper', 'reverse', 'trim', 'upperUTF8')}({a.sql})", "str", a.null)
        if kind == 1:
            a, b = s(), s()
            return E(f"concat({a.sql}, {b.sql})", "str", a.null or b.null)
        if kind == 2:
            a = s()
            args = f"{rng.randint(-3, 4)}" + (f", {rng.randint(0, 3)}" if rng.random() < 0.6 else "")
            return E(f"substring({a.sql}, {args})", "str", a.null)
        if kind in (3, 4):
            a = self.expr("any", d)
            return E(f"toString({a.sql})", "str", a.null)
        if kind == 5:
            return self.conditional("str", d)
        if kind == 6:
            a = s()
            return E(f"replaceAll({a.sql}, 'a', 'Z')", "str", a.null)
        if kind == 7:
            a = s()
            return E(f"repeat({a.sql}, {rng.randint(0, 2)})", "str", a.null)
        return s()

    def date(self, d):
        kind = self.rng.randrange(4)
        if kind == 0:
            a = self.expr("date", d)
            return E(f"({a.sql} + {self.rng.randint(-3, 40)})", "date", a.null)
        if kind == 1:
            a = self.expr(self.pick("date", "datetime"), d)
            return E(f"{self.pick('toStartOfMonth', 'toMonday', 'toDate')}({a.sql})", "date", a.null)
        if kind == 2:
            return self.conditional("date", d)
        return self.leaf("date")

    def datetime(self, d):
        kind = self.rng.randrange(3)
        if kind == 0:
            a = self.expr("datetime", d)
            return E(f"({a.sql} + {self.rng.randint(-100, 100000)})", "datetime", a.null)
        if kind == 1:
            a = self.expr("datetime", d)
            return E(f"{self.pick('toStartOfHour', 'toStartOfDay')}({a.sql})", "datetime", a.null)
        return self.leaf("datetime")

    def uuid(self, d):
        return self.leaf("uuid") if self.rng.random() < 0.8 else self.conditional("uuid", d)

    def cond(self, d):
        """A condition: UInt8/Bool, possibly NULL."""
        rng = self.rng
        kind = rng.randrange(12)
        if kind < 4:
            return self.comparison(d)
        if kind < 6:
            a, b = self.sub_cond(d), self.sub_cond(d)
            op = self.pick("AND", "OR")
            return E(f"({a.sql} {op} {b.sql})", "bool", a.null or b.null)
        if kind == 6:
            a = self.sub_cond(d)
            return E(f"(NOT {a.sql})", "bool", a.null)
        if kind == 7:
            a = self.expr("any", d)
            return E(f"({a.sql} {self.pick('IS NULL', 'IS NOT NULL')})", "bool")
        if kind == 8:
            return self.in_list(d)
        if kind == 9:
            a = self.expr("str", d)
            pattern = self.pick("'a%'", "'%b%'", "'_'", "'%'", "'A_C'", "''")
            fn = self.pick("LIKE", "NOT LIKE", "ILIKE")
            return E(f"({a.sql} {fn} {pattern})", "bool", a.null)
        if kind == 10:
            a = self.expr("str", d)
            if rng.random() < 0.5:
                return E(f"{self.pick('empty', 'notEmpty')}({a.sql})", "bool", a.null)
            fn = self.pick("startsWith", "endsWith")
            return E(f"{fn}({a.sql}, {quote(random_string(rng, 2))})", "bool", a.null)
        arrays = self.columns("array")
        if arrays:
            a = rng.choice(arrays)
            return E(f"has({a.sql}, {value(rng, a.elem)})", "bool")
        return self.leaf("bool")

    def sub_cond(self, d):
        return self.cond(d - 1) if d > 0 else self.comparison(0)

    def comparison(self, d):
        fam = self.rng.choice([f for f in FAMILIES_ORDERED if self.columns(f)] or ["num"])
        a, b = self.expr(fam, d), self.expr(fam, d)
        if fam in ("date", "datetime") and self.rng.random() < 0.3:
            b = E(quote(date_literal(self.rng) if fam == "date" else datetime_literal(self.rng)), fam)
        if self.rng.random() < 0.15:
            c = self.expr(fam, d)
            return E(f"({a.sql} BETWEEN {b.sql} AND {c.sql})", "bool", a.null or b.null or c.null)
        op = self.pick("=", "!=", "<", "<=", ">", ">=", "=", "<>")
        return E(f"({a.sql} {op} {b.sql})", "bool", a.null or b.null)

    def in_list(self, d):
        fam = self.rng.choice([f for f in ("num", "str", "date") if self.columns(f)] or ["num"])
        a = self.expr(fam, d)
        items = [self.literal(fam).sql for _ in range(self.rng.randint(1, 4))]
        if self.tables and self.rng.random() < 0.3:
            return self.in_subquery(a, fam)
        return E(f"({a.sql} {self.pick('IN', 'NOT IN')} ({', '.join(items)}))", "bool", a.null)

    def in_subquery(self, a, fam):
        options = [(t, n) for t in self.tables for n, ty in t.columns if wanted(fam, E("", ty.fam))]
        if not options:
            return E(f"({a.sql} IN (SELECT 1))", "bool", a.null)
        t, col = self.rng.choice(options)
        return E(f"({a.sql} {self.pick('IN', 'NOT IN')} (SELECT {col} FROM {t.name}))", "bool", a.null)

    def aggregate(self, d):
        """An aggregate function call over the scope."""
        rng = self.rng
        kind = rng.randrange(10)
        if kind == 0:
            return E("count()", "int")
        if kind in (1, 2):
            a = self.expr("num", d)
            fn = self.pick("sum", "avg")
            if a.fam == "float" or fn == "avg":
                self.float_agg = True
            return E(f"{fn}({a.sql})", "float" if fn == "avg" else a.fam, a.null)
        if kind in (3, 4):
            a = self.expr(self.pick("num", "str", "date", "datetime"), d)
            return E(f"{self.pick('min', 'max')}({a.sql})", a.fam, a.null)
        if kind == 5:
            return E(f"uniqExact({self.expr('any', d).sql})", "int")
        if kind == 6:
            return E(f"countIf({self.cond(d).sql})", "int")
        if kind == 7:
            a = self.expr("num", d)
            self.float_agg |= a.fam == "float"
            return E(f"sumIf({a.sql}, {self.cond(d).sql})", a.fam)
        if kind == 8:
            a = self.expr(self.pick("num", "str", "date"), d)
            return E(f"arraySort({self.pick('groupArray', 'groupUniqArray')}({a.sql}))", "array")
        return E(f"count({self.expr('any', d).sql})", "int")


def arith_fam(a, b):
    if "float" in (a.fam, b.fam):
        return "float"
    if "decimal" in (a.fam, b.fam):
        return "decimal"
    return "int"


def join_fam(*exprs):
    """The family of if/coalesce over branches of these expressions."""
    if all(is_num(e.fam) for e in exprs):
        return "float" if any(e.fam == "float" for e in exprs) else \
            "decimal" if any(e.fam == "decimal" for e in exprs) else "int"
    return exprs[0].fam


# ---------------------------------------------------------------- queries

@dataclass
class Query:
    sql: str
    float_agg: bool = False  # float sums: digits may depend on summation order


def scope_of(table, alias=None):
    prefix = f"{alias}." if alias else ""
    return [E(prefix + n, t.fam, t.nullable, t.elem) for n, t in table.columns]


def order_key(alias, e, rng):
    key = f"toString({alias})" if e.fam == "uuid" else alias
    if rng.random() < 0.2:
        key += " DESC"
    if rng.random() < 0.15:
        key += rng.choice([" NULLS FIRST", " NULLS LAST"])
    return key


def select_list(items):
    return ", ".join(f"{e.sql} AS a{i}" for i, e in enumerate(items))


def order_limit(items, rng):
    """ORDER BY every output column, then sometimes LIMIT/OFFSET."""
    text = " ORDER BY " + ", ".join(order_key(f"a{i}", e, rng) for i, e in enumerate(items))
    if rng.random() < 0.25:
        text += f" LIMIT {rng.randint(0, 6)}"
        if rng.random() < 0.4:
            text += f" OFFSET {rng.randint(0, 4)}"
    return text


def where(gen, rng, chance=0.6):
    return f" WHERE {gen.cond(2).sql}" if rng.random() < chance else ""


def q_select(rng, tables):
    t = rng.choice(tables)
    gen = ExprGen(rng, scope_of(t), tables)
    items = [gen.expr("any", rng.randint(0, 3)) for _ in range(rng.randint(1, 4))]
    body = f"SELECT {select_list(items)} FROM {t.name}{where(gen, rng)}"
    return Query(body + order_limit(items, rng))


def q_distinct(rng, tables):
    t = rng.choice(tables)
    gen = ExprGen(rng, scope_of(t), tables)
    items = [gen.expr("any", rng.randint(0, 2)) for _ in range(rng.randint(1, 3))]
    body = f"SELECT DISTINCT {select_list(items)} FROM {t.name}{where(gen, rng, 0.4)}"
    return Query(body + order_limit(items, rng))


def q_aggregate(rng, tables):
    t = rng.choice(tables)
    gen = ExprGen(rng, scope_of(t), tables)
    keys = [gen.expr("any", rng.randint(0, 2)) for _ in range(rng.choice([0, 1, 1, 2]))]
    aggs = [gen.aggregate(rng.randint(0, 2)) for _ in range(rng.randint(1, 3))]
    items = keys + aggs
    text = f"SELECT {select_list(items)} FROM {t.name}{where(gen, rng, 0.4)}"
    if keys:
        text += " GROUP BY " + ", ".join(f"a{i}" for i in range(len(keys)))
        if rng.random() < 0.3:
            agg = gen.aggregate(1)
            lit = gen.literal("num").sql if is_num(agg.fam) else None
            cond = f"{agg.sql} > {lit}" if lit else f"count() > {rng.randint(0, 2)}"
            text += f" HAVING {cond}"
    return Query(text + order_limit(items, rng), gen.float_agg)


def join_keys(rng, left, right):
    """Pairs of columns of the same family for an ON condition."""
    pairs = [(a, b) for a, ta in left.columns for b, tb in right.columns
             if ta.fam == tb.fam and ta.fam != "array"
             or is_num(ta.fam) and is_num(tb.fam) and "float" not in (ta.fam, tb.fam)]
    return rng.choice(pairs) if pairs else None


def q_join(rng, tables):
    left, right = rng.choice(tables), rng.choice(tables)
    keys = join_keys(rng, left, right)
    kind = rng.choice(["INNER JOIN", "LEFT JOIN", "JOIN", "LEFT JOIN", "CROSS JOIN"])
    if keys is None:
        kind = "CROSS JOIN"
    on = "" if kind == "CROSS JOIN" else f" ON l.{keys[0]} = r.{keys[1]}"
    gen = ExprGen(rng, scope_of(left, "l") + scope_of(right, "r"), tables)
    items = [gen.expr("any", rng.randint(0, 2)) for _ in range(rng.randint(1, 4))]
    source = f"{left.name} AS l {kind} {right.name} AS r{on}"
    return Query(f"SELECT {select_list(items)} FROM {source}{where(gen, rng, 0.4)}" + order_limit(items, rng))


def fam_of(e):
    return "num" if is_num(e.fam) else e.fam


def q_union(rng, tables):
    fam = rng.choice(["num", "str", "date", "any"])
    parts, first = [], None
    for _ in range(rng.randint(2, 3)):
        t = rng.choice(tables)
        gen = ExprGen(rng, scope_of(t), tables)
        e = gen.expr(fam if first is None or first.fam == "array" else fam_of(first), 1)
        first = first or e
        parts.append(f"SELECT {e.sql} AS a0 FROM {t.name}{where(gen, rng, 0.4)}")
    body = " UNION ALL ".join(parts)
    return Query(f"SELECT a0 FROM ({body})" + order_limit([first], rng))


def q_subquery(rng, tables):
    t = rng.choice(tables)
    gen = ExprGen(rng, scope_of(t), tables)
    inner = [gen.expr("any", rng.randint(0, 2)) for _ in range(rng.randint(1, 3))]
    names = ", ".join(f"{e.sql} AS x{i}" for i, e in enumerate(inner))
    limit = ""
    if rng.random() < 0.3:  # a deterministic LIMIT inside the subquery
        keys = ", ".join(f"toString(x{i})" if e.fam == "uuid" else f"x{i}" for i, e in enumerate(inner))
        limit = f" ORDER BY {keys} LIMIT {rng.randint(1, 8)}"
    sub = f"SELECT {names} FROM {t.name}{where(gen, rng, 0.4)}{limit}"
    outer = ExprGen(rng, [E(f"x{i}", e.fam, e.null, e.elem) for i, e in enumerate(inner)], tables)
    if rng.random() < 0.4:
        keys = [outer.expr("any", 0)]
        items = keys + [outer.aggregate(1)]
        text = f"SELECT {select_list(items)} FROM ({sub}) GROUP BY a0"
        return Query(text + order_limit(items, rng), outer.float_agg)
    items = [outer.expr("any", 1) for _ in range(rng.randint(1, 3))]
    text = f"SELECT {select_list(items)} FROM ({sub}){where(outer, rng, 0.5)}"
    return Query(text + order_limit(items, rng))


QUERY_SHAPES = [(q_select, 5), (q_aggregate, 5), (q_distinct, 2), (q_join, 3), (q_union, 2), (q_subquery, 2)]


def random_query(rng, tables):
    shapes, weights = zip(*QUERY_SHAPES)
    return rng.choices(shapes, weights)[0](rng, tables)


# ---------------------------------------------------------------- TLP queries

@dataclass
class TlpCheck:
    """A query and its three-way partitioned form; both must give the same rows."""
    whole: str
    parts: str


def tlp_check(rng, tables):
    t = rng.choice(tables)
    if rng.random() < 0.3 and len(tables) > 1:
        right = rng.choice(tables)
        keys = join_keys(rng, t, right)
        kind = rng.choice(["INNER JOIN", "LEFT JOIN"]) if keys else "CROSS JOIN"
        on = f" ON l.{keys[0]} = r.{keys[1]}" if keys else ""
        source = f"{t.name} AS l {kind} {right.name} AS r{on}"
        scope = scope_of(t, "l") + scope_of(right, "r")
    else:
        source, scope = t.name, scope_of(t)
    gen = ExprGen(rng, scope, tables)
    p = gen.cond(rng.randint(0, 3)).sql
    return rng.choice([tlp_rows, tlp_distinct, tlp_aggregate, tlp_group_by])(rng, gen, source, p)


def partitions(select, source, p, tail=""):
    conds = [p, f"NOT ({p})", f"({p}) IS NULL"]
    return " UNION ALL ".join(f"{select} FROM {source} WHERE {c}{tail}" for c in conds)


def tlp_rows(rng, gen, source, p):
    items = select_list([gen.expr("any", rng.randint(0, 2)) for _ in range(rng.randint(1, 3))])
    return TlpCheck(f"SELECT {items} FROM {source}", partitions(f"SELECT {items}", source, p))


def tlp_distinct(rng, gen, source, p):
    items = select_list([gen.expr(rng.choice(["num", "str", "date"]), 1) for _ in range(rng.randint(1, 2))])
    return TlpCheck(f"SELECT DISTINCT {items} FROM {source}",
                    f"SELECT DISTINCT * FROM ({partitions(f'SELECT DISTINCT {items}', source, p)})")


def tlp_aggregate(rng, gen, source, p):
    ints = [c for c in gen.scope if c.fam == "int"]
    kind = rng.choice(["count", "sum", "min", "max"]) if ints else "count"
    if kind == "count":
        return TlpCheck(f"SELECT count() FROM {source}",
                        f"SELECT sum(c) FROM ({partitions('SELECT count() AS c', source, p)})")
    col = rng.choice(ints).sql
    if kind == "sum":
        return TlpCheck(f"SELECT sum({col}) FROM {source}",
                        f"SELECT sum(s) FROM ({partitions(f'SELECT sum({col}) AS s', source, p)})")
    # An empty part's min/max is the type's default, so parts without rows are left
    # out, and the whole is compared only where it has rows.
    inner = partitions(f"SELECT {kind}({col}) AS m, count({col}) AS n", source, p)
    return TlpCheck(f"SELECT {kind}({col}) FROM {source} HAVING count({col}) > 0",
                    f"SELECT {kind}(m) FROM ({inner}) WHERE n > 0 HAVING count() > 0")


def tlp_group_by(rng, gen, source, p):
    key = gen.expr(rng.choice(["num", "str", "date", "any"]), 1).sql
    inner = partitions(f"SELECT {key} AS k, count() AS c", source, p, " GROUP BY k")
    return TlpCheck(f"SELECT {key} AS k, count() AS c FROM {source} GROUP BY k",
                    f"SELECT k, sum(c) FROM ({inner}) GROUP BY k")


# ---------------------------------------------------------------- running

@dataclass
class Outcome:
    ok: bool
    out: str = ""
    code: int = 0
    name: str = ""
    message: str = ""

    def describe(self):
        return self.out if self.ok else f"error {self.code} ({self.name}): {self.message}"


ERROR_RE = re.compile(r"Code: (\d+)\. (?:DB::Exception: )?(.*)", re.S)


def parse_error(text):
    m = ERROR_RE.search(text)
    if not m:
        return Outcome(False, code=-1, name="UNKNOWN", message=text.strip()[-500:])
    message = m.group(2).strip()
    names = re.findall(r"\(([A-Z][A-Z0-9_]+)\)", message)
    return Outcome(False, code=int(m.group(1)), name=names[-1] if names else "",
                   message=message.splitlines()[0][:500] if message else "")


def stdout_marker(i):
    return f"@@FZ {i}@@"


def strata_batch_text(setup, statements):
    lines = [s + ";" for s in setup]
    for i, s in enumerate(statements):
        lines.append(f"SELECT '{stdout_marker(i)}';")
        lines.append(f"SELECT throwIf(1, '{stdout_marker(i)}');")
        lines.append(s + ";")
    lines.append(f"SELECT '{stdout_marker('END')}';")
    return "\n".join(lines) + "\n"


def split_on_markers(text, stderr=False):
    """Maps statement index -> the text that followed its marker."""
    pieces, current, buf = {}, None, []
    pattern = re.compile(r"@@FZ (\d+|END)@@")
    for line in text.splitlines(keepends=True):
        m = pattern.search(line)
        if m and (stderr or line.strip() == m.group(0)):
            if current is not None:
                pieces[current] = "".join(buf)
            current = m.group(1)
            buf = []
        else:
            buf.append(line)
    if current is not None:
        pieces[current] = "".join(buf)
    return pieces


def run_strata(binary, statements, setup_count, timeout=60):
    """Runs the statements in as few strata processes as possible, each result
    apart. After a crash the next process runs the first setup_count statements
    again, unchecked, then goes on after the statement that crashed."""
    results, start = [None] * len(statements), 0
    while start < len(statements):
        chunk = statements[start:]
        setup = statements[:setup_count] if start >= setup_count else []
        out, err, died = strata_process(binary, strata_batch_text(setup, chunk), timeout)
        outs, errs = split_on_markers(out), split_on_markers(err, stderr=True)
        for i in range(len(chunk)):
            ended = str(i + 1) in outs or (i + 1 == len(chunk) and "END" in outs)
            if not ended:  # died or hung on this statement (or before it, replaying the setup)
                results[start + i] = Outcome(False, code=-2, name="CRASH", message=crash_message(died, err))
                break
            error = errs.get(str(i), "")
            ok = "Code:" not in error
            results[start + i] = Outcome(True, outs.get(str(i), "")) if ok else parse_error(error)
        else:
            break
        start += i + 1
    return results


def crash_message(died, stderr):
    panic = [line for line in stderr.splitlines() if "panicked" in line or "fatal" in line.lower()]
    lines = stderr.splitlines()
    detail = lines[lines.index(panic[-1]) + 1] if panic and lines[-1] != panic[-1] else ""
    return f"{died or 'stopped'}: {panic[-1] if panic else stderr[-300:]} {detail}".strip()


def strata_process(binary, text, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(text)
    try:
        proc = subprocess.run([binary, "local", "--ignore-error", "--queries-file", f.name],
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              env=dict(os.environ, RUST_BACKTRACE="0"))
        died = "" if proc.returncode == 0 else f"exit status {proc.returncode}"
        return proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), died
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return out, (e.stderr or b"").decode(errors="replace"), f"timeout after {timeout} s"
    finally:
        os.unlink(f.name)


class Chdb:
    """One chdb session for the whole run."""

    def __init__(self):
        from chdb import session
        self.session = session.Session()

    def run(self, statements):
        results = []
        for s in statements:
            try:
                out = self.session.query(s, "TabSeparated").bytes()
                results.append(Outcome(True, out.decode(errors="replace")))
            except Exception as e:  # chdb raises RuntimeError with ClickHouse's message
                results.append(parse_error(str(e)))
        return results


# ---------------------------------------------------------------- comparing

NUMBER_RE = re.compile(r"-?(?:\d+\.?\d*(?:e[+-]?\d+)?|inf|nan)")


def close(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def rows_close(a, b):
    """Lines equal except for float digits within 1e-9 (relative)."""
    ta, tb = NUMBER_RE.split(a), NUMBER_RE.split(b)
    na, nb = NUMBER_RE.findall(a), NUMBER_RE.findall(b)
    return ta == tb and len(na) == len(nb) and all(close(x, y) for x, y in zip(na, nb))


def same_rows(a, b, ordered):
    la, lb = a.splitlines(), b.splitlines()
    if not ordered:
        la, lb = sorted(la), sorted(lb)
    return len(la) == len(lb) and all(rows_close(x, y) for x, y in zip(la, lb))


def classify(strata, chdb, query):
    """None when the engines agree, else the kind of difference."""
    if strata.code == -2:
        return "strata-crash"
    if strata.ok and chdb.ok:
        if strata.out == chdb.out:
            return None
        if same_rows(strata.out, chdb.out, ordered=True):
            return None if query.float_agg else "digits"
        if same_rows(strata.out, chdb.out, ordered=False):
            return "wrong-order"
        if query.float_agg and strata.out.count("\n") == chdb.out.count("\n"):
            return "float-noise"
        return "wrong-result"
    if chdb.ok:
        return "strata-error"
    if strata.ok:
        return "strata-accepts"
    return None if strata.code == chdb.code else "error-code"


IGNORED = {"float-noise", "both-failed", "skipped"}
SEVERITY = ["wrong-result", "digits", "strata-crash", "wrong-order", "strata-error",
            "strata-accepts", "error-code", "tlp-violation", "tlp-error", "setup"]


# ---------------------------------------------------------------- batches

LITERALS_RE = re.compile(r"[0-9]+|`[^`]*`|'[^']*'")


@dataclass
class Finding:
    kind: str
    setup: list
    sql: str
    strata: Outcome
    chdb: "Outcome | None"
    where: str

    def signature(self):
        """Groups findings that are likely one cause: kind plus error names."""
        if self.kind == "strata-error":
            return f"{self.kind} {LITERALS_RE.sub('#', self.strata.message)[:100]}"
        theirs = self.chdb.name if self.chdb and not self.chdb.ok else "ok"
        return f"{self.kind} {self.strata.name or 'ok'}/{theirs}"


def make_tables(rng):
    return [random_table(rng, f"t{i}") for i in range(rng.randint(2, 4))]


def tables_used(sql, tables):
    return [t for t in tables if re.search(rf"\b{t.name}\b", sql)]


def names_used(sql, tables):
    return {t.name for t in tables_used(sql, tables)}


def setup_for(sql, tables):
    return [s for t in tables_used(sql, tables) for s in t.setup()]


def differential_batch(args, rng, chdb, number, count):
    tables = make_tables(rng)
    queries = [random_query(rng, tables) for _ in range(count)]
    setup = [s for t in tables for s in t.setup()]
    statements = setup + [q.sql for q in queries]
    ours = run_strata(args.strata, statements, len(setup), args.timeout)
    theirs = chdb.run(statements)
    findings, kept, counts = [], [], collections.Counter()
    broken = set()  # tables whose setup went differently: their queries prove nothing
    for i, (s, a, b) in enumerate(zip(statements, ours, theirs)):
        query = queries[i - len(setup)] if i >= len(setup) else Query(s)
        kind = classify(a, b, query)
        if i < len(setup) and kind:
            kind = "setup"
            broken |= names_used(s, tables)
        elif i >= len(setup) and broken & names_used(s, tables):
            kind = "skipped"
        counts[kind or "agree"] += 1
        if kind is None:
            kept.append((s, a, query))
        elif kind not in IGNORED:
            before = setup_for(s, tables) if i >= len(setup) else \
                [x for x in setup[:i] if names_used(x, tables) & names_used(s, tables)]
            findings.append(Finding(kind, before, s, a, b, f"seed {args.seed} batch {number} statement {i}"))
    return findings, ([] if broken else kept), counts


def tlp_batch(args, rng, number, count):
    tables = make_tables(rng)
    checks = [tlp_check(rng, tables) for _ in range(count)]
    setup = [s for t in tables for s in t.setup()]
    statements = [s for c in checks for s in (c.whole, c.parts)]
    results = run_strata(args.strata, setup + statements, len(setup), args.timeout)[len(setup):]
    findings, counts = [], collections.Counter()
    for i, check in enumerate(checks):
        whole, parts = results[2 * i], results[2 * i + 1]
        kind = tlp_kind(whole, parts)
        counts[kind or "agree"] += 1
        if kind and kind not in IGNORED:
            findings.append(Finding(kind, setup_for(check.whole + check.parts, tables),
                                    check.whole + ";\n" + check.parts, whole, parts,
                                    f"seed {args.seed} tlp batch {number} check {i}"))
    return findings, counts


def tlp_kind(whole, parts):
    if whole.code == -2 or parts.code == -2:
        return "strata-crash"
    if not whole.ok and not parts.ok:
        return "both-failed" if whole.code == parts.code else "tlp-error"
    if whole.ok != parts.ok:
        return "tlp-error"
    return None if same_rows(whole.out, parts.out, ordered=False) else "tlp-violation"


# ---------------------------------------------------------------- output

def emit_sql(path, args, kept, max_length=500):
    """Writes the agreed statements as a tests/sql file: every setup statement, and
    the queries no longer than max_length whose output cannot depend on the order
    of float summation; both-failed statements carry their serverError name."""
    lines = [f"-- Generated by tests/fuzz/differential.py --seed {args.seed} --queries {args.queries}",
             f"-- --batch {args.batch} --emit-sql: random tables and the queries on which Strata and",
             "-- ClickHouse agreed. Regenerate it with that command, then its reference with",
             f"-- tests/sql/reference_from_clickhouse.py {Path(path).name}.", ""]
    for sql, outcome, query in kept:
        if query.float_agg or "@@" in sql or ";" in sql or "--" in sql:
            continue
        if "\ufffd" in outcome.out:  # bytes that are not UTF-8: the reference script reads text
            continue
        if sql.startswith("SELECT") and len(sql) > max_length:
            continue
        if not outcome.ok and not outcome.name:
            continue
        note = f" -- {{ serverError {outcome.name} }}" if not outcome.ok else ""
        lines.append(f"{sql};{note}")
    Path(path).write_text("\n".join(lines) + "\n")


def quote_block(text):
    return "\n".join("-- " + line for line in (text.rstrip("\n").split("\n") if text else ["(empty)"]))


def diff_lines(expected, actual, limit=20):
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), n=0, lineterm="")
    return ["-- " + line for line in list(lines)[2:limit + 2]]


def repro_text(f):
    """A finding as a runnable file: setup, the statement, both outputs as comments."""
    other = "strata (partitioned)" if f.kind.startswith("tlp") else "chdb"
    text = [f"-- {f.kind}: {f.where}"] + [s + ";" for s in f.setup] + [f.sql + ";"]
    text += ["-- strata:", quote_block(f.strata.describe())]
    text += [f"-- {other}:", quote_block(f.chdb.describe() if f.chdb else "")]
    if f.chdb and f.strata.ok and f.chdb.ok:
        text += [f"-- diff (-{other}, +strata):"] + diff_lines(f.chdb.out, f.strata.out)
    return "\n".join(text) + "\n"


def severity(kind):
    return SEVERITY.index(kind) if kind in SEVERITY else len(SEVERITY)


def write_report(directory, findings):
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("[0-9][0-9][0-9][0-9]_*.sql"):  # a previous run's repros
        old.unlink()
    for n, f in enumerate(findings):
        (out / f"{n:04d}_{f.kind}.sql").write_text(repro_text(f))
    groups = collections.defaultdict(list)
    for f in findings:
        groups[f.signature()].append(f)
    ordered = sorted(groups.items(), key=lambda g: (severity(g[1][0].kind), -len(g[1])))
    summary = [f"{len(fs)}\t{sig}\t(first: {fs[0].where})" for sig, fs in ordered]
    (out / "summary.txt").write_text("\n".join(summary) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=50, help="queries per random schema")
    parser.add_argument("--strata", default=os.environ.get("STRATA", "target/debug/strata"))
    parser.add_argument("--tlp", action="store_true", help="ternary logic partitioning on Strata alone")
    parser.add_argument("--emit-sql", help="write the agreed queries as a tests/sql file")
    parser.add_argument("--report", help="directory for one repro file per difference")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per strata process")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chdb = None if args.tlp else Chdb()
    findings, kept, counts = [], [], collections.Counter()
    for number, start in enumerate(range(0, args.queries, args.batch)):
        count = min(args.batch, args.queries - start)
        if args.tlp:
            found, batch_counts = tlp_batch(args, rng, number, count)
        else:
            found, batch_kept, batch_counts = differential_batch(args, rng, chdb, number, count)
            kept += batch_kept
        findings += found
        counts += batch_counts
        print(f"batch {number}: {dict(batch_counts)}", file=sys.stderr)
    print("totals:", dict(counts))
    for sig, n in collections.Counter(f.signature() for f in findings).most_common():
        print(f"{n:5d}  {sig}")
    if args.report:
        write_report(args.report, findings)
    if args.emit_sql:
        emit_sql(args.emit_sql, args, kept)
    return 1 if any(f.kind in ("wrong-result", "strata-crash", "tlp-violation") for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
