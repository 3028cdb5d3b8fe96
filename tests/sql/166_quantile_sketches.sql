-- quantileTDigest: ClickHouse's t-digest, Float32 centroids, exact on small inputs.
SELECT quantileTDigest(0.5)(number), quantileTDigest(0.9)(number), quantilesTDigest(0.1, 0.25, 0.5, 0.99)(number) FROM numbers(10);
SELECT quantileTDigest(0.5)(number), quantilesTDigest(0.1, 0.25, 0.5, 0.99, 1)(number) FROM numbers(1000);
SELECT quantileTDigest(number), medianTDigest(number), medianTDigestWeighted(number, 2) FROM numbers(11);
SELECT quantileTDigestWeighted(0.5)(number, number), quantilesTDigestWeighted(0.2, 0.8)(number, number) FROM numbers(10);
SELECT toTypeName(quantileTDigest(0.5)(toUInt8(number))), toTypeName(quantileTDigest(0.5)(toDate(number))), toTypeName(quantilesTDigest(0.5)(number)) FROM numbers(10);
SELECT quantileTDigest(0.5)(toDate(number)), quantileTDigest(0.5)(toDate(number * 2)), quantileTDigest(0.25)(toDateTime(number * 2, 'UTC')) FROM numbers(10);
SELECT quantileTDigest(0.5)(x) FROM (SELECT arrayJoin([1.5, NULL, 3]) AS x);
SELECT quantileTDigest(0.5)(123456789), quantileTDigest(0.5)(-1.5), quantileTDigest(0.5)(inf);
SELECT quantileTDigest(0.5)(number), quantilesTDigest(0.5)(number) FROM numbers(0);
SELECT number % 3 AS k, quantileTDigest(0.5)(number), quantileBFloat16(0.5)(number) FROM numbers(30) GROUP BY k ORDER BY k;
-- quantileBFloat16: the values cut to bfloat16, then the exact weighted quantile.
SELECT quantileBFloat16(0.5)(number), quantilesBFloat16(0.1, 0.5, 0.9, 1)(number), toTypeName(quantileBFloat16(0.5)(number)) FROM numbers(1000);
SELECT quantileBFloat16(0.5)(number), quantileBFloat16(0.25)(number), quantileBFloat16Weighted(0.5)(number, number), medianBFloat16(number) FROM numbers(10);
SELECT quantileBFloat16(0.5)(toDate(number)), quantileBFloat16(0.5)(123456789), quantileBFloat16(0.5)(-3.3) FROM numbers(10);
SELECT quantileBFloat16(0.5)(number) FROM numbers(0);
-- The weighted interpolations.
SELECT quantileInterpolatedWeighted(0.5)(x, w), quantileInterpolatedWeighted(0.3)(x, w), quantilesInterpolatedWeighted(0, 0.1, 0.9, 1)(x, w), quantilesExactWeightedInterpolated(0, 0.1, 0.5, 0.9, 1)(x, w) FROM (SELECT arrayJoin([(1, 2), (1, 3), (5, 1), (2, 0), (10, 4), (7, 1)]) AS t, t.1 AS x, t.2 AS w);
SELECT quantileInterpolatedWeighted(0.5)(number, number), quantileExactWeightedInterpolated(0.5)(number, number), toTypeName(quantileInterpolatedWeighted(0.5)(number, number)), toTypeName(quantileExactWeightedInterpolated(0.5)(number, number)) FROM numbers(10);
SELECT quantileInterpolatedWeighted(0.25)(toFloat64(number) / 4, 1), quantileExactWeightedInterpolated(0.3)(toFloat32(number) / 4, 3), medianInterpolatedWeighted(number, 1), medianExactWeightedInterpolated(number, 1) FROM numbers(7);
SELECT quantileInterpolatedWeighted(0.5)(number, 1), quantileExactWeightedInterpolated(0.5)(number, 1), quantilesInterpolatedWeighted(0.5)(number, 1) FROM numbers(0);
SELECT quantileExactWeightedInterpolated(0.5)(toDate(number), 1) FROM numbers(5);
-- Partial states merged across the -State/-Merge combinators.
SELECT quantileTDigestMerge(0.5)(s), quantileBFloat16Merge(0.5)(b) FROM (SELECT quantileTDigestState(0.5)(number) AS s, quantileBFloat16State(0.5)(number) AS b FROM numbers(100) GROUP BY number % 4);
SELECT quantileTDigest(0.5)(toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileBFloat16(0.5)('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileTDigestWeighted(0.5)(1, 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileTDigest(1.5)(number) FROM numbers(3); -- { serverError PARAMETER_OUT_OF_BOUND }
