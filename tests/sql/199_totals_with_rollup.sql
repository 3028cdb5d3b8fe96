-- WITH TOTALS together with ROLLUP or CUBE: the totals row is over every row, each key at its default.
SELECT number % 2 AS a, number % 3 AS b, count() FROM numbers(10) GROUP BY a, b WITH ROLLUP WITH TOTALS ORDER BY a, b, count();
SELECT number % 2 AS a, sum(number) FROM numbers(10) GROUP BY ROLLUP(a) WITH TOTALS ORDER BY a, sum(number) FORMAT JSONCompactEachRow;
SELECT toString(number % 3) AS s, count() FROM numbers(10) GROUP BY CUBE(s) WITH TOTALS ORDER BY s;
SELECT number % 2 AS a, count() FROM numbers(10) GROUP BY GROUPING SETS ((a), ()) WITH TOTALS ORDER BY a; -- { serverError NOT_IMPLEMENTED }
-- ClickHouse refuses HAVING there.
SELECT number % 2 AS a, count() AS c FROM numbers(10) GROUP BY CUBE(a) WITH TOTALS HAVING c > 5 ORDER BY a; -- { serverError NOT_IMPLEMENTED }
