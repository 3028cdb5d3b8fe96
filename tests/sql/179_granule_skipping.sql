-- Filters on columns outside the primary key, and on skipping indexes,
-- return every matching row: what granule bounds and indexes skip never
-- holds a match (NULLs, NaN, signed zeros, long strings, patched rows).
CREATE TABLE g (k UInt64, s String, n Nullable(Int64), f Float64, d Date) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 4, enable_block_number_column = 1, enable_block_offset_column = 1;
INSERT INTO g SELECT number, toString(number * 7 % 100), if(number % 5 = 0, NULL, number % 13), if(number = 10, nan, if(number = 11, -0., number / 4)), toDate('2026-01-01') + number % 40 FROM numbers(100);
SELECT k FROM g WHERE s = '49' ORDER BY k;
SELECT count() FROM g WHERE s >= '90';
SELECT count() FROM g WHERE n = 12;
SELECT count() FROM g WHERE n IS NULL;
SELECT count() FROM g WHERE n > 10 AND d < '2026-01-10';
SELECT k FROM g WHERE f = 0 ORDER BY k;
SELECT k FROM g WHERE f > 24.5 ORDER BY k;
SELECT count() FROM g WHERE isNaN(f);
SELECT count() FROM g WHERE d = '2026-02-09';
SELECT count() FROM g WHERE s IN ('3', '14', '77');
SELECT count() FROM g WHERE s LIKE '4%';
-- Strings longer than a bound keeps.
CREATE TABLE long_strings (k UInt64, s String) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 2;
INSERT INTO long_strings SELECT number, concat(repeat('x', 70), toString(number)) FROM numbers(10);
SELECT k FROM long_strings WHERE s = concat(repeat('x', 70), '7');
SELECT count() FROM long_strings WHERE s > concat(repeat('x', 70), '5');
-- Values changed after the part was written: lightweight UPDATE, ALTER UPDATE, DELETE.
UPDATE g SET s = 'zzz' WHERE k = 3;
SELECT k FROM g WHERE s = 'zzz';
ALTER TABLE g UPDATE n = 1000 WHERE k = 4 SETTINGS mutations_sync = 2;
SELECT k FROM g WHERE n = 1000;
DELETE FROM g WHERE k = 7;
SELECT count() FROM g WHERE s = '49';
OPTIMIZE TABLE g FINAL;
SELECT k FROM g WHERE s = 'zzz';
SELECT k FROM g WHERE n = 1000;
SELECT count() FROM g WHERE s = '49';
-- A column whose type changed reads converted; its old bounds are not used.
ALTER TABLE g MODIFY COLUMN n Nullable(String) SETTINGS mutations_sync = 2;
SELECT count() FROM g WHERE n = '12';
SELECT count() FROM g WHERE n > '5';
-- Skipping indexes: minmax, set and bloom_filter, on columns and expressions.
CREATE TABLE ix (k UInt64, s String, v Int32, INDEX by_len length(s) TYPE minmax GRANULARITY 2, INDEX by_set v % 7 TYPE set(3) GRANULARITY 1, INDEX by_bloom s TYPE bloom_filter(0.01) GRANULARITY 1, INDEX by_lower lower(s) TYPE set(0) GRANULARITY 2, INDEX by_pair (v, s) TYPE bloom_filter GRANULARITY 1) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 8, enable_block_number_column = 1, enable_block_offset_column = 1;
INSERT INTO ix SELECT number, if(number % 9 = 0, upper(hex(number)), hex(number * 31)), number % 50 - 20 FROM numbers(500);
INSERT INTO ix SELECT number + 1000, repeat('a', number % 20), number FROM numbers(100);
SELECT count() FROM ix WHERE length(s) = 17;
SELECT count() FROM ix WHERE length(s) BETWEEN 3 AND 5;
SELECT count() FROM ix WHERE v % 7 = 3;
SELECT count() FROM ix WHERE v % 7 IN (0, 6);
SELECT count() FROM ix WHERE v % 7 != 3;
SELECT k FROM ix WHERE s = hex(31 * 31) ORDER BY k;
SELECT k FROM ix WHERE s IN ('2D', 'aaaa', 'nothing') ORDER BY k;
SELECT count() FROM ix WHERE lower(s) = lower(hex(9 * 31));
SELECT k FROM ix WHERE lower(s) = 'aaaaaaaaaaa' ORDER BY k;
SELECT k FROM ix WHERE v = 42 AND s = hex(62 * 31) ORDER BY k;
SELECT count() FROM ix WHERE s = 'none';
SELECT count() FROM ix WHERE v = 123456;
OPTIMIZE TABLE ix FINAL;
SELECT count() FROM ix WHERE v % 7 = 3;
SELECT k FROM ix WHERE s = hex(31 * 31) ORDER BY k;
-- Indexes change with the data: UPDATE, ALTER UPDATE, and a re-declared index.
UPDATE ix SET s = 'patched' WHERE k = 5;
SELECT k FROM ix WHERE s = 'patched';
SELECT k FROM ix WHERE lower(s) = 'patched';
ALTER TABLE ix UPDATE v = 7777 WHERE k = 6 SETTINGS mutations_sync = 2;
SELECT k FROM ix WHERE v = 7777;
SELECT k FROM ix WHERE v % 7 = 7777 % 7 AND v > 1000 ORDER BY k;
ALTER TABLE ix DROP INDEX by_set;
ALTER TABLE ix ADD INDEX by_set v % 5 TYPE set(2) GRANULARITY 1;
SELECT count() FROM ix WHERE v % 5 = 4;
INSERT INTO ix VALUES (5000, 'new', 4);
SELECT count() FROM ix WHERE v % 5 = 4;
ALTER TABLE ix MATERIALIZE INDEX by_set SETTINGS mutations_sync = 2;
SELECT count() FROM ix WHERE v % 5 = 4;
-- Nullable and NULL in sets and Bloom filters.
CREATE TABLE nix (k UInt64, s Nullable(String), INDEX bs s TYPE set(10) GRANULARITY 1, INDEX bb s TYPE bloom_filter GRANULARITY 1) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 2;
INSERT INTO nix VALUES (1, NULL), (2, 'a'), (3, NULL), (4, NULL), (5, 'b'), (6, 'c');
SELECT k FROM nix WHERE s = 'a';
SELECT k FROM nix WHERE s != 'a' ORDER BY k;
SELECT k FROM nix WHERE s IS NULL ORDER BY k;
SELECT k FROM nix WHERE s IN ('b', 'c') ORDER BY k;
-- EXPLAIN's settings are checked as ClickHouse checks them.
EXPLAIN foo = 1 SELECT 1; -- { serverError UNKNOWN_SETTING }
EXPLAIN indexes = 5 SELECT 1; -- { serverError INVALID_SETTING_VALUE }
EXPLAIN PIPELINE indexes = 1 SELECT 1; -- { serverError UNKNOWN_SETTING }
