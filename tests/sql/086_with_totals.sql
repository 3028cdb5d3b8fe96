-- GROUP BY ... WITH TOTALS adds a row over all rows, keys at their defaults, after the result.
SELECT number % 3 AS k, count() AS c, sum(number) FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k;
SELECT toString(number % 2) AS s, number % 3 AS m, max(number) FROM numbers(12) GROUP BY s, m WITH TOTALS ORDER BY s, m;
SELECT number % 2 AS k, k + 10 AS k10, avg(number) FROM numbers(6) GROUP BY k WITH TOTALS ORDER BY k;
SELECT number % 2, count() FROM numbers(4) GROUP BY 1 WITH TOTALS ORDER BY 1;
SELECT if(number > 2, number % 2, NULL) AS n, count() FROM numbers(6) GROUP BY n WITH TOTALS ORDER BY n;
SELECT number % 4 AS k, count() FROM numbers(100) GROUP BY k WITH TOTALS ORDER BY k LIMIT 2;
SELECT number % 2 AS k, count() FROM numbers(0) GROUP BY k WITH TOTALS;
SELECT number % 2 AS k, count() AS c FROM numbers(5) GROUP BY k WITH TOTALS ORDER BY k FORMAT JSONCompactEachRow;
SELECT number % 2 AS k, count() AS c FROM numbers(5) GROUP BY k WITH TOTALS ORDER BY k FORMAT PrettyCompact;
SELECT number % 2 AS k, count() AS c FROM numbers(5) GROUP BY k WITH TOTALS ORDER BY k FORMAT Vertical;
