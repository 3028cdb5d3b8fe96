-- A materialized view with its own ENGINE keeps its rows in an inner table; POPULATE fills it first.
CREATE TABLE mv_source (x Int32, y String) ENGINE = Memory;
INSERT INTO mv_source VALUES (1, 'a');
CREATE MATERIALIZED VIEW mv_memory ENGINE = Memory POPULATE AS SELECT x, y FROM mv_source;
INSERT INTO mv_source VALUES (2, 'b');
SELECT * FROM mv_memory ORDER BY x;
SELECT engine, name LIKE '.inner_id.%' FROM system.tables WHERE database = currentDatabase() AND name NOT LIKE 'mv_source' ORDER BY engine;
-- Without ENGINE the inner table is a MergeTree ordered by tuple().
CREATE MATERIALIZED VIEW mv_default AS SELECT x FROM mv_source;
SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND engine = 'MergeTree';
-- Declared columns are the view's and its inner table's.
CREATE MATERIALIZED VIEW mv_typed (x Int64) ENGINE = MergeTree ORDER BY x AS SELECT x FROM mv_source;
DESCRIBE mv_typed;
-- TO a table with the columns after it, as ClickHouse writes them.
CREATE TABLE mv_target (x Int64, z Int8) ENGINE = Memory;
CREATE MATERIALIZED VIEW mv_to TO mv_target (x Int64) AS SELECT x FROM mv_source;
CREATE MATERIALIZED VIEW mv_both TO mv_target ENGINE = Memory AS SELECT x FROM mv_source; -- { serverError SYNTAX_ERROR }
INSERT INTO mv_source VALUES (3, 'c');
SELECT * FROM mv_target;
SELECT * FROM mv_to;
SELECT * FROM mv_typed;
SELECT * FROM mv_default ORDER BY x;
-- RENAME keeps a view's inner table; DROP and TRUNCATE reach it.
RENAME TABLE mv_memory TO mv_renamed;
SELECT * FROM mv_renamed ORDER BY x;
SELECT count() FROM system.tables WHERE database = currentDatabase();
TRUNCATE TABLE mv_typed;
SELECT count() FROM mv_typed;
DROP TABLE mv_renamed;
SELECT count() FROM system.tables WHERE database = currentDatabase();
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_default AS SELECT y FROM mv_source;
SELECT count() FROM system.tables WHERE database = currentDatabase();
-- A view whose query reads no table: only POPULATE fills it.
CREATE MATERIALIZED VIEW mv_constant ENGINE = Memory POPULATE AS SELECT 1 AS x;
SELECT * FROM mv_constant;
DROP TABLE mv_constant;
SELECT count() FROM system.tables WHERE database = currentDatabase();
