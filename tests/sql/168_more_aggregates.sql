-- sequenceMatch, sequenceCount, sequenceMatchEvents.
SELECT sequenceMatch('(?1)(?2)')(toDateTime(number, 'UTC'), number = 1, number = 3) FROM numbers(10);
SELECT sequenceCount('(?1)(?2)')(toDateTime(number, 'UTC'), number % 3 = 1, number % 3 = 2) FROM numbers(10);
SELECT sequenceMatch('(?1).(?2)')(number, number = 1, number = 3, number = 2), sequenceMatch('(?1).(?2)')(number, number = 1, number = 3) FROM numbers(10);
SELECT sequenceMatch('(?1)(?t>1)(?2)')(number, number = 1, number = 3), sequenceMatch('(?1)(?t<=1)(?2)')(number, number = 1, number = 3) FROM numbers(10);
SELECT sequenceCount('(?1).*(?2)')(number, number % 4 = 0, number % 4 = 3), sequenceMatchEvents('(?1).*(?2)')(number, number % 4 = 0, number % 4 = 3) FROM numbers(20);
SELECT sequenceMatch('(?2)')(number, number = 1, number = 3), sequenceMatch('(?2)(?1)')(number, number = 1, number = 3) FROM numbers(10);
SELECT sequenceMatch('(?1)(?2)')(t, c1, c2) FROM (SELECT arrayJoin([(3, 0, 1), (1, 1, 0), (3, 1, 0)]) AS x, x.1 AS t, toUInt8(x.2) AS c1, toUInt8(x.3) AS c2);
SELECT sequenceMatch('(?1)(?2)')(t, c1, c2) FROM (SELECT arrayJoin([(1, 1, 1)]) AS x, x.1 AS t, toUInt8(x.2) AS c1, toUInt8(x.3) AS c2);
SELECT sequenceMatch('(?1)(?t>=3)(?2)')(number, number = 1, number > 1), sequenceCount('(?1)(?t<2)(?2)')(number, number % 3 = 1, number % 3 = 0) FROM numbers(20);
SELECT toTypeName(sequenceMatch('(?1)(?2)')(number, number = 1, number = 2)), toTypeName(sequenceCount('(?1)(?2)')(number, number = 1, number = 2)) FROM numbers(10);
SELECT number % 2 AS k, sequenceCount('(?1)(?2)')(number, number % 3 = 0, number % 3 = 2) FROM numbers(30) GROUP BY k ORDER BY k;
SELECT sequenceMatch('(?1)(?3)')(number, number = 1, number = 3) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
SELECT sequenceMatch('(?1')(number, number = 1, number = 3) FROM numbers(10); -- { serverError SYNTAX_ERROR }
SELECT sequenceMatch('(?1)(?2)')(number, number = 1) FROM numbers(10); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
-- argAndMin, argAndMax.
SELECT argAndMin(number, number % 3), argAndMax(number, number % 7), toTypeName(argAndMin(number, number % 3)) FROM numbers(10);
SELECT argAndMin(x, y), argAndMax(x, y) FROM (SELECT arrayJoin([(1, NULL), (2, 5), (3, 1)]) AS t, t.1 AS x, t.2 AS y);
SELECT argAndMin(number, number) FROM numbers(0);
-- groupArrayIntersect, intervalLengthSum.
SELECT arraySort(groupArrayIntersect(x)), toTypeName(groupArrayIntersect(x)) FROM (SELECT arrayJoin([[1, 2, 3], [2, 3, 4], [3, 2]]) AS x);
SELECT groupArrayIntersect(x) FROM (SELECT arrayJoin([[1, 2, 3], [2, 3, 4], [], [3, 2]]) AS x);
SELECT arraySort(groupArrayIntersect(x)) FROM (SELECT arrayJoin([['a', 'b'], ['b', 'a', 'c', 'a']]) AS x);
SELECT groupArrayIntersect(x) FROM (SELECT [1] AS x FROM numbers(0));
SELECT intervalLengthSum(a, b), toTypeName(intervalLengthSum(a, b)) FROM (SELECT arrayJoin([(1, 5), (3, 9), (20, 21)]) AS t, t.1 AS a, t.2 AS b);
SELECT intervalLengthSum(a, b), toTypeName(intervalLengthSum(a, b)) FROM (SELECT arrayJoin([(1.5, 5.), (3, 9), (20, 21)]) AS t, t.1 AS a, t.2 AS b);
SELECT intervalLengthSum(toDateTime(a, 'UTC'), toDateTime(b, 'UTC')), intervalLengthSum(toDate(a), toDate(b)) FROM (SELECT arrayJoin([(1, 5), (3, 9), (20, 21), (30, 25)]) AS t, t.1 AS a, t.2 AS b);
-- Other names of existing aggregates and window functions.
SELECT uniqCombined64(number) FROM numbers(1000);
SELECT number, denseRank() OVER (ORDER BY intDiv(number, 2)), percentRank() OVER (ORDER BY intDiv(number, 2)) FROM numbers(5) ORDER BY number;
-- mapAdd, mapSubtract, mapPopulateSeries.
SELECT mapAdd(map(1, 1), map(1, 2, 2, 3)), mapSubtract(map(1, 5), map(1, 2)), mapAdd(map(1, 255), map(1, 1));
SELECT mapAdd(map('b', 1, 'a', 2), map('a', 2, 'c', 3)), mapAdd(map(1, 1.5), map(1, 2.25)), mapAdd(map(toDate('2020-01-01'), 1), map(toDate('2020-01-01'), 2));
SELECT mapPopulateSeries(map(1, 10, 5, 20), 6), mapPopulateSeries(map(3, 1, 1, 5)), mapPopulateSeries(map(1, 10, 5, 20), 3);
SELECT mapAdd(map(1, 1)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT mapAdd(map(1, 'a'), map(1, 'b')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapAdd(map(1.5, 1), map(1.5, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Arrays of tuples where NULL sits in different elements (a panic before).
SELECT [(1, NULL), (2, 5)], [(1, 2), (NULL, 3)], toTypeName([(1, 2), (NULL, 3)]);
