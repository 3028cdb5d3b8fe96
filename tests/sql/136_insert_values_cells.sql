-- INSERT ... VALUES cells read as their columns' types: defaults, NULL as default, wrapping integers, maps and tuples; an INSERT's own SETTINGS
CREATE TABLE v (a UInt8 DEFAULT 7, s String DEFAULT 'd', i Int8, tp Tuple(UInt8, String), ar Array(UInt8), m Map(String, UInt8), e Enum8('x' = 1, 'y' = 2), n Nullable(Int32)) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO v VALUES (NULL, NULL, 1, (1, 'q'), [1, 2], map('a', 1), 'y', NULL);
INSERT INTO v VALUES (DEFAULT, DEFAULT, 2, (2, 'r'), [], {'a': 1, 'b': 2}, 'x', 5);
INSERT INTO v VALUES (-1, 'x', 200, (3, 's'), [1, NULL], {}, NULL, NULL);
INSERT INTO v VALUES (300, 'y', -129, (4, 't'), [3], {'k': NULL}, 2, -1);
INSERT INTO v VALUES (1.7, 'z', 5.9, (5, 'u'), [], {}, 'x', 0), (true, 'w', -5.9, (6, 'v'), [7], {}, 'y', 1);
SELECT * FROM v ORDER BY i;

CREATE TABLE d (a UInt32, b UInt32 DEFAULT a * 10, c String DEFAULT concat('c', toString(b))) ENGINE = Memory;
INSERT INTO d VALUES (1, DEFAULT, 'z'), (2, 5, DEFAULT), (3, NULL, 'q');
INSERT INTO d VALUES (4, DEFAULT, DEFAULT);
INSERT INTO d (a, b) VALUES (-1, DEFAULT);
SELECT * FROM d ORDER BY a;

CREATE TABLE st (a UInt8) ENGINE = Memory;
INSERT INTO st SETTINGS max_threads = 1 VALUES (1);
INSERT INTO st (a) SETTINGS max_threads = 1, async_insert = 0 SELECT 2;
INSERT INTO st SELECT 3 SETTINGS max_threads = 1;
INSERT INTO st SETTINGS max_threads = 'x' VALUES (4); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT * FROM st ORDER BY a;

CREATE TABLE dt (t DateTime64(3), ts Array(DateTime64(3))) ENGINE = Memory;
INSERT INTO dt VALUES ('2020-01-01 00:00:00.5', ['2020-01-01 00:00:00.25', NULL]), (1600000000, [1600000000]);
SELECT * FROM dt ORDER BY t;
