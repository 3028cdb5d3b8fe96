-- Checked conversions (accurateCast and its OrNull/OrDefault forms, to<Type>OrDefault, toDate/toDate32/toDateTime with OrNull/OrZero/OrDefault, toDate32, toDateTime32) and byte reinterpretation (reinterpretAs*, reinterpret, toStringCutToZero).
SELECT accurateCast(5, 'UInt8'), accurateCast(-1.0, 'Int8'), accurateCast('12', 'UInt8'), toTypeName(accurateCast(5, 'UInt16')), accurateCast(1.5, 'Float32'), accurateCast(1, 'String'), accurateCast(2.0, 'UInt64');
SELECT accurateCast(300, 'UInt8'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast(1.5, 'Int8'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast(-1, 'UInt64'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast(1e40, 'Float32'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast('abc', 'UInt8'); -- { serverError CANNOT_PARSE_TEXT }
SELECT accurateCast(1, 'Foo'); -- { serverError UNKNOWN_TYPE }
SELECT accurateCastOrNull(300, 'UInt8'), accurateCastOrNull(1.5, 'Int8'), accurateCastOrNull('abc', 'Int32'), accurateCastOrNull('12', 'Int32'), toTypeName(accurateCastOrNull(number, 'Int32')), accurateCastOrNull(-1, 'UInt8'), accurateCastOrNull(2.0, 'UInt8'), accurateCastOrNull(nan, 'Float32'), accurateCastOrNull(1e40, 'Float32'), accurateCastOrNull(NULL, 'Int8') FROM numbers(1);
SELECT accurateCastOrNull(1e10, 'Int32'), accurateCastOrNull(-129, 'Int8'), accurateCastOrNull(255, 'Int8'), accurateCastOrNull(toInt64(-9223372036854775808), 'UInt64'), accurateCastOrNull(18446744073709551615, 'Int64'), accurateCastOrNull(16777217, 'Float32'), accurateCastOrNull(0.1, 'Float32'), accurateCastOrNull(1.9999999999999998, 'Int8');
SELECT accurateCastOrNull('2020-01-01', 'Date'), accurateCastOrNull('x', 'Date'), accurateCastOrNull(toDecimal32(1.55, 2), 'Int8'), accurateCastOrNull(true, 'Int8'), accurateCastOrNull(' 12', 'Int32'), accurateCastOrNull('1e2', 'Int32'), accurateCastOrNull('1e2', 'Float64'), accurateCastOrNull('-0', 'UInt8');
SELECT number, accurateCastOrNull(number * 100, 'UInt8'), accurateCastOrNull(number - 1, 'UInt8'), accurateCastOrNull(number / 2, 'Int16') FROM numbers(4) ORDER BY number;
SELECT accurateCastOrDefault(300, 'UInt8'), accurateCastOrDefault(300, 'UInt8', toUInt8(7)), accurateCastOrDefault('x', 'Float64'), toTypeName(accurateCastOrDefault(1, 'Int32')), accurateCastOrDefault(1.5, 'String'), accurateCastOrDefault(-5, 'UInt32', toUInt32(1));
SELECT accurateCastOrDefault(300, 'UInt8', 7);
SELECT accurateCastOrDefault('x', 'Int16', 300); -- { serverError BAD_ARGUMENTS }
SELECT toInt8OrDefault('12'), toInt8OrDefault('x'), toInt8OrDefault('x', toInt8(5)), toInt8OrDefault('300'), toInt8OrDefault(' 12'), toInt8OrDefault('12 '), toInt8OrDefault(''), toTypeName(toInt8OrDefault('1'));
SELECT toInt8OrDefault(300), toInt8OrDefault(1.5), toUInt8OrDefault(-1), toUInt8OrDefault('-1'), toFloat64OrDefault('1.5e3'), toFloat64OrDefault('abc', 2.5), toFloat32OrDefault('nan'), toUInt64OrDefault('18446744073709551615');
SELECT toInt16OrDefault('-32768'), toInt16OrDefault('32768', toInt16(-1)), toInt32OrDefault('2147483647'), toInt64OrDefault('-9223372036854775808'), toUInt16OrDefault('65535'), toUInt32OrDefault('4294967296', toUInt32(9)), toFloat32OrDefault('1.5'), toFloat64OrDefault('-inf');
SELECT toInt8OrDefault(NULL), toInt8OrDefault(toNullable('x'), toInt8(3)), toTypeName(toInt8OrDefault(toNullable('1'))), toUInt64OrDefault('+7');
SELECT number, toInt8OrDefault(toString(number * 60), toInt8(-1)) FROM numbers(4) ORDER BY number;
SELECT toInt8OrDefault('x', 5); -- { serverError BAD_ARGUMENTS }
SELECT toDateOrNull('2020-01-01'), toDateOrNull('x'), toDateOrZero('x'), toDateOrDefault('x'), toDateOrDefault('x', toDate('2000-01-01')), toDateOrNull('2020-1-1'), toDateOrNull('2020-01-01 10:00:00'), toTypeName(toDateOrNull('x')), toDateOrNull(''), toDateOrNull('20200101'), toDateOrNull('2020-02-30');
SELECT toDateTimeOrNull('2020-01-01 10:11:12'), toDateTimeOrZero('x'), toDateTimeOrDefault('x'), toTypeName(toDateTimeOrNull('x')), toDateTimeOrNull('2020-01-01'), toDateTimeOrNull('1577836800'), toDateTimeOrNull('2020-01-01 25:00:00');
SELECT toDate32OrNull('1900-01-01'), toDate32OrNull('x'), toDate32OrDefault('x', toDate32('1950-05-05')), toDate32OrZero('x'), toDate32OrDefault('x'), toDate32OrZero('2000-02-01');
SELECT toDate32('2020-01-01'), toDate32(18000), toDate32(toDate('2020-01-01')), toDate32('1900-01-01'), toDate32(-1), toDate32('2020-1-5'), toTypeName(toDate32(1)), toDate32(NULL), toDate32(1.5);
SELECT toDateTime32('2020-01-01 10:00:00'), toTypeName(toDateTime32(1)), toDateTime32(1577836800);
SELECT toDate32('x'); -- { serverError CANNOT_PARSE_DATE }
SELECT toTypeName(toDate32OrNull(toString(number))), toTypeName(toDateOrZero(toString(number))), toTypeName(toDateTimeOrNull(toString(number))), toTypeName(toInt32OrDefault(toString(number))) FROM numbers(1);
SELECT toDateTimeOrZero(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsUInt8('a'), reinterpretAsUInt16('ab'), reinterpretAsUInt32('a'), reinterpretAsUInt64(''), reinterpretAsUInt16('abcdef'), reinterpretAsFloat64(toUInt64(4607182418800017408)), reinterpretAsFloat32(toUInt32(1065353216)), reinterpretAsUInt64(1.0), reinterpretAsInt32(toFloat32(1.0));
SELECT reinterpretAsString(65), reinterpretAsString(toUInt16(16706)), length(reinterpretAsString(toUInt64(1))), hex(reinterpretAsString(toInt32(-1))), reinterpretAsString(0), length(reinterpretAsString(0)), reinterpretAsString('abc'), hex(reinterpretAsString(1.5)), hex(reinterpretAsString(toDate('2020-01-01')));
SELECT reinterpretAsDate(18262), reinterpretAsDate('ab'), reinterpretAsDateTime(toUInt32(1577836800)), reinterpretAsDate(toUInt64(18262)), reinterpretAsUInt16(toDate('2020-01-01')), reinterpretAsUInt8(256), reinterpretAsUInt8(-1), reinterpretAsInt8(255), reinterpretAsInt16(toUInt16(65535));
SELECT hex(reinterpretAsFixedString(258)), toTypeName(reinterpretAsFixedString(258)), toTypeName(reinterpretAsFixedString(toUInt64(1))), hex(reinterpretAsFixedString(toUInt64(1))), toTypeName(reinterpretAsFixedString(toFixedString('ab', 3))), hex(reinterpretAsString(toFixedString('ab', 4))), reinterpretAsUInt32(toFixedString('ab', 3));
SELECT reinterpretAsUUID(toFixedString('0123456789abcdef', 16)), reinterpretAsUUID('0123456789abcdef'), reinterpretAsUUID('01'), toTypeName(reinterpretAsUUID('a')), reinterpretAsUUID(reinterpretAsString(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')));
SELECT reinterpretAsUInt8(NULL), reinterpretAsUInt32(toUInt8(200)), reinterpretAsInt64(toInt8(-1)), reinterpretAsUInt64(toInt8(-1)), reinterpretAsUInt16(true), hex(reinterpretAsString(toDecimal32(1.5, 2))), hex(reinterpretAsString(toDateTime(1577836800)));
SELECT reinterpret(toUInt8(255), 'Int8'), reinterpret('a', 'UInt8'), toTypeName(reinterpret(1, 'Float32')), reinterpret(toUInt32(1065353216), 'Float32');
SELECT number, reinterpretAsUInt16(toString(number)), hex(reinterpretAsString(number * 1000)) FROM numbers(3) ORDER BY number;
SELECT reinterpretAsUInt8([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsFixedString('abc'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsString(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toStringCutToZero('abc\0def'), toStringCutToZero(toFixedString('ab', 4)), toTypeName(toStringCutToZero('a')), toStringCutToZero(''), toStringCutToZero('привет\0мир');
SELECT toStringCutToZero(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- toDecimal<N>OrNull / OrZero / OrDefault: text cut to the scale, NULL (zero, the default) when it does not parse or fit
SELECT toDecimal32OrNull('1.567', 2), toDecimal32OrNull('1e3', 2), toDecimal32OrNull(' 1', 2), toDecimal32OrNull('abc', 2), toDecimal32OrNull('-0.5', 1), toDecimal32OrNull('99999999999', 2);
SELECT toDecimal64OrZero('x', 3), toDecimal128OrNull('1.5', 10), toTypeName(toDecimal32OrNull('1', 2)), toTypeName(toDecimal64OrZero('1', 2)), toDecimal256OrNull('1.5', 2), toDecimal256OrZero('x', 2);
SELECT toDecimal32OrDefault('x', 2), toDecimal32OrDefault('1.25', 2), toDecimal64OrDefault('x', 2, toDecimal64(7, 2)), toDecimal32OrDefault(1.5, 2), toTypeName(toDecimal32OrDefault('x', 2));
SELECT toDecimal32OrNull(toNullable('1.5'), 2), toDecimal32OrNull(NULL, 2), toDecimal64OrNull(s, 3), toDecimal32OrZero(s, 1) FROM (SELECT arrayJoin(['1.2345', '', '-7', '12345678901234567890']) AS s);
SELECT accurateCastOrNull('1.567', 'Decimal(9, 2)'), accurateCastOrNull('x', 'Decimal(9, 2)'), accurateCastOrDefault('x', 'Decimal(9, 2)'), accurateCast('1.5', 'Decimal(9, 2)');
SELECT toDecimal32OrNull('1', 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toTypeName(toLowCardinality('a')), toLowCardinality(1), toTypeName(toLowCardinality(toNullable(1))), toTypeName(toLowCardinality(toLowCardinality('a'))), toTypeName(toLowCardinality(toDate('2024-01-01')));
SELECT toLowCardinality([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT fromUnixTimestamp64Milli(1700000000123, 'UTC'), fromUnixTimestamp64Milli(toUInt64(1700000000123), 'UTC'), fromUnixTimestamp64Micro(toUInt32(17), 'UTC');
