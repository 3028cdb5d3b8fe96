-- Enum8 and Enum16: names, numbers, ordering, casts, inserts from every source, MergeTree storage
SELECT CAST('a' AS Enum8('a' = 1, 'b' = 2)) AS e, toTypeName(e), CAST(e AS Int8), toInt16(e), e = 'a';
SELECT CAST(2 AS Enum('a', 'b')) AS e, toTypeName(e);
SELECT CAST('1' AS Enum8('a' = 1, 'b' = 2)), CAST(2.7 AS Enum8('a' = 1, 'b' = 2));
SELECT CAST('a' AS Enum('a' = 200)) AS e, toTypeName(e);
SELECT CAST('it''s' AS Enum8('it\'s' = 1, 'b\\c' = 2)) AS e, toTypeName(e);
SELECT CAST(toNullable('b') AS Nullable(Enum8('a' = 1, 'b' = 2))) AS e, toTypeName(e);
SELECT CAST(CAST('b' AS Enum8('a' = 1, 'b' = 2)) AS Enum8('b' = 2, 'c' = 3)) AS e, toTypeName(e);
SELECT CAST(CAST('b' AS Enum8('a' = 1, 'b' = 2)) AS String) AS s, toTypeName(s);
SELECT CAST(CAST('b' AS Enum16('a' = -1000, 'b' = 1000)) AS Int64);
SELECT CAST('c' AS Enum8('a' = 1, 'b' = 2)); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT CAST(3 AS Enum8('a' = 1, 'b' = 2)); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT CAST('a' AS Enum8('a' = 1, 'a' = 2)); -- { serverError SYNTAX_ERROR }
SELECT CAST('a' AS Enum8('a' = 1, 'b' = 1)); -- { serverError SYNTAX_ERROR }
SELECT CAST('a' AS Enum8('a' = 200)); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toTypeName(CAST('a' AS Enum('a', 'b' = 5))), toTypeName(CAST('a' AS Enum('a' = -3, 'b')));
SELECT CAST('a' AS Enum('a', 'b' = 5, 'c')); -- { serverError UNEXPECTED_AST_STRUCTURE }

CREATE TABLE colors (c Enum8('red' = 3, 'green' = 1, 'blue' = -2), n Nullable(Enum16('big' = 1000, 'small' = -1000)), id UInt32) ENGINE = Memory;
INSERT INTO colors VALUES ('red', NULL, 1), (1, 'big', 2), ('blue', -1000, 3);
INSERT INTO colors VALUES ('purple', NULL, 4); -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
INSERT INTO colors (id) VALUES (5);
INSERT INTO colors SELECT 'green', 'small', 6;
INSERT INTO colors SELECT 'nope', NULL, 7; -- { serverError UNKNOWN_ELEMENT_OF_ENUM }
SELECT * FROM colors ORDER BY c, id;
SELECT c, count() FROM colors GROUP BY c ORDER BY c DESC;
SELECT id FROM colors WHERE c = 'green' ORDER BY id;
SELECT id FROM colors WHERE c IN ('red', 'blue') ORDER BY id;
SELECT id FROM colors WHERE c != 'blue' AND n IS NOT NULL ORDER BY id;
SELECT id, toInt8(c), toInt16(n) FROM colors ORDER BY id;
SELECT c, transform(c, ['red', 'green'], ['R', 'G'], '?') FROM colors ORDER BY id;
SELECT toTypeName(c), toTypeName(n) FROM colors LIMIT 1;
SELECT toTypeName(max(c)), toTypeName(any(n)), toTypeName(argMin(c, id)), argMin(c, id), argMax(n, id) FROM colors;
SELECT max(c), any(c), toTypeName(max(c)) FROM colors WHERE id > 100;
DESCRIBE colors;
SHOW CREATE TABLE colors;
SELECT * FROM colors ORDER BY id FORMAT JSONEachRow;

CREATE TABLE events (day Date, kind Enum8('view' = 1, 'click' = 2, 'buy' = 3), n UInt32, src Enum8('web' = 1, 'app' = 2) DEFAULT 'app') ENGINE = MergeTree ORDER BY (kind, day);
INSERT INTO events (day, kind, n) SELECT toDate('2024-01-01') + number % 3, CAST(number % 3 + 1 AS Enum8('view' = 1, 'click' = 2, 'buy' = 3)), number FROM numbers(30);
INSERT INTO events (day, kind, n) VALUES ('2024-01-05', 'buy', 100);
OPTIMIZE TABLE events FINAL;
SELECT kind, count(), sum(n) FROM events GROUP BY kind ORDER BY kind;
SELECT count() FROM events WHERE kind = 'click';
SELECT kind FROM events ORDER BY kind DESC, n DESC LIMIT 2;
SELECT src, count() FROM events GROUP BY src ORDER BY src;
ALTER TABLE events UPDATE src = 'web' WHERE n = 100 SETTINGS mutations_sync = 2;
SELECT kind, n, src FROM events WHERE n >= 29 ORDER BY n;
ALTER TABLE events UPDATE kind = 'view' WHERE n = 100; -- { serverError CANNOT_UPDATE_COLUMN }
SELECT src, count() FROM events GROUP BY src ORDER BY src DESC;
-- Compared with numbers, and ordered against its names, an enum compares its numbers.
SELECT id FROM colors WHERE c = 3 ORDER BY id;
SELECT id FROM colors WHERE c IN (1, -2) ORDER BY id;
SELECT id FROM colors WHERE c > 'blue' ORDER BY id;
SELECT id, c < 'red', c >= 1, 2 > c FROM colors ORDER BY id;
