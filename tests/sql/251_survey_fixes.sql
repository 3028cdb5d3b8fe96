-- GROUP BY ALL takes the parts of an item outside its aggregates as keys.
SELECT number % 3 AS k, count() + 1 FROM numbers(10) GROUP BY ALL ORDER BY k;
SELECT substring(toString(number), 1, 1) AS a, substring(substring(toString(number), 2, 1), 1, count()) AS b FROM numbers(30) GROUP BY ALL ORDER BY a, b;
SELECT number % 2 AS p, sum(number) * (number % 2) AS s FROM numbers(10) GROUP BY ALL ORDER BY p;
SELECT number % 2 AS p, CASE WHEN number % 2 = 1 THEN sum(number) ELSE 0 END AS s FROM numbers(10) GROUP BY ALL WITH ROLLUP ORDER BY p, s;
-- A text DEFAULT is read as CAST reads it.
DROP TABLE IF EXISTS zero_dates;
CREATE TABLE zero_dates (d Date DEFAULT '0000-00-00', n UInt8, s String DEFAULT 'x') ENGINE = Memory;
INSERT INTO zero_dates (n) VALUES (1);
SELECT * FROM zero_dates;
DROP TABLE zero_dates;
-- date_bin and time_bucket are toStartOfInterval.
SELECT date_bin(toDate('2023-10-09'), toIntervalYear(1)), time_bucket(toDateTime('2023-10-09 10:11:12', 'UTC'), INTERVAL 1 HOUR), DATE_BIN(toDate('2023-10-09'), toIntervalMonth(1));
-- startsWith and endsWith over arrays.
SELECT startsWith([1, 2, 3], [1, 2]), startsWith([1, 2, 3], [2]), endsWith(['a', 'b'], ['b']), endsWith(['a', 'b'], ['a']);
SELECT startsWith([], []), startsWith([1], []), startsWith([], [1]), startsWith([NULL, 1], [NULL]), endsWith([toUInt8(1), 2], [toInt64(2)]);
SELECT startsWith(arr, [1]) FROM (SELECT arrayJoin([[1, 2], [2, 1], []]) AS arr);
SELECT startsWith('abc', 'ab'), endsWith('abc', 'bc'), startsWith([1], ['a']); -- { serverError NO_COMMON_TYPE }
-- Arithmetic between an array and a number, or two arrays of one size.
SELECT [2, 3, 5] * 7, 7 * [2, 3], [1, 2] / 2, 7 / [1, 2], [5, 7] % 3, intDiv([5, 7], 2);
SELECT [1, 2] + [3, 4], [1, 2] - [3, 4], toTypeName([1, 2] - [3, 4]), [[1, 2], [3]] * 2;
SELECT materialize([2, 3, 5]) * materialize(7), arr * number FROM (SELECT number, range(number) AS arr FROM numbers(3));
SELECT [1, 2] + [3]; -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT [1, 2] + 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- toDecimal*OrZero/OrNull give up on values their storage type cannot hold.
SELECT toDecimal32OrZero('999999999', 0), toDecimal32OrZero('1000000000', 0), toDecimal64OrNull('-1000000000000000000', 0), toDecimal32OrNull('12.5', 8), accurateCastOrNull(123, 'Decimal(4, 2)');
-- A table over a table function reads it at each query.
DROP TABLE IF EXISTS function_table;
CREATE TABLE function_table AS numbers(5);
SELECT sum(number), count() FROM function_table;
DROP TABLE function_table;
-- cast_keep_nullable keeps a Nullable value Nullable through CAST.
SET cast_keep_nullable = 1;
SELECT CAST(toNullable(1) AS String) AS x, toTypeName(x), CAST(NULL AS Int32) AS y, toTypeName(y), CAST(1 AS Int32) AS z, toTypeName(z);
SET cast_keep_nullable = 0;
SELECT CAST(toNullable(1) AS String) AS x, toTypeName(x);
SELECT CAST(NULL AS Int32); -- { serverError CANNOT_CONVERT_TYPE }
