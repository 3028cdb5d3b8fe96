-- A DateTime compares with a number as seconds since the epoch.
SELECT toDateTime('2025-09-03 06:58:00', 'UTC') = 1756882680, 1756882680 = toDateTime('2025-09-03 06:58:00', 'UTC');
SELECT toDateTime('2025-09-03 06:58:00', 'UTC') > 1756882679.5, toDateTime('2025-09-03 06:58:00', 'UTC') = 1756882680.0, toDateTime('2025-09-03 06:58:00', 'UTC') = -1;
SELECT toDateTime64('2025-09-03 06:58:00.5', 3, 'UTC') > 1756882680, toDateTime64('2025-09-03 06:58:00.5', 3, 'UTC') < 1756882681, toDateTime64('2025-09-03 06:58:00.5', 3, 'UTC') = 1756882680.5;
SELECT toDateTime('2025-09-03 06:58:00', 'UTC') IN (1756882680, 5), toDateTime('2025-09-03 06:58:00', 'UTC') BETWEEN 1756882679 AND 1756882681;
SELECT count() FROM numbers(10) WHERE toDateTime(1756882680 + number, 'UTC') >= 1756882685;
-- Week functions read text as a DateTime.
SELECT toYearWeek('2020-01-02'), toWeek('2020-01-05', 1), toDayOfWeek('2020-01-02', 1), toYearWeek('2020-01-02 03:04:05', 0, 'UTC');
SELECT toDayOfWeek(materialize('2020-01-02')), toYearWeek(toNullable('2020-01-02')), toYearWeek(CAST(NULL AS Nullable(String)));
SELECT toYearWeek('not a date'); -- { serverError CANNOT_PARSE_DATETIME }
-- dateDiff with a time zone: moments counted on that zone's clock, a Date at its midnight there.
SELECT dateDiff('day', toDate('2020-01-01'), toDateTime('2020-01-02 01:00:00', 'UTC'), 'Asia/Tokyo'), dateDiff('hour', toDate('2020-01-01'), toDateTime('2020-01-02 01:00:00', 'UTC'), 'Asia/Tokyo'), dateDiff('hour', toDate('2020-01-01'), toDateTime('2020-01-02 01:00:00', 'UTC'));
SELECT dateDiff('day', toDateTime('2020-01-01 20:00:00', 'UTC'), toDateTime('2020-01-02 01:00:00', 'UTC'), 'Asia/Tokyo'), dateDiff('month', toDate('2020-01-31'), toDate('2020-03-01'), 'UTC');
SELECT dateDiff('second', toDate32('1927-01-01'), toDate32('1927-01-02')), dateDiff('second', toDate32('1927-01-01'), toDate32('1927-01-02'), 'UTC');
-- Differences of dates and DateTimes.
SELECT arrayDifference([toDateTime('2023-04-05 00:25:23', 'UTC'), toDateTime('2023-04-05 00:25:24', 'UTC')]), arrayDifference([toDate('2023-04-05'), toDate('2023-04-07')]), arrayDifference([toDate32('2023-04-05'), toDate32('1923-04-05')]);
SELECT arrayDifference([toDateTime64('2023-04-05 00:25:23.5', 3, 'UTC'), toDateTime64('2023-04-05 00:25:24', 3, 'UTC')]);
SELECT arrayCumSum([toDateTime('2023-04-05 00:25:23', 'UTC')]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT boundingRatio(toDateTime('2020-01-01 00:00:00', 'UTC') + number, number), boundingRatio(toDate('2020-01-01') + number, number * 2) FROM numbers(3);
-- MySQL's TIMESTAMP(date [, time]).
SELECT timestamp('2013-12-31'), timestamp('2013-12-31', '12:01:02.5'), timestamp('2013-12-31 12:00:00', '12:01:02'), timestamp('2013-12-31 12:00:00', '-01:00:00');
-- Short interval units.
SELECT INTERVAL 4 h, INTERVAL 4 m, INTERVAL 2 mi, INTERVAL 1 mm, INTERVAL 1 q, INTERVAL 3 ns, INTERVAL 3 ms, INTERVAL '3 h', toDate('2020-01-01') + INTERVAL 1 d;
SELECT toDateTime('2020-01-01 00:00:00', 'UTC') + INTERVAL 90 s, toDateTime('2020-01-01 00:00:00', 'UTC') - INTERVAL 1 hh;
SELECT toStartOfSecond(toDateTime64('2019-09-16 19:20:11', 0, 'UTC')), toStartOfSecond(toDateTime64('2019-09-16 19:20:11.123', 3, 'UTC'));
