-- Arithmetic helpers: division that gives 0 or NULL, positive modulo, max2/min2, midpoint, sqr, byteSwap, gcd/lcm, abs, isNaN family; comparison and logical functions by name.
SELECT moduloOrZero(5, 0), moduloOrZero(5, 3), toTypeName(moduloOrZero(5, 3)), moduloOrZero(5.5, 0), moduloOrZero(-5, 3), toTypeName(moduloOrZero(toInt8(-5), toUInt8(3)));
SELECT moduloOrNull(5, 0), modOrNull(7, 0), modOrNull(7, 4), moduloOrNull(5.5, 0), moduloOrNull(5.5, 2), moduloOrNull(5, NULL);
SELECT intDivOrNull(5, 0), intDivOrNull(7, 2), intDivOrNull(-7, 2), intDivOrNull(toInt8(-128), toInt8(-1)), intDivOrNull(5, 0.5), intDivOrNull(5.5, 0.1);
SELECT divideOrNull(5, 0), divideOrNull(5, 2), divideOrNull(5.0, 0.0), divideOrNull(0, 0), divideOrNull(-1, 0);
SELECT toTypeName(moduloOrNull(number + 5, 3)), toTypeName(intDivOrNull(toUInt8(number), 2)), toTypeName(intDivOrNull(toUInt8(number), 0.5)), toTypeName(divideOrNull(number, 2)), toTypeName(positiveModuloOrNull(toInt8(number), 3)), toTypeName(moduloOrZero(number, 3)) FROM numbers(1);
SELECT number, moduloOrZero(10, number), moduloOrNull(10, number), intDivOrNull(10, number), divideOrNull(10, number) FROM numbers(4) ORDER BY number;
SELECT moduloOrZero(toInt64(-9223372036854775808), -1), moduloOrNull(toInt64(-9223372036854775808), -1);
SELECT intDivOrNull(nan, 1); -- { serverError ILLEGAL_DIVISION }
SELECT moduloOrZero('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT positiveModulo(-5, 3), positiveModulo(5, 3), toTypeName(positiveModulo(-5, 3)), toTypeName(positiveModulo(toInt8(-5), toUInt8(3))), toTypeName(positiveModulo(toInt32(-5), toInt64(3)));
SELECT positiveModulo(-5.5, 3), toTypeName(positiveModulo(-5.5, 3)), positiveModulo(5, -3), positiveModulo(-5, -3), positiveModulo(-5, toUInt64(3)), positiveModulo(toInt8(-128), toInt8(3));
SELECT pmod(-7, 4), PMOD(-7, 4), positive_modulo(-7, 4), positiveModuloOrNull(-5, 0), positiveModuloOrNull(-5, 3), pmodOrNull(-7, 0), positive_modulo_or_null(-7, 2);
SELECT number - 3 AS x, positiveModulo(x, 3), x % 3 FROM numbers(7) ORDER BY x;
SELECT positiveModulo(5, 0); -- { serverError ILLEGAL_DIVISION }
SELECT mod(7, 4), MOD(-7, 4), mod(7.5, 2), toTypeName(mod(toUInt16(7), toUInt8(4)));
SELECT mod(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT moduloLegacy(-5, 3), toTypeName(moduloLegacy(-5, 3)), toTypeName(moduloLegacy(toInt8(-5), toUInt8(3))), toTypeName(moduloLegacy(toUInt8(5), toInt8(3))), moduloLegacy(7, 4);
SELECT max2(1, 2), toTypeName(max2(1, 2)), max2(toInt8(-1), toUInt8(200)), min2(1.5, 2), min2(-3, 2), max2(NULL, 1), max2(1, nan), min2(1, nan), max2(nan, 1);
SELECT number, max2(number, 2), min2(number, 2) FROM numbers(4) ORDER BY number;
SELECT max2('a', 'b'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT midpoint(1, 4), toTypeName(midpoint(1, 4)), midpoint(1, 2, 3), midpoint(1.0, 2), midpoint(-3, 4), midpoint(-1, -2), midpoint(toInt8(100), toInt8(100)), toTypeName(midpoint(toInt8(1), toUInt8(4)));
SELECT midpoint(1.5, 2, 3), midpoint(5), midpoint(toUInt64(18446744073709551615), toUInt64(18446744073709551613)), midpoint(toNullable(2), 4), midpoint(NULL, 1), avg2(1, 4), midpoint(toDate('2020-01-01'), toDate('2020-01-05'));
SELECT midpoint(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT midpoint('a', 'b'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sqr(3), toTypeName(sqr(3)), sqr(toInt8(100)), toTypeName(sqr(toInt8(100))), sqr(1.5), toTypeName(sqr(toFloat32(1.5))), sqr(NULL), sqr(-4);
SELECT byteSwap(1), toTypeName(byteSwap(1)), byteSwap(toUInt16(1)), byteSwap(toInt32(1)), byteSwap(3351772109), byteSwap(toInt8(-1)), byteSwap(toUInt64(1)), byteSwap(toInt16(-2)), byteSwap(NULL);
SELECT byteSwap(1.5); -- { serverError NOT_IMPLEMENTED }
SELECT byteSwap('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT gcd(12, 18), toTypeName(gcd(12, 18)), toTypeName(gcd(toInt32(12), toUInt8(18))), gcd(-12, 18), gcd(-12, -18), lcm(4, 6), toTypeName(lcm(4, 6)), lcm(-4, 6), lcm(toInt8(100), toInt8(99)), toTypeName(lcm(toInt8(100), toInt8(99)));
SELECT lcm(toUInt8(200), toUInt8(201)), lcm(toUInt64(18446744073709551615), 2), gcd(toUInt64(18446744073709551615), toUInt64(18446744073709551614)), gcd(toInt8(-128), toInt8(-128)), gcd(NULL, 1);
SELECT number + 1 AS n, gcd(n, 12), lcm(n, 12) FROM numbers(6) ORDER BY n;
SELECT gcd(0, 5); -- { serverError ILLEGAL_DIVISION }
SELECT lcm(5, 0); -- { serverError ILLEGAL_DIVISION }
SELECT gcd(5, 0.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT gcd(toInt64(-9223372036854775808), 1); -- { serverError DECIMAL_OVERFLOW }
SELECT abs(-5), toTypeName(abs(toInt8(-5))), abs(toInt8(-128)), toTypeName(abs(-1.5)), abs(toInt64(-9223372036854775808)), toTypeName(abs(toInt64(-1))), abs(toFloat32(-2.5)), abs(NULL), abs(toDecimal32(-1.5, 2));
SELECT abs('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isFinite(1), isFinite(inf), isFinite(nan), isNaN(nan), isNaN(1), isInfinite(-inf), isInfinite(1.5), toTypeName(isNaN(1.0)), isNaN(NULL), isNaN(toFloat32(nan));
SELECT ifNotFinite(1 / 0, 42), ifNotFinite(1.5, 42), toTypeName(ifNotFinite(1.5, 42)), toTypeName(ifNotFinite(1, 42)), ifNotFinite(nan, 2), ifNotFinite(-inf, -1);
SELECT isNaN('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isFinite(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT equals(1, 1), notEquals(1, 2), less(1, 2), greater(1, 2), lessOrEquals(2, 2), greaterOrEquals(1, 2), toTypeName(equals(1, 1)), equals(NULL, 1), equals('a', 'a'), less('a', 'b');
SELECT number, equals(number, 1), less(number, 2), greaterOrEquals(number, 2) FROM numbers(3) ORDER BY number;
SELECT equals(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT and(2, 3), and(1, 0, 1), or(0, 0, 2), or(0, 0), not(0), not(5), NOT(1), and(NULL, 0), or(NULL, 1), and(NULL, 1);
SELECT xor(1, 1), xor(1, 0, 1), xor(NULL, 1), toTypeName(xor(1, 2)), xor(0, 0), xor(2, 0), xor(1, 0, 0, 0), xor(0.0, 0.5);
SELECT number, and(number, 1), or(number, 0), xor(number, 1) FROM numbers(3) ORDER BY number;
SELECT and(1); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT xor(1); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT xor('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isNotDistinctFrom(NULL, NULL), isNotDistinctFrom(1, NULL), isNotDistinctFrom(1, 1), isDistinctFrom(NULL, NULL), isDistinctFrom(1, 2), isDistinctFrom(NULL, 1), toTypeName(isNotDistinctFrom(1, 1));
SELECT caseWithoutExpr(1 > 2, 'a', 2 > 1, 'b', 'c'), caseWithoutExpression(0, 1, 2);
SELECT clamp(5, 1, 3), clamp(0, 1, 3), clamp(2, 1, 3), toTypeName(clamp(5, 1, 3)), clamp(1.5, 1, 3), toTypeName(clamp(toInt8(-5), 1, 3)), clamp('b', 'a', 'c'), clamp('z', 'a', 'c'), toTypeName(clamp(1.5, 1, 3));
SELECT clamp(NULL, 1, 2), clamp(2, NULL, 3), clamp(5, 1, NULL), clamp(toDate('2020-01-05'), toDate('2020-01-01'), toDate('2020-01-03'));
SELECT number, clamp(number, 2, 4) FROM numbers(6) ORDER BY number;
SELECT clamp(5, 3, 1); -- { serverError BAD_ARGUMENTS }
SELECT clamp(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT clamp(1, 'a', 2); -- { serverError NO_COMMON_TYPE }
