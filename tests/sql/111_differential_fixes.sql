-- Bugs the differential fuzzer (tests/fuzz) found, each with ClickHouse's answer.

-- Scans of one table function with other arguments are not one subexpression.
SELECT (SELECT count() FROM numbers(2)), (SELECT count() FROM numbers(5));
SELECT (SELECT sum(number) FROM numbers(3)) AS a, (SELECT sum(number) FROM numbers(4) AS n) AS b;
SELECT count() FROM numbers(3) AS a, numbers(4) AS b;

-- NULLs sort last in either direction unless told otherwise.
SELECT x FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x DESC;
SELECT x FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x ASC;
SELECT x FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x DESC NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x DESC LIMIT 1;

-- An IN list of four or more constants over a FixedString column.
CREATE TABLE f (c FixedString(4)) ENGINE = Memory;
INSERT INTO f VALUES ('ab'), ('b'), ('cd');
SELECT c FROM f WHERE c IN ('ab', 'b', 'c', 'd') ORDER BY c;
SELECT c FROM f WHERE c IN ('abcde', 'b', 'c', 'd'); -- { serverError TOO_LARGE_STRING_SIZE }

-- avg of a Decimal grouped by a small key (a dense table of 256 slots).
CREATE TABLE d (k UInt8, x Nullable(Decimal(38, 10)), y Decimal(18, 4)) ENGINE = Memory;
INSERT INTO d VALUES (1, 1.5, 2.25), (1, NULL, 0.75), (3, NULL, 1);
SELECT k, avg(x), avg(y) FROM d GROUP BY k ORDER BY k;
SELECT k, avg(x), avg(y) FROM d GROUP BY k ORDER BY k SETTINGS max_threads = 1;
SELECT toTypeName(avg(y)) FROM d;

-- Decimal values in VALUES are read exactly, not through Float64.
CREATE TABLE dec (d Decimal(18, 4), e Decimal(38, 10)) ENGINE = Memory;
INSERT INTO dec VALUES (-99999999999999.3464, 9999999999999999999999999999.9999999999), (99999999999999.9982, -0.0000000001), (12, 1.5);
SELECT d, e FROM dec ORDER BY d;
SELECT sum(d), count(e) FROM dec;

-- NOT IN (subquery) leaves the set's NULLs out, as ClickHouse's sets do.
CREATE TABLE nt (a Nullable(Int32)) ENGINE = Memory;
INSERT INTO nt VALUES (1), (NULL), (3);
CREATE TABLE nv (b Nullable(Int32)) ENGINE = Memory;
INSERT INTO nv VALUES (1), (NULL);
SELECT a FROM nt WHERE a NOT IN (SELECT b FROM nv) ORDER BY a;
SELECT a FROM nt WHERE a IN (SELECT b FROM nv) ORDER BY a;
SELECT count() FROM nt WHERE a NOT IN (SELECT b FROM nv WHERE b > 5);
SELECT number FROM numbers(4) WHERE number NOT IN (SELECT toNullable(number) FROM numbers(2)) ORDER BY number;

-- A scalar subquery is Nullable: one that finds no row is NULL.
SELECT (SELECT number FROM numbers(10) WHERE number > 100) AS x, toTypeName(x);
SELECT (SELECT max(number) FROM numbers(3)) AS m, toTypeName(m);
SELECT number, (SELECT max(number) FROM numbers(3)) FROM numbers(2) ORDER BY number;
SELECT number FROM numbers(5) WHERE number > (SELECT min(number) FROM numbers(3, 2)) ORDER BY number;
SELECT sum(number - (SELECT number FROM numbers(1) WHERE number > 5)) FROM numbers(3);
