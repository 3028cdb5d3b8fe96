-- toNullable, CAST to Nullable and assumeNotNull change the type, not the values.
SELECT toNullable(1) AS a, toTypeName(a), toTypeName(toNullable('s')), toTypeName(CAST(1 AS Nullable(UInt8)));
SELECT toTypeName(toNullable(number)), toTypeName(CAST(number AS Nullable(Int32))), toTypeName(assumeNotNull(toNullable(number))) FROM numbers(1);
SELECT number, assumeNotNull(if(number > 0, number, NULL)) AS v, toTypeName(v) FROM numbers(3) ORDER BY number;
SELECT sum(toNullable(number)), max(toNullable(number)), toTypeName(sum(toNullable(number))) FROM numbers(0);
SELECT sum(toNullable(number)), count(toNullable(number)) FROM numbers(5);
SELECT toNullable(number) IS NULL AS a, isNull(toNullable(number)) FROM numbers(2);
SELECT (toUInt64(1), toUInt64(2)) AS t, toTypeName(t), (upper('a'), 1 + 1);
SELECT toNullable(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
