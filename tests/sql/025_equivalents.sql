-- ClickHouse functions DataFusion has under another name or form.
SELECT isNull(NULL), isNotNull(1);
SELECT like('abc', '%b%'), notLike('abc', '%b%'), ilike('ABC', '%b%');
SELECT match('abc', 'b.');
SELECT startsWith('abc', 'a'), endsWith('abc', 'c');
SELECT replaceAll('aab', 'a', 'x');
SELECT replaceRegexpAll('aab', 'a', 'x'), replaceRegexpOne('aab', 'a', 'x');
SELECT splitByChar(',', 'a,b'), splitByString('::', 'a::b');
SELECT arrayStringConcat(['a', 'b'], ','), arrayStringConcat(['a', 'b']);
SELECT has([1, 2], 1), hasAll([1, 2], [1]), hasAny([1, 2], [3]);
SELECT indexOf([1, 2], 2), indexOf([1, 2], 5);
SELECT arrayDistinct([1, 1, 2]), arrayReverse([1, 2]), arraySort([3, 1, 2]), arrayConcat([1], [2, 3]);
SELECT arrayJoin([1, 2]);
SELECT empty(''), notEmpty('a'), empty([]), notEmpty([1]);
SELECT tuple(1, 'a');
SELECT bitAnd(3, 1), bitOr(3, 4), bitXor(3, 1), bitShiftLeft(1, 3), bitShiftRight(8, 2);
SELECT leftPad('a', 3, '0'), rightPad('a', 3, '0'), leftPad('abc', 2);
SELECT toDecimal32(1.5, 2), toDecimal64(-3, 4), toTypeName(toDecimal64(-3, 4));
SELECT toInt32OrZero('x'), toInt32OrNull('x'), toUInt8OrZero('12'), toFloat64OrNull('1.5');
SELECT toStartOfInterval(toDateTime('2024-01-01 00:07:00'), INTERVAL 5 MINUTE);
SELECT number, arrayJoin([10, 20]) AS x FROM numbers(2) ORDER BY number, x;
SELECT count() FROM numbers(10) WHERE startsWith(toString(number), '1') OR isNull(number);
SELECT has([1, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- Dates: the epoch, differences in calendar units, constant shifts.
SELECT toUnixTimestamp(toDateTime('2024-01-01 00:00:00')), toUnixTimestamp('2024-01-01 00:00:00');
SELECT dateDiff('day', toDate('2024-01-01'), toDate('2024-03-10')), dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01')), dateDiff('year', toDate('2023-12-31'), toDate('2024-01-01'));
SELECT dateDiff('hour', toDateTime('2024-01-01 00:59:00'), toDateTime('2024-01-01 01:00:00')), dateDiff('minute', toDateTime('2024-01-01 00:00:59'), toDateTime('2024-01-01 00:01:00')), dateDiff('second', toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-01 00:01:00'));
SELECT dateDiff('week', toDate('2024-01-07'), toDate('2024-01-08')), dateDiff('quarter', toDate('2024-03-31'), toDate('2024-04-01')), dateDiff('day', toDate('2024-01-10'), toDate('2024-01-01'));
SELECT toTypeName(dateDiff('day', toDate('2024-01-01'), toDate('2024-03-10')));
SELECT dateDiff('day', toDateTime('2024-01-01 23:00:00'), toDateTime('2024-01-02 01:00:00'));
SELECT dateDiff('fortnight', toDate('2024-01-01'), toDate('2024-01-02')); -- { serverError BAD_ARGUMENTS }
SELECT addDays(toDate('2024-01-01'), 3), subtractHours(toDateTime('2024-01-01 00:00:00'), 1), addMonths(toDate('2024-01-31'), 1), addYears(toDate('2024-02-29'), 1), addDays(toDate('2024-01-05'), -3);
SELECT addWeeks(toDate('2024-01-01'), 2), addQuarters(toDate('2024-01-01'), 1), addMinutes(toDateTime('2024-01-01 00:00:00'), 90), addSeconds(toDateTime('2024-01-01 00:00:00'), 5);
-- Aggregates under ClickHouse's names.
SELECT countDistinct(number % 3), count(DISTINCT number % 3), toTypeName(count(DISTINCT number % 3)) FROM numbers(10);
SELECT number % 2 AS k, countDistinct(number % 4) FROM numbers(10) GROUP BY k ORDER BY k;
SELECT quantile(0.5)(number), quantile(number), quantile(0.25)(number) FROM numbers(5) FORMAT TSVWithNames;
SELECT stddevPop(number), varSamp(number), stddevSamp(number), varPop(number) FROM numbers(4);
SELECT covarPop(number, number * 2), covarSamp(number, number) FROM numbers(4);
SELECT arraySort(groupUniqArray(number % 2)) FROM numbers(4);
SELECT length(groupUniqArray(2)(number % 5)), length(groupUniqArray(9)(number % 5)), hasAll([0, 1, 2, 3, 4], groupUniqArray(3)(number % 5)) FROM numbers(20);
SELECT number % 3 AS k, length(groupUniqArray(2)(number)) FROM numbers(20) GROUP BY k ORDER BY k;
SELECT groupUniqArray(number), groupUniqArray(2)(number) FROM numbers(0);
SELECT arraySort(groupUniqArray(x)), length(groupUniqArray(1)(x)) FROM (SELECT if(number = 1, NULL, number) AS x FROM numbers(3));
SELECT groupUniqArray(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT groupUniqArray(1, 2)(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- hex and unhex.
SELECT hex(255), hex(256), hex(0), hex(-1), hex(toInt64(-1)), hex('abc'), hex(1.0), hex(toDate('1970-01-02'));
SELECT unhex('616263'), hex(unhex('6')), hex(toUInt64(1)), hex(toFixedString('a', 2)), hex(toUInt64(18446744073709551615));
SELECT hex(number) FROM numbers(3);
SELECT hex(toDateTime('2024-01-01 00:00:00')), hex(NULL), toTypeName(unhex('41'));
-- Shifts by the type's width or more are 0; a signed right shift keeps the sign.
SELECT bitShiftLeft(1, 10), bitShiftRight(toUInt8(128), 8), bitShiftLeft(toUInt8(1), 7), bitShiftLeft(toInt32(1), 32), bitShiftRight(toInt8(-128), 8), bitShiftLeft(toUInt64(1), 64), bitShiftRight(-1, 100), toTypeName(bitShiftLeft(1, 10)), bitShiftRight(toInt8(-128), 7), bitShiftLeft(toUInt8(255), 1), bitShiftLeft(number, number) FROM numbers(3);
SELECT bitShiftLeft(NULL, 1), bitShiftRight(toNullable(8), 1), bitShiftLeft(1, NULL), bitShiftRight(toUInt64(18446744073709551615), 63);
SELECT bitShiftLeft(1, -1); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT bitShiftLeft(1.5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
