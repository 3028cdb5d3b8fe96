-- UPDATE ... SET (lightweight updates): patches of the rows they change, seen by every read, folded by merges.
CREATE TABLE lw (k UInt64, s String, n Nullable(Int32), d Date, f Float64) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY k SETTINGS index_granularity = 4, enable_block_number_column = 1, enable_block_offset_column = 1;
INSERT INTO lw SELECT number, toString(number), if(number % 3 = 0, NULL, number), toDate('2024-01-01') + number * 10, number / 2 FROM numbers(20);
UPDATE lw SET s = 'seven' WHERE k = 7;
SELECT k, s FROM lw WHERE k BETWEEN 6 AND 8 ORDER BY k;
SELECT k FROM lw WHERE s = 'seven';
UPDATE lw SET n = n * 10, f = f + k WHERE k % 5 = 0;
SELECT k, n, f FROM lw WHERE k % 5 = 0 ORDER BY k;
UPDATE lw SET n = NULL WHERE k = 1;
SELECT k, n FROM lw WHERE k < 3 ORDER BY k;
UPDATE lw SET s = concat(s, '!') WHERE s LIKE '1%';
SELECT s FROM lw WHERE s LIKE '%!' ORDER BY k;
UPDATE lw SET s = 'none' WHERE k > 1000;
SELECT count(), countIf(s = 'none') FROM lw;
UPDATE lw SET k = 1 WHERE k = 2; -- { serverError CANNOT_UPDATE_COLUMN }
UPDATE lw SET nope = 1 WHERE k = 2; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
UPDATE lw SET s = 'to delete' WHERE k = 4;
DELETE FROM lw WHERE s = 'to delete';
SELECT count(), sum(k) FROM lw;
UPDATE lw SET s = 'again' WHERE k = 7;
UPDATE lw SET s = upper(s) WHERE k = 7;
SELECT s FROM lw WHERE k = 7;
ALTER TABLE lw UPDATE s = 'heavy' WHERE k = 8 SETTINGS mutations_sync = 2;
UPDATE lw SET s = concat(s, '+light') WHERE k IN (8, 9);
SELECT k, s FROM lw WHERE k IN (8, 9) ORDER BY k;
SELECT k, s, n, f FROM lw ORDER BY k;
OPTIMIZE TABLE lw FINAL;
SELECT k, s, n, f FROM lw ORDER BY k;
UPDATE lw SET f = -1 WHERE 1;
SELECT count(), sum(f), min(s), max(s) FROM lw;
SELECT k, s FROM lw WHERE s = 'AGAIN';
ALTER TABLE lw UPDATE s = 'lightweight alter' WHERE k = 0 SETTINGS alter_update_mode = 'lightweight';
SELECT s FROM lw WHERE k = 0;
ALTER TABLE lw UPDATE s = 'x' WHERE k = 0, DELETE WHERE k = 1 SETTINGS alter_update_mode = 'lightweight_force'; -- { serverError SUPPORT_IS_DISABLED }
ALTER TABLE lw DELETE WHERE k = 19 SETTINGS alter_update_mode = 'lightweight_force', mutations_sync = 2;
SELECT count(), max(k) FROM lw;
SELECT command FROM system.mutations WHERE table = 'lw' ORDER BY mutation_id;
