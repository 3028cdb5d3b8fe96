-- arrayElement and arrayElementOrNull (arrays and maps), countEqual, notHas, hasSubstr, indexOfAssumeSorted, running sums and differences, sorting, arrayMin/arrayMax, and the lambda functions that select by a condition.
SELECT arrayElement([1, 2, 3], 2), arrayElement([1, 2, 3], -1), arrayElement([1, 2, 3], 0), arrayElement([1, 2, 3], 4), arrayElement(['a'], 2), arrayElement([[1]], 2), arrayElement([1, 2], NULL);
SELECT arrayElement(map('a', 1), 'a'), arrayElement(map('a', 1), 'b'), arrayElement(map('a', 1, 'a', 2), 'a'), arrayElementOrNull([1, 2], 3), arrayElementOrNull([1, 2], -2), arrayElementOrNull(map('a', 1), 'b'), toTypeName(arrayElementOrNull(map('a', 1), 'b'));
SELECT number, arrayElement(range(5), number), arrayElement(range(5), -number), arrayElementOrNull(['x', 'y'], number) FROM numbers(4) ORDER BY number;
SELECT arrayElement([1], 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayElement([1], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT countEqual([1, 2, NULL, NULL], NULL), countEqual([1, 2, 2], 2), toTypeName(countEqual([1], 1)), countEqual(['a', 'b'], 'a'), countEqual([1, 2], 1.0), countEqual([], 1), countEqual([[1], [1, 2], [1]], [1]);
SELECT notHas([1, 2], 3), notHas([1, NULL], NULL), notHas(['a'], 'a'), toTypeName(notHas([1], 1)), indexOfAssumeSorted([1, 3, 5, 7], 5), indexOfAssumeSorted([1, 3, 5], 4), indexOfAssumeSorted(['a', 'c'], 'c'), toTypeName(indexOfAssumeSorted([1], 1));
SELECT hasSubstr([1, 2, 3, 4], [2, 3]), hasSubstr([1, 2, 3], [3, 2]), hasSubstr([1, 2], []), hasSubstr([], []), hasSubstr([1, NULL, 2], [NULL, 2]), toTypeName(hasSubstr([1], [1])), hasSubstr([[1, 2], [3]], [[3]]), hasSubstr([1, 2, 3], [1.0, 2]), hasSubstr(['a', 'b'], ['b', 'c']);
SELECT number, countEqual(arrayMap(x -> x % 2, range(number)), 0), hasSubstr(range(number), [1, 2]) FROM numbers(4) ORDER BY number;
SELECT countEqual([1, 2], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT hasSubstr([1], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayCumSum([255, 255]), arrayCumSum([-1, 2, -3]), arrayCumSumNonNegative([1, -3, 2, -1, 5]), arrayDifference([1, 5, 2]), arrayCumSum([0.5, 0.25]), arrayCumSumNonNegative([1.5, -3, 2.5]), arrayDifference([0.1, 0.3]);
SELECT arrayDifference([toUInt64(0), toUInt64(18446744073709551615)]), arrayCumSum([toUInt64(18446744073709551615), 1]), arrayCumSumNonNegative([toUInt8(200), 100]), arrayCumSum([toDecimal32(1.5, 2), 2]), arrayDifference([toDecimal32(1.5, 2), 4]);
SELECT toTypeName(arrayCumSum([toInt8(1)])), toTypeName(arrayCumSum([toUInt16(1)])), toTypeName(arrayCumSum([toFloat32(1)])), toTypeName(arrayCumSum([toDecimal32(1, 2)])), toTypeName(arrayCumSumNonNegative([toUInt8(1)])), toTypeName(arrayCumSumNonNegative([toFloat32(1)]));
SELECT toTypeName(arrayDifference([toInt8(1)])), toTypeName(arrayDifference([toUInt16(1)])), toTypeName(arrayDifference([toUInt32(1)])), toTypeName(arrayDifference([toInt64(1)])), toTypeName(arrayDifference([toFloat32(1)])), toTypeName(arrayDifference([toDecimal32(1, 2)]));
SELECT arrayCumSum(x -> x * 2, [1, 2, 3]), arrayCumSumNonNegative(x -> x - 2, [1, 2, 3, 4]), number, arrayCumSum(range(number)), arrayDifference(arrayMap(x -> x * x, range(number))) FROM numbers(4) ORDER BY number;
SELECT arrayCumSum([1, NULL, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCumSum(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySort([3, NULL, 1, nan, -inf, 2, inf]), arrayReverseSort([3, NULL, 1, nan, -inf, 2, inf]), arraySort(['b', 'a', '']), arrayReverseSort([[1, 2], [1], [2]]), arraySort([]), arrayReverseSort(['x']);
SELECT arraySort(x -> -x, [1, 3, 2]), arraySort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2]), arrayReverseSort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2]), arraySort(x -> x % 2, [1, 2, 3, 4, 5, 6]), arrayReverseSort(x -> x % 2, [1, 2, 3, 4, 5, 6]);
SELECT number, arraySort(arrayMap(x -> (x * 7) % 5, range(number))), arrayReverseSort(x -> x % 3, range(number)) FROM numbers(5) ORDER BY number;
SELECT arrayMin([1, 2, 3]), arrayMax([1, 2, 3]), toTypeName(arrayMin([1, 2])), arrayMax(['a', 'b']), arrayMin(x -> -x, [1, 2, 3]), arrayMax(x -> x % 3, [1, 2, 3]), arrayMin([1, NULL, 3]);
SELECT number, arrayMin(a), toTypeName(arrayMin(a)) FROM (SELECT [number, NULL] AS a, number FROM numbers(2)) ORDER BY number;
SELECT arrayMin(emptyArrayUInt8()), toTypeName(arrayMin(emptyArrayUInt8())), arrayMax(emptyArrayString()), arrayMin([NULL, NULL]), arrayMax([toDate('2020-01-01'), toDate('2021-02-03')]), arrayMin([[1], [0, 1]]), arrayMin([1, nan, 0]), arrayMax([1, nan, 0]), arrayMax([NULL, 2, 5]);
SELECT arrayFirst(x -> x > 1, [1, 2, 3]), arrayFirst(x -> x > 5, [1, 2, 3]), arrayFirstOrNull(x -> x > 5, [1, 2, 3]), toTypeName(arrayFirstOrNull(x -> x > 5, [1, 2, 3])), arrayLast(x -> x > 1, [1, 2, 3]), arrayLastOrNull(x -> x > 1, [1, 2, 3]), arrayLast(x -> x = 'z', ['a']);
SELECT arrayFirstIndex(x -> x > 1, [1, 2, 3]), arrayLastIndex(x -> x > 1, [1, 2, 3]), arrayLastIndex(x -> x > 5, [1, 2, 3]), toTypeName(arrayFirstIndex(x -> x > 1, [1, 2, 3])), arrayFirst((x, y) -> y > 1, [1, 2, 3], [3, 2, 1]), arrayFirstIndex(x -> x, [0, NULL, 2]);
SELECT number, arrayFirst(x -> x >= number, [1, 2, 3]), arrayLastIndex(x -> x < number, [0, 1, 2]) FROM numbers(4) ORDER BY number;
SELECT arrayFill(x -> NOT isNull(x), [1, NULL, 3, NULL, NULL, 4]), arrayReverseFill(x -> NOT isNull(x), [1, NULL, 3, NULL, NULL]), arrayFill(x -> x > 1, []), arrayFill(x -> 0, [1, 2, 3]), arrayReverseFill(x -> 0, [1, 2, 3]);
SELECT arraySplit((x, y) -> y, [1, 2, 3, 4, 5], [1, 0, 0, 1, 0]), arrayReverseSplit((x, y) -> y, [1, 2, 3, 4, 5], [1, 0, 0, 1, 0]), arraySplit(x -> x > 2, [1, 2, 3, 4]), arraySplit(x -> 1, []), arrayReverseSplit(x -> 1, [1, 2]), arraySplit(x -> 0, [1, 2]), arraySplit(x -> x, [1, 0, NULL, 1]), toTypeName(arraySplit(x -> 1, [1]));
SELECT arrayFirstIndex([0, 1, 1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayFill([0, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- Array literals inside lambda bodies, built from the lambda's parameters.
SELECT arrayMap(x -> [x], [1, 2]), arrayMap(x -> [x, 1], [1, 2]), arrayMap(x -> length([x, x]), [3]), arrayMap(x -> [[x], []], [5]), arrayMap(x -> (x, [x]), [7]), arrayMap(x -> arraySum([x, x]), [1, 2]);
SELECT arrayFilter(x -> has([x, 3], 1), [1, 2]), arrayMap((x, y) -> [x, y], [1, 2], [3, 4]), arrayFlatten(arrayMap(x -> [x, x * 10], [1, 2]));
-- arraySum types its result as sum does: exact integers, Float64 for floats.
SELECT arraySum([1, 2, 3]) AS a, toTypeName(a), arraySum([-1, 2]) AS b, toTypeName(b), arraySum([1.5, 2]) AS c, toTypeName(c), arraySum(x -> x * 2, [1, 2]) AS e, toTypeName(e), arraySum([9007199254740993, 0]), arraySum(emptyArrayUInt8()) AS k, toTypeName(k), arraySum([toFloat32(1.5)]) AS l, toTypeName(l);
SELECT arraySum(arr), arraySum(x -> x * x, arr) FROM (SELECT range(number) AS arr FROM numbers(5));
