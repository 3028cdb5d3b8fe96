-- Every ClickHouse setting is known: accepted ones are type-checked and kept.
SET send_logs_level = 'none';
SELECT 1 SETTINGS join_use_nulls = 0, distributed_product_mode = 'allow';
SELECT getSetting('send_logs_level'), getSetting('join_use_nulls');
SET join_use_nulls = 'true', group_by_two_level_threshold = 1000;
SELECT getSetting('join_use_nulls'), getSetting('group_by_two_level_threshold');
SET max_threads = 2, max_block_size = 100;
SELECT getSetting('max_block_size');
SELECT name, type, default FROM system.settings WHERE name IN ('join_use_nulls', 'send_logs_level', 'max_execution_time', 'max_insert_block_size_rows', 'format_csv_delimiter') ORDER BY name;
SELECT name, changed FROM system.settings WHERE name IN ('max_block_size', 'join_use_nulls', 'group_by_two_level_threshold', 'join_algorithm') ORDER BY name;
-- Sizes with suffixes, fractions of seconds, signed integers.
SET max_memory_usage = '10G';
SELECT getSetting('max_memory_usage');
SET max_memory_usage = '1Gi';
SELECT getSetting('max_memory_usage');
SET max_memory_usage = 0;
SET max_execution_time = 1.5;
SELECT getSetting('max_execution_time');
SET max_execution_time = 0;
-- An alias sets the setting it stands for.
SET max_insert_block_size_rows = 1000;
SELECT getSetting('max_insert_block_size');
-- Wrong values name what is wrong; a failed SET changes nothing.
SET join_use_nulls = 5; -- { serverError CANNOT_CONVERT_TYPE }
SET send_logs_level = 'loud'; -- { serverError BAD_ARGUMENTS }
SET format_csv_delimiter = 'ab'; -- { serverError SIZE_OF_FIXED_STRING_DOESNT_MATCH }
SET max_block_size = 0; -- { serverError BAD_ARGUMENTS }
SET max_block_size = 7, no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SELECT getSetting('max_block_size');
SELECT 1 SETTINGS join_use_nulls = 2; -- { serverError CANNOT_CONVERT_TYPE }
