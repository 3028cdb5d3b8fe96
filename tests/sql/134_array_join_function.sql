-- arrayJoin as a function: every combination of distinct calls, and calls in WHERE, GROUP BY and aggregates
CREATE TABLE aj (k UInt32, a Array(UInt32), s Array(String)) ENGINE = MergeTree ORDER BY k;
INSERT INTO aj VALUES (1, [1, 2], ['x', 'y']), (2, [], ['z']), (3, [5], []);

SELECT arrayJoin([1, 2]) AS a, arrayJoin([3, 4]) AS b, arrayJoin(['x', 'y']) AS c;
SELECT k, arrayJoin(a) AS x, arrayJoin(s) AS y FROM aj ORDER BY k, x, y;
SELECT k, arrayJoin(a) + 1, arrayJoin(a) * 10 FROM aj ORDER BY k;
SELECT arrayJoin([1, 2]) AS a, arrayJoin(range(a)) AS b;
SELECT arrayJoin([1, 2, 3]) AS x WHERE x > 1;
SELECT arrayJoin(range(number)) AS x FROM numbers(4) WHERE x % 2 = 0 ORDER BY x;
SELECT sum(arrayJoin([1, 2, 3])), groupArray(arrayJoin(['b', 'a']));
SELECT arrayJoin(a) AS x, count() FROM aj GROUP BY x ORDER BY x;
SELECT k, sum(arrayJoin(a)) FROM aj GROUP BY k ORDER BY k;
SELECT *, arrayJoin(s) FROM aj ORDER BY k, arrayJoin(s);
SELECT aj.k, arrayJoin(aj.s) FROM aj WHERE arrayJoin(aj.s) != 'y' ORDER BY aj.k;
SELECT arrayJoin(emptyArrayUInt8());
SELECT k, x, y FROM aj ARRAY JOIN a AS x ARRAY JOIN s AS y ORDER BY k, x, y;
SELECT k, x, y FROM aj LEFT ARRAY JOIN a AS x ARRAY JOIN s AS y ORDER BY k, x, y;
SELECT count() FROM (SELECT arrayJoin(range(10)) AS a, arrayJoin(range(a)) AS b);
