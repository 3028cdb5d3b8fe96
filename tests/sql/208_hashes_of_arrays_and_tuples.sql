-- Hashes of arrays, tuples and maps: a tuple's elements hash as arguments of
-- their own, an array as its length and then its elements, a NULL inside
-- either as a fixed value; a NULL argument itself gives NULL.
SELECT cityHash64([1, 2, 3]), cityHash64(['a', 'b']), cityHash64([[1], [2, 3]]);
SELECT cityHash64((1, 'a')) = cityHash64(1, 'a'), cityHash64(tuple(1, [2]));
SELECT cityHash64([1, NULL]), cityHash64((1, NULL)), cityHash64(tuple(NULL)), cityHash64(['a', NULL]);
SELECT cityHash64(CAST([] AS Array(UInt8))), cityHash64(map(1, 'a')), cityHash64(NULL);
SELECT sipHash64([1, 2]), sipHash64((1, 2)), sipHash64([NULL, 'x']);
SELECT xxHash64([1, 2]), xxHash64(('a', [1])), xxHash32([1, 2]), xxHash32((1, NULL));
CREATE TABLE hv (k UInt8, a Array(String), t Tuple(UInt16, Nullable(String))) ENGINE = Memory;
INSERT INTO hv VALUES (1, ['x', 'y'], (7, NULL)), (2, [], (8, 'z')), (3, ['w'], (9, ''));
SELECT k, cityHash64(a), cityHash64(t), sipHash64(k, a, t), xxHash64(a, t) FROM hv ORDER BY k;
SELECT k, cityHash64(*) = cityHash64(k, a, t) FROM hv ORDER BY k;
DROP TABLE hv;
