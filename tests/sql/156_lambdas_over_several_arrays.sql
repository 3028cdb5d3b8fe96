-- Lambdas over several arrays in the selecting functions, and lambdas named as ClickHouse names them
SELECT arrayFilter((x, f) -> f, ['a', 'b', 'c'], [1, 0, 1]), arrayCount((x, y) -> x > y, [1, 2, 3], [3, 2, 1]), arrayAll((x, y) -> x < y, [1, 2], [3, 3]), arrayExists((x, y) -> x = y, [1, 2], [2, 2]);
SELECT number, arrayFilter((x, y) -> y > number, ['a', 'b', 'c'], [0, 1, 2]) AS kept, arrayCount((x, y) -> x + y > number, [1, 1], [0, 2]) AS n FROM numbers(3);
SELECT arrayCount([1, 0, 2]), arrayCount(x -> x > 1, [1, 2, 3]), toTypeName(arrayCount([1])), arrayExists(x -> x > 5, [1, 2]), arrayAll(x -> x > 0, []);
SELECT arrayMap(x -> x * 2, [1, 2]), arraySort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2]), arrayFirst(x -> x > 1, [1, 2, 3]) FORMAT TSVWithNames;
SELECT arrayFilter((x, y) -> y, [1, 2], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
