-- Array literals and ClickHouse's element types, range, arrayEnumerate*, arrayUniq, and the functions that rebuild an array from its elements.
SELECT toTypeName([1, 2]), toTypeName([1, NULL]), toTypeName([[1, 2], [3]]), toTypeName(['a']), toTypeName(array(1, 2)), array(1, 2, 3), toTypeName([(1, 'a')]);
SELECT [1, 2][1], [1, 2][5], [1, 2][-1], [1, 2][0], ['a', 'b'][3], [NULL, 1][3], [[1, 2]][1][2], [[1, 2]][2];
SELECT toTypeName(map('a', 1)), map('a', 1)['a'], map('a', 1)['b'], toTypeName(map('a', 1)['b']), map(1, NULL)[2];
SELECT range(3), toTypeName(range(3)), range(0), range(3, 3), range(5, 1), range(1, 10, 3), range(10, 0, -3), toTypeName(range(10, 0, -3)), range(-5, -1);
SELECT toTypeName(range(toUInt64(3))), toTypeName(range(-1, 5)), toTypeName(range(toInt8(120), toInt8(127), 5)), range(toInt8(120), toInt8(127), 5), range(toUInt8(250), toUInt8(255), 3);
SELECT range(toUInt64(18446744073709551610), toUInt64(18446744073709551615), 3);
SELECT number, range(number), range(number, 5, 2), toTypeName(range(number, 5, 2)) FROM numbers(4) ORDER BY number;
SELECT range(1, NULL), range(NULL), range(toNullable(3));
SELECT range(1, 10, 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT range(-3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT range(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT range('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT range(1, 2, 3, 4); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayEnumerate([5, 6, 7]), toTypeName(arrayEnumerate([5])), arrayEnumerate([]), arrayEnumerate(['a', 'b']), arrayEnumerate(range(number)) FROM numbers(3) ORDER BY number;
SELECT arrayEnumerateUniq([1, 1, 2, 1, NULL, NULL]), toTypeName(arrayEnumerateUniq([1])), arrayEnumerateUniq([]), arrayEnumerateUniq(['a', 'b', 'a']);
SELECT arrayEnumerateDense([3, 1, 3, NULL, 2, NULL]), toTypeName(arrayEnumerateDense([1])), arrayEnumerateDense(['x', 'y', 'x', 'z']);
SELECT arrayEnumerateUniq([1, 1, 2], [1, 2, 1]), arrayEnumerateDense([1, 1, 2], ['a', 'a', 'b']), arrayEnumerateUniq([[1], [1], [2]]);
SELECT arrayUniq([1, 1, NULL, 2, NULL]), toTypeName(arrayUniq([1])), arrayUniq([]), arrayUniq([1, 1, 2], [1, 1, 3]), arrayUniq([nan, nan, 0, -0.]), arrayUniq(['a', 'A', 'a']);
SELECT number, arrayUniq(arrayMap(x -> x % 3, range(number))), arrayEnumerateDense(arrayMap(x -> x % 2, range(number))) FROM numbers(5) ORDER BY number;
SELECT arrayEnumerateUniq([1, 1], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayUniq([1, 2], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayEnumerate(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayEnumerate([1], [2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayUniq(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayPushBack([1, 2], 300), toTypeName(arrayPushBack([1, 2], 300)), arrayPushFront(['a'], 'b'), arrayPushBack([1], NULL), toTypeName(arrayPushBack([1], NULL));
SELECT arrayPushBack([], 1), toTypeName(arrayPushBack([], 1)), arrayPushFront([[1]], [2, 3]), arrayPushBack([[1]], [NULL]), toTypeName(arrayPushBack([[1]], [NULL]));
SELECT arrayPopBack([1, 2, 3]), arrayPopFront([1, 2, 3]), arrayPopBack([1]), arrayPopFront([]), arrayPopBack(['a', 'b']), arrayPopFront([[1], [2]]);
SELECT number, arrayPushBack(range(number), number), arrayPopFront(range(number)) FROM numbers(3) ORDER BY number;
SELECT arrayPushBack([1], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT arrayPopBack(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayResize([1, 2, 3], 5), arrayResize([1, 2, 3], 2), arrayResize([1, 2, 3], -2), arrayResize([1, 2, 3], -5), arrayResize([1, NULL], 4), arrayResize([1], 3, 9);
SELECT toTypeName(arrayResize([1], 3, 300)), arrayResize(['a'], 3), arrayResize([1], 3, NULL), toTypeName(arrayResize([1], 3, NULL)), arrayResize([[1]], 2), arrayResize([], 2, 'x');
SELECT arrayResize([1, 2], 1000000000000); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT arraySlice([1, 2, 3, 4, 5], 2), arraySlice([1, 2, 3, 4, 5], 2, 2), arraySlice([1, 2, 3, 4, 5], -2), arraySlice([1, 2, 3, 4, 5], -4, 2), arraySlice([1, 2, 3, 4, 5], 2, -1), arraySlice([1, 2, 3, 4, 5], -4, -2);
SELECT arraySlice([1, 2, 3, 4, 5], 0), arraySlice([1, 2, 3, 4, 5], 0, 2), arraySlice([1, 2, 3, 4, 5], 10), arraySlice([1, 2, 3, 4, 5], -10, 3), arraySlice([1, 2, 3, 4, 5], 2, 0), arraySlice([1, 2, 3, 4, 5], 2, -10);
SELECT arraySlice([1, 2, 3, 4, 5], NULL), arraySlice([1, 2, 3, 4, 5], 2, NULL), arraySlice([1, 2, 3, 4, 5], -10, -8), arraySlice([1, 2, 3, 4, 5], -10, -2), arraySlice([1, 2, 3, 4, 5], -10), arraySlice([1, 2, 3, 4, 5], -6, 2);
SELECT arraySlice(['a', 'b', 'c'], 2, 1), arraySlice([[1], [2], [3]], -2), number, arraySlice(range(5), number + 1, number) FROM numbers(3) ORDER BY number;
SELECT arraySlice([1, 2, 3], 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySlice([1, 2, 3], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRotateLeft([1, 2, 3, 4, 5], 2), arrayRotateRight([1, 2, 3, 4, 5], 2), arrayRotateLeft([1, 2, 3], -1), arrayRotateLeft([1, 2, 3], 7), arrayRotateLeft([], 3), arrayRotateRight([1, 2, 3], -4), arrayRotateRight(['a', 'b', 'c'], 1);
SELECT arrayShiftLeft([1, 2, 3, 4, 5], 2), arrayShiftRight([1, 2, 3, 4, 5], 2), arrayShiftLeft([1, 2, 3], -1), arrayShiftLeft([1, 2, 3], 7), arrayShiftLeft([1, 2, 3], 1, 9), arrayShiftRight(['a', 'b'], 1), arrayShiftLeft([1, NULL], 1);
SELECT arrayShiftRight(['a', 'b', 'c'], 1, 'z'), arrayShiftLeft([[1], [2]], 1), arrayRotateLeft([1, 2], NULL), arrayShiftLeft([1, 2], 1, NULL);
SELECT arrayShiftLeft([1, 2], 1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
