-- CREATE TABLE with a column list and AS SELECT: the rows go in by position.
CREATE TABLE from_query (a UInt8, b String) ENGINE = MergeTree ORDER BY a AS SELECT number AS b, toString(number) AS a FROM numbers(3);
SELECT * FROM from_query ORDER BY a;
SHOW CREATE TABLE from_query;
CREATE TABLE memory_copy (a UInt8, b String) ENGINE = Memory AS SELECT 5 AS x, 'q' AS y;
SELECT * FROM memory_copy;
CREATE TABLE with_default (a UInt64, b String DEFAULT 'z', c Nullable(Float64)) ENGINE = Memory AS SELECT 1, 'x', NULL UNION ALL SELECT 2, 'y', 2.5;
SELECT * FROM with_default ORDER BY a;
-- The column counts must match; a failed query leaves no table behind.
CREATE TABLE wrong_count (a UInt8, b String DEFAULT 'z') ENGINE = Memory AS SELECT 5 AS a; -- { serverError NUMBER_OF_COLUMNS_DOESNT_MATCH }
EXISTS TABLE wrong_count;
CREATE TABLE bad_value (a UInt8) ENGINE = Memory AS SELECT 'not a number'; -- { serverError CANNOT_PARSE_TEXT }
EXISTS TABLE bad_value;
CREATE TABLE IF NOT EXISTS memory_copy (a UInt8, b String) ENGINE = Memory AS SELECT 6, 'r';
SELECT count() FROM memory_copy;
