-- A tuple of two arrays casts to a Map, key by key.
SELECT CAST(([1, 2], ['a', 'b']), 'Map(UInt8, String)') AS m, toTypeName(m);
SELECT CAST((['x', 'y', 'z'], [1, 2, 3]), 'Map(String, UInt64)')['y'];
SELECT CAST(([1, 2], ['a']), 'Map(UInt8, String)'); -- { serverError TYPE_MISMATCH }
-- A query's arrays of pairs and maps go into a Map column as CAST reads them.
CREATE TABLE mapped (m Map(String, Int32)) ENGINE = Memory;
INSERT INTO mapped SELECT [('a', 1)];
INSERT INTO mapped SELECT map('b', 2);
INSERT INTO mapped SELECT [('c', number)] FROM numbers(2);
SELECT * FROM mapped ORDER BY toString(m);
SELECT sum(m['c']) FROM mapped;
-- A position in ORDER BY names a select item also with LIMIT BY and WITH TIES.
SELECT x1, x3 FROM (SELECT arrayJoin([(1, 100), (10, 10), (100, 1)]) AS t, t.1 AS x1, t.2 AS x3) ORDER BY 2 LIMIT 1 BY x1;
SELECT number % 3 AS k FROM numbers(7) ORDER BY 1 DESC LIMIT 1 WITH TIES;
-- A higher-order call inside another's array argument, over number literals.
SELECT arraySort(x -> reverse(x), arrayMap(x -> toString(x), [2, 1, 3]));
SELECT arrayFilter(x -> x > 1, arrayMap(x -> x * 2, [0, 1, 2])), arrayMap(a -> arrayMap(b -> b + a, [1, 2]), [10, 20]);
-- reverse of a string of any bytes reverses its bytes.
SELECT length(reverse(reinterpretAsString(toUInt32(1)))), hex(reverse(reinterpretAsString(toUInt32(258)))), hex(reverse(reinterpretAsString(toUInt32(4278255360))));
