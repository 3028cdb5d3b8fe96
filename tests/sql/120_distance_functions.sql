-- Distances, norms and dot products of arrays, with their aliases.
SELECT L1Distance([1, 2, 3], [4, 5, 6]), L2Distance([1, 2, 3], [4, 5, 6]), L2SquaredDistance([1, 2, 3], [4, 5, 6]), LinfDistance([1, 2, 3], [4, 5, 7]), LpDistance([1, 2, 3], [4, 5, 6], 3), cosineDistance([1, 2, 3], [4, 5, 6]);
SELECT distanceL1([1, 2], [3, 5]), distanceL2([0, 0], [3, 4]), distanceL2Squared([1], [3]), distanceLinf([1, -9], [3, 4]), distanceLp([1, 2], [3, 4], 1.5), distanceCosine([1, 0], [0, 1]);
SELECT L1Norm([1, -2, 3]), L2Norm([3, 4]), L2SquaredNorm([3, 4]), LinfNorm([1, -5, 3]), LpNorm([1, 2, 3], 3), LpNorm([1, 2], 1);
SELECT normL1([-1.5, 2.5]), normL2([6, 8]), normL2Squared([2, 2]), normLinf([-7, 3]), normLp([3, 4], 2);
SELECT L1Normalize([1, -2, 3]), L2Normalize([3, 4]), LinfNormalize([1, -5, 3]), LpNormalize([1, 2, 3], 3), LpNormalize([1, -2, 3], 2);
SELECT normalizeL1([2, 2]), normalizeL2([0, 5]), normalizeLinf([4, -8]), normalizeLp([1, 1], 1);
SELECT arrayDotProduct([1, 2, 3], [4, 5, 6]), arrayDotProduct([1.5, 2], [2, 3]), arrayDotProduct([-1, 2], [3, -4]);

-- Result types: Float32 when the elements' common type is Float32, the product's type for a dot product.
SELECT toTypeName(L1Distance([1, 2, 3], [4, 5, 6])), toTypeName(L2Distance([1., 2, 3], [4, 5, 6])), toTypeName(L2Distance([toFloat32(1), 2], [toFloat32(4), 5])), toTypeName(L2Distance([toFloat32(1), 2], [toFloat64(4), 5])), toTypeName(L1Distance([toInt8(1)], [toInt8(2)])), toTypeName(cosineDistance([toFloat32(1)], [toInt16(1)]));
SELECT toTypeName(L1Norm([1, -2, 3])), toTypeName(L1Norm([toFloat32(1)])), toTypeName(L2Norm([toInt64(1)])), toTypeName(L1Normalize([1, 2])), toTypeName(L1Normalize([toFloat32(1), 2])), toTypeName(LpNorm([toFloat32(1), 2], 3));
SELECT toTypeName(arrayDotProduct([1, 2, 3], [4, 5, 6])), toTypeName(arrayDotProduct([toFloat32(1)], [toFloat32(2)])), toTypeName(arrayDotProduct([toInt8(1)], [toInt8(2)])), toTypeName(arrayDotProduct([toInt8(1)], [toUInt8(2)])), toTypeName(arrayDotProduct([toFloat32(1)], [toInt8(2)])), toTypeName(arrayDotProduct([toUInt32(1)], [toUInt16(1)]));
SELECT toTypeName(arrayDotProduct([toInt64(1)], [toUInt64(1)])), toTypeName(arrayDotProduct([toUInt8(1)], [toInt16(1)])), toTypeName(arrayDotProduct([toUInt32(1)], [toInt8(1)])), toTypeName(arrayDotProduct([toFloat32(1)], [toFloat64(1)]));

-- Float32 arithmetic.
SELECT L1Distance([toFloat32(1), 2, 3], [toFloat32(4), 5, 6]), L2Distance([toFloat32(1), 2, 3], [toFloat32(4), 5, 6]), cosineDistance([toFloat32(1), 2, 3], [toFloat32(4), 5, 6]), arrayDotProduct([toFloat32(1.5), 2], [toFloat32(2), 3]);
SELECT LpNorm([toFloat32(1), 2], 3), LpNormalize([toFloat32(1), 2], 3), L2Normalize([toFloat32(3), 4]), cosineDistance([toFloat32(1), 0], [toFloat32(0), 1]);

-- Integer dot products wrap in their type.
SELECT arrayDotProduct([toUInt8(200)], [toUInt8(200)]), arrayDotProduct([toInt8(127), 127], [toInt8(127), 127]), arrayDotProduct([toInt8(-128), -128, -128], [toInt8(-128), -128, -128]), arrayDotProduct([toUInt32(4000000000)], [toUInt32(4000000000)]);
SELECT arrayDotProduct([toInt64(9223372036854775807), 1], [toInt64(2), 1]), arrayDotProduct([toUInt64(18446744073709551615)], [toUInt64(2)]);

-- Zero vectors, empty arrays, NaN and large values.
SELECT cosineDistance([0, 0], [1, 1]), L2Normalize([0, 0]), L1Normalize([0., 0]), LinfNormalize([toFloat32(0), 0]);
SELECT L2Norm(emptyArrayFloat64()), L1Distance(emptyArrayFloat64(), emptyArrayFloat32()), cosineDistance(emptyArrayFloat64(), emptyArrayFloat64()), L2Normalize(emptyArrayFloat64()), LinfNorm(emptyArrayFloat64()), LinfDistance(emptyArrayInt32(), emptyArrayInt32()), LpNorm(emptyArrayFloat64(), 2), arrayDotProduct(emptyArrayInt8(), emptyArrayUInt8());
SELECT L1Norm([-9223372036854775808]), L1Norm([18446744073709551615]), L2SquaredNorm([1e200, 1e200]), LinfNorm([nan, 1]), LinfNorm([1, nan]), LinfDistance([nan, 1], [0, 0]);
SELECT LpDistance([1, 2], [3, 4], 1.5), LpDistance([1, 2], [3, 4], 1), LpNorm([1, 2], toUInt8(2)), LpNorm([1, 2], toInt64(2)), LpNorm([1, 2], toFloat32(2.5));

-- NULL arguments make the result NULL.
SELECT L1Distance(NULL, [1]), L2Norm(NULL), LpNorm([1, 2], NULL), LpNorm(NULL, 2), L2Normalize(NULL), arrayDotProduct([1], NULL);

-- Per row.
SELECT number, L2Distance([number, 0], [0, 4]), L1Norm(range(number)), arrayDotProduct(range(number), range(number)), L1Normalize([number + 1, 1]) FROM numbers(4);

-- Errors.
SELECT L1Distance([1, 2], [1, 2, 3]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayDotProduct([1, 2], [1, 2, 3]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT L2Distance(x, [1, 2]) FROM (SELECT [1, 2] AS x UNION ALL SELECT [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT L2Norm([1, NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L1Distance([1, NULL], [1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L2Norm(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L2Norm([]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L2Norm([1, 2], 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT L2Distance([1], [1], [1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT LpNorm([1, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT LpNorm([1, 2], 0.5); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpDistance([1, 2], [3, 4], 0.9); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNormalize([1, 2], inf); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNorm([1, 2], '2'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT LpNorm([1, 2], number) FROM numbers(2); -- { serverError ILLEGAL_COLUMN }
