-- INTERSECT and EXCEPT DISTINCT keep one copy of each row.
SELECT x FROM (SELECT arrayJoin([1, 1, 2, 2, 3]) AS x INTERSECT DISTINCT SELECT arrayJoin([1, 2, 2])) ORDER BY x;
SELECT x FROM (SELECT arrayJoin([1, 1, 2, 3]) AS x EXCEPT DISTINCT SELECT 1) ORDER BY x;
-- A window's ORDER BY puts NULLs last in either direction, as a query's does.
SELECT x, row_number() OVER (ORDER BY x NULLS FIRST), rank() OVER (ORDER BY x DESC), rank() OVER (ORDER BY x) FROM (SELECT arrayJoin([2, NULL, 1, NULL]) AS x) ORDER BY x NULLS FIRST, 2;
SELECT x, rank() OVER w FROM (SELECT arrayJoin([2, NULL, 1]) AS x) WINDOW w AS (ORDER BY x DESC) ORDER BY x;
-- A RANGE offset counts days over a Date and seconds over a DateTime.
SELECT d, sum(v) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (SELECT toDate('2024-01-01') + number * 2 - (number = 2) AS d, number + 1 AS v FROM numbers(5)) ORDER BY d;
SELECT d, count() OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING) FROM (SELECT toDate('2024-02-27') + number AS d FROM numbers(5)) ORDER BY d;
SELECT t, count() OVER (ORDER BY t RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM (SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 2 AS t FROM numbers(4)) ORDER BY t;
SELECT x, sum(x) OVER (ORDER BY x RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) FROM (SELECT number * 2 AS x FROM numbers(4)) ORDER BY x;
-- A frame with no row: groupArray gives [].
SELECT number, groupArray(number) OVER (ORDER BY number ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) FROM numbers(4) ORDER BY number;
-- A FixedString beside a String in a CASE, an array or `||` is a String.
SELECT if(number = 0, toFixedString('a', 1), 'bc') AS v, toTypeName(v) FROM numbers(2) ORDER BY number;
SELECT multiIf(number = 0, toFixedString('ab', 2), number = 1, 'c', toFixedString('de', 2)) AS v, toTypeName(v) FROM numbers(3) ORDER BY number;
SELECT toFixedString('abc', 3) || 'x', 'y' || toFixedString('z', 1);
SELECT [toDate('2024-01-01'), toDateTime('2024-01-01 10:00:00', 'UTC')] AS a, toTypeName(a);
-- Subcolumns of a Map.
CREATE TABLE mp (k UInt8, m Map(String, UInt32)) ENGINE = MergeTree ORDER BY k;
INSERT INTO mp VALUES (1, {'a': 1, 'b': 2}), (2, {'c': 3}), (3, {});
SELECT k, m.keys, m.values, m.size0 FROM mp ORDER BY k;
SELECT sum(m.size0), arraySort(groupArrayArray(m.keys)) FROM mp;
DROP TABLE mp;
-- JSON writes nan and infinities as null, or quoted when asked.
SELECT nan AS a, inf AS b, -inf AS c, 1.5 AS d FORMAT JSONEachRow;
SELECT nan AS a, inf AS b, -inf AS c, 1.5 AS d FORMAT JSONEachRow SETTINGS output_format_json_quote_denormals = 1;
-- EXCHANGE TABLES swaps two names; CREATE OR REPLACE TABLE replaces a table,
-- and a failed replacement leaves the old one.
CREATE TABLE ex_a (x String) ENGINE = MergeTree ORDER BY x;
CREATE TABLE ex_b (y UInt8) ENGINE = Memory;
INSERT INTO ex_a VALUES ('A');
INSERT INTO ex_b VALUES (2);
EXCHANGE TABLES ex_a AND ex_b;
SELECT * FROM ex_a;
SELECT * FROM ex_b;
EXCHANGE TABLES ex_a AND ex_missing; -- { serverError UNKNOWN_TABLE }
SELECT * FROM ex_a;
CREATE OR REPLACE TABLE ex_a (z String) ENGINE = MergeTree ORDER BY z;
INSERT INTO ex_a VALUES ('new');
SELECT * FROM ex_a;
CREATE OR REPLACE TABLE ex_a ENGINE = Memory AS SELECT z || '!' AS w FROM ex_a;
SELECT * FROM ex_a;
CREATE OR REPLACE TABLE ex_a ENGINE = Memory AS SELECT no_such_column FROM ex_b; -- { serverError UNKNOWN_IDENTIFIER }
SELECT * FROM ex_a;
CREATE OR REPLACE TABLE ex_new (x UInt8) ENGINE = Memory;
SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'ex\\_%' ORDER BY name;
DROP TABLE ex_a;
DROP TABLE ex_b;
DROP TABLE ex_new;
