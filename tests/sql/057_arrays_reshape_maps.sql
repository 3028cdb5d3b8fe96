-- arrayZip, arrayFlatten, arrayCompact, arrayWithConstant, emptyArray*, and the Map functions.
SELECT arrayZip([1, 2], ['a', 'b']), toTypeName(arrayZip([1, 2], ['a', 'b'])), arrayZip([1]), arrayZip([], []), arrayZip([1, 2], [3, 4], [5, 6]), arrayZip(['a'], [[1]]);
SELECT arrayZipUnaligned([1, 2], ['a']), toTypeName(arrayZipUnaligned([1, 2], ['a'])), arrayZipUnaligned([], [1]);
SELECT number, arrayZip(range(number), arrayMap(x -> toString(x), range(number))) FROM numbers(3) ORDER BY number;
SELECT arrayZip([1], [1, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayFlatten([[1, 2], [3]]), flatten([[[1]], [[2, 3]]]), arrayFlatten([1, 2]), arrayFlatten([]), toTypeName(arrayFlatten([[[1]]])), arrayFlatten([[NULL], [1]]), arrayFlatten([['a'], [], ['b', 'c']]);
SELECT toTypeName(arrayFlattenedLength([[1, 2], [3]])), arrayFlattenedLength([1, 2]), arrayFlattenedLength([[[1], [2, 3]], []]), arrayFlattenedLength([]);
SELECT arrayFlatten(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCompact([1, 1, 2, 2, 1, NULL, NULL, nan, nan]), arrayCompact([]), arrayCompact(['a', 'a', 'b']), toTypeName(arrayCompact([1])), arrayCompact([[1], [1], [2]]);
SELECT arrayWithConstant(3, 'x'), arrayWithConstant(0, 1), toTypeName(arrayWithConstant(2, 1)), arrayWithConstant(2, NULL), arrayWithConstant(2, [1]);
SELECT number, arrayWithConstant(number, number) FROM numbers(3) ORDER BY number;
SELECT arrayWithConstant(-1, 1); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT emptyArrayUInt8(), emptyArrayUInt16(), emptyArrayUInt32(), emptyArrayUInt64(), emptyArrayInt8(), emptyArrayInt16(), emptyArrayInt32(), emptyArrayInt64(), emptyArrayFloat32(), emptyArrayFloat64(), emptyArrayString(), emptyArrayDate(), emptyArrayDateTime();
SELECT toTypeName(emptyArrayUInt8()), toTypeName(emptyArrayInt64()), toTypeName(emptyArrayString()), toTypeName(emptyArrayDate()), toTypeName(emptyArrayDateTime()), toTypeName(emptyArrayFloat32());
SELECT emptyArrayToSingle(emptyArrayUInt8()), emptyArrayToSingle([1, 2]), emptyArrayToSingle(emptyArrayString()), emptyArrayToSingle([NULL]), toTypeName(emptyArrayToSingle([1])), emptyArrayToSingle(emptyArrayDate());
SELECT mapContains(map('a', 1), 'a'), mapContainsKey(map('a', 1), 'b'), toTypeName(mapContains(map('a', 1), 'a')), mapContainsValue(map('a', 1), 1), mapContainsValue(map('a', 1), 2), mapContainsKey(map(1, 'x'), 1);
SELECT mapContainsKeyLike(map('abc', 1, 'x', 2), 'a%'), mapContainsKeyLike(map('abc', 1), 'b%'), mapExtractKeyLike(map('abc', 1, 'x', 2), 'a%'), mapContainsValueLike(map(1, 'abc'), '%b%'), mapExtractValueLike(map(1, 'abc', 2, 'x'), '%b%'), mapExtractKeyLike(map('a', 1), 'z%');
SELECT mapFromArrays(['a', 'b'], [1, 2]), toTypeName(mapFromArrays(['a', 'b'], [1, 2])), MAP_FROM_ARRAYS([1], [NULL]), mapFromArrays([], []);
SELECT number, mapFromArrays(range(number), arrayMap(x -> toString(x), range(number))) FROM numbers(3) ORDER BY number;
SELECT mapFromArrays(['a'], [1, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT mapSort(map('b', 2, 'a', 1)), mapReverseSort(map('b', 2, 'a', 1, 'c', 3)), mapSort((k, v) -> v, map('b', 1, 'a', 2)), mapReverseSort((k, v) -> v, map('b', 1, 'a', 2));
SELECT mapConcat(map('a', 1), map('b', 2, 'a', 3)), mapConcat(map('a', 1)), mapUpdate(map('a', 1, 'b', 2), map('b', 3, 'c', 4)), mapUpdate(map('a', 1), map('a', 5));
SELECT mapApply((k, v) -> (k, v * 2), map('a', 1, 'b', 2)), mapApply((k, v) -> (v, k), map('a', 1)), mapFilter((k, v) -> v > 1, map('a', 1, 'b', 2)), mapFilter((k, v) -> k = 'z', map('a', 1));
SELECT mapExists((k, v) -> v > 1, map('a', 1, 'b', 2)), mapAll((k, v) -> v > 1, map('a', 1, 'b', 2)), toTypeName(mapExists((k, v) -> v > 1, map('a', 1))), mapAll((k, v) -> v > 0, map('a', 1));
SELECT number, mapFilter((k, v) -> v >= number, map('a', 1, 'b', 2)), mapExists((k, v) -> k = toString(number), map('1', 1)) FROM numbers(3) ORDER BY number;
