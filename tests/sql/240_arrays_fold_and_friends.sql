-- arrayFold, shingles, Jaccard and Levenshtein similarities, partial sorts and top/bottom k, ROC and PR areas, and random orders (only their deterministic properties).
SELECT arrayFold((acc, x) -> acc + x, [1, 2, 3], toUInt64(0)) AS r, toTypeName(r);
SELECT arrayFold((acc, x, y) -> acc + x * y, [1, 2, 3], [4, 5, 6], toInt64(0)), arrayFold((acc, x) -> arrayPushBack(acc, x * 2), [1, 2, 3], emptyArrayUInt16()) AS r, toTypeName(r);
SELECT arrayFold((acc, x) -> concat(acc, x), ['a', 'b', 'c'], '') AS r, toTypeName(r), arrayFold((acc, x) -> acc + x, emptyArrayUInt64(), toUInt64(7));
SELECT number, arrayFold((acc, x) -> acc * 10 + x, range(number), toUInt64(0)) FROM numbers(5) ORDER BY number;
SELECT number, arrayFold((acc, x) -> acc + x + number, range(number), toUInt64(100)) FROM numbers(4) ORDER BY number;
SELECT arrayFold((acc, x) -> (acc.2, acc.2 + acc.1), range(10), (toUInt64(0), toUInt64(1))).1 AS fib;
SELECT arrayFold((acc, x) -> acc + x, [1, 2]); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT arrayFold(x -> x, [1, 2], toInt64(0)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFold((acc, x, y) -> acc + x + y, [1, 2], [1], toInt64(0)); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayShingles([1, 2, 3, 4], 2) AS r, toTypeName(r), arrayShingles([1, 2, 3, 4], 4), arrayShingles(['a', NULL, 'c'], 2) AS s, toTypeName(s);
SELECT number, arrayShingles(range(number + 1), 1), arrayShingles(range(number + 2), 2) FROM numbers(3) ORDER BY number;
SELECT arrayShingles([1, 2], 3); -- { serverError BAD_ARGUMENTS }
SELECT arrayShingles([1, 2], 0); -- { serverError BAD_ARGUMENTS }
SELECT arrayShingles([1, 2, 3]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayJaccardIndex([1, 2, 3], [2, 3, 4]) AS r, toTypeName(r), arrayJaccardIndex([1, 1, 2], [1]), arrayJaccardIndex([1, 1], [1, 1]), arrayJaccardIndex([1, 2], [3]);
SELECT arrayJaccardIndex([1], emptyArrayUInt8()), arrayJaccardIndex(emptyArrayUInt8(), emptyArrayUInt8()), arrayJaccardIndex([[1], [2]], [[1]]), arrayJaccardIndex(['a', 'b'], ['b']);
SELECT arrayJaccardIndex([toUInt8(1)], [toInt64(1)]), arrayJaccardIndex([1, 2], CAST([1, 2, NULL], 'Array(Nullable(Int64))'));
SELECT arrayJaccardIndex(['a'], [1]); -- { serverError NO_COMMON_TYPE }
SELECT arrayLevenshteinDistance([1, 2, 3], [1, 3, 4]) AS r, toTypeName(r), arrayLevenshteinDistance([], [1, 2]), arrayLevenshteinDistance(['a', 'b'], ['b', 'a']), arrayLevenshteinDistance([1, NULL], [NULL, 1]);
SELECT arrayLevenshteinDistance(['kitten'], ['sitting']), arrayLevenshteinDistance([1, 2, 3, 4], [1, 2, 3, 4]), arrayLevenshteinDistance([1], ['a']);
SELECT number, arrayLevenshteinDistance(range(number), range(3)) FROM numbers(5) ORDER BY number;
SELECT arrayLevenshteinDistanceWeighted([1, 2, 3], [1, 3, 4], [1., 2., 3.], [1., 1., 2.]) AS r, toTypeName(r), arrayLevenshteinDistanceWeighted(['A', 'B', 'C'], ['A', 'K', 'L'], [1.0, 2, 3], [3.0, 4, 5]);
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1], [1, 2], [1]), arrayLevenshteinDistanceWeighted([1, 2], [3], [toFloat32(1), 2], [toFloat32(5)]);
SELECT arraySimilarity(['A', 'B', 'C'], ['A', 'K', 'L'], [1.0, 2, 3], [3.0, 4, 5]) AS r, toTypeName(r), arraySimilarity([1, 2], [1, 2], [1, 1], [1, 1]), arraySimilarity([1], [2], [1], [3]);
SELECT arraySimilarity(CAST([], 'Array(UInt8)'), CAST([], 'Array(UInt8)'), CAST([], 'Array(Float64)'), CAST([], 'Array(Float64)')), arrayLevenshteinDistanceWeighted(CAST([], 'Array(UInt8)'), CAST([], 'Array(UInt8)'), CAST([], 'Array(Float64)'), CAST([], 'Array(Float64)'));
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1], [1., 2.], [1., 2.]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1], ['a'], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayLevenshteinDistance([1, 2], [1], [3]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayPartialSort(2, [5, 9, 1, 3, 7]) AS r, toTypeName(r), arrayPartialReverseSort(2, [5, 9, 1, 3, 7]), arrayPartialSort(10, [3, 1, 2]), arrayPartialSort(0, [3, 1, 2]);
SELECT arraySlice(arrayPartialSort(3, [5, 9, 1, 3, 7, 2, 8, 6, 4, 0, 11, 10]), 1, 3), arraySlice(arrayPartialReverseSort(3, [5, 9, 1, 3, 7, 2, 8, 6, 4, 0, 11, 10]), 1, 3);
SELECT arraySlice(arrayPartialSort(x -> -x, 2, [5, 9, 1, 3, 7]), 1, 2), arraySlice(arrayPartialSort((x, y) -> y, 1, ['a', 'b', 'c'], [2, 1, 3]), 1, 1), arraySlice(arrayPartialSort(2, [3, NULL, 1, 2]), 1, 2);
SELECT number, arraySlice(arrayPartialReverseSort(2, arrayMap(x -> (x * 7) % 10, range(number + 3))), 1, 2) FROM numbers(3) ORDER BY number;
SELECT arrayTopK(2, [5, 9, 1, 3, 7]) AS r, toTypeName(r), arrayBottomK(2, [5, 9, 1, 3, 7]), arrayTopK(x -> -x, 2, [5, 9, 1, 3, 7]), arrayTopK(10, [3, 1, 2]), arrayTopK(0, [3, 1, 2]);
SELECT arrayROCAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) AS r, toTypeName(r), arrayAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]), arrayROCAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], false);
SELECT arrayROCAUC([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]), arrayROCAUC([0.1, 0.4], [1, 1]), arrayROCAUC([0.1, 0.4], [0, 0], false), arrayROCAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 2]), arrayROCAUC([1, 2, 3], [true, false, true]);
SELECT arrayAUCPR([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) AS r, toTypeName(r), arrayPRAUC([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]), arrayAUCPR([0.1, 0.4], [0, 0]);
SELECT arrayROCAUC(CAST([], 'Array(Float64)'), CAST([], 'Array(UInt8)')), arrayAUCPR(CAST([], 'Array(Float64)'), CAST([], 'Array(UInt8)'));
SELECT number, arrayROCAUC(arrayMap(x -> x / 10, range(number + 2)), arrayMap(x -> x % 2, range(number + 2))), arrayAUCPR(arrayMap(x -> x / 10, range(number + 2)), arrayMap(x -> x % 2, range(number + 2))) FROM numbers(4) ORDER BY number;
SELECT arrayROCAUC([0.1], [1, 0]); -- { serverError BAD_ARGUMENTS }
SELECT arrayROCAUC([0.1, 0.5], ['a', 'b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC([0.1, 0.4], [0, 1], number = 0) FROM numbers(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT length(arrayShuffle([1, 2, 3, 4])) AS n, arraySort(arrayShuffle([1, 2, 3, 4])), toTypeName(arrayShuffle([1, 2, 3, 4])), arraySort(arrayShuffle([1, 2, 3, 4], 42)), arrayShuffle(CAST([], 'Array(UInt8)'));
SELECT arraySort(arrayShuffle(['a', NULL, 'c'])), toTypeName(arrayShuffle(['a', NULL])), arraySort(arrayPartialShuffle([1, 2, 3, 4, 5], 2, 1)), arraySort(arrayPartialShuffle([1, 2, 3, 4, 5])), arraySort(arrayPartialShuffle([1, 2, 3, 4, 5], 0));
SELECT length(arrayRandomSample([1, 2, 3, 4], 2)), hasAll([1, 2, 3, 4], arrayRandomSample([1, 2, 3, 4], 2)), arraySort(arrayRandomSample([1, 2, 3], 5)), arrayRandomSample([1, 2, 3], 0), toTypeName(arrayRandomSample([1, 2, 3], 1));
SELECT number, length(arrayRandomSample(range(number), 2)), arraySort(arrayShuffle(range(number))) FROM numbers(4) ORDER BY number;
SELECT arrayShuffle(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRandomSample([1, 2, 3], -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayEnumerateUniqRanked(1, [[1, 2, 3], [2, 2, 1], [3]], 2) AS r, toTypeName(r), arrayEnumerateUniqRanked(2, [[1, 2, 3], [2, 2, 1], [3]], 2), arrayEnumerateUniqRanked(1, [[1, 2, 3], [2, 2, 1], [3]]);
SELECT arrayEnumerateDenseRanked(1, [[1, 2, 3], [2, 2, 1], [3]], 2) AS r, toTypeName(r), arrayEnumerateDenseRanked(2, [[1, 2, 3], [2, 2, 1], [3]], 2), arrayEnumerateDenseRanked([[1, NULL], [NULL, 2]]);
SELECT arrayEnumerateUniqRanked([1, 2, 1]), arrayEnumerateDenseRanked([5, 6, 5]), arrayEnumerateUniqRanked(1, [[1], [1]], 1), arrayEnumerateUniqRanked([[1], [1]]), arrayEnumerateUniqRanked([]);
SELECT number, arrayEnumerateUniqRanked(arrayMap(x -> [x % 2, x % 3], range(number))), arrayEnumerateDenseRanked(2, arrayMap(x -> [x % 2, x % 3], range(number)), 2) FROM numbers(4) ORDER BY number;
SELECT arrayEnumerateUniqRanked(3, [[1, 2, 3], [2, 2, 1], [3]], 2); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked(1, [[1, 2, 3], [2, 2, 1], [3]], 3); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked(0, [1, 2]); -- { serverError BAD_ARGUMENTS }
SELECT groupArray(name) FROM (SELECT name FROM system.functions WHERE name IN ('arrayFold', 'arrayShingles', 'arrayJaccardIndex', 'arrayLevenshteinDistance', 'arrayLevenshteinDistanceWeighted', 'arraySimilarity', 'arrayPartialSort', 'arrayPartialReverseSort', 'arrayTopK', 'arrayBottomK', 'arrayROCAUC', 'arrayAUC', 'arrayAUCPR', 'arrayPRAUC', 'arrayRandomSample', 'arrayShuffle', 'arrayPartialShuffle', 'arrayEnumerateDenseRanked', 'arrayEnumerateUniqRanked') ORDER BY name);
