-- A tuple keeps what its elements' types say of their values.
SELECT (toUUID('ed87e57c-9331-462a-80b4-9f0c005e88c8'), 1) AS t, toTypeName(t);
SELECT (toDate32('2020-01-01'), CAST('a', 'Enum8(\'a\' = 1)'), toIPv4('1.2.3.4')) AS u, toTypeName(u);
SELECT tupleElement((toUUID('ed87e57c-9331-462a-80b4-9f0c005e88c8'), 1), 1);
-- `*` over an ARRAY JOIN leaves out an element under an alias of its own.
SELECT *, arr FROM (SELECT ['a', 'b'] AS str) ARRAY JOIN str AS arr;
SELECT * FROM (SELECT ['a', 'b'] AS str, 1 AS k) ARRAY JOIN str;
SELECT * FROM (SELECT [1, 2] AS a, [3, 4] AS b) ARRAY JOIN a AS x, b;
-- ATTACH PARTITION keeps the parts in block order: ReplacingMergeTree's last row stays last.
CREATE TABLE replacing (id UInt32, v UInt32) ENGINE = ReplacingMergeTree ORDER BY id PARTITION BY tuple();
SYSTEM STOP MERGES replacing;
INSERT INTO replacing VALUES (1, 100);
INSERT INTO replacing VALUES (1, 101);
INSERT INTO replacing VALUES (1, 102);
INSERT INTO replacing VALUES (1, 103);
INSERT INTO replacing VALUES (1, 104);
INSERT INTO replacing VALUES (1, 105);
INSERT INTO replacing VALUES (1, 106);
INSERT INTO replacing VALUES (1, 107);
INSERT INTO replacing VALUES (1, 108);
INSERT INTO replacing VALUES (1, 109);
INSERT INTO replacing VALUES (1, 110);
INSERT INTO replacing VALUES (1, 111);
SELECT * FROM replacing FINAL;
ALTER TABLE replacing DETACH PARTITION tuple();
ALTER TABLE replacing ATTACH PARTITION tuple();
SELECT * FROM replacing FINAL;
SELECT count() FROM system.parts WHERE table = 'replacing' AND active;
-- A column's PRIMARY KEY is the table's primary and sorting key.
CREATE TABLE column_key (a String PRIMARY KEY, b String) ENGINE = MergeTree;
SELECT sorting_key, primary_key FROM system.tables WHERE name = 'column_key';
-- A constraint that is a number alone.
CREATE TABLE constant_check (id UInt64, CONSTRAINT c0 CHECK 1) ENGINE = Memory;
INSERT INTO constant_check VALUES (1);
SELECT * FROM constant_check;
-- base32 letters in either case.
SELECT base32Decode('my======'), base32Decode('MY======');
-- JSONEachRow rows separated by commas, or in one array, when inferring too.
SELECT * FROM format(JSONEachRow, '{"x" : 1}, {"x" : 42}');
SELECT * FROM format(JSONEachRow, '[{"x" : 1}, {"x" : 42}]');
SELECT * FROM format(JSONCompactEachRow, '[1, "a"], [2, "b"]');
