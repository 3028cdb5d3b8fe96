-- LIMIT n BY keys: the first rows of each key, in the query order.
SELECT number % 3 AS k, number FROM numbers(10) ORDER BY number DESC LIMIT 2 BY k;
SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 3;
SELECT k, count() AS c FROM (SELECT number % 4 AS k, number % 2 AS j FROM numbers(20)) GROUP BY k, j ORDER BY k, c DESC LIMIT 1 BY k;
SELECT toString(number % 2) AS s, number FROM numbers(6) ORDER BY s, number DESC LIMIT 1 BY s FORMAT JSONEachRow;
SELECT count() FROM (SELECT number % 5 AS k FROM numbers(100) LIMIT 3 BY k);
SELECT number % 3 AS k, number FROM numbers(12) ORDER BY k, number LIMIT 1, 2 BY k;
SELECT number % 3 AS k, number FROM numbers(12) ORDER BY k, number LIMIT 2 OFFSET 1 BY k;
