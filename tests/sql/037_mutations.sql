-- Mutations: ALTER TABLE ... DELETE / UPDATE and DELETE FROM on MergeTree tables, with ClickHouse's results and errors.
DROP TABLE IF EXISTS mt;
CREATE TABLE mt (k UInt64, s String, n Nullable(Int32), d Date) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY k SETTINGS index_granularity = 4;
INSERT INTO mt SELECT number, toString(number), if(number % 3 = 0, NULL, number * 10), toDate('2024-01-01') + number * 7 FROM numbers(20);
INSERT INTO mt VALUES (100, 'a\\b', 5, '2024-03-03');
ALTER TABLE mt DELETE WHERE k = 3 SETTINGS mutations_sync = 2;
SELECT count(), sum(k) FROM mt;
ALTER TABLE mt UPDATE s = concat(s, '!'), n = n + 1 WHERE k % 5 = 0;
SELECT k, s, n FROM mt WHERE k % 5 = 0 ORDER BY k;
ALTER TABLE mt UPDATE n = 0 WHERE n IS NULL;
SELECT k, n FROM mt WHERE k < 10 ORDER BY k;
ALTER TABLE mt UPDATE s = 'x' WHERE s = 'a\\b', DELETE WHERE k = 7;
SELECT k, s FROM mt WHERE k IN (6, 7, 8, 100) ORDER BY k;
ALTER TABLE mt DELETE WHERE 0;
ALTER TABLE mt UPDATE s = 'never' WHERE k > 1000;
SELECT count(), countIf(s = 'never') FROM mt;
SELECT mutation_id, count(), min(is_done), max(parts_to_do), any(latest_fail_reason), any(`block_numbers.number`) FROM system.mutations WHERE table = 'mt' GROUP BY mutation_id ORDER BY mutation_id;
SELECT command FROM system.mutations WHERE table = 'mt' AND mutation_id IN ('mutation_7.txt', 'mutation_9.txt', 'mutation_12.txt', 'mutation_13.txt') ORDER BY mutation_id;
DELETE FROM mt WHERE s LIKE '1%';
SELECT count(), arraySort(groupArray(k)) FROM mt;
ALTER TABLE mt UPDATE k = 1 WHERE 1; -- { serverError CANNOT_UPDATE_COLUMN }
ALTER TABLE mt UPDATE d = today() WHERE 1; -- { serverError CANNOT_UPDATE_COLUMN }
ALTER TABLE mt UPDATE missing = 1 WHERE 1; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
ALTER TABLE mt DELETE k = 1; -- { serverError SYNTAX_ERROR }
OPTIMIZE TABLE mt FINAL;
SELECT count(), sum(k), sum(n) FROM mt;
ALTER TABLE mt DELETE WHERE 1;
SELECT count() FROM mt;
INSERT INTO mt VALUES (1, 'again', NULL, '2024-01-01');
SELECT * FROM mt;
DROP TABLE mt;
-- Lightweight DELETE masks rows; later mutations, merges and APPLY DELETED MASK see the mask.
CREATE TABLE lw (k UInt64, v String, n Nullable(Int64)) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 8;
INSERT INTO lw SELECT number, toString(number), if(number % 4 = 0, NULL, number) FROM numbers(50);
INSERT INTO lw SELECT number + 50, 'second', number FROM numbers(10);
DELETE FROM lw WHERE k IN (3, 13, 23, 33, 43, 53);
SELECT count(), sum(k), countIf(isNull(n)) FROM lw;
SELECT k FROM lw WHERE k = 13;
DELETE FROM lw WHERE n IS NULL SETTINGS lightweight_deletes_sync = 1;
SELECT count(), sum(k) FROM lw;
ALTER TABLE lw UPDATE v = 'updated' WHERE k < 20;
SELECT k, v FROM lw WHERE k < 20 ORDER BY k;
SELECT count() FROM lw WHERE v = 'second';
SELECT command FROM system.mutations WHERE table = 'lw' ORDER BY mutation_id;
DELETE FROM lw WHERE k >= 50;
SELECT count(), max(k) FROM lw;
ALTER TABLE lw APPLY DELETED MASK;
SELECT count(), sum(k) FROM lw;
OPTIMIZE TABLE lw FINAL;
SELECT count(), sum(k), sum(n) FROM lw;
INSERT INTO lw VALUES (3, 'back', 3);
SELECT k, v, n FROM lw WHERE k < 5 ORDER BY k;
DELETE FROM lw WHERE 1;
SELECT count() FROM lw;
DROP TABLE lw;
-- MATERIALIZE COLUMN writes a column's DEFAULT into parts that predate it; CLEAR COLUMN resets a column to it.
CREATE TABLE mc (a Int64, s String) ENGINE = MergeTree ORDER BY a;
INSERT INTO mc VALUES (1, 'one'), (2, 'two');
ALTER TABLE mc ADD COLUMN c String DEFAULT 'x';
ALTER TABLE mc ADD COLUMN n Nullable(Int32);
INSERT INTO mc VALUES (10, 'ten', 'y', 5);
ALTER TABLE mc MATERIALIZE COLUMN c;
SELECT * FROM mc ORDER BY a;
ALTER TABLE mc CLEAR COLUMN c, CLEAR COLUMN n;
SELECT * FROM mc ORDER BY a;
SELECT command FROM system.mutations WHERE table = 'mc' ORDER BY mutation_id, command;
ALTER TABLE mc CLEAR COLUMN a; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
ALTER TABLE mc MATERIALIZE COLUMN a; -- { serverError CANNOT_UPDATE_COLUMN }
ALTER TABLE mc CLEAR COLUMN nope; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE mc MATERIALIZE COLUMN nope; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
DROP TABLE mc;
SELECT event, value > 0 FROM system.events WHERE event IN ('FileOpen', 'InsertedRows', 'SelectedMarks', 'SelectedParts', 'SelectedRows', 'Query', 'SelectQuery', 'InsertQuery') ORDER BY event;
