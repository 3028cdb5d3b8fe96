-- QUALIFY without a window function filters as WHERE, or as HAVING after aggregation.
SELECT count() FROM numbers(10) WHERE number % 2 = 0 QUALIFY 1;
SELECT number FROM numbers(5) QUALIFY number > 2;
SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k QUALIFY c > 3 ORDER BY k;
SELECT sumIf(number, number > 2) AS s FROM numbers(10) QUALIFY s > 3;
SELECT number, row_number() OVER (ORDER BY number DESC) AS r FROM numbers(5) QUALIFY r <= 2 ORDER BY number;

-- WITH RECURSIVE: the recursive term's types follow the work table's.
WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r;
WITH RECURSIVE r AS (SELECT 1 AS n, 'a' AS s UNION ALL SELECT n * 2, concat(s, 'b') FROM r WHERE n < 100) SELECT n, s FROM r ORDER BY n;
WITH RECURSIVE f AS (SELECT 0 AS i, toUInt64(0) AS a, toUInt64(1) AS b UNION ALL SELECT i + 1, b, a + b FROM f WHERE i < 10) SELECT max(a) FROM f;

-- Sums of Decimals are Decimal(38, s) in arraySum, arrayReduce and the combinators.
SELECT toTypeName(arraySum([toDecimal32(1, 2)])), arraySum([toDecimal64(1.5, 3), 2]), toTypeName(arrayReduce('sum', [toDecimal32(1, 2)]));
SELECT sumArray([toDecimal32(1.25, 2)]), toTypeName(sumArray([toDecimal32(1.25, 2)])), sumForEach([toDecimal32(1.25, 2)]), toTypeName(sumForEach([toDecimal32(1.25, 2)]));
SELECT sumMerge(s), toTypeName(sumMerge(s)) FROM (SELECT sumState(toDecimal32(number, 2)) AS s FROM numbers(4));
SELECT arraySum(CAST([], 'Array(Decimal(9, 2))'));

-- intDiv of Decimals: the exact quotient truncated, as wide as the dividend.
SELECT intDiv(toDecimal32(10, 2), 3), toTypeName(intDiv(toDecimal32(10, 2), 3));
SELECT intDiv(toDecimal64(-7.5, 1), toDecimal32(2, 0)), toTypeName(intDiv(toDecimal64(-7.5, 1), toDecimal32(2, 0)));
SELECT intDiv(10, toDecimal32(3, 2)), toTypeName(intDiv(10, toDecimal32(3, 2))), intDivOrZero(toDecimal32(1, 2), 0);
SELECT intDiv(toDecimal32(number, 2), 2) FROM numbers(3);
SELECT intDiv(toDecimal32(1, 2), 0); -- { serverError ILLEGAL_DIVISION }

-- groupUniqArray takes combinators.
SELECT arraySort(groupUniqArrayArray(a)), groupUniqArrayIf(x, x > 0), arraySort(groupUniqArrayArrayIf(a, x > 0)) FROM (SELECT [number, number + 1] AS a, number % 2 AS x FROM numbers(3));
SELECT arraySort(groupUniqArrayMerge(s)) FROM (SELECT groupUniqArrayState(number % 2) AS s FROM numbers(5) GROUP BY number);

-- intDiv with a float divides the values as they are, then truncates.
SELECT intDiv(15, 5.5), intDiv(-7.9, 2), intDiv(7, 2.5), intDiv(7.5, 2.5), toTypeName(intDiv(15, 5.5)), intDiv(toFloat32(7), 0.5);
SELECT intDivOrZero(1.5, 0), intDivOrZero(3, 0.5), intDiv(number, if(number = 1, NULL, 0.5)) FROM numbers(3);
SELECT intDiv(1.5, 0); -- { serverError ILLEGAL_DIVISION }
