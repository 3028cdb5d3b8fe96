-- system.tables shows each table's definition as ClickHouse does: the CREATE
-- statement on one line, the ENGINE clause, keys without tuple parentheses,
-- and for MergeTree tables its parts and marks.
CREATE TABLE defs (a UInt64, b String) ENGINE = MergeTree PARTITION BY a % 2 ORDER BY (a, b) SETTINGS index_granularity = 8192;
INSERT INTO defs SELECT number, toString(number) FROM numbers(100000);
CREATE TABLE keyed (k UInt32, v String) ENGINE = ReplacingMergeTree ORDER BY k;
CREATE TABLE mem (a UInt64) ENGINE = Memory;
CREATE VIEW defs_view AS SELECT a FROM defs;
SELECT name, engine, engine_full, partition_key, sorting_key, primary_key, sampling_key, storage_policy, parts, active_parts, total_marks, total_rows, has_own_data, table
FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name IN ('defs', 'mem') ORDER BY name;
SELECT as_select FROM system.tables WHERE database = currentDatabase() AND name = 'defs_view';
SELECT count() FROM system.tables WHERE database = currentDatabase() AND engine_full = '';
