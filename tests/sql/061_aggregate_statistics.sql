-- Moment statistics, weighted averages, regressions and compensated sums.
SELECT round(skewPop(x), 10), round(skewSamp(x), 10), round(kurtPop(x), 10), round(kurtSamp(x), 10), toTypeName(skewPop(x)) FROM (SELECT number * number % 17 AS x FROM numbers(100));
SELECT skewPop(number), kurtPop(number), round(kurtSamp(number), 12) FROM numbers(10);
SELECT simpleLinearRegression(number, number * 2 + 1), simpleLinearRegression(x, y) FROM (SELECT number, number * 1.5 AS x, number * number % 7 + 0.5 AS y FROM numbers(20));
SELECT avgWeighted(x, w), avgWeighted(x, toFloat64(w)), avgWeighted(number, number), toTypeName(avgWeighted(number, number)) FROM (SELECT number, number * 1.5 AS x, number % 5 AS w FROM numbers(100));
SELECT sumKahan(0.1), sumKahan(x), toTypeName(sumKahan(number)), sumKahan(number) FROM (SELECT number, 1 / (number + 1) AS x FROM numbers(777));
SELECT boundingRatio(number, number * number), boundingRatio(x, y) FROM (SELECT number, number % 5 AS x, number AS y FROM numbers(10));
-- Empty input: nan, except sums; Nullable arguments give NULL.
SELECT skewPop(number), skewSamp(number), kurtPop(number), kurtSamp(number), simpleLinearRegression(number, number), sumKahan(number), avgWeighted(number, number), boundingRatio(number, number) FROM numbers(0);
SELECT skewPop(x), simpleLinearRegression(x, x), sumKahan(x), avgWeighted(x, x), toTypeName(sumKahan(x)) FROM (SELECT if(number > 5, number, NULL) AS x FROM numbers(0));
SELECT skewPop(1), kurtSamp(1), simpleLinearRegression(1, 2), avgWeighted(1, 0);
SELECT avgWeighted(x, w), sumKahan(x) FROM (SELECT if(number % 2 = 0, NULL, number) AS x, 2 AS w FROM numbers(10));
SELECT number % 4 AS k, skewPop(number), round(kurtPop(number), 12), avgWeighted(number, k), sumKahan(number / 10), simpleLinearRegression(number, k) FROM numbers(40) GROUP BY k ORDER BY k;
SELECT skewPop('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT simpleLinearRegression(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumKahan(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- sumMap and friends: values combined per key, keys sorted; zero sums dropped from arrays.
SELECT sumMap(k, v), minMap(k, v), maxMap(k, v), sumMapWithOverflow(k, v), sumMappedArrays(k, v) FROM (SELECT [number % 3, 5] AS k, [toUInt8(number), toUInt8(200)] AS v FROM numbers(5));
SELECT toTypeName(sumMap(k, v)), toTypeName(minMap(k, v)), toTypeName(sumMapWithOverflow(k, v)) FROM (SELECT [1, 2] AS k, [toInt8(1), toInt8(2)] AS v);
SELECT sumMap(k, v) FROM (SELECT [1, 2] AS k, [-1, 1] AS v UNION ALL SELECT [1] AS k, [1] AS v);
SELECT sumMap(k, v), sumMapWithOverflow(k, v) FROM (SELECT [1, 2] AS k, [toInt8(100), toInt8(1)] AS v FROM numbers(3));
SELECT sumMap(k, v, w), sumMap((k, v)) FROM (SELECT [1, 2] AS k, [1, 2] AS v, [1.5, 2.5] AS w);
SELECT sumMap(k, v), minMap(k, v), maxMap(k, v) FROM (SELECT ['x', 'y'] AS k, [0.5, 2] AS v UNION ALL SELECT ['y', 'a'], [1, 4]);
SELECT minMap(k, v), maxMap(k, v) FROM (SELECT ['x', 'y'] AS k, ['b', 'a'] AS v UNION ALL SELECT ['x'], ['a']);
SELECT sumMap(m), minMap(m), maxMap(m), toTypeName(sumMap(m)) FROM (SELECT map('a', toUInt32(number), 'b', toUInt32(10 - number)) AS m FROM numbers(4));
SELECT sumMap(m) FROM (SELECT map('a', toInt32(number) - 1) AS m FROM numbers(3));
SELECT sumMapFiltered([1, 3])(k, v), sumMapFilteredWithOverflow([2])(k, v) FROM (SELECT [1, 2, 3] AS k, [toUInt8(250), toUInt8(10), toUInt8(1)] AS v FROM numbers(2));
SELECT sumMap(k, v), minMap(k, v) FROM (SELECT [1, 2] AS k, [1, 2] AS v) WHERE 0;
SELECT sumMap(k, v) FROM (SELECT [1, 2] AS k, [toNullable(3), NULL] AS v);
SELECT number % 3 AS g, sumMap([number % 2, 7], [number, 1]), maxMap([number % 2], [number]) FROM numbers(12) GROUP BY g ORDER BY g;
SELECT sumMap(k, v) FROM (SELECT [1, 2] AS k, [1] AS v); -- { serverError BAD_ARGUMENTS }
SELECT sumMap(k, v) FROM (SELECT ['x'] AS k, ['a'] AS v); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
