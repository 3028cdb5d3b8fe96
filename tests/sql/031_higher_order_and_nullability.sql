-- Higher-order array functions, transform, nullability no-ops, map keys and bitwise aggregates.
SELECT arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), arrayExists(x -> x = 2, [1, 2, 3]), arrayExists(x -> x = 5, [1, 2, 3]);
SELECT arrayMap(s -> concat(s, '!'), ['a', 'b']), arrayFilter(s -> s != '', ['a', '', 'c']);
SELECT arrayMap(x -> x + number, [10, 20]) FROM numbers(2);
SELECT arraySum([1, 2, 3]), arraySum([1.5, 2.5]), arrayAvg([1, 2, 3, 4]), arrayProduct([2, 3, 4]);
SELECT toNullable(5), assumeNotNull(6), toNullable('x');
SELECT yesterday() = today() - 1;
SELECT mapKeys(map('a', 1, 'b', 2)), mapValues(map('a', 1, 'b', 2));
SELECT groupBitOr(number), groupBitAnd(number + 1), groupBitXor(number) FROM numbers(6);
SELECT arrayAll(x -> x > 0, [1, 2]), arrayAll(x -> x > 1, [1, 2]), arrayCount(x -> x > 1, [1, 2, 3]), arrayCount([0, 1, 2]);
SELECT transform(number, [1, 2], [10, 20], 0), transform(toString(number), ['0'], ['zero']) FROM numbers(3);

-- A lambda over several arrays (of equal sizes)
SELECT arrayMap((x, y) -> x + y, [1, 2], [10, 20]), arrayMap((x, y, z) -> concat(x, y, z), ['a'], ['b'], ['c']), arraySum((x, y) -> x * y, [1, 2], [3, 4]), arrayAvg((x, y) -> x - y, [5, 6], [1, 1]);
SELECT arrayMap((x, i) -> (x, i), ['a', 'b'], arrayEnumerate(['a', 'b'])), arrayMap((x, y) -> x + y, [], []);
SELECT arrayMap((x, y) -> x + y, [1, 2], [10]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
