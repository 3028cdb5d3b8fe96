-- The SQL names of ClickHouse's aggregates, in any case.
SELECT BIT_AND(number), BIT_OR(number), BIT_XOR(number), bit_and(number + 1), Bit_Or(number) FROM numbers(10);
SELECT STD(number), STDDEV(number), STDDEV_POP(number), STDDEV_SAMP(number), VAR_POP(number), VAR_SAMP(number) FROM numbers(10);
SELECT std(number), Std(number), stddev(number), StdDev(number), stddev_pop(number), stddev_samp(number), var_pop(number), var_samp(number) FROM numbers(10);
SELECT COVAR_POP(number, number * 2), COVAR_SAMP(number, number * 2), covar_pop(number, number), covar_samp(number, 1) FROM numbers(10);
SELECT max_by(number, -number), min_by(number, -number), max_by(toString(number), number % 7), MAX_BY(number, number), min_by(number, number) FROM numbers(10);
SELECT toTypeName(STD(number)), toTypeName(BIT_AND(number)), toTypeName(BIT_OR(toInt8(number))), toTypeName(max_by(number, number)), toTypeName(COVAR_POP(number, number)) FROM numbers(3);

-- The variances are Float64 (Nullable only for a Nullable argument): NaN over too few rows, 0 for equal values.
SELECT varPop(number), varSamp(number), stddevPop(number), stddevSamp(number), covarPop(number, number), covarSamp(number, number), corr(number, number) FROM numbers(0);
SELECT varPop(number), varSamp(number), stddevPop(number), stddevSamp(number), covarPop(number, number), covarSamp(number, number), corr(number, number) FROM numbers(1);
SELECT varPop(0.3), varSamp(0.3), stddevPop(6.1), covarPop(0.3, 0.1), corr(1, number) FROM numbers(7);
SELECT toTypeName(varPop(number)), toTypeName(corr(number, number)), toTypeName(varPop(nullIf(number, toUInt64(1)))), toTypeName(covarPop(number, nullIf(number, toUInt64(1)))) FROM numbers(3);
SELECT varPop(nullIf(number, toUInt64(3))), covarSamp(number, nullIf(number, toUInt64(5))), corr(nullIf(number, toUInt64(1)), number * number) FROM numbers(10);
SELECT varPop(x), varSamp(x), corr(x, x) FROM (SELECT CAST(NULL AS Nullable(Float64)) AS x FROM numbers(3));
SELECT varPop(toDecimal32(1.5, 2)), stddevSamp(toDecimal64(number, 3)), varPop(toFloat32(number) / 4), varSamp(number % 2 = 1) FROM numbers(5);
SELECT corr(number, number * number), corr(number, 10 - number), covarPop(number, number * 3), covarSamp(toInt8(number), -number) FROM numbers(10);

-- The Stable forms (Welford's updates): infinity over too few rows.
SELECT varPopStable(number), varSampStable(number), stddevPopStable(number), stddevSampStable(number), covarPopStable(number, number), covarSampStable(number, number), corrStable(number, number) FROM numbers(0);
SELECT varPopStable(number), varSampStable(number), stddevPopStable(number), stddevSampStable(number), covarPopStable(number, number), covarSampStable(number, number), corrStable(number, number) FROM numbers(1);
SELECT varPopStable(number), varSampStable(number), stddevPopStable(number), stddevSampStable(number), covarPopStable(number, number * 2), covarSampStable(number, number * 2), corrStable(number, number * number) FROM numbers(10);
SELECT varPopStable(number * 1e-10 + 1e9), varPop(number * 1e-10 + 1e9), stddevSampStable(number / 3) FROM numbers(1000);
SELECT corrStable(1, number), corrStable(number, number % 2) FROM numbers(4);
SELECT varPopStable(nullIf(number, toUInt64(3))), covarSampStable(number, nullIf(number, toUInt64(5))), corrStable(nullIf(number, toUInt64(1)), number * number), toTypeName(varSampStable(nullIf(number, toUInt64(1)))) FROM numbers(10);
SELECT varPopStable(toDecimal32(1.5, 2)), varSampStable(toFloat32(number)), covarPopStable(number, toFloat32(number)) FROM numbers(5);
SELECT number % 3 AS k, varPop(number), varSampStable(number), covarPopStable(number, number * number), corr(number, number * number) FROM numbers(30) GROUP BY k ORDER BY k;

-- groupBitAnd/Or/Xor keep the argument's type; over no rows the AND is all ones.
SELECT groupBitAnd(number), groupBitOr(toInt8(number)), groupBitXor(toInt16(number)), groupBitAnd(toUInt32(number)), groupBitAnd(toInt8(number)) FROM numbers(0);
SELECT groupBitAnd(toInt8(-1 - number)), groupBitOr(toInt8(-1 - number)), groupBitXor(toInt8(-1 - number)), toTypeName(groupBitAnd(toInt8(number))) FROM numbers(2);
SELECT groupBitAnd(nullIf(number, toUInt64(0))), groupBitOr(nullIf(number, toUInt64(0))), toTypeName(groupBitXor(nullIf(number, toUInt64(0)))) FROM numbers(4);
SELECT groupBitAnd(x), groupBitOr(x), groupBitXor(x) FROM (SELECT CAST(NULL AS Nullable(Int8)) AS x FROM numbers(2));
SELECT number % 2 AS k, groupBitAnd(number + 8), BIT_OR(number), groupBitXor(number) FROM numbers(16) GROUP BY k ORDER BY k;

-- sumWithOverflow wraps in the argument's type; sumCount is (sum, count) in the sum's type.
SELECT sumWithOverflow(toUInt8(number * 50)), toTypeName(sumWithOverflow(toUInt8(number))), sumWithOverflow(toInt8(number * 40)), sumWithOverflow(toFloat32(number) / 2), toTypeName(sumWithOverflow(toFloat32(number))) FROM numbers(10);
SELECT sumWithOverflow(toUInt64(18446744073709551615) - number), sumWithOverflow(number), toTypeName(sumWithOverflow(number)) FROM numbers(3);
SELECT sumWithOverflow(number), sumWithOverflow(nullIf(number, toUInt64(0))), toTypeName(sumWithOverflow(nullIf(number, toUInt64(0)))) FROM numbers(0);
SELECT sumWithOverflow(toDecimal32(number, 2)) FROM numbers(5);
SELECT toTypeName(sumWithOverflow(toDecimal32(number, 2))) FROM numbers(5);
SELECT toTypeName(sumWithOverflow(toDecimal64(number, 2))) FROM numbers(5);
SELECT sumCount(number), toTypeName(sumCount(number)), sumCount(toInt8(number) - 3), toTypeName(sumCount(toInt8(number))), sumCount(toFloat32(number) / 2), toTypeName(sumCount(toFloat32(number))) FROM numbers(10);
SELECT sumCount(number), sumCount(nullIf(number, toUInt64(2))), toTypeName(sumCount(nullIf(number, toUInt64(2)))) FROM numbers(0);
SELECT sumCount(nullIf(number, toUInt64(2))), sumCount(toInt64(9223372036854775807) + number) FROM numbers(4);
SELECT sumCount(toDecimal32(number, 2)) FROM numbers(4);
SELECT toTypeName(sumCount(toDecimal32(number, 2))) FROM numbers(4);
SELECT number % 3 AS k, sumCount(number), sumWithOverflow(toUInt8(number * 50)) FROM numbers(9) GROUP BY k ORDER BY k;

-- singleValueOrNull: the one value every row holds (NULLs skipped), else NULL; always Nullable.
SELECT singleValueOrNull(number), singleValueOrNull(number % 1), singleValueOrNull(toString(number % 1)), toTypeName(singleValueOrNull(number)) FROM numbers(5);
SELECT singleValueOrNull(number), toTypeName(singleValueOrNull(number)) FROM numbers(0);
SELECT singleValueOrNull(if(number = 2, NULL, 7)), singleValueOrNull(nullIf(number, toUInt64(1))), singleValueOrNull(nullIf(number % 1, 0)) FROM numbers(3);
SELECT singleValueOrNull(nan * number), singleValueOrNull(if(number = 0, 0., -0.)), singleValueOrNull(toDate('2020-01-01')), singleValueOrNull((1, 'a')) FROM numbers(2);
SELECT number % 3 AS k, singleValueOrNull(intDiv(number, 3)), singleValueOrNull(number % 3) FROM numbers(9) GROUP BY k ORDER BY k;

-- Combinators apply to them all.
SELECT varPopIf(number, number > 3), varPopStableIf(number, number > 3), groupBitOrArray([number, toUInt64(16)]), sumCountIf(number, number < 5), sumWithOverflowIf(toUInt8(number * 100), number < 3), singleValueOrNullIf(number, number = 4) FROM numbers(10);

-- Errors.
SELECT varPop('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT varPop(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT covarPop(toDecimal32(1, 2), toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT corrStable(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT STD(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT groupBitAnd(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT BIT_XOR(toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupBitOr('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupBitAnd(number, 1) FROM numbers(2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumCount('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumWithOverflow('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumCount(number, number) FROM numbers(2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT singleValueOrNull([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
