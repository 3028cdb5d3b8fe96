-- arrayIntersect keeps the first array's order; a union's order is ClickHouse's hash table's, so unions are sorted here.
SELECT arrayIntersect([1, 2, 3, 2], [2, 3, 4]), arrayIntersect([3, 1, 2, 3], [3, 2, 1]), arrayIntersect([5, 4, 3, 2, 1], [1, 2, 3, 4, 5]), arrayIntersect([1, 2, 3], [2, 3], [3, 4]), arrayIntersect([1, 2, 2, 1], [2, 1]);
SELECT arrayIntersect([1, 2]), arrayIntersect([1, 2], [], [1]), arrayIntersect(['a', 'b'], ['b']), arrayIntersect([[1, 2], [3]], [[3], [1, 2]]), arrayIntersect([toInt8(-1), 1], [toUInt8(255), 1]);
SELECT arraySort(arrayUnion([1, 2, 3, 2], [2, 3, 4])), arraySort(arrayUnion([1, 2, 2])), arraySort(arrayUnion([1], [2], [3])), arraySort(arrayUnion(['b', 'a'], ['a', 'c'])), arrayUnion([], [1]);
SELECT arraySort(arraySymmetricDifference([1, 2, 3, 2], [2, 3, 4])), arraySymmetricDifference([1, 2, 2]), arraySort(arraySymmetricDifference([1, 2], [2, 3], [2])), arraySort(arraySymmetricDifference([1, 2], [2, 3], [3, 4]));
SELECT arrayExcept([1, 2, 3, 2, 5], [2, 4]), arrayExcept([1, 1, 3, 3], [2]), arrayExcept(['a', 'b', 'a'], ['c']), arrayExcept([1.5, nan, 0, -0.], [nan, 0.]);
SELECT arrayIntersect([1, NULL, 2], [NULL, 2]), arrayIntersect([1, NULL, 2], [1, 2]), arraySort(arrayUnion([1, NULL], [NULL, 3])), arraySort(arraySymmetricDifference([1, NULL], [2])), arrayUnion([NULL], [NULL]);
SELECT arraySort(arrayUnion([1.5, nan], [nan])), arrayIntersect([0., -0.], [0.]), arrayIntersect([1, 2], [1.]);
SELECT arrayIntersect(NULL, [1]), arrayUnion(NULL, [1]), arraySymmetricDifference([1], NULL), arrayExcept(NULL, [1]), arrayExcept([1], NULL);

-- Result types: an intersection has the narrowest element type, a union the widest.
SELECT toTypeName(arrayIntersect([1, 2], [toInt8(2)])), toTypeName(arrayUnion([1, 2], [toInt8(2)])), toTypeName(arraySymmetricDifference([1], [toInt8(1)])), toTypeName(arrayIntersect([1, 2], [1000])), toTypeName(arrayExcept([1, 2], [3]));
SELECT toTypeName(arrayIntersect([toInt8(1)], [toUInt8(1)])), toTypeName(arrayIntersect([toInt16(1)], [toUInt8(1)])), toTypeName(arrayIntersect([toUInt16(1)], [toInt8(1)])), toTypeName(arrayIntersect([toInt32(1)], [toUInt16(1)])), toTypeName(arrayIntersect([toFloat32(1)], [toInt64(1)])), toTypeName(arrayIntersect([toFloat32(1)], [toFloat64(1)]));
SELECT toTypeName(arrayIntersect([1, NULL, 2], [NULL, 2])), toTypeName(arrayIntersect([1, NULL, 2], [1, 2])), toTypeName(arrayUnion([1, NULL], [3])), toTypeName(arraySymmetricDifference([1, NULL], [2])), toTypeName(arrayIntersect([toDate('2020-01-01')], [toDateTime('2020-01-01 00:00:00')]));
SELECT arrayIntersect([toDate('2020-01-01'), toDate('2020-01-02')], [toDateTime('2020-01-01 00:00:00')]);

-- Per row.
SELECT number, arrayIntersect(range(number), [1, 2, 5]), arrayExcept(range(number), [toUInt64(0), 2]), arraySort(arrayUnion(range(number), [7])), arrayRemove(range(number), 1) FROM numbers(4);

-- arrayRemove (also array_remove) drops every element equal to the value; a NULL value drops the NULLs.
SELECT arrayRemove([1, 2, 3, 2, NULL], 2), arrayRemove([1, 2, NULL], NULL), arrayRemove(['a', 'b'], 'a'), array_remove([1, 1, 2], 1), arrayRemove([[1], [2]], [1]), arrayRemove([], 1);
SELECT arrayRemove([1, 2, 3], 2.), arrayRemove([1.5, 2], 2), arrayRemove([1, 2, 300], 300), arrayRemove([nan, 1], nan), arrayRemove([0., -0., 1], 0);
SELECT toTypeName(arrayRemove([1, 2], 2)), toTypeName(arrayRemove([1, 2, 300], 300)), toTypeName(arrayRemove([1, 2, NULL], 2));
SELECT arrayRemove([1, 2, 3, 2], number) FROM numbers(4);

-- Errors.
SELECT arrayIntersect(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayUnion(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayExcept([1, 2], [3], [4]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayExcept([1, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayExcept([1, 2], [1000]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayExcept([1, 2], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayIntersect([1, 2], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayUnion([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayIntersect([1, 2], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayUnion([1], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayRemove([1, 2], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT arrayRemove(NULL, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- addMilliseconds, addMicroseconds, addNanoseconds and their subtract forms: the result is at least as precise as the unit.
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00.123', 3), 5) AS x, toTypeName(x);
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00.123456', 6), 5) AS x, toTypeName(x);
SELECT addMicroseconds(toDateTime64('2020-01-01 00:00:00.1', 3), 5) AS x, toTypeName(x);
SELECT addNanoseconds(toDateTime64('2020-01-01 00:00:00.1', 3), 5) AS x, toTypeName(x);
SELECT addNanoseconds(toDateTime64('2020-01-01 00:00:00.123456789', 9), 5), subtractNanoseconds(toDateTime64('2020-01-01 00:00:00', 9), 1);
SELECT subtractMilliseconds(toDateTime64('2020-01-01 00:00:00.123', 3), 200), subtractMicroseconds(toDateTime64('2020-01-01 00:00:00.123', 3), 1), subtractMicroseconds(toDateTime64('2020-01-01 00:00:00.123', 3), 1000);
SELECT addMilliseconds(toDateTime('2020-01-01 00:00:00'), 1500) AS x, toTypeName(x), addMicroseconds(toDateTime('2020-01-01 00:00:00'), 1) AS y, toTypeName(y);
SELECT addMilliseconds('2020-01-01 00:00:00', 1500) AS x, toTypeName(x), addMilliseconds('2020-01-01 00:00:00.12345', 1500) AS y, subtractMicroseconds('2020-01-01 00:00:00.1234567', 1) AS z, toTypeName(z);
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00.123', 3, 'Asia/Tokyo'), 5) AS x, toTypeName(x);
SELECT addMilliseconds(toDateTime('2020-01-01 00:00:00', 'UTC'), 1, 'Asia/Tokyo') AS x, toTypeName(x), subtractMilliseconds(toDateTime64('2020-01-01 00:00:00', 3, 'UTC'), 1, 'Asia/Tokyo') AS y, toTypeName(y);
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), 1.7), addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), -1.7), addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), -1), addNanoseconds(toDateTime64('2020-01-01 00:00:00.123', 3), 1.9), addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), true);
SELECT addMilliseconds(toDateTime64('2299-12-31 23:59:59.999', 3), 10), subtractMilliseconds(toDateTime64('1900-01-01 00:00:00', 3), 10), subtractMicroseconds(toDateTime64('1970-01-01 00:00:00', 6), 1);
SELECT addMilliseconds(NULL, 1), addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), NULL), addMilliseconds(toNullable(toDateTime64('2020-01-01 00:00:00', 3)), 1) AS x, toTypeName(x);
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), number), subtractMicroseconds(toDateTime64('2020-01-01 00:00:00', 3), number * 250) FROM numbers(3);
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), toDecimal32(1.5, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addMilliseconds(toDate('2020-01-01'), 1500); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addMilliseconds(toDate32('2020-01-01'), 1500); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addMilliseconds(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), 9223372036854775807); -- { serverError DECIMAL_OVERFLOW }
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 3), 1e30); -- { serverError DECIMAL_OVERFLOW }
SELECT addMilliseconds(toDateTime64('2020-01-01 00:00:00', 6), 9223372036854775); -- { serverError DECIMAL_OVERFLOW }
SELECT addMilliseconds('garbage', 1); -- { serverError CANNOT_PARSE_DATETIME }
