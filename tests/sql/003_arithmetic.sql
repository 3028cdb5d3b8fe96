-- Arithmetic values, wrapping overflow and division semantics.
SELECT 1 + 1, 255 + 1, 10 - 20, 7 * 6, 7 / 2, 7 % 3, -7 % 3, intDiv(7, 2), intDiv(-7, 2);
SELECT 18446744073709551615 + 1, toUInt8(200) + toUInt8(100), toInt8(-128) - toInt8(1);
SELECT 1 / 0, -1 / 0, 0 / 0, 5.5 % 2;
SELECT intDivOrZero(5, 0), intDivOrZero(10, 3);
SELECT number % 4 AS k, number * 3 - 1 AS v FROM numbers(6);
SELECT 0.1 + 0.2, 1e300 * 10, 1 - 0.9;
SELECT 5 % 0; -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(5, 0); -- { serverError ILLEGAL_DIVISION }
SELECT 'a' + 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
