-- Nested columns: a structure of arrays stored as one array column per field.
DROP TABLE IF EXISTS visits;
CREATE TABLE visits (id UInt32, goals Nested(gid UInt16, name String, price Float64)) ENGINE = MergeTree ORDER BY id;
INSERT INTO visits VALUES (1, [10, 20], ['a', 'b'], [1.5, 2.5]), (2, [], [], []), (3, [30], ['c'], [0]);
SHOW CREATE TABLE visits;
DESCRIBE visits;
SELECT * FROM visits ORDER BY id;
SELECT id, goals.gid, visits.goals.name FROM visits ORDER BY id;
SELECT goals.gid[1], length(goals.name), arrayMap(x -> x * 2, goals.price) FROM visits ORDER BY id;
SELECT goals FROM visits ORDER BY id;
-- ARRAY JOIN of the structure joins all of its arrays at once.
SELECT id, goals.gid, goals.name, goals.price FROM visits ARRAY JOIN goals ORDER BY id, goals.gid;
SELECT id, goals FROM visits ARRAY JOIN goals ORDER BY id, goals.gid;
SELECT id, g.gid, g.name, goals.gid FROM visits ARRAY JOIN goals AS g ORDER BY id, g.gid;
SELECT id, goals.gid FROM visits LEFT ARRAY JOIN goals ORDER BY id, goals.gid;
SELECT id, goals.name FROM visits ARRAY JOIN goals.name ORDER BY id, goals.name;
SELECT goals.name, sum(goals.price) FROM visits ARRAY JOIN goals GROUP BY goals.name ORDER BY goals.name;
-- A column list names the fields; the arrays of one row must have one length.
INSERT INTO visits (id, goals.gid, goals.name, goals.price) VALUES (4, [40, 41], ['d', 'e'], [4, 4.5]);
INSERT INTO visits FORMAT JSONEachRow {"id": 5, "goals.gid": [50], "goals.name": ["f"], "goals.price": [5]};
SELECT id, goals.name FROM visits WHERE id > 3 ORDER BY id;
INSERT INTO visits VALUES (6, [1, 2], ['x'], [1, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT count() FROM visits;
ALTER TABLE visits ADD COLUMN tags Nested(k String, v UInt8);
DESCRIBE visits;
SELECT id, tags.k, tags.v FROM visits ORDER BY id;
DROP TABLE visits;
-- The same in a Memory table.
CREATE TABLE events (n Nested(a UInt8, b String)) ENGINE = Memory;
INSERT INTO events VALUES ([1, 2], ['x', 'y']);
SELECT n.a, n.b, n FROM events;
SELECT n.b FROM events ARRAY JOIN n WHERE n.a = 2;
DROP TABLE events;
