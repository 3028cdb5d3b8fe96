-- WITH FILL on several ORDER BY keys: the filling row walks the keys in order
SELECT t.1 AS a, t.2 AS b FROM (SELECT arrayJoin([(1, 1), (1, 4), (3, 2)]) AS t) ORDER BY a WITH FILL, b WITH FILL;
SELECT t.1 AS a, t.2 AS b FROM (SELECT arrayJoin([(1, 1), (1, 4), (3, 2)]) AS t) ORDER BY a WITH FILL, b WITH FILL FROM 0 TO 3;
SELECT t.1 AS a, t.2 AS b FROM (SELECT arrayJoin([(1, 1), (1, 4), (3, 2)]) AS t) ORDER BY a WITH FILL FROM 0 TO 5, b WITH FILL FROM 1 TO 3;
SELECT t.1 AS a, t.2 AS b FROM (SELECT arrayJoin([(1, 5), (3, 2)]) AS t) ORDER BY a DESC WITH FILL, b WITH FILL TO 4;
SELECT t.1 AS a, t.2 AS b, t.3 AS c FROM (SELECT arrayJoin([(1, 1, 5), (1, 4, 6), (3, 2, 7)]) AS t) ORDER BY a WITH FILL, c, b WITH FILL TO 3;
SELECT t.1 AS g, t.2 AS a, t.3 AS b FROM (SELECT arrayJoin([('x', 1, 5), ('x', 3, 2), ('y', 2, 2)]) AS t) ORDER BY g, a WITH FILL TO 4, b WITH FILL FROM 1 TO 3;
SELECT toDate('2024-01-01') + intDiv(number, 2) * 2 AS d, (number % 2) * 3 AS h FROM numbers(4) ORDER BY d WITH FILL, h WITH FILL TO 4;

-- TO stops the sequence even between input rows; FROM past the first row
SELECT arrayJoin([1, 6]) AS x ORDER BY x WITH FILL TO 4 STEP 2;
SELECT arrayJoin([1, 6]) AS x ORDER BY x WITH FILL FROM 3 STEP 2;
SELECT arrayJoin([1]) AS x ORDER BY x WITH FILL FROM 3 TO 6;

-- An empty result is filled from FROM to TO
SELECT number FROM numbers(0) ORDER BY number WITH FILL FROM 1 TO 4;
SELECT 'a' AS g, number FROM numbers(0) ORDER BY g, number WITH FILL FROM 1 TO 3;

-- INTERPOLATE: added rows computed from the previous row
SELECT n, v FROM (SELECT arrayJoin([1, 4, 7]) AS n, n * 10 AS v) ORDER BY n WITH FILL INTERPOLATE (v AS v + 1);
SELECT n, v, s FROM (SELECT arrayJoin([1, 4]) AS n, n * 10 AS v, 'x' AS s) ORDER BY n WITH FILL INTERPOLATE;
SELECT n, v FROM (SELECT arrayJoin([1, 4]) AS n, n * 10 AS v) ORDER BY n WITH FILL TO 6 INTERPOLATE (v AS v * 2);
SELECT n, v, w FROM (SELECT arrayJoin([1, 4]) AS n, n * 10 AS v, 'a' AS w) ORDER BY n WITH FILL INTERPOLATE (v AS n + 100, w AS w || 'b');
SELECT n, toFloat32(n) + 0.5 AS f FROM (SELECT arrayJoin([1, 3]) AS n) ORDER BY n WITH FILL INTERPOLATE (f);
SELECT n, v FROM (SELECT arrayJoin([1, 3]) AS n, toNullable(n * 10) AS v) ORDER BY n WITH FILL INTERPOLATE (v AS v + 1);
SELECT n, v FROM (SELECT arrayJoin([1, 3]) AS n, n * 10 AS v) ORDER BY n WITH FILL INTERPOLATE (v AS v + 1.5);
SELECT toDate('2020-01-01') + number * 2 AS d, number AS v FROM numbers(3) ORDER BY d WITH FILL INTERPOLATE (v AS v + 10);
SELECT n, v FROM (SELECT arrayJoin([5, 3]) AS n, n * 10 AS v) ORDER BY n DESC WITH FILL INTERPOLATE (v AS v - 1);
SELECT number % 2 AS g, number * 3 AS n, number AS v FROM numbers(4) ORDER BY g, n WITH FILL INTERPOLATE (v AS v + 100);

-- Over a table, across blocks
CREATE TABLE wfi (k UInt8, d UInt16, v UInt32) ENGINE = MergeTree ORDER BY (k, d);
INSERT INTO wfi SELECT number % 2, number * 3, number FROM numbers(12);
SELECT k, d, v FROM wfi ORDER BY k WITH FILL TO 3, d WITH FILL STEP 2 INTERPOLATE (v AS v + 1) SETTINGS max_block_size = 3;
DROP TABLE wfi;

-- What ClickHouse refuses
SELECT n, v FROM (SELECT arrayJoin([1, 3]) AS n, n * 10 AS v) ORDER BY n WITH FILL INTERPOLATE (n AS n + 1); -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT n, v FROM (SELECT arrayJoin([1, 3]) AS n, n * 10 AS v) ORDER BY n WITH FILL INTERPOLATE (q AS 1); -- { serverError UNKNOWN_IDENTIFIER }
SELECT n, v FROM (SELECT arrayJoin([1, 3]) AS n, n * 10 AS v) ORDER BY n WITH FILL, n WITH FILL; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT toUInt8(arrayJoin([2, 4])) AS n ORDER BY n WITH FILL FROM -1; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT toDate('2022-02-01') AS d FROM numbers(2) ORDER BY d WITH FILL FROM toDateTime('2022-02-01') TO toDateTime('2022-03-01'); -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT arrayJoin([1, 3]) AS n ORDER BY n WITH FILL FROM 10 TO 1; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT arrayJoin([1, 3]) AS n ORDER BY n DESC WITH FILL FROM 1 TO 10; -- { serverError INVALID_WITH_FILL_EXPRESSION }

-- The same bound twice; filling across the runs of the keys before
SELECT if(number < 100, NULL, toNullable(toInt32(number))) AS x FROM numbers(2) ORDER BY x ASC WITH FILL FROM 1 TO 1;
SELECT toInt32(number) - 2 AS p, number % 2 ? NULL : toNullable(toInt32(number)) AS x FROM numbers(2) ORDER BY p ASC, x ASC NULLS LAST WITH FILL FROM 1 TO 2 SETTINGS use_with_fill_by_sorting_prefix = 0;
SELECT number % 2 AS g, number * 3 AS n FROM numbers(4) ORDER BY g, n WITH FILL SETTINGS use_with_fill_by_sorting_prefix = 0;
