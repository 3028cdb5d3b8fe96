-- strata-only: Strata's own system tables and documented behaviour chdb cannot show.
SELECT name FROM system.databases ORDER BY name;
CREATE TABLE mem (a UInt64, b Nullable(String)) ENGINE = Memory;
INSERT INTO mem VALUES (1, 'x'), (2, NULL);
SELECT database, name, engine, total_rows FROM system.tables WHERE database = 'default';
SELECT table, name, type, position FROM system.columns WHERE database = 'default' ORDER BY position;
SELECT name, value, changed, type, default FROM system.settings WHERE name IN ('max_block_size', 'union_default_mode') ORDER BY name;
SET max_block_size = 123;
SELECT name, value, changed FROM system.settings WHERE name = 'max_block_size';
SELECT name, is_aggregate FROM system.functions WHERE name IN ('uniq', 'toTypeName', 'count', 'multiIf', 'sum') ORDER BY name;
SELECT count() > 100 FROM system.functions;
DESCRIBE (SELECT number % 10 AS k, toString(number) AS s, count() FROM numbers(3) GROUP BY k, s);
SHOW CREATE TABLE mem;
TRUNCATE TABLE mem;
SELECT count() FROM mem;
SELECT getServerSetting('max_server_memory_usage_to_ram_ratio');
SELECT 1 SETTINGS max_threads = 1, readonly = 1; -- { serverError READONLY }
SET readonly = 1;
SET max_threads = 2; -- { serverError READONLY }
SELECT 'reads still work';
SELECT metric FROM system.asynchronous_metrics WHERE metric IN ('MemoryTracking', 'MemoryResident', 'ServerMemoryLimit', 'OSMemoryTotal') AND value >= 0 ORDER BY metric;
SELECT count() FROM system.processes WHERE query LIKE '%FROM system.processes%';
SELECT type, exception_code FROM system.query_log WHERE query LIKE '%reads still work%' AND query NOT LIKE '%query_log%';
SELECT type, exception_code FROM system.query_log WHERE query LIKE 'SET max_threads = 2%';
