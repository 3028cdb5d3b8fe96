-- An alias names an expression everywhere in the SELECT, as in ClickHouse.
SELECT number * 2 AS d, d + 1 FROM numbers(3) WHERE d > 1 ORDER BY d;
SELECT number + 1 AS number FROM numbers(2);
SELECT toString(number) AS number FROM numbers(3) WHERE number = '1';
SELECT count() AS c, c * 2 FROM numbers(5);
SELECT number % 3 AS k, count() FROM numbers(10) GROUP BY k ORDER BY k;
SELECT number AS a, a * 10 AS b, b + a FROM numbers(3) ORDER BY a;
SELECT sum(x) FROM (SELECT number AS x FROM numbers(4));
SELECT 1 AS x, 2 AS x; -- { serverError MULTIPLE_EXPRESSIONS_FOR_ALIAS }
SELECT number % 3 AS number, count() FROM numbers(10) GROUP BY number ORDER BY number;
SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k HAVING c > 3;
SELECT number * 2 AS x FROM numbers(3) WHERE x IN (SELECT 2);
SELECT (SELECT max(number) FROM numbers(3)) AS m, m + 1;
-- A result may repeat a column.
SELECT count(), count();
SELECT number, * FROM numbers(2);
SELECT number AS n, number AS n FROM numbers(2) ORDER BY n DESC;
SELECT number, number FROM numbers(2) FORMAT JSONEachRow;
SELECT toString(number), toString(number) FROM numbers(2) FORMAT TSVWithNames;
SELECT *, number * 2 AS d FROM numbers(2) ORDER BY d DESC;
-- WITH expression AS name: a named constant or scalar subquery.
WITH 2 AS n SELECT number * n FROM numbers(3);
WITH (SELECT max(number) FROM numbers(5)) AS m SELECT m;
WITH 2 AS n, n * 3 AS m SELECT number * m, n FROM numbers(n) FORMAT TSVWithNames;
WITH 'a' AS s SELECT concat(s, toString(number)) FROM numbers(2);
WITH 1 AS number SELECT number FROM numbers(2);
WITH 5 AS lim SELECT count() FROM numbers(10) WHERE number < lim;
WITH t AS (SELECT 1 AS x) SELECT * FROM t;
WITH 1 AS x SELECT x garbage garbage; -- { serverError SYNTAX_ERROR }
