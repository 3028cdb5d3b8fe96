-- toColumnTypeName: the type of the column holding a value, constants as Const(...).
SELECT toColumnTypeName(number), toColumnTypeName(toString(number)), toColumnTypeName(toNullable(number)), toColumnTypeName([number]) FROM numbers(1);
SELECT toColumnTypeName(toLowCardinality(toString(number))), toColumnTypeName(toDateTime(number)), toColumnTypeName(toDecimal32(1, 2)) FROM numbers(1);
SELECT toColumnTypeName((number, 'a')), toColumnTypeName(map(1, number)), toColumnTypeName(CAST((number, 'x'), 'Tuple(a UInt64, b String)')) FROM numbers(1);
SELECT toColumnTypeName(NULL), toColumnTypeName('a'), toColumnTypeName(toNullable(1)), toColumnTypeName(toDate('2020-01-01'));
SELECT toColumnTypeName(number > 0), toColumnTypeName(CAST(number, 'Bool')), toColumnTypeName(toFixedString(toString(number), 2)), toColumnTypeName(toDate32(number)), toColumnTypeName(toFloat32(number)) FROM numbers(1);
SELECT toColumnTypeName(toIntervalDay(number)), toColumnTypeName(toDateTime(number, 'UTC')), toColumnTypeName(toDecimal128(number, 3)), toColumnTypeName(toDateTime64(number, 3)) FROM numbers(1);
SELECT toColumnTypeName(CAST(if(number = 0, 'a', 'b c'), 'Enum8(\'a\' = 1, \'b c\' = 2)')), toColumnTypeName(toIPv4(number)) FROM numbers(1);
SELECT toColumnTypeName(CAST(number, 'Decimal(20, 3)')), toColumnTypeName([toDate(number)]), toColumnTypeName(toNullable(toDate(number))) FROM numbers(1);
SELECT toColumnTypeName(x) FROM (SELECT number AS x FROM numbers(2)) ORDER BY 1;
SELECT toTypeName(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
