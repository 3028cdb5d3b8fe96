-- ROLLUP, CUBE, GROUPING SETS and WITH ROLLUP/CUBE: keys a row leaves out take their type's default (NULL for Nullable keys).
SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY ROLLUP(k) ORDER BY k, c;
SELECT number % 2 AS a, number % 3 AS b, sum(number) AS s FROM numbers(12) GROUP BY a, b WITH ROLLUP ORDER BY a, b, s;
SELECT number % 2 AS a, number % 3 AS b, count() AS c FROM numbers(12) GROUP BY a, b WITH CUBE ORDER BY a, b, c;
SELECT number % 2 AS a, toString(number % 3) AS b, count() AS c FROM numbers(12) GROUP BY CUBE(a, b) ORDER BY a, b, c;
SELECT number % 2 AS a, number % 3 AS b, count() AS c FROM numbers(12) GROUP BY GROUPING SETS ((a), (b), ()) ORDER BY a, b, c;
SELECT if(number % 3 = 0, NULL, number % 2) AS n, count() AS c FROM numbers(9) GROUP BY ROLLUP(n) ORDER BY n NULLS FIRST, c;
SELECT toTypeName(k) FROM (SELECT number % 2 AS k FROM numbers(4) GROUP BY ROLLUP(k)) LIMIT 1;
SELECT toDate('2024-01-01') + number % 2 AS d, count() AS c FROM numbers(4) GROUP BY d WITH ROLLUP ORDER BY d, c;
SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY ROLLUP(k) ORDER BY k NULLS FIRST, c SETTINGS group_by_use_nulls = 1;
