-- Mathematical functions (Float64 results whatever the argument's width, log as the natural logarithm, e, erf, tgamma, intExp2/intExp10, factorial) and rounding with a scale (round, roundBankers, floor, ceil, trunc and their aliases, roundDown, roundToExp2, roundDuration, roundAge).
SELECT e(), toTypeName(e()), pi(), erf(1), erfc(1), toTypeName(erf(toFloat32(1))), erf(NULL), erf(-inf), erfc(30);
SELECT tgamma(5), tgamma(-1), tgamma(0), tgamma(0.5), tgamma(172), tgamma(-2.5), tgamma(1e-300);
SELECT sigmoid(0), sigmoid(1), sigmoid(-1000), sigmoid(1000), sigmoid(toFloat32(1));
SELECT hypot(3, 4), toTypeName(hypot(toFloat32(3), 4)), hypot(inf, nan), atan2(0, -1), atan2(1, 1), pow(2, 10), power(2, 0.5), pow(-8, 1 / 3), pow(0, 0), pow(2, -1), toTypeName(pow(toFloat32(2), 2));
SELECT cbrt(27), toTypeName(cbrt(toFloat32(27))), degrees(pi()), radians(180), toTypeName(radians(toUInt8(1))), degrees(toFloat32(1)), radians(toFloat32(1));
SELECT exp(1), log(1), log(100), ln(2), LN(2), log2(8), log10(100), sqrt(2), toTypeName(sqrt(toFloat32(2))), sqrt(-1), log(-1), log(0), exp(true);
SELECT sin(1), cos(1), tan(1), asin(1), acos(1), atan(1), sinh(1), cosh(1), asinh(1), acosh(1), atanh(0.5), toTypeName(sin(toFloat32(1)));
SELECT sqrt(toDecimal32(4, 2)), toTypeName(sqrt(toDecimal32(4, 2))), sqrt(NULL);
SELECT number, sqrt(number), exp(number), log(number + 1), sin(number) FROM numbers(4) ORDER BY number;
SELECT sqrt('4'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT erf('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sqrt(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT log(2, 8); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT intExp2(10), toTypeName(intExp2(10)), intExp2(64), intExp2(-1), intExp2(63), intExp10(3), intExp10(19), intExp10(20), intExp10(-1), toTypeName(intExp10(3)), intExp2(2.7), intExp10(1.9);
SELECT intExp2(toInt8(-1)), intExp2(1.5), intExp2(NULL), intExp10(toFloat32(2.9)), intExp2(1e30), intExp2(-1e30), intExp2(-0.5);
SELECT intExp2(nan); -- { serverError BAD_ARGUMENTS }
SELECT intExp2('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT factorial(5), toTypeName(factorial(5)), factorial(20), factorial(0), factorial(toInt8(-3)), factorial(toUInt8(3)), factorial(NULL);
SELECT factorial(21); -- { serverError BAD_ARGUMENTS }
SELECT factorial(2.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT round(2.5), round(3.5), round(-2.5), round(0.125, 2), round(toFloat32(2.5)), round(25, -1), round(35, -1), round(-25, -1), toTypeName(round(25, -1));
SELECT round(1.005, 2), round(2.675, 2), round(12345.6789, -2), round(3.14159, 3), round(toFloat32(123.456), 1), round(toFloat32(123.456), -1), round(123456789.123, -5);
SELECT round(NULL), round(inf), round(nan), round(1e300, 2), round(1.5, 400), round(1.5, -400), round(123, -30), round(1.5, 309), round(1e-320, 320);
SELECT round(toUInt8(255), -1), round(toInt8(-128), -1), round(toInt8(127), -1), round(toUInt16(65535), -1), round(toUInt32(4294967295), -1), round(toUInt8(249), -3), round(toInt8(-15), -1), round(toInt8(-14), -1);
SELECT round(toDecimal32(2.5, 1)), round(toDecimal32(-2.5, 1)), toTypeName(round(toDecimal32(2.55, 2), 1)), round(toDecimal64(123.456, 3), 1), round(toDecimal64(123.456, 3), -1), round(toDecimal64(-123.456, 3), 2);
SELECT roundBankers(2.5), roundBankers(3.5), roundBankers(25, -1), roundBankers(35, -1), roundBankers(-25, -1), roundBankers(0.125, 2), roundBankers(toDecimal32(2.5, 1)), roundBankers(toDecimal32(3.5, 1)), roundBankers(toUInt8(255), -1), roundBankers(toInt8(-128), -1);
SELECT ceil(1.2), ceil(-1.2), ceil(1.234, 2), ceil(15, -1), toTypeName(ceil(toUInt8(1))), ceil(toUInt8(251), -2), ceil(toInt8(127), -1), ceiling(1.1), CEIL(1.5), ceil(toDecimal32(1.21, 2), 1);
SELECT floor(-1.5), floor(17, -1), floor(-17, -1), floor(toInt8(-128), -1), floor(toFloat32(1.15), 2), floor(toDecimal32(-1.21, 2), 1), FLOOR(2.5);
SELECT trunc(-1.7), trunc(-17, -1), truncate(1.99, 1), TRUNCATE(-1.99, 1), trunc(toInt8(-125), -1), toTypeName(trunc(1)), trunc(toDecimal32(-1.29, 2), 1);
SELECT number, round(number / 3, 2), floor(number * 7, -1), ceil(number / 4, 1), round(number, number - 2) FROM numbers(5) ORDER BY number;
SELECT x, round(x), roundBankers(x), floor(x), ceil(x), trunc(x) FROM (SELECT (number - 10) / 4 AS x FROM numbers(21)) ORDER BY x;
SELECT x, round(x, -1), roundBankers(x, -1), floor(x, -1), ceil(x, -1), trunc(x, -1) FROM (SELECT toInt32(number) * 5 - 50 AS x FROM numbers(21)) ORDER BY x;
SELECT round(1.5, 1.0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT round('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT round(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT round(1.5, 40000); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT roundToExp2(0), roundToExp2(1), roundToExp2(3), roundToExp2(1024), roundToExp2(-5), roundToExp2(3.7), roundToExp2(0.3), toTypeName(roundToExp2(toUInt8(200))), roundToExp2(toUInt8(200)), roundToExp2(toInt8(-3)), toTypeName(roundToExp2(0.3)), roundToExp2(toFloat32(0.3));
SELECT roundDuration(0), roundDuration(1), roundDuration(59), roundDuration(60), roundDuration(100000), roundDuration(-5), toTypeName(roundDuration(toUInt8(5))), roundDuration(3.5), toTypeName(roundDuration(3.5)), roundDuration(7199);
SELECT roundAge(0), roundAge(1), roundAge(17), roundAge(18), roundAge(25), roundAge(34), roundAge(35), roundAge(45), roundAge(55), roundAge(100), toTypeName(roundAge(18)), roundAge(-3), roundAge(20.7);
SELECT roundDown(4.5, [1, 2, 3]), roundDown(0, [1, 2, 3]), roundDown(10, [1, 2, 3]), toTypeName(roundDown(4.5, [1, 2, 3])), roundDown(toUInt8(5), [1, 3]), toTypeName(roundDown(toUInt8(5), [1, 3]));
SELECT number, roundDown(number, [2, 5, 7]), roundToExp2(number), roundDuration(number * 20), roundAge(number * 10) FROM numbers(8) ORDER BY number;
SELECT roundToExp2('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT widthBucket(10.15, -8.6, 23, 18), width_bucket(0, 0, 10, 5), widthBucket(-1, 0, 10, 5), widthBucket(10, 0, 10, 5), widthBucket(11, 0, 10, 5), toTypeName(widthBucket(1, 0, 10, 5)), WIDTH_BUCKET(3, 0, 10, 5), widthBucket(0.3, 0.1, 0.4, 3);
SELECT widthBucket(5, 10, 0, 5), widthBucket(5, 5, 5, 5), widthBucket(-inf, 0, 10, 5), widthBucket(inf, 0, 10, 5), toTypeName(widthBucket(5, 0, 10, toUInt16(300))), toTypeName(widthBucket(5, 0, 10, toUInt64(3))), widthBucket(5, 0, 10, toUInt64(18446744073709551615)), widthBucket(NULL, 0, 10, 2);
SELECT number, widthBucket(number, 0, 10, 4), widthBucket(number / 3, 0.5, 2.5, 2) FROM numbers(12) ORDER BY number;
SELECT widthBucket(nan, 0, 10, 5); -- { serverError BAD_ARGUMENTS }
SELECT widthBucket(5, 0, inf, 5); -- { serverError BAD_ARGUMENTS }
SELECT widthBucket(5, 0, 10, 0); -- { serverError BAD_ARGUMENTS }
SELECT widthBucket(5, 0, 10, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT widthBucket('a', 0, 10, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT widthBucket(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT isPrime(7), isPrime(1), isPrime(0), isPrime(2), toTypeName(isPrime(7)), isPrime(toUInt64(18446744073709551557)), isPrime(NULL), isProbablePrime(7), toTypeName(isProbablePrime(7)), isPrime(561), isProbablePrime(toUInt64(18446744073709551615));
SELECT countIf(isPrime(number)), countIf(isProbablePrime(number)), sumIf(number, isPrime(number)) FROM numbers(100000);
SELECT isPrime(-7); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isPrime(7.0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isProbablePrime('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
