-- A query over max_memory_usage fails alone; the session goes on.
SELECT groupArray(number) FROM numbers(1000000) SETTINGS max_memory_usage = 1000000; -- { serverError MEMORY_LIMIT_EXCEEDED }
SELECT count() FROM numbers(10);
SET max_memory_usage = 2000000;
SELECT length(toString(groupArray(number))) > 0 FROM numbers(1000000); -- { serverError MEMORY_LIMIT_EXCEEDED }
SELECT sum(number) FROM numbers(1000000);
SET max_memory_usage = 0;
SELECT getServerSetting('max_server_memory_usage') > 0;
SELECT name FROM system.server_settings WHERE name IN ('max_server_memory_usage', 'max_server_memory_usage_to_ram_ratio') ORDER BY name;
SELECT name, type FROM system.settings WHERE name IN ('max_memory_usage', 'memory_overcommit_ratio_denominator', 'memory_usage_overcommit_max_wait_microseconds') ORDER BY name;
SYSTEM FLUSH LOGS;
