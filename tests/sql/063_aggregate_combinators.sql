-- Combinators on any aggregate, chained: -Array, -ForEach, -Map, -OrNull, -OrDefault, -Distinct, -Resample, -ArgMin/-ArgMax, -If.
SELECT sumArray(a), avgArray(a), maxArray(a), countArray(a), uniqExactArray(a), groupArrayArray(a) FROM (SELECT [number, number * 2] AS a FROM numbers(4));
SELECT sumArray(a), quantilesExactArray(0.5)(a), toTypeName(sumArray(a)) FROM (SELECT range(number) AS a FROM numbers(5));
SELECT sumForEach(a), avgForEach(a), maxForEach(a), toTypeName(sumForEach(a)) FROM (SELECT arrayJoin([[1, 2, 3], [10, 20], [100, 200, 300, 400]]) AS a);
SELECT sumMap(m), avgMap(m), maxMap(m), countMap(m) FROM (SELECT map('a', number, 'b', number * 10) AS m FROM numbers(4));
SELECT sumOrNull(number), avgOrNull(number), maxOrNull(number), countOrNull(number), toTypeName(sumOrNull(number)) FROM numbers(0);
SELECT sumOrNull(number), avgOrNull(number), countOrNull(number), toTypeName(countOrNull(number)) FROM numbers(5);
SELECT sumOrDefault(number), avgOrDefault(number), maxOrDefault(number), toTypeName(avgOrDefault(number)) FROM numbers(0);
SELECT avgOrDefault(number), uniqExactOrDefault(number) FROM numbers(5);
SELECT sumDistinct(number % 3), avgDistinct(number % 4), groupArrayDistinct(number % 2), uniqDistinct(number % 5) FROM numbers(10);
SELECT sumResample(0, 10, 2)(number, number), countResample(0, 20, 5)(number, number * 2), toTypeName(sumResample(0, 10, 2)(number, number)) FROM numbers(10);
SELECT quantilesResample(0.5, 0, 10, 5)(number, number) FROM numbers(10);
SELECT sumArgMax(number, number % 4), sumArgMin(number, number % 4), countArgMax(number, number % 3), groupArrayArgMin(number, number % 5) FROM numbers(20);
-- Chains: the rightmost combinator applies last.
SELECT sumArrayIf(a, number > 1), sumIfArray(a, c), countIfArray(c), avgForEachIf(a, number < 3) FROM (SELECT number, [number, 1] AS a, [toUInt8(number > 2), 1] AS c FROM numbers(5));
SELECT sumOrNullIf(number, number > 100), sumIfOrNull(number, number > 100), uniqExactArrayOrNull(a), maxArrayOrDefault(a) FROM (SELECT number, [number] AS a FROM numbers(5) WHERE number > 10);
SELECT sumForEachOrNull(a), sumDistinctArray(a) FROM (SELECT [number % 2, 1] AS a FROM numbers(4));
-- NULLs inside: skipped by the nested function.
SELECT sumArray(a), countArray(a), sumForEach(a) FROM (SELECT [toNullable(number), NULL] AS a FROM numbers(3));
SELECT sumOrNull(x), countOrNull(x), sumOrDefault(x) FROM (SELECT CAST(NULL AS Nullable(UInt64)) AS x FROM numbers(3));
-- GROUP BY with combinators.
SELECT number % 3 AS k, sumArray([number, 1]), sumForEach([number, 2]), sumOrNull(if(number > 4, number, NULL)), sumDistinct(number % 2), sumResample(0, 4, 2)(number, number % 4) FROM numbers(12) GROUP BY k ORDER BY k;
SELECT sumArray(number) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumArray(a, b) FROM (SELECT [1, 2] AS a, [1] AS b); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumForEach(a, b) FROM (SELECT [1, 2] AS a, [1] AS b); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT uniqArray(a, b) FROM (SELECT [1, 2] AS a, [1] AS b); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
-- f(DISTINCT x) is fDistinct(x) for every aggregate.
SELECT arraySort(groupArray(DISTINCT x)), avg(DISTINCT x), length(groupConcat(DISTINCT toString(x))), sumIf(DISTINCT x, x > 0), countIf(DISTINCT x, x > 0), stddevPop(DISTINCT x), varSamp(DISTINCT x), groupBitOr(DISTINCT x), sumKahan(DISTINCT x), quantile(0.9)(DISTINCT x), count(DISTINCT x), sum(DISTINCT x) FROM (SELECT number % 3 AS x FROM numbers(9));
SELECT k, arraySort(groupArray(DISTINCT v)), varPop(DISTINCT v) FROM (SELECT number % 2 AS k, number % 5 AS v FROM numbers(40)) GROUP BY k ORDER BY k;
