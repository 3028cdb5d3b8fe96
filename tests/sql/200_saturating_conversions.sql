-- intDivOrZero gives 0 where the quotient does not fit its type, as for a zero divisor.
SELECT intDivOrZero(-128, -1), intDivOrZero(toInt32(-2147483648), -1), intDivOrZero(toInt64(-9223372036854775808), -1), intDivOrZero(-127, -1), intDivOrZero(7, 0), toTypeName(intDivOrZero(-128, -1));
SELECT intDivOrZero(number - 128, -1) FROM numbers(3);
-- Text read as a Date or DateTime takes the nearest end of the type's range, as toDate does.
SELECT toDateOrNull('1960-01-01'), toDateOrZero('2200-01-01'), toDateOrDefault('1960-01-01'), toDateOrNull('x');
SELECT toDateTimeOrNull('1960-01-01 00:00:00'), toDateTimeOrZero('2200-01-01 00:00:00'), toDateTimeOrNull('2020-02-03 04:05:06');
SELECT toDate32OrNull('1960-01-01'), toDate32OrZero('2200-01-01');
-- intDiv of a type's least value by -1 is an error; other quotients that do not fit wrap.
SELECT intDiv(toInt8(-128), -1); -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(-9223372036854775808, -1); -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(toUInt8(200), toInt8(-1)), intDivOrZero(toUInt8(200), toInt8(-1)), intDiv(toInt8(-127), -1);
-- The zero date.
SELECT toDate('0000-00-00'), toDate32('0000-00-00'), toDateOrNull('0000-00-00'), CAST('0000-00-00' AS Date);
-- A call with the wrong number of arguments.
SELECT plus(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT max(multiply(1)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toUnixTimestamp64Milli(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
