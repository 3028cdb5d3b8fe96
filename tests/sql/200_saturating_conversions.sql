-- intDivOrZero gives 0 where the quotient does not fit its type, as for a zero divisor.
SELECT intDivOrZero(-128, -1), intDivOrZero(toInt32(-2147483648), -1), intDivOrZero(toInt64(-9223372036854775808), -1), intDivOrZero(-127, -1), intDivOrZero(7, 0), toTypeName(intDivOrZero(-128, -1));
SELECT intDivOrZero(number - 128, -1) FROM numbers(3);
-- Text read as a Date or DateTime takes the nearest end of the type's range, as toDate does.
SELECT toDateOrNull('1960-01-01'), toDateOrZero('2200-01-01'), toDateOrDefault('1960-01-01'), toDateOrNull('x');
SELECT toDateTimeOrNull('1960-01-01 00:00:00'), toDateTimeOrZero('2200-01-01 00:00:00'), toDateTimeOrNull('2020-02-03 04:05:06');
SELECT toDate32OrNull('1960-01-01'), toDate32OrZero('2200-01-01');
