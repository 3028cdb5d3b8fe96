-- SYSTEM STOP MERGES keeps a table's parts apart until START MERGES.
CREATE TABLE parts_kept (x UInt64) ENGINE = MergeTree ORDER BY x;
SYSTEM STOP MERGES parts_kept;
INSERT INTO parts_kept VALUES (1);
INSERT INTO parts_kept VALUES (2);
INSERT INTO parts_kept VALUES (3);
INSERT INTO parts_kept VALUES (4);
INSERT INTO parts_kept VALUES (5);
INSERT INTO parts_kept VALUES (6);
INSERT INTO parts_kept VALUES (7);
INSERT INTO parts_kept VALUES (8);
INSERT INTO parts_kept VALUES (9);
INSERT INTO parts_kept VALUES (10);
INSERT INTO parts_kept VALUES (11);
INSERT INTO parts_kept VALUES (12);
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'parts_kept' AND active;
SELECT sum(x) FROM parts_kept;
OPTIMIZE TABLE parts_kept FINAL; -- { serverError ABORTED }
OPTIMIZE TABLE parts_kept; -- { serverError ABORTED }
SYSTEM START MERGES parts_kept;
OPTIMIZE TABLE parts_kept FINAL;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'parts_kept' AND active;
SYSTEM STOP MERGES;
SYSTEM START MERGES;
SYSTEM STOP MERGES no_such_table;
-- WITH expr AS name inside subqueries.
SELECT * FROM (WITH 2 AS x SELECT x);
SELECT y + 1 FROM (WITH 'a' AS s, 10 AS n SELECT number * n AS y, s FROM numbers(3)) ORDER BY y;
SELECT (WITH 5 AS k SELECT k * 2) AS ten;
SELECT count() FROM numbers(10) WHERE number IN (WITH 3 AS lo SELECT number FROM numbers(10) WHERE number > lo);
-- extremes = 1: each column's smallest and largest value after the rows.
SELECT number, toString(number) AS s, toDate('2024-01-01') + number AS d FROM numbers(4) SETTINGS extremes = 1;
SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k SETTINGS extremes = 1;
SELECT number, [number, 1] AS a FROM numbers(3) FORMAT PrettyCompact SETTINGS extremes = 1;
SELECT number, 'x' AS s FROM numbers(2) FORMAT Vertical SETTINGS extremes = 1;
SELECT number FROM numbers(2) FORMAT CSVWithNames SETTINGS extremes = 1;
SELECT number FROM numbers(3) WHERE number > 5 SETTINGS extremes = 1;
SELECT number FROM numbers(3) FORMAT JSONEachRow SETTINGS extremes = 1;
