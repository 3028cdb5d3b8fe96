-- An integer compared with a string literal reads the string as the
-- integer's type; out of its range the comparison is constant.
SELECT 1 = '1', 1 = '257', 1 != '257', 1 < '257', 1 > '257', '257' = 1, '257' > 1;
SELECT toInt8(1) = '-200', toInt8(1) != '-200', toInt8(1) < '-200', toInt8(-5) = '-5';
SELECT toUInt64(1) = '18446744073709551615', toUInt64(1) = '18446744073709551616';
SELECT number, number = '3', toUInt8(number) < '1000', toUInt8(number) != '1000' FROM numbers(5) ORDER BY number;
SELECT count() FROM numbers(10) WHERE number > '5';
SELECT count() FROM numbers(10) WHERE toUInt8(number) != '300';
SELECT count() FROM numbers(10) WHERE toUInt8(number) = '300';
SELECT n, n = '300', n != '300' FROM (SELECT nullIf(toUInt8(number), 0) AS n FROM numbers(2)) ORDER BY n;
SELECT toUInt16(5) IN ('5', '70000'), toUInt16(5) NOT IN ('70000'), toUInt16(5) IN ('70000');
SELECT number FROM numbers(5) WHERE number IN ('1', '3') ORDER BY number;
SELECT count() FROM numbers(10) WHERE toUInt8(number) NOT IN ('300', '3');
SELECT toFloat64(1) = '1.5', toFloat64(1) < '1e3';
SELECT CAST('a' AS Enum8('a' = 1, 'b' = 2)) = 'a';
SELECT 1 = '1.5'; -- { serverError TYPE_MISMATCH }
SELECT 1 = ' 1'; -- { serverError TYPE_MISMATCH }
SELECT toUInt8(1) != '-1'; -- { serverError TYPE_MISMATCH }
SELECT 1 = 'abc'; -- { serverError TYPE_MISMATCH }
