-- ALTER TABLE ADD, DROP and RENAME COLUMN on MergeTree tables. (Memory tables are
-- tested in crates/engine/tests/merge_tree.rs: ClickHouse's Memory engine loses
-- rows' values on RENAME COLUMN, which is not a reference to keep.)
CREATE TABLE t (k UInt64, s String, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY k;
INSERT INTO t SELECT number, toString(number), toDate('2024-01-01') + number % 2 FROM numbers(10);
ALTER TABLE t ADD COLUMN c UInt32 DEFAULT 7;
ALTER TABLE t ADD COLUMN n Nullable(String) AFTER k;
ALTER TABLE t ADD COLUMN f Float64 FIRST;
SELECT * FROM t ORDER BY k LIMIT 3;
INSERT INTO t (k, s, d) VALUES (100, 'x', '2024-01-01');
SELECT k, c, n, f FROM t WHERE k = 100;
ALTER TABLE t RENAME COLUMN s TO str;
SELECT k, str FROM t ORDER BY k LIMIT 2;
SELECT s FROM t; -- { serverError UNKNOWN_IDENTIFIER }
ALTER TABLE t DROP COLUMN c;
ALTER TABLE t ADD COLUMN c UInt32;
SELECT k, c FROM t ORDER BY k LIMIT 2;
SELECT count(), sum(k), sum(toUInt64(str)) FROM t WHERE k < 100;
SHOW CREATE TABLE t;
DESCRIBE TABLE t;
ALTER TABLE t DROP COLUMN nope; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE t DROP COLUMN IF EXISTS nope;
ALTER TABLE t ADD COLUMN k String; -- { serverError DUPLICATE_COLUMN }
ALTER TABLE t ADD COLUMN IF NOT EXISTS k String;
ALTER TABLE t RENAME COLUMN str TO k; -- { serverError DUPLICATE_COLUMN }
ALTER TABLE t DROP COLUMN k; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
ALTER TABLE t RENAME COLUMN d TO dd; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
OPTIMIZE TABLE t FINAL;
SELECT k, str, c FROM t ORDER BY k DESC LIMIT 2;
