-- An alias defined inside an argument that another alias's expression holds.
SELECT sum(if(number = 0 AS c, 1, 0) AS i), sum(i) FROM numbers(100);
-- A scalar WITH in the query of CREATE VIEW and CREATE TABLE ... AS.
CREATE VIEW with_view AS WITH 1 AS x SELECT x, x + 1 AS y;
SELECT * FROM with_view;
CREATE TABLE with_table ENGINE = Memory AS WITH 2 AS k SELECT k * number AS y FROM numbers(3);
SELECT * FROM with_table ORDER BY y;
-- Lambda parameters without parentheses.
SELECT arrayMap(x, y -> x + y, [1, 2], [10, 20]), arrayFilter(x, y -> y, [1, 2], [0, 1]);
-- A GROUP BY alias of a constant groups by the constant, not by a position.
SELECT intDiv(number, 2) AS a, 0 AS b, count() FROM numbers(4) GROUP BY a, b ORDER BY a;
SELECT 1 AS one, count() FROM numbers(3) GROUP BY one;
-- `*` inside a call in WHERE stands for every column.
SELECT count() FROM numbers(3) WHERE NOT ignore(*);
-- cast() to a type named by a WITH constant.
WITH 'Array(UInt8)' AS t SELECT cast([1], t);
-- WITH FILL on a descending key steps down by default.
SELECT number FROM numbers(3) ORDER BY number DESC WITH FILL FROM 5;
SELECT number FROM numbers(3) ORDER BY number DESC WITH FILL FROM 5 TO 1;
-- array_concat_agg is groupArrayArray.
SELECT arraySort(array_concat_agg(a)) FROM (SELECT [1, 2] AS a UNION ALL SELECT [3]);
