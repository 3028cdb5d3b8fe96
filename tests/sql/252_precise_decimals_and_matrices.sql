-- multiplyDecimal and divideDecimal: exact, truncated to the scale asked for (or the larger one).
SELECT multiplyDecimal(toDecimal64(123.76, 2), toDecimal128(11.123456, 6)) AS x, toTypeName(x);
SELECT divideDecimal(toDecimal32(123.123, 3), toDecimal128(11.4, 1), 2) AS x, toTypeName(x);
SELECT multiplyDecimal(toDecimal32(-1.25, 2), toDecimal32(1.5, 1), 1), divideDecimal(toDecimal32(1, 0), toDecimal32(3, 0)), divideDecimal(toDecimal32(2, 1), toDecimal32(3, 0), 5);
SELECT multiplyDecimal(toNullable(toDecimal64(10, 1)), toDecimal64(100, 5)) AS x, toTypeName(x);
SELECT sum(multiplyDecimal(toDecimal64(number, 1), toDecimal64(number, 5))) FROM numbers(100);
SELECT multiplyDecimal(toDecimal256(1e39, 0), toDecimal256(1e39, 0), 0); -- { serverError DECIMAL_OVERFLOW }
SELECT divideDecimal(toDecimal64(1, 1), toDecimal64(0, 1)); -- { serverError ILLEGAL_DIVISION }
SELECT multiplyDecimal(1, toDecimal32(2, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- covarPopMatrix, covarSampMatrix and corrMatrix.
SELECT arrayMap(r -> arrayMap(v -> round(v, 6), r), covarPopMatrix(a, b)), arrayMap(r -> arrayMap(v -> round(v, 6), r), covarSampMatrix(a, b)) FROM values('a Float64, b Float64', (1, 5.6), (2, -9.6), (3, -1.3), (4, 5.3), (5, 4.4));
SELECT arrayMap(r -> arrayMap(v -> round(v, 6), r), corrMatrix(a, b, c)) FROM values('a UInt32, b Float64, c Int8', (1, 5.6, -4), (2, -9.6, 3), (3, -1.3, -4), (4, 5.3, 9), (5, 4.4, 0));
SELECT corrMatrix(number) FROM numbers(0);
SELECT covarSampMatrix(number, number * 2) FROM numbers(1);
SELECT k, arrayMap(r -> arrayMap(v -> round(v, 6), r), covarSampMatrix(number, number % 7)) FROM numbers(40) GROUP BY number % 2 AS k ORDER BY k;
-- a[i] with a computed index of any integer type.
SELECT range(number)[number], arrayMap(x -> toString(x), range(number))[number] FROM numbers(4);
SELECT [[1, 2], [3]][toUInt8(number + 1)][toUInt64(1)] FROM numbers(2);
-- numbers() and zeros() without arguments never end.
SELECT number FROM numbers() LIMIT 3;
SELECT zero FROM zeros() LIMIT 2;
-- An Enum is hashed as its number.
SELECT cityHash64(CAST('a' AS Enum8('a' = 1, 'b' = 2))), xxHash64(CAST('b' AS Enum16('a' = 1, 'b' = 300)));
