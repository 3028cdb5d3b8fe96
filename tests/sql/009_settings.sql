-- SET, SETTINGS clauses and getSetting.
SELECT getSetting('max_block_size');
SET max_block_size = 1000;
SELECT getSetting('max_block_size');
SELECT getSetting('max_block_size') SETTINGS max_block_size = 77;
SELECT getSetting('max_block_size');
SELECT count() FROM numbers(10000) SETTINGS max_block_size = 7;
SELECT getSetting('intersect_default_mode'), getSetting('except_default_mode'), getSetting('union_default_mode');
SET no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SET GLOBAL max_block_size = 5; -- { serverError SYNTAX_ERROR }
SELECT getSetting('max_block_size');
SELECT 1 SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SELECT getSetting('no_such_setting'); -- { serverError UNKNOWN_SETTING }
SET readonly = 1;
CREATE TABLE t (a UInt8) ENGINE = Memory; -- { serverError READONLY }
