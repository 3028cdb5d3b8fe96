-- Tuples compare element by element; a NULL in any pair makes the result NULL.
SELECT (CAST(NULL AS Nullable(String)), CAST(NULL AS Nullable(String))) != ('', ''), (1, NULL) = (2, NULL), (1, NULL) = (1, NULL), (1, 'a') = (1, 'a'), (number, 'a') != (1, 'a'), ((1, 2), 3) = ((1, 2), 3), (1, (2, NULL)) != (1, (3, 4)) FROM numbers(2);
SELECT toTypeName((1, 'a') = (1, 'a')), toTypeName((1, NULL) = (1, 2));
SELECT count() FROM numbers(5) WHERE (number, 1) = (3, 1);
SELECT count() FROM numbers(5) WHERE (number, 'x') != (3, 'x');
CREATE TABLE keyed (a UInt32, b UInt32) ENGINE = MergeTree ORDER BY (a, b) SETTINGS index_granularity = 10;
INSERT INTO keyed SELECT number, number FROM numbers(1000);
SELECT count() FROM keyed WHERE (a, b) = (5, 5) SETTINGS max_rows_to_read = 10;
-- Array aggregates and map sums are not Nullable unless their arguments are.
SELECT toTypeName(arrayAvg([1, 2])), arrayAvg([1, 2]), toTypeName(arrayProduct([toDecimal64(1, 8), toDecimal64(2, 8)])), arrayProduct([2, 3]), toTypeName(arrayAvg(x -> x * 2, [1, 2])), arrayAvg(x -> x * 2, [1, 2]);
SELECT toTypeName(mapAdd(map(toUInt8(1), 1), map(toUInt8(1), 1))), mapAdd(map(toUInt8(1), 1), map(toUInt8(2), 1)), toTypeName(mapPopulateSeries(map(toUInt8(1), 1, 3, 2))), mapPopulateSeries(map(toUInt8(1), 1, 3, 2)), mapSubtract(map(1, 5), map(1, 2, 3, 4));
