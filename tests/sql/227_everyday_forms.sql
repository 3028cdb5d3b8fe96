-- Format names in any letter case.
SELECT 1 FORMAT tsv;
SELECT 1 AS x FORMAT jsoneachrow;
SELECT * FROM format(csv, '1,2');
SELECT 1 FORMAT NoSuchFormat; -- { serverError UNKNOWN_FORMAT }
-- USER() and CURRENT_USER() in any letter case.
SELECT currentUser() = USER(), CURRENT_USER() = user();
-- count(DISTINCT a, b) counts distinct tuples; f(DISTINCT x) is named fDistinct(x).
SELECT count(DISTINCT x, y), countDistinct(x, y), COUNT(DISTINCT x), sum(DISTINCT x), quantile(0.5)(DISTINCT x) FROM (SELECT 1 AS x, 2 AS y UNION ALL SELECT 1, 3 UNION ALL SELECT 1, 3) FORMAT TSVWithNames;
-- DESCRIBE of a parenthesized query.
DESCRIBE (SELECT 1 + 1, concat('a', 'b'));
-- MySQL integer types: display width ignored, UNSIGNED read; DateTime().
CREATE TEMPORARY TABLE mysql_types (a INT(11), b BIGINT(20) UNSIGNED, c TINYINT UNSIGNED, e SMALLINT(5) UNSIGNED, f INTEGER UNSIGNED, g DateTime(), h VARCHAR(255));
DESCRIBE mysql_types;
-- CODEC(Default) is the default compression.
CREATE TABLE default_codec (v String CODEC(Default), w UInt64 CODEC(Delta, Default)) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO default_codec VALUES ('a', 1), ('b', 2);
SELECT * FROM default_codec ORDER BY w;
-- Tables named like keywords.
CREATE TABLE `table` (x Int32) ENGINE = Memory;
INSERT INTO `table` VALUES (1), (2);
SELECT count(*) FROM table WHERE x = 1;
SELECT t.x, table.x FROM table AS t JOIN table USING x ORDER BY t.x;
CREATE TABLE ttl (x Int32) ENGINE = Memory;
SELECT count(*) FROM ttl;
CREATE TABLE order (x Int32) ENGINE = MergeTree ORDER BY x;
SHOW CREATE TABLE order;
-- ALTER TABLE ... MODIFY SETTING and RESET SETTING.
CREATE TABLE table_settings (x Int32) ENGINE = MergeTree ORDER BY x;
ALTER TABLE table_settings MODIFY SETTING merge_with_ttl_timeout = 7, max_parts_to_merge_at_once = 5;
SHOW CREATE TABLE table_settings;
ALTER TABLE table_settings RESET SETTING merge_with_ttl_timeout;
SHOW CREATE TABLE table_settings;
ALTER TABLE table_settings MODIFY SETTING index_granularity = 100; -- { serverError READONLY_SETTING }
ALTER TABLE table_settings MODIFY SETTING no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
INSERT INTO table_settings VALUES (3);
SELECT * FROM table_settings;
-- Obsolete MergeTree settings are accepted; SAMPLE BY inside ORDER BY tuple(...).
CREATE TABLE final_mark (x UInt64) ENGINE = MergeTree ORDER BY tuple() SETTINGS write_final_mark = 1;
CREATE TABLE sampled (x String) ENGINE = MergeTree ORDER BY tuple(sipHash64(x)) SAMPLE BY sipHash64(x);
INSERT INTO sampled SELECT toString(number) FROM numbers(100);
SELECT count() FROM sampled;
-- CREATE DATABASE ... ENGINE = Atomic.
CREATE DATABASE atomic_db ENGINE = Atomic;
CREATE DATABASE IF NOT EXISTS atomic_db ENGINE = Atomic;
SELECT name, engine FROM system.databases WHERE name = 'atomic_db';
CREATE DATABASE bad_db ENGINE = NoSuchEngine; -- { serverError UNKNOWN_DATABASE_ENGINE }
DROP DATABASE atomic_db;
