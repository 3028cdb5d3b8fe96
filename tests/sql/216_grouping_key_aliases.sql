-- An item of GROUP BY may define an alias, used in the select list, HAVING and ORDER BY.
SELECT number % 3 AS k, count() FROM numbers(10) GROUP BY number % 3 AS k ORDER BY k;
SELECT k, count() AS c FROM numbers(10) GROUP BY intDiv(number, 4) AS k ORDER BY k DESC;
SELECT k, m, sum(number) FROM numbers(20) GROUP BY number % 2 AS k, number % 3 AS m ORDER BY k, m;
SELECT k + 1, count() FROM numbers(10) GROUP BY number % 4 AS k HAVING k > 1 ORDER BY k;
SELECT count() FROM numbers(10) GROUP BY number % 5 AS k ORDER BY k LIMIT 2;
SELECT k, count() FROM (SELECT toString(number % 2) AS s FROM numbers(5)) GROUP BY concat(s, '!') AS k ORDER BY k;
SELECT k, count() FROM numbers(6) GROUP BY number % 2 AS k WITH ROLLUP ORDER BY k, count();
SELECT k FROM numbers(10) GROUP BY number % 3 AS k ORDER BY k SETTINGS max_threads = 1;
