-- arrayReduce: an aggregate (with parameters and combinators) over each row's array elements
SELECT arrayReduce('sum', [1, 2, 3]) AS s, toTypeName(s), arrayReduce('avg', [1, 2]), arrayReduce('max', emptyArrayUInt8()), arrayReduce('argMax', ['a', 'b'], [2, 1]), arrayReduce('quantile(0.5)', [1, 2, 3, 4]), arrayReduce('sumIf', [1, 2, 3], [1, 0, 1]);
SELECT number, arrayReduce('sum', range(number)), arrayReduce('groupArray', range(number)), arrayReduce('uniq', [number, 1, 1]) FROM numbers(4);
SELECT arrayReduce('count', [NULL, 1]), arrayReduce('sum', [NULL, 1]), arrayReduce('uniqExact', ['a', 'b', 'a']), arrayReduce('any', [3, 4]);
SELECT finalizeAggregation(arrayReduce('sumState', [1, 2, 3]));
SELECT arrayReduce('nope', [1]); -- { serverError UNKNOWN_AGGREGATE_FUNCTION }
SELECT arrayReduce('argMax', [1], [1, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
