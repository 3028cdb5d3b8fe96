-- groupArray variants.
SELECT groupArrayMovingSum(number), groupArrayMovingSum(2)(number), groupArrayMovingAvg(number), groupArrayMovingAvg(2)(number), toTypeName(groupArrayMovingSum(number)), toTypeName(groupArrayMovingAvg(number)) FROM numbers(5);
SELECT groupArrayMovingSum(toInt8(number) - 2), toTypeName(groupArrayMovingSum(toInt8(number))), groupArrayMovingSum(toFloat32(number) / 4), groupArrayMovingSum(toDecimal32(number, 2)), toTypeName(groupArrayMovingSum(toDecimal32(number, 2))) FROM numbers(5);
SELECT groupArrayMovingSum(x), groupArrayMovingAvg(x) FROM (SELECT toNullable(number) AS x FROM numbers(3) UNION ALL SELECT NULL);
SELECT groupArrayLast(2)(number), groupArrayLast(3)(number), groupArrayLast(20)(number), groupArraySorted(3)(number * 7 % 10), groupArraySorted(20)(number * 7 % 10), toTypeName(groupArraySorted(3)(number)) FROM numbers(10);
SELECT groupArraySorted(3)(x), groupArrayLast(2)(x) FROM (SELECT arrayJoin([3, NULL, 1, 2]) AS x);
SELECT groupArraySorted(3)(x) FROM (SELECT arrayJoin(['b', 'a', 'c', 'aa']) AS x);
SELECT groupArrayInsertAt(x, i), groupArrayInsertAt('z', 5)(x, i), groupArrayInsertAt('z')(x, i), toTypeName(groupArrayInsertAt(x, i)) FROM (SELECT arrayJoin([('a', 1), ('b', 3), ('c', 1)]) AS t, t.1 AS x, t.2 AS i);
SELECT toTypeName(groupArraySample(3)(number)), length(groupArraySample(3)(number)), length(groupArraySample(3, 5)(number)), arraySort(groupArraySample(20)(number)) FROM numbers(10);
SELECT groupArrayMovingSum(number), groupArrayLast(2)(number), groupArraySorted(2)(number) FROM numbers(0);
SELECT number % 3 AS k, groupArrayMovingSum(number), groupArraySorted(2)(number), groupArrayLast(2)(number) FROM (SELECT number FROM numbers(12) ORDER BY number) GROUP BY k ORDER BY k;
SELECT groupArrayLast(number) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
SELECT groupArraySorted(0)(number) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
SELECT groupArrayMovingSum('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Sequences, counts and frequent values.
SELECT deltaSum(x), deltaSumTimestamp(x, t), toTypeName(deltaSum(toFloat32(x))), toTypeName(deltaSum(toInt8(x))) FROM (SELECT arrayJoin([1, 3, 2, 5, 4]) AS x, toUInt32(rowNumberInAllBlocks()) AS t);
SELECT deltaSum(x) FROM (SELECT arrayJoin([-1, 3, -5]) AS x);
SELECT entropy(x), entropy(s), entropy(number) FROM (SELECT number, number % 4 AS x, toString(number % 2) AS s FROM numbers(10));
SELECT exponentialMovingAverage(2)(v, t) FROM (SELECT arrayJoin([(1, 0), (5, 1), (3, 3)]) AS p, p.1 AS v, p.2 AS t);
SELECT maxIntersections(s, e), maxIntersectionsPosition(s, e) FROM (SELECT arrayJoin([(1, 5), (2, 6), (4, 8), (7, 9)]) AS p, p.1 AS s, p.2 AS e);
SELECT rankCorr(x, y) FROM (SELECT arrayJoin([(1, 2), (2, 1), (3, 3), (3, 4)]) AS p, p.1 AS x, p.2 AS y);
SELECT rankCorr(number, number * number % 11) FROM numbers(50);
SELECT groupConcat(s), groupConcat(',')(s), groupConcat(', ', 2)(s), groupConcat(x), group_concat('-')(x) FROM (SELECT toString(number) AS s, number AS x FROM numbers(4));
SELECT groupConcat(',')(x) FROM (SELECT arrayJoin(['a', NULL, 'b']) AS x);
SELECT anyHeavy(x) FROM (SELECT arrayJoin([1, 2, 3, 2, 2]) AS x);
SELECT anyHeavy(x) FROM (SELECT arrayJoin(['a', 'b', 'a', 'c', 'a', 'd']) AS x);
SELECT groupBitmap(number % 5), groupBitmap(toInt8(number) - 3), uniqUpTo(3)(number), uniqUpTo(30)(number % 7), uniqUpTo(5)(number % 2, number % 3) FROM numbers(20);
-- Ties may come out in another order than ClickHouse's sketch gives them: none here.
SELECT topK(3)(x), topK(x) FROM (SELECT arrayJoin([5, 5, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 2, 7]) AS x);
SELECT topK(2)(x) FROM (SELECT arrayJoin(['b', 'a', 'c', 'a', 'c', 'a']) AS x);
SELECT topKWeighted(2)(x, w) FROM (SELECT arrayJoin([(1, 5), (2, 3), (3, 1), (2, 3)]) AS t, t.1 AS x, t.2 AS w);
SELECT topK(2)(x), topK(2)(toNullable(number % 3)) FROM (SELECT number, if(number < 2, NULL, number % 2) AS x FROM numbers(8));
SELECT topK(2)(number), groupBitmap(number), uniqUpTo(2)(number), groupConcat(number), entropy(number), deltaSum(number) FROM numbers(0);
SELECT number % 2 AS k, topK(1)(number % 4 % 3), groupConcat(',')(number), deltaSum(number), uniqUpTo(3)(number) FROM (SELECT number FROM numbers(10) ORDER BY number) GROUP BY k ORDER BY k;
SELECT topK(0)(number) FROM numbers(10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT uniqUpTo(101)(number) FROM numbers(20); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT groupBitmap(toString(number)) FROM numbers(20); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Funnels and retention.
SELECT retention(x = 1, x = 2, x = 3), retention(x = 2, x = 1), toTypeName(retention(x = 1, x = 2)) FROM (SELECT arrayJoin([1, 3, 3]) AS x);
SELECT windowFunnel(10)(t, e = 1, e = 2, e = 3), windowFunnel(5)(t, e = 1, e = 2, e = 3), windowFunnel(10)(t, e = 1), toTypeName(windowFunnel(10)(t, e = 1)) FROM (SELECT arrayJoin([(1, 1), (12, 1), (15, 2), (30, 3), (21, 3)]) AS p, p.1 AS t, p.2 AS e);
SELECT windowFunnel(10)(t, e >= 1, e >= 1), windowFunnel(10)(toDateTime(t), e = 1, e = 2) FROM (SELECT arrayJoin([(5, 2), (5, 1)]) AS p, p.1 AS t, p.2 AS e);
SELECT u, windowFunnel(3600)(t, e = 'view', e = 'cart', e = 'buy') AS level, retention(e = 'view', e = 'cart', e = 'buy') FROM (SELECT number % 4 AS u, toDateTime('2024-01-01 00:00:00') + number * 600 AS t, ['view', 'cart', 'buy', 'view'][number % 3 + 1] AS e FROM numbers(24)) GROUP BY u ORDER BY u;
SELECT windowFunnel(10)(t, e = 1), retention(e = 1, e = 2) FROM (SELECT toUInt32(number) AS t, number AS e FROM numbers(0));
SELECT retention(number = 1) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT windowFunnel(10)(toFloat64(number), number = 1) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT windowFunnel(10)(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
