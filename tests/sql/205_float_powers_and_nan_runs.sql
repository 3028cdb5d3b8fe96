-- exp10 of a whole number is the double nearest to the power; exp2 is exact.
SELECT exp10(23), exp10(22), exp10(-5), exp10(300), exp10(-300), exp10(309), toTypeName(exp10(1));
SELECT exp2(10), exp2(-1), exp2(1023), exp2(toFloat32(3)), toTypeName(exp2(1));
SELECT exp10(number), exp2(number) FROM numbers(20, 5);
SELECT exp10(NULL), exp10(materialize(CAST(2 AS Nullable(UInt8))));

-- arrayCompact: every NaN is one value, whatever its sign; -0 is not 0.
SELECT arrayCompact([1, 1, nan, nan, -nan, 2, 2, 2]), arrayCompact([0., -0., 1]), arrayCompact([toFloat32(nan), -nan]);
