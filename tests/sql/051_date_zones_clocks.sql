-- Time zones of DateTime values: the same instant on other clocks.
SELECT toTimezone(t, 'Asia/Tokyo') AS a, toTypeName(a), toTimeZone(t, 'America/New_York') AS b, toTypeName(b), timezoneOf(a), timeZoneOf(b), toTypeName(timezoneOf(a)), timezoneOffset(a), timeZoneOffset(b), toTypeName(timezoneOffset(a)) FROM (SELECT toDateTime('2024-05-05 10:41:12') AS t);
SELECT toTimeZone(toDateTime64('2024-05-05 10:41:12.5', 3), 'Asia/Tokyo') AS a, toTypeName(a), timezoneOf(a), timezoneOffset(a);
SELECT t, timezoneOffset(t), toHour(t) FROM (SELECT toTimeZone(toDateTime('2024-03-31 00:00:00') + number * 1800, 'Europe/Berlin') AS t FROM numbers(4)) ORDER BY t;
SELECT timezoneOffset(toTimeZone(toDateTime('2024-07-01 00:00:00'), 'Asia/Kathmandu')), timezoneOffset(toTimeZone(toDateTime('2024-07-01 00:00:00'), 'America/St_Johns')), timezoneOffset(toTimeZone(toDateTime('2024-01-01 00:00:00'), 'Australia/Lord_Howe'));
SELECT timezoneOf(toTimeZone(nullIf(toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-01 00:00:00')), 'Asia/Tokyo')) AS z, toTypeName(z), timezoneOffset(nullIf(toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-01 00:00:00'))) AS o, toTypeName(o);
SELECT timezoneOf(now()) = timezone();
SELECT toTimezone(toDate('2024-01-01'), 'Asia/Tokyo'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTimezone(now(), 'Nowhere'); -- { serverError BAD_ARGUMENTS }
SELECT toTimezone(now(), toString(number)) FROM numbers(1); -- { serverError ILLEGAL_COLUMN }
SELECT timezoneOf(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- A wall-clock time of a zone to UTC and back.
SELECT toUTCTimestamp(t, 'Asia/Tokyo') AS a, toTypeName(a), fromUTCTimestamp(t, 'Asia/Tokyo') AS b, toTypeName(b), to_utc_timestamp(t, 'America/New_York'), from_utc_timestamp(t, 'America/New_York') FROM (SELECT toDateTime('2024-01-01 10:00:00') AS t);
SELECT toUTCTimestamp(toDateTime64('2024-01-01 10:00:00.5', 3), 'Asia/Tokyo') AS c, toTypeName(c);
SELECT toUTCTimestamp(toDateTime('2024-03-31 02:30:00'), 'Europe/Berlin'), toUTCTimestamp(toDateTime('2024-10-27 02:30:00'), 'Europe/Berlin'), fromUTCTimestamp(toDateTime('2106-02-07 06:00:00'), 'Asia/Tokyo'), toUTCTimestamp(toDateTime('1970-01-01 00:00:00'), 'Asia/Tokyo');
SELECT toUTCTimestamp(toTimeZone(toDateTime('2024-01-01 10:00:00'), 'Europe/Berlin'), 'Asia/Tokyo'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toUTCTimestamp(toDate('2024-01-01'), 'Asia/Tokyo'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT fromUTCTimestamp(toDateTime('2024-01-01 10:00:00'), 'Nowhere'); -- { serverError BAD_ARGUMENTS }
-- Clocks: types, and relations between them.
SELECT toTypeName(UTCTimestamp()), toTypeName(UTC_timestamp()), toTypeName(curdate()), toTypeName(current_date()), toTypeName(current_timestamp()), toTypeName(localtimestamp()), toTypeName(now64()), toTypeName(now64(6)), toTypeName(now64(9, 'Asia/Tokyo')), toTypeName(nowInBlock()), toTypeName(nowInBlock64()), toTypeName(now('Asia/Tokyo'));
SELECT toTypeName(localtimestamp('Asia/Tokyo')), toTypeName(current_timestamp('UTC')), toTypeName(nowInBlock('Asia/Tokyo')), toTypeName(nowInBlock64(6, 'Asia/Tokyo'));
SELECT UTCTimestamp() = now(), curdate() = today(), current_date() = toDate(now()), abs(dateDiff('second', now64(), now())) < 5, abs(dateDiff('second', nowInBlock(), now())) < 5, abs(dateDiff('second', nowInBlock64(), now())) < 5, timezoneOf(now('Asia/Tokyo')), abs(dateDiff('second', now('Asia/Tokyo'), now())) < 5;
SELECT now64(10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT now('Nowhere'); -- { serverError BAD_ARGUMENTS }
SELECT today(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT UTCTimestamp(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- Fractions of a second.
SELECT toMillisecond(t), toMicrosecond(t), toNanosecond(t), MILLISECOND(t), MICROSECOND(t), NANOSECOND(t) FROM (SELECT toDateTime64('2024-01-01 00:00:00.123456789', 9) AS t);
SELECT toNanosecond(toDateTime64('2024-01-01 00:00:00.123', 3)), toMillisecond(toDateTime64('1969-12-31 23:59:59.123', 3)), toMillisecond(toDateTime('2024-01-01 10:11:12')), toTypeName(toMillisecond(now64())), toTypeName(toMicrosecond(now64())), toTypeName(toNanosecond(now())), toMillisecond(toDateTime64('2024-01-01 00:00:00.5', 3), 'Asia/Tokyo');
SELECT toStartOfSecond(t) AS a, toTypeName(a), toStartOfMillisecond(t) AS b, toTypeName(b), toStartOfMicrosecond(t) AS c, toTypeName(c), toStartOfNanosecond(t) AS d, toTypeName(d) FROM (SELECT toDateTime64('2024-01-31 20:59:59.987654', 6) AS t);
SELECT toStartOfMicrosecond(toDateTime64('2024-01-31 20:59:59.987', 3)) AS a, toTypeName(a), toStartOfNanosecond(toDateTime64('2024-01-31 20:59:59.987', 3)) AS b, toTypeName(b), toStartOfMillisecond(toDateTime64('2024-01-31 20:59:59.987654321', 9)) AS c, toTypeName(c);
SELECT toStartOfSecond(toDateTime64('1969-12-31 23:59:59.5', 3, 'UTC')), toStartOfMillisecond(toDateTime64('1969-12-31 23:59:59.5555', 6, 'UTC')), toStartOfSecond(toDateTime64('2024-01-31 20:59:59.987654', 6), 'Asia/Tokyo') AS z, toTypeName(z);
SELECT toMillisecond(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
