-- Decimals as ClickHouse computes them: result widths and scales, truncation toward zero, overflow errors
SELECT toDecimal32(2, 2) * toUInt8(2) AS x, toTypeName(x);
SELECT toDecimal32(2, 2) * toInt64(2) AS x, toTypeName(x);
SELECT toDecimal32(2, 2) + toDecimal128(1, 5) AS x, toTypeName(x);
SELECT toDecimal32(2, 2) - toDecimal32(1, 5) AS x, toTypeName(x);
SELECT toDecimal32(2, 4) / toDecimal32(3, 2) AS x, toTypeName(x);
SELECT toInt32(7) / toDecimal32(2, 2) AS x, toTypeName(x);
SELECT toDecimal32(7, 2) / 3 AS x, toTypeName(x);
SELECT toDecimal64(-7, 2) / toDecimal32(2, 0) AS x, toTypeName(x);
SELECT toDecimal64(1, 2) / toInt8(-3) AS x, toTypeName(x);
SELECT toDecimal32(1.5, 2) * toDecimal32(2.25, 3) AS x, toTypeName(x);
SELECT toDecimal32(1, 5) * toDecimal64(1, 5) AS x, toTypeName(x);
SELECT toNullable(toDecimal32(2, 2)) * 3 AS x, toTypeName(x);
SELECT toDecimal32(2, 2) * 1.5 AS x, toTypeName(x);
SELECT -toDecimal32(2, 2) AS x, toTypeName(x);
SELECT toDecimal32(900000, 3) * toDecimal32(900000, 3); -- { serverError DECIMAL_OVERFLOW }
SELECT toDecimal32(1, 2) / 0; -- { serverError ILLEGAL_DIVISION }
SELECT toDecimal32(1, 5) * toDecimal32(1, 5); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toDecimal32(1, 2) / toDecimal32(3, 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT number, toDecimal64(number, 3) / 7 AS x FROM numbers(4) ORDER BY number;

SELECT toDecimal32(0.29, 2), toDecimal32(-2.675, 2), toDecimal128(2.675, 2), toDecimal32('1.999', 2);
SELECT toDecimal32('-0.001', 2), toDecimal32('.5', 2), toDecimal32('+3.14159', 3), toDecimal32('1e3', 2);
SELECT CAST(1.999 AS Decimal(9, 2)), CAST('1.999' AS Decimal(9, 2)), 1.999::Decimal(9, 3) AS c3, CAST(toDecimal64(1.999, 3) AS Decimal(9, 2));
SELECT toDecimal32(2147483647, 0), CAST(123456 AS Decimal(5, 2));
SELECT toDecimal32(1e10, 2); -- { serverError DECIMAL_OVERFLOW }
SELECT toDecimal32('abc', 2); -- { serverError CANNOT_PARSE_TEXT }

SELECT sum(toDecimal32(number, 2)) AS s, toTypeName(s), avg(toDecimal32(number, 2)) AS a, toTypeName(a) FROM numbers(10);

CREATE TABLE dec (a Decimal(9, 2), b Decimal(38, 4), c Decimal(76, 3), n Nullable(Decimal(18, 1))) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO dec VALUES (1.005, 12345678901234567890.12345, 1.5, NULL), (-1.999, '2.99999', 5, 7.77), (toDecimal32(1.999, 3), -0.00001, '-1.5', '1.25');
INSERT INTO dec SELECT 1.999, 2, 3, 4.45;
SELECT * FROM dec ORDER BY a, b;

-- Decimals to integers: the integer part, which must fit
SELECT toInt32(toDecimal32(-1.75, 2)), toUInt64(toDecimal64(3.9, 1)), toInt8(toDecimal128(127.5, 3)), toUInt16(toDecimal32(-0.5, 1)), CAST(toDecimal32(12.9, 2) AS Int16);
SELECT toInt64(d) FROM (SELECT toDecimal64(number - 1.5, 1) AS d FROM numbers(3));
SELECT toInt8(toDecimal128(300.5, 3)); -- { serverError DECIMAL_OVERFLOW }
SELECT toUInt16(toDecimal32(-1.5, 1)); -- { serverError DECIMAL_OVERFLOW }

-- Quantiles of decimals keep the decimal type, interpolated as ClickHouse does
SELECT toTypeName(quantile(0.5)(d)), quantile(0.5)(d), quantile(0.3)(d), quantiles(0.1, 0.5)(d), toTypeName(quantiles(0.1, 0.5)(d)), median(d) FROM (SELECT toDecimal32(number * 1.25, 2) AS d FROM numbers(5));
SELECT quantile(0.77)(toDecimal64(number * 3.3, 3) - 5), quantiles(0.25, 0.75)(toDecimal128(number, 4) / 7) FROM numbers(5);
SELECT quantile(0.5)(d) FROM (SELECT toDecimal32(1, 2) AS d WHERE 0);
