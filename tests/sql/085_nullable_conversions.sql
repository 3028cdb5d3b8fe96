-- toNullable, CAST to Nullable and assumeNotNull change the type, not the values.
SELECT toNullable(1) AS a, toTypeName(a), toTypeName(toNullable('s')), toTypeName(CAST(1 AS Nullable(UInt8)));
SELECT toTypeName(toNullable(number)), toTypeName(CAST(number AS Nullable(Int32))), toTypeName(assumeNotNull(toNullable(number))) FROM numbers(1);
SELECT number, assumeNotNull(if(number > 0, number, NULL)) AS v, toTypeName(v) FROM numbers(3) ORDER BY number;
SELECT sum(toNullable(number)), max(toNullable(number)), toTypeName(sum(toNullable(number))) FROM numbers(0);
SELECT sum(toNullable(number)), count(toNullable(number)) FROM numbers(5);
SELECT toNullable(number) IS NULL AS a, isNull(toNullable(number)) FROM numbers(2);
SELECT (toUInt64(1), toUInt64(2)) AS t, toTypeName(t), (upper('a'), 1 + 1);
SELECT toNullable(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toTypeName(toInt32OrNull('1')), toTypeName(toFloat64OrNull('1.5')), toTypeName(toUInt8OrNull('x')), toTypeName(toDateOrNull('2020-01-02')), toTypeName(toDateTimeOrNull('2020-01-02 03:04:05')), toTypeName(accurateCastOrNull(5, 'UInt8')), toTypeName(toIPv4OrNull('1.1.1.1'));
SELECT toInt32OrNull('7') AS a, toInt32OrNull('7') + 1 AS b, toUInt16OrNull('70000') AS c FORMAT TSVWithNamesAndTypes;
SELECT count() FROM numbers(10) WHERE number = toUInt64OrNull('3');
