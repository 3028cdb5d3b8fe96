-- A SELECT without FROM reads system.one when it names dummy or *.
SELECT dummy;
SELECT *;
SELECT dummy + 1 AS x, * WHERE dummy = 0;
SELECT count(), 1;
-- `?:` inside a lambda's body; arrayFilter keeps the elements whose condition is a non-zero number.
SELECT arrayMap(x -> x > 1 ? x : 0, [1, 2, 3]), arrayMap(x -> x = 1 ? 'one' : (x = 2 ? 'two' : 'many'), [1, 2, 3]);
SELECT arrayFilter(x -> x, [0, 1, 2]), arrayFilter(x -> toUInt8(x = 1), [1, 2]), arrayFilter(x -> x = 1 ? 1 : 0, [1, 2]);
SELECT arrayFilter(x -> x % 2, range(number)) FROM numbers(4);
