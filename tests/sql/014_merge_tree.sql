-- MergeTree tables: DDL, every column type, partitions, the primary index, merges.
CREATE TABLE seed (A Int64, S String, D Date) ENGINE = MergeTree PARTITION BY D ORDER BY A SETTINGS index_granularity = 1000;
INSERT INTO seed SELECT number, toString(number), toDate('2024-01-01') + intDiv(number, 10000) FROM numbers(30000);
SELECT count(), sum(A), min(S), max(D) FROM seed;
SELECT * FROM seed WHERE A = 12345;
SELECT count() FROM seed WHERE D = '2024-01-02';
SELECT count() FROM seed WHERE A >= 5000 AND A < 5010;
SELECT count() FROM seed WHERE A IN (1, 15000, 29999);
SELECT partition, partition_id, name, rows, marks, level, min_block_number, max_block_number, active FROM system.parts WHERE table = 'seed' ORDER BY name;
SHOW CREATE TABLE seed;
SELECT name, engine, total_rows FROM system.tables WHERE database = 'default' AND name = 'seed';
-- Each INSERT block is one part per partition; OPTIMIZE FINAL merges them.
INSERT INTO seed VALUES (-1, 'minus one', '2024-01-01'), (-2, 'minus two', '2024-01-03');
SELECT partition_id, count() FROM system.parts WHERE table = 'seed' AND active = 1 GROUP BY partition_id ORDER BY partition_id;
OPTIMIZE TABLE seed FINAL;
SELECT name, rows, level FROM system.parts WHERE table = 'seed' AND active = 1 ORDER BY name;
SELECT count(), sum(A) FROM seed;
SELECT A, S FROM seed ORDER BY A LIMIT 3;
-- Every supported type round-trips through a part.
CREATE TABLE types
(
    i8 Int8, i16 Int16, i32 Int32, i64 Int64,
    u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64,
    f32 Float32, f64 Float64 CODEC(ZSTD(3)),
    dec Decimal(18, 4), s String CODEC(NONE),
    d Date, d32 Date32, dt DateTime, dt64 DateTime64(3),
    b Bool, n Nullable(Int32), lc LowCardinality(String), arr Array(Int64)
) ENGINE = MergeTree ORDER BY (i64, s);
INSERT INTO types VALUES (-1, -2, -3, -4, 1, 2, 3, 4, 1.5, 2.25, 3.1416, 'abc', '2024-02-29', '1950-01-01', '2024-01-01 12:34:56', '2024-01-01 12:34:56.789', true, NULL, 'red', [1, 2, 3]);
INSERT INTO types VALUES (127, 32767, 2147483647, 9223372036854775807, 255, 65535, 4294967295, 18446744073709551615, -0.5, -1e300, -99.9999, '', '1970-01-01', '2100-12-31', '2000-01-01 00:00:00', '2000-01-01 00:00:00.001', false, 42, 'blue', []);
SELECT * FROM types ORDER BY i64;
SELECT toTypeName(dec), toTypeName(n), toTypeName(arr), toTypeName(dt64) FROM types LIMIT 1;
OPTIMIZE TABLE types FINAL;
SELECT i64, s, n, arr FROM types ORDER BY i64;
SELECT column, type FROM system.parts_columns WHERE table = 'types' AND active = 1 AND column IN ('f64', 'n') ORDER BY column;
-- Column defaults fill columns an INSERT leaves out.
CREATE TABLE defaults (k UInt32, v String DEFAULT 'none', w UInt8 DEFAULT 7) ENGINE = MergeTree ORDER BY k;
INSERT INTO defaults (k) VALUES (1), (2);
INSERT INTO defaults VALUES (3, 'given', 9);
SELECT * FROM defaults ORDER BY k;
-- A key that is an expression, and a primary key shorter than the sorting key.
CREATE TABLE expr_key (k UInt64, s String) ENGINE = MergeTree PARTITION BY k % 3 PRIMARY KEY intHash32(k) ORDER BY (intHash32(k), s);
INSERT INTO expr_key SELECT number, toString(number) FROM numbers(10);
SELECT partition, rows FROM system.parts WHERE table = 'expr_key' AND active = 1 ORDER BY partition;
SELECT count(), sum(k) FROM expr_key WHERE k % 3 = 1;
-- CREATE ... AS SELECT, TRUNCATE, DROP.
CREATE TABLE copy ENGINE = MergeTree ORDER BY x AS SELECT number % 5 AS x, number AS y FROM numbers(20);
SELECT x, count() FROM copy GROUP BY x ORDER BY x;
TRUNCATE TABLE copy;
SELECT count() FROM copy;
SELECT count() FROM system.parts WHERE table = 'copy' AND active = 1;
INSERT INTO copy VALUES (1, 1);
SELECT * FROM copy;
DROP TABLE copy;
SELECT * FROM copy; -- { serverError UNKNOWN_TABLE }
-- Bad definitions fail with ClickHouse's codes and change nothing.
CREATE TABLE unsorted (a UInt8) ENGINE = MergeTree;
INSERT INTO unsorted VALUES (3), (1), (2);
SELECT * FROM unsorted;
SHOW CREATE TABLE unsorted;
CREATE TABLE bad (a UInt8, b UInt8) ENGINE = MergeTree PRIMARY KEY b ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (a UInt8) ENGINE = MergeTree ORDER BY a SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
CREATE TABLE bad (a UInt8 CODEC(NOPE)) ENGINE = MergeTree ORDER BY a; -- { serverError UNKNOWN_CODEC }
CREATE TABLE bad (a UInt8) ENGINE = MergeTree ORDER BY missing; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE bad (a UInt8) ENGINE = MergeTree ORDER BY a ORDER BY a; -- { serverError SYNTAX_ERROR }
CREATE TABLE bad (a UInt8) ENGINE = NoSuchEngine; -- { serverError UNKNOWN_STORAGE }
CREATE TABLE seed (a UInt8) ENGINE = MergeTree ORDER BY a; -- { serverError TABLE_ALREADY_EXISTS }
SELECT count() FROM seed;
SHOW TABLES;
