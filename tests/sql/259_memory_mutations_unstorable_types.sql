-- ALTER UPDATE and DELETE on Memory tables, applied at once
DROP TABLE IF EXISTS memory_rows;
CREATE TABLE memory_rows (a UInt8, s Nullable(String), d Date) ENGINE = Memory;
INSERT INTO memory_rows VALUES (1, 'x', '2020-01-01'), (2, 'y', '2020-01-02'), (3, NULL, '2020-01-03');
ALTER TABLE memory_rows UPDATE s = concat(s, '!') WHERE a >= 2;
SELECT * FROM memory_rows ORDER BY a;
ALTER TABLE memory_rows DELETE WHERE a = 1;
SELECT * FROM memory_rows ORDER BY a;
ALTER TABLE memory_rows UPDATE a = a + 10, s = 'was null' WHERE s IS NULL;
SELECT * FROM memory_rows ORDER BY a;
-- Values are cast to the column's type as CAST does; a NULL condition changes nothing
ALTER TABLE memory_rows UPDATE a = 300, d = '2021-05-05' WHERE a = 2;
ALTER TABLE memory_rows DELETE WHERE s = 'zz' OR NULL;
SELECT * FROM memory_rows ORDER BY a;
-- Several commands in one ALTER, each over the rows the one before left
ALTER TABLE memory_rows UPDATE a = 1 WHERE a = 44, DELETE WHERE a = 13;
SELECT * FROM memory_rows ORDER BY a;
INSERT INTO memory_rows VALUES (5, 'z', '2022-02-02');
ALTER TABLE memory_rows DELETE WHERE 1;
SELECT count() FROM memory_rows;
ALTER TABLE memory_rows UPDATE missing = 1 WHERE 1; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
DELETE FROM memory_rows WHERE a = 1; -- { serverError BAD_ARGUMENTS }
DROP TABLE memory_rows;

-- An UPDATE of a MergeTree column casts its value as CAST does
DROP TABLE IF EXISTS merge_tree_cast;
CREATE TABLE merge_tree_cast (k UInt32, a UInt8, s String) ENGINE = MergeTree ORDER BY k;
INSERT INTO merge_tree_cast VALUES (1, 1, 'x');
ALTER TABLE merge_tree_cast UPDATE a = 300, s = 5 WHERE 1 SETTINGS mutations_sync = 1;
SELECT * FROM merge_tree_cast;
DROP TABLE merge_tree_cast;

-- Columns of a type holding no value cannot be stored
CREATE TABLE nothing_column (x Nullable(Nothing)) ENGINE = Memory; -- { serverError DATA_TYPE_CANNOT_BE_USED_IN_TABLES }
CREATE TABLE nothing_array (x Array(Nothing)) ENGINE = Memory; -- { serverError DATA_TYPE_CANNOT_BE_USED_IN_TABLES }
CREATE TABLE nothing_select ENGINE = Memory AS SELECT NULL AS x; -- { serverError DATA_TYPE_CANNOT_BE_USED_IN_TABLES }
DROP TABLE IF EXISTS typed_source;
CREATE TABLE typed_source (x Int32) ENGINE = Memory;
ALTER TABLE typed_source MODIFY COLUMN x Nullable(Nothing); -- { serverError DATA_TYPE_CANNOT_BE_USED_IN_TABLES }
ALTER TABLE typed_source ADD COLUMN y Array(Nothing); -- { serverError DATA_TYPE_CANNOT_BE_USED_IN_TABLES }
SELECT name, type FROM system.columns WHERE table = 'typed_source';
DROP TABLE typed_source;

-- minMap and maxMap skip NULL values; values that are only NULL have no type
SELECT minMap(arrayJoin([([1, 2], [NULL, 11]), ([1, 2], [NULL, 22])])), maxMap(arrayJoin([([1, 2], [NULL, 11]), ([1, 2], [NULL, 22])]));
SELECT minMap(arrayJoin([([1], [NULL]), ([1], [NULL])])); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- Lambdas reading a column over an input that carries more columns
SELECT arrayMap(x -> x + c, [1, 2]) FROM values('c UInt8', 1, 2);
SELECT arrayFilter(x -> x > c, [1, 2, 3]) AS f, arrayMap(y -> arrayMap(z -> z + y + c, [10]), [1]) FROM values('c UInt8', 1, 2);

-- CREATE ... AS SELECT into a column whose type names a zone
DROP TABLE IF EXISTS zoned_stamps;
CREATE TABLE zoned_stamps (stamp DateTime('UTC')) ENGINE = MergeTree PARTITION BY toDate(stamp) ORDER BY tuple() AS SELECT toDateTime('2020-01-01', 'UTC') + number * 60 FROM numbers(1000);
SELECT count() AS result FROM zoned_stamps WHERE toHour(stamp, 'America/Montreal') = 19;
SELECT stamp FROM zoned_stamps ORDER BY stamp LIMIT 1;
DROP TABLE zoned_stamps;

-- Inside a Map or a Tuple, Nothing is allowed
DROP TABLE IF EXISTS nothing_inside;
CREATE TABLE nothing_inside (m Map(Nothing, String), t Tuple(Nothing)) ENGINE = Memory;
SELECT count() FROM nothing_inside;
DROP TABLE nothing_inside;
