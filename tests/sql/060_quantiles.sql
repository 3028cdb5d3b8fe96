-- The quantile family: exact forms, interpolation, weights, timing histograms.
SELECT quantile(number), quantile(0.3)(number), median(number), quantiles(0.1, 0.5, 0.9)(number), toTypeName(quantiles(0.1)(number)) FROM numbers(10);
SELECT quantileExact(number), quantileExact(0.25)(number), medianExact(number), quantileExactLow(number), medianExactLow(number), quantileExactHigh(number), medianExactHigh(number), toTypeName(quantileExact(number)) FROM numbers(10);
SELECT quantilesExact(0, 0.1, 0.25, 0.5, 0.75, 0.99, 1)(number), quantilesExactLow(0.2, 0.5, 0.7)(number), quantilesExactHigh(0.2, 0.5, 0.7)(number) FROM numbers(11);
SELECT quantileExactExclusive(0.3)(number), quantileExactInclusive(0.3)(number), quantilesExactExclusive(0.25, 0.5)(number), quantilesExactInclusive(0.25, 0.5)(number) FROM numbers(10);
SELECT quantileExactWeighted(0.3)(number, number), medianExactWeighted(number, 1), quantilesExactWeighted(0, 0.5, 1)(number, number % 3), toTypeName(quantileExactWeighted(number, number)) FROM numbers(10);
SELECT quantileDeterministic(0.3)(number, number), medianDeterministic(number, 7), quantilesDeterministic(0.2, 0.8)(number, number) FROM numbers(10);
SELECT quantileTiming(number), quantileTiming(0.9)(number), medianTiming(number * 100), quantilesTiming(0.1, 0.5, 0.99)(number * 7919 % 40000), toTypeName(quantileTiming(number)) FROM numbers(1000);
-- Past 5672 values, quantileTiming answers from its histogram.
SELECT quantilesTiming(0, 0.1, 0.5, 0.75, 0.99, 1)(number * 7919 % 40000), quantileTiming(x) FROM (SELECT number, if(number = 0, 1100, 5000) AS x FROM numbers(20000));
SELECT quantileTiming(-5), quantileTiming(2.7), quantileTiming(toFloat64(1e9));
-- Types follow the argument: dates stay dates, Float32 stays Float32 for the exact forms.
SELECT quantile(toDate('2020-01-01') + number), quantileExact(toDate('2020-01-01') + number), quantileExact(toFloat32(number) / 4), toTypeName(quantileExact(toFloat32(number))), quantileExact(toInt8(number) - 5), toTypeName(quantile(toFloat32(number))) FROM numbers(10);
SELECT quantileExact(toDateTime('2020-01-01 00:00:00') + number), quantile(toDateTime('2020-01-01 00:00:00') + number) FROM numbers(10);
-- NULLs are skipped; a Nullable argument gives a Nullable result, NULL over no rows.
SELECT quantileExact(x), quantile(x), toTypeName(quantileExact(x)), quantilesExact(0.5)(x), quantileTiming(x) FROM (SELECT if(number % 3 = 0, NULL, number) AS x FROM numbers(10));
SELECT quantileExact(x), quantile(x), quantilesExact(0.5)(x), quantiles(0.5)(x), quantileTiming(x), quantilesTiming(0.5)(x) FROM (SELECT if(number > 5, number, NULL) AS x FROM numbers(0));
SELECT quantileExact(number), quantile(number), quantilesExact(0.5)(number), quantileExactExclusive(number), quantileExactWeighted(number, 1), quantileTiming(number) FROM numbers(0);
SELECT number % 3 AS k, quantileExact(number), quantile(number), quantiles(0.25, 0.75)(number), quantileTiming(number) FROM numbers(30) GROUP BY k ORDER BY k;
SELECT quantileExactIf(number, number > 5), quantilesIf(0.5)(number, number < 4) FROM numbers(10);
-- Errors: levels out of range, missing levels, wrong types and counts.
SELECT quantileExact(2)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantiles(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantile(0.1, 0.2)(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileExact('a') FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantile(toString(number)) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileExactWeighted(number, 1.5) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileDeterministic(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileExactExclusive(1)(number) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
