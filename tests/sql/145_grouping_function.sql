-- grouping(): which keys a grouping set's row leaves out, under ROLLUP, CUBE, GROUPING SETS and plain GROUP BY
SELECT number % 2 AS a, number % 3 AS b, grouping(a) AS g, count() AS c FROM numbers(6) GROUP BY ROLLUP(a, b) ORDER BY a, b, g, c;
SELECT number AS a, grouping(a) AS g, count() AS c FROM numbers(2) GROUP BY ROLLUP(a) ORDER BY a, g;
SELECT number % 2 AS a, number % 3 AS b, grouping(a, b) AS g, sum(number) AS s FROM numbers(6) GROUP BY CUBE(a, b) ORDER BY a, b, g, s;
SELECT number % 2 AS a, number % 3 AS b, grouping(b) AS g, count() AS c FROM numbers(6) GROUP BY GROUPING SETS ((a), (b)) ORDER BY a, b, g, c;
SELECT number % 2 AS a, grouping(a) AS g FROM numbers(4) GROUP BY a ORDER BY a;
