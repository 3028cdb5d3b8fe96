-- Set: rows unique, read by IN (one column or a tuple), emptied by TRUNCATE.
CREATE TABLE allowed (x UInt64) ENGINE = Set;
INSERT INTO allowed VALUES (1), (3), (3);
INSERT INTO allowed SELECT number * 10 FROM numbers(3);
SELECT number, number IN allowed, number NOT IN allowed FROM numbers(5);
SELECT count() FROM numbers(40) WHERE number IN allowed;
SELECT engine, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'allowed';
SHOW CREATE TABLE allowed;
CREATE TABLE pairs (x UInt64, y String) ENGINE = Set SETTINGS persistent = 0;
INSERT INTO pairs VALUES (1, 'a'), (2, 'b');
SELECT number, (number, 'a') IN pairs, (number, 'b') IN pairs FROM numbers(3);
SHOW CREATE TABLE pairs;
TRUNCATE TABLE allowed;
SELECT count() FROM numbers(5) WHERE number IN allowed;
CREATE TABLE bad_set (x UInt64) ENGINE = Set ORDER BY x; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad_set (x UInt64) ENGINE = Set SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
CREATE TABLE bad_join (k UInt8) ENGINE = Join(ANY, LEFT, k) SETTINGS no_such_setting = 1; -- { serverError BAD_ARGUMENTS }

-- Join(ANY, LEFT): the first row of a key stays; joins and joinGet read it.
CREATE TABLE names (k UInt64, v String, n Nullable(Int32), a Array(UInt8)) ENGINE = Join(ANY, LEFT, k);
INSERT INTO names VALUES (1, 'one', NULL, [1]), (1, 'uno', 7, [2]), (2, 'two', 2, [2, 2]);
INSERT INTO names VALUES (2, 'dos', 3, []), (4, 'four', 4, [4]);
SELECT * FROM names ORDER BY k;
SELECT count() FROM names;
SHOW CREATE TABLE names;
SELECT k, v, n FROM (SELECT number AS k FROM numbers(5)) AS t ANY LEFT JOIN names USING (k) ORDER BY k;
SELECT number, v FROM numbers(5) AS t ANY LEFT JOIN names ON t.number = names.k ORDER BY number;
SELECT number, joinGet('names', 'v', number) AS g, toTypeName(g), joinGetOrNull('names', 'v', number) AS h, toTypeName(h) FROM numbers(5);
SELECT joinGet(names, 'n', toUInt64(2)), joinGet('default.names', 'a', toUInt64(2)), joinGetOrNull(names, 'a', toUInt64(3)), toTypeName(joinGetOrNull(names, 'a', toUInt64(3)));
SELECT joinGet('names', 'v', materialize(toUInt64(4))), joinGet('names', 'v', toNullable(toUInt64(4)));
SELECT joinGet('names', 'v', 1); -- { serverError TYPE_MISMATCH }
SELECT joinGet('names', 'v'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT joinGet('names', 'v', toUInt64(1), 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT joinGet('names', 'k', toUInt64(1)); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT joinGet('names', 'missing', toUInt64(1)); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT joinGet('allowed', 'x', toUInt64(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT joinGet('nowhere', 'x', toUInt64(1)); -- { serverError UNKNOWN_TABLE }

-- Several keys; the last row of a key with join_any_take_last_row; NULL for a missing key with join_use_nulls.
CREATE TABLE by_two (a UInt32, b String, v Int64) ENGINE = Join(ANY, LEFT, a, b) SETTINGS join_any_take_last_row = 1, join_use_nulls = 1;
INSERT INTO by_two VALUES (1, 'x', 10), (1, 'x', 11), (1, 'y', 12);
INSERT INTO by_two VALUES (1, 'y', 13);
SELECT joinGet('by_two', 'v', toUInt32(1), 'x'), joinGet('by_two', 'v', toUInt32(1), 'y'), joinGet('by_two', 'v', toUInt32(1), 'z'), toTypeName(joinGet('by_two', 'v', toUInt32(1), 'z'));
SHOW CREATE TABLE by_two;

-- Join(ALL, INNER) keeps every row; joinGet wants ANY LEFT.
CREATE TABLE every (k UInt8, v String) ENGINE = Join(ALL, INNER, k);
INSERT INTO every VALUES (1, 'a'), (1, 'b'), (2, 'c');
SELECT k, v FROM (SELECT toUInt8(number) AS k FROM numbers(3)) AS t ALL INNER JOIN every USING (k) ORDER BY k, v;
SELECT joinGet('every', 'v', toUInt8(1)); -- { serverError INCOMPATIBLE_TYPE_OF_JOIN }
TRUNCATE TABLE every;
SELECT count() FROM every;
CREATE TABLE bad_join (k UInt8) ENGINE = Join(ANY, LEFT); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE bad_join (k UInt8) ENGINE = Join(SOME, LEFT, k); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad_join (k UInt8) ENGINE = Join(ANY, OUTER, k); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad_join (k UInt8) ENGINE = Join(ANY, FULL, k); -- { serverError NOT_IMPLEMENTED }
CREATE TABLE bad_join (k UInt8) ENGINE = Join(ANY, LEFT, nope); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
ALTER TABLE names ADD COLUMN w UInt8; -- { serverError NOT_IMPLEMENTED }
SELECT name FROM system.table_engines WHERE name IN ('Set', 'Join', 'Merge') ORDER BY name;

-- Merge: the tables whose names match, read as one, with _table and _database.
CREATE TABLE part_1 (a UInt32, b String) ENGINE = MergeTree ORDER BY a;
CREATE TABLE part_2 (a UInt64, c Int8) ENGINE = Memory;
CREATE TABLE other_3 (a UInt64) ENGINE = Memory;
INSERT INTO part_1 VALUES (1, 'x'), (3, 'z');
INSERT INTO part_2 VALUES (2, 5);
INSERT INTO other_3 VALUES (100);
CREATE TABLE parts_all (a UInt64, b String, c Int8) ENGINE = Merge(currentDatabase(), '^part_');
SHOW CREATE TABLE parts_all;
SELECT * FROM parts_all ORDER BY a;
SELECT _table, a, b FROM parts_all WHERE a > 1 ORDER BY a;
SELECT *, _table FROM parts_all ORDER BY a;
SELECT _table, count() FROM parts_all GROUP BY _table ORDER BY _table;
SELECT sum(a), max(b) FROM parts_all;
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'parts_all';
CREATE TABLE parts_narrow (a UInt8, missing String) ENGINE = Merge(currentDatabase(), 'part_[12]');
SELECT a, missing, toTypeName(a) FROM parts_narrow ORDER BY a;
CREATE TABLE parts_inferred ENGINE = Merge(currentDatabase(), '^part_2');
DESCRIBE TABLE parts_inferred;
SELECT a, c, toTypeName(a) FROM merge('^part_') ORDER BY a;
SELECT _database = currentDatabase(), _table, a FROM merge(currentDatabase(), 'part_1|other') ORDER BY a;
SELECT count() FROM merge(REGEXP('^def'), '^other_3$');
SELECT count() FROM merge('^nothing_matches'); -- { serverError CANNOT_EXTRACT_TABLE_STRUCTURE }
INSERT INTO parts_all VALUES (1, 'a', 1); -- { serverError NOT_IMPLEMENTED }
RENAME TABLE parts_narrow TO parts_renamed;
SELECT count() FROM parts_renamed;
DROP TABLE parts_renamed;
DROP TABLE parts_all;
SELECT count() FROM part_1;

-- Buffer: rows wait in RAM until a limit or OPTIMIZE flushes them; reads see both.
CREATE TABLE sink_rows (a UInt64, s String) ENGINE = MergeTree ORDER BY a;
CREATE TABLE buffered (a UInt64, s String) ENGINE = Buffer(currentDatabase(), sink_rows, 1, 1000, 1000, 1000, 10000, 100000000, 1000000000);
SHOW CREATE TABLE buffered;
INSERT INTO buffered VALUES (1, 'a'), (2, 'b');
SELECT count() FROM sink_rows;
SELECT * FROM buffered ORDER BY a;
SELECT engine, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'buffered';
OPTIMIZE TABLE buffered;
SELECT count() FROM sink_rows;
SELECT * FROM buffered ORDER BY a;
INSERT INTO buffered SELECT number + 10, 'x' FROM numbers(20000);
SELECT count() FROM sink_rows;
INSERT INTO buffered VALUES (3, 'c');
SELECT count(), sum(a) FROM buffered WHERE a < 100;
CREATE TABLE small_buffer (a UInt64, s String) ENGINE = Buffer(currentDatabase(), sink_rows, 1, 1000, 1000, 1000, 3, 100000000, 1000000000);
INSERT INTO small_buffer VALUES (4, 'd'), (5, 'e');
SELECT count() FROM sink_rows WHERE a BETWEEN 4 AND 5;
INSERT INTO small_buffer VALUES (6, 'f'), (7, 'g');
SELECT count() FROM sink_rows WHERE a BETWEEN 4 AND 7;
CREATE TABLE wider_buffer (a UInt64, s String, extra UInt8 DEFAULT 9) ENGINE = Buffer(currentDatabase(), sink_rows, 1, 1000, 1000, 1000, 10000, 100000000, 1000000000);
INSERT INTO wider_buffer (a, s) VALUES (8, 'h');
SELECT a, s, extra FROM wider_buffer WHERE a IN (1, 8) ORDER BY a;
OPTIMIZE TABLE wider_buffer;
SELECT a, s FROM sink_rows WHERE a = 8;
CREATE TABLE nowhere_buffer (a UInt64) ENGINE = Buffer('', '', 1, 1000, 1000, 1000, 10000, 100000000, 1000000000);
INSERT INTO nowhere_buffer VALUES (1);
SELECT * FROM nowhere_buffer;
CREATE TABLE bad_buffer (a UInt64) ENGINE = Buffer(currentDatabase(), sink_rows, 1, 100); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
TRUNCATE TABLE buffered; -- { serverError NOT_IMPLEMENTED }
