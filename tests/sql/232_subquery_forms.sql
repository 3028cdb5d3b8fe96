-- EXPLAIN as a subquery: its lines are rows of a column named explain.
SELECT count() > 0 FROM (EXPLAIN SELECT 1);
CREATE TABLE explained (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 10;
INSERT INTO explained SELECT number FROM numbers(1000);
SELECT count() > 0 FROM (EXPLAIN indexes = 1 SELECT * FROM explained WHERE k = 100) WHERE explain LIKE '%Granules: %';
SELECT toTypeName(explain) FROM (EXPLAIN SELECT 1) LIMIT 1;
-- ARRAY JOIN and arrayJoin keep a string's backslashes and quotes.
SELECT length(arrayJoin(['a\\b', 'c\'\'d']));
SELECT x, length(x) FROM (SELECT ['p\\', 'q\'s'] AS a) ARRAY JOIN a AS x;
SELECT x, y FROM (SELECT [1, 2] AS a, ['p\\', 'q'] AS b) LEFT ARRAY JOIN a AS x, b AS y;
-- A select list's alias in JOIN ... ON.
CREATE TABLE joined_left (a Int32) ENGINE = Memory;
CREATE TABLE joined_right (a Int32) ENGINE = Memory;
INSERT INTO joined_left VALUES (1), (2);
INSERT INTO joined_right VALUES (1), (3);
SELECT t1.a AS t1_a, t2.a AS t2_a FROM joined_left AS t1 JOIN joined_right AS t2 ON t1_a = t2_a;
SELECT t1.a AS t1_a, t2.a FROM joined_left AS t1 JOIN joined_right AS t2 ON joined_left.a = joined_right.a AND t1_a = joined_right.a ORDER BY ALL;
-- system.metrics and system.errors.
SELECT metric, value FROM system.metrics WHERE metric = 'Query';
SELECT throwIf(1); -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT name, code, value > 0, remote, last_error_time > now() - 3600 FROM system.errors WHERE code = 395;
