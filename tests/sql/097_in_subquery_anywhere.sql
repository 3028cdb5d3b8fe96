#!/usr/bin/env strata
-- IN (subquery) outside a filter's conjuncts: in the select list, under OR and NOT, in function arguments.
SELECT number, number IN (SELECT 1 UNION ALL SELECT 2) AS i, number NOT IN (SELECT 1) AS n FROM numbers(4);
SELECT count() FROM numbers(10) WHERE number < 2 OR number IN (SELECT 7);
SELECT sum(number IN (SELECT number FROM numbers(5))) AS s FROM numbers(10);
SELECT if(number IN (SELECT 3), 'three', 'other') AS w FROM numbers(4);
SELECT toTypeName(number IN (SELECT 1)) AS t FROM numbers(1);
SELECT count() FROM numbers(10) WHERE number IN (SELECT number FROM numbers(3)) AND number NOT IN (SELECT 1);
SELECT x IN (SELECT CAST(NULL AS Nullable(UInt8)) UNION ALL SELECT 1) AS i FROM (SELECT arrayJoin([1, 2]) AS x);
SELECT count() FROM numbers(10) WHERE NOT (number IN (SELECT number FROM numbers(8)));
SELECT number FROM numbers(6) WHERE NOT (number IN (SELECT 1) OR number IN (SELECT 2)) ORDER BY number;
SELECT number % 3 AS k, countIf(number IN (SELECT number * 2 FROM numbers(5))) AS c FROM numbers(10) GROUP BY k ORDER BY k;
SELECT 5 IN (SELECT number FROM numbers(0)) AS e;
-- A subquery in FROM without an alias, its column named as the IN subquery's.
SELECT a FROM (SELECT 7 AS a) WHERE a IN (SELECT 7 AS a);
SELECT count() FROM (SELECT number AS n FROM numbers(10)) WHERE n IN (SELECT number AS n FROM numbers(3)) AND n NOT IN (SELECT 1 AS n);

-- An array literal as IN's set
SELECT 2 IN [1, 2, 3], 5 NOT IN [1], 'a' IN ['a', 'b'];
SELECT number FROM numbers(5) WHERE number IN [1, 3] ORDER BY number;
