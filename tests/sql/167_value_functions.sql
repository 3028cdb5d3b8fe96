-- bar: Unicode blocks to an eighth of a character.
SELECT bar(number, 0, 10, 20), toTypeName(bar(1, 0, 10, 20)) FROM numbers(3);
SELECT bar(-1, 0, 10, 5), bar(15, 0, 10, 5), bar(2.5, 0, 10, 3), bar(number, 0, 5) FROM numbers(2);
SELECT bar(5, 10, 0, 4), length(bar(1, 0, 10)), bar(3, 0, 10, 2.5), bar(-5, -10, 0, 4), bar(1, 1, 1, 4), bar(toNullable(3), 0, 10, 4), toTypeName(bar(toNullable(3), 0, 10, 4)), bar(3, 0.5, 10, 4);
SELECT x, bar(x, 0, 1, 1) FROM (SELECT arrayJoin([0.124, 0.125, 0.1875, 0.5, 0.93, 0.999, 1]) AS x);
SELECT bar(1, 0, 10, 1001); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT bar(1, 0, 10, 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT bar('a', 0, 10, 4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- isNullable and byteSize.
SELECT isNullable(NULL), isNullable(1), isNullable(toNullable(1)), isNullable(number), isNullable([1]), isNullable(nullIf(1, 1)) FROM numbers(1);
SELECT byteSize(1), byteSize('abc'), byteSize([1, 2]), byteSize(toNullable(1)), byteSize(1, 'a'), byteSize(number), byteSize(NULL) FROM numbers(1);
SELECT byteSize(toNullable('ab')), byteSize(toDate('2020-01-01')), byteSize(toDate32('2020-01-01')), byteSize(now()), byteSize(now64()), byteSize(toDecimal32(1, 2)), byteSize(toDecimal128(1, 2)), byteSize(generateUUIDv4());
SELECT byteSize(tuple(1, 'a')), byteSize(map(1, 'a')), byteSize([[1], [2, 3]]), byteSize(toFixedString('ab', 5)), byteSize(true), byteSize(1.5), byteSize(toFloat32(1)), byteSize(-1), byteSize(300), byteSize([]), byteSize(''), toTypeName(byteSize(1));
SELECT byteSize(s) FROM (SELECT arrayJoin(['', 'a', 'hello']) AS s);
-- countDigits.
SELECT countDigits(toUInt64(18446744073709551615)), countDigits(toInt8(-128)), countDigits(toDecimal64(-0.001, 5)), countDigits(12345), countDigits(-1), countDigits(0), countDigits(toDecimal32(1.25, 2)), toTypeName(countDigits(1));
SELECT countDigits(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Bit masks.
SELECT bitmaskToArray(50), bitmaskToList(50), bitPositionsToArray(toInt8(-1)), bitmaskToArray(toInt8(-1)), bitmaskToList(0), toTypeName(bitmaskToArray(toUInt8(3)));
SELECT bitmaskToList(toInt64(-9223372036854775808)), bitPositionsToArray(toUInt64(9223372036854775808)), bitmaskToArray(number), toTypeName(bitPositionsToArray(number)) FROM numbers(4);
SELECT bitmaskToArray('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- DATE, timestamp and the DateTime64 conversions that do not fail.
SELECT DATE('2023-01-01 10:00:00'), date(toDateTime('2023-01-01 10:00:00')), timestamp('2023-01-01 10:00:00'), toTypeName(timestamp('2023-01-01 10:00:00')), timestamp('2023-01-01', '10:00:00.5');
SELECT toDateTime64OrNull('2020-01-01 00:00:00.123', 3, 'UTC'), toDateTime64OrZero('x', 3, 'UTC'), toDateTime64OrDefault('x', 3, 'UTC'), toTypeName(toDateTime64OrNull('x', 3));
SELECT toDateTime64OrDefault('x', 3, 'UTC', toDateTime64('2020-01-01 00:00:00', 3, 'UTC')), toDateTime64OrNull('2020-01-01', 3, 'UTC'), toDateTime64OrNull('2020-01-01 10:00:00.123456', 3, 'UTC'), toDateTime64OrZero('2020-01-01 10:00:00', 0, 'UTC'), toDateTime64OrNull(NULL, 3);
SELECT accurateCastOrNull('2020-01-01 00:00:00.123', 'DateTime64(3, \'UTC\')'), accurateCastOrNull('x', 'DateTime64(3)');
-- The functional IN.
SELECT in(1, (1, 2)), notIn(3, (1, 2)), globalIn(1, (1, 2)), globalNotIn(2, (1, 2)), in(number, (SELECT 1)) FROM numbers(2);
SELECT in(1, [1, 2]), notIn(1, [1, 2]), in('b', ('a', 'b'));
SELECT number FROM numbers(5) WHERE in(number, (SELECT 3)) OR notIn(number, (0, 1, 2, 3));
SELECT in(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
