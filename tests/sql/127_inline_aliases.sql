-- Aliases defined inside expressions, used elsewhere in the same query.
SELECT (1 AS a) + a;
SELECT (1 AS a), a + 1;
SELECT number, (number * 2 AS d) + d AS q FROM numbers(3) ORDER BY d DESC;
SELECT sum(x) FROM (SELECT number AS x FROM numbers(3)) WHERE (x AS y) > 0 AND y < 2;
SELECT count() FROM numbers(10) WHERE (number % 3 AS r) = 1 GROUP BY r;
SELECT arraySum([(2 AS two), two * two]);
-- AS in a CAST, a subquery or a tuple keeps its own meaning.
SELECT CAST((5 AS five) AS String), five;
SELECT a FROM (SELECT 7 AS a) WHERE a IN (SELECT 7 AS b);
