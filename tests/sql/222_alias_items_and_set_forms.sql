-- A select item naming an earlier alias reads it, also where it names a column.
SELECT number AS n, n FROM numbers(2);
SELECT number + 1 AS number, number FROM numbers(2);
SELECT number AS n, n, n * 10 FROM numbers(3) ORDER BY n DESC;
DROP TABLE IF EXISTS alias_target;
CREATE TABLE alias_target (a UInt64, b UInt64) ENGINE = Memory;
INSERT INTO alias_target SELECT number AS n, n FROM numbers(2);
SELECT * FROM alias_target ORDER BY a;
DROP TABLE alias_target;
-- A number as a join condition.
SELECT count() FROM numbers(2) AS a JOIN numbers(3) AS b ON 1;
SELECT count() FROM numbers(2) AS a LEFT JOIN numbers(3) AS b ON 0;
SELECT a.number, b.number FROM numbers(3) AS a JOIN numbers(2) AS b ON a.number = b.number AND 1 ORDER BY a.number;
-- SET forms: a flag without a value, digits grouped with underscores.
SET optimize_on_insert;
SELECT getSetting('optimize_on_insert');
SET max_rows_in_set_to_optimize_join = 100_000, optimize_on_insert = 0;
SELECT getSetting('max_rows_in_set_to_optimize_join'), getSetting('optimize_on_insert');
-- Caches Strata does not keep, and CLEAR for DROP.
SYSTEM DROP QUERY CACHE;
SYSTEM CLEAR MARK CACHE;
SYSTEM DROP DNS CACHE;
-- A codec of transformations alone needs allow_suspicious_codecs.
DROP TABLE IF EXISTS delta_only;
CREATE TABLE delta_only (x UInt32 CODEC(Delta)) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
SET allow_suspicious_codecs = 1;
CREATE TABLE delta_only (x UInt32 CODEC(Delta)) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO delta_only SELECT number * 3 FROM numbers(5);
SELECT sum(x) FROM delta_only;
DROP TABLE delta_only;
