-- The -If combinator: an aggregate over the rows where its last argument holds.
SELECT countIf(number > 1), sumIf(number, number % 2 = 0), uniqExactIf(number % 7, number < 50), avgIf(number, number > 90), minIf(number, number > 3), maxIf(number, number < 10) FROM numbers(100) FORMAT TSVWithNames;
SELECT number % 3 AS k, countIf(number > 50), uniqIf(number, number % 2 = 1), argMaxIf(number, number, number < 60) FROM numbers(100) GROUP BY k ORDER BY k;
SELECT intDiv(number, 1000) AS k, countIf(number % 10 = 0) FROM numbers_mt(100000) GROUP BY k ORDER BY k LIMIT 3;
SELECT countIf(number > 1000), sumIf(number, number > 1000), minIf(number, number > 1000), avgIf(number, number > 1000) FROM numbers(10);
SELECT countIf() FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- Comparisons are UInt8, so sum and avg of one count and average it.
SELECT sum(number = 1), avg(number < 3), sum(number % 3 = 0) AS s, toTypeName(sum(number > 1)), sum(number IN (1, 2, 3)), sum(NOT (number > 2)) FROM numbers(10) FORMAT TSVWithNames;
SELECT number % 2 AS k, sum(number > 4), sumIf(number = 3, number > 1), avgIf(number > 5, number > 1) FROM numbers(10) GROUP BY k ORDER BY k;
-- any and anyLast skip NULLs.
SELECT any(x), anyLast(x) FROM (SELECT number, if(number IN (0, 4), NULL, number) AS x FROM numbers(5) ORDER BY number);
SELECT number % 2 AS k, any(x) FROM (SELECT number, if(number < 2, NULL, number) AS x FROM numbers(6) ORDER BY number) GROUP BY k ORDER BY k;
