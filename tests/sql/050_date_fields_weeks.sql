-- Calendar fields and period bounds beyond the basics: ISO weeks, week
-- modes, last days, MySQL's names, time zone arguments, range ends.
SELECT toISOWeek(d), toISOYear(d), toWeek(d), toWeek(d, 1), week(d, 3), toYearWeek(d), yearweek(d, 3), toYearWeek(d, 7) FROM (SELECT toDate('2020-12-26') + number * 3 AS d FROM numbers(8)) ORDER BY d;
SELECT toTypeName(toISOWeek(now())), toTypeName(toISOYear(now())), toTypeName(toWeek(now())), toTypeName(toYearWeek(now())), toTypeName(toStartOfWeek(now())), toTypeName(toLastDayOfWeek(now())), toTypeName(toLastDayOfMonth(now())), toTypeName(toStartOfISOYear(now())), toTypeName(toDaysInMonth(now()));
-- Every week mode over the whole Date range, as checksums.
SELECT 0, sum(toWeek(d, 0) * (n % 1000 + 1)), sum(toYearWeek(d, 0) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 0) * n), sum(toRelativeDayNum(toStartOfWeek(d, 0))), sum(toRelativeDayNum(toLastDayOfWeek(d, 0))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 1, sum(toWeek(d, 1) * (n % 1000 + 1)), sum(toYearWeek(d, 1) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 1) * n), sum(toRelativeDayNum(toStartOfWeek(d, 1))), sum(toRelativeDayNum(toLastDayOfWeek(d, 1))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 2, sum(toWeek(d, 2) * (n % 1000 + 1)), sum(toYearWeek(d, 2) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 2) * n), sum(toRelativeDayNum(toStartOfWeek(d, 2))), sum(toRelativeDayNum(toLastDayOfWeek(d, 2))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 3, sum(toWeek(d, 3) * (n % 1000 + 1)), sum(toYearWeek(d, 3) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 3) * n), sum(toRelativeDayNum(toStartOfWeek(d, 3))), sum(toRelativeDayNum(toLastDayOfWeek(d, 3))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 4, sum(toWeek(d, 4) * (n % 1000 + 1)), sum(toYearWeek(d, 4) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 4) * n), sum(toRelativeDayNum(toStartOfWeek(d, 4))), sum(toRelativeDayNum(toLastDayOfWeek(d, 4))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 5, sum(toWeek(d, 5) * (n % 1000 + 1)), sum(toYearWeek(d, 5) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 5) * n), sum(toRelativeDayNum(toStartOfWeek(d, 5))), sum(toRelativeDayNum(toLastDayOfWeek(d, 5))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 6, sum(toWeek(d, 6) * (n % 1000 + 1)), sum(toYearWeek(d, 6) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 6) * n), sum(toRelativeDayNum(toStartOfWeek(d, 6))), sum(toRelativeDayNum(toLastDayOfWeek(d, 6))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 7, sum(toWeek(d, 7) * (n % 1000 + 1)), sum(toYearWeek(d, 7) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 7) * n), sum(toRelativeDayNum(toStartOfWeek(d, 7))), sum(toRelativeDayNum(toLastDayOfWeek(d, 7))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 8, sum(toWeek(d, 8) * (n % 1000 + 1)), sum(toYearWeek(d, 8) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 8) * n), sum(toRelativeDayNum(toStartOfWeek(d, 8))), sum(toRelativeDayNum(toLastDayOfWeek(d, 8))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT 9, sum(toWeek(d, 9) * (n % 1000 + 1)), sum(toYearWeek(d, 9) % 1000003 * (n % 997 + 1)), sum(toDayOfWeek(d, 9) * n), sum(toRelativeDayNum(toStartOfWeek(d, 9))), sum(toRelativeDayNum(toLastDayOfWeek(d, 9))) FROM (SELECT toDate('1970-01-01') + number AS d, number AS n FROM numbers(65536));
SELECT toStartOfWeek(toDate('2024-01-10')), toStartOfWeek(toDate('2024-01-10'), 1), toStartOfWeek(toDate('2024-01-10'), 9), toLastDayOfWeek(toDate('2024-01-10')), toLastDayOfWeek(toDate('2024-01-10'), 1);
SELECT toDayOfWeek(toDate('2024-01-07'), 0), toDayOfWeek(toDate('2024-01-07'), 1), toDayOfWeek(toDate('2024-01-07'), 2), toDayOfWeek(toDate('2024-01-07'), 3), toDayOfWeek(toDate('2024-01-07'), 9);
SELECT d, toLastDayOfMonth(d), LAST_DAY(d), last_day(d), toDaysInMonth(d), toStartOfISOYear(d) FROM (SELECT arrayJoin([toDate('2024-02-10'), toDate('2023-02-28'), toDate('2021-01-03'), toDate('2024-12-31'), toDate('1970-01-01'), toDate('2149-06-01')]) AS d) ORDER BY d;
-- MySQL's names.
SELECT YEAR(d), QUARTER(d), MONTH(d), DAY(d), DAYOFMONTH(d), DAYOFWEEK(d), DAYOFYEAR(d), year(d), month(d), day(d), dayofweek(d), dayofyear(d), quarter(d) FROM (SELECT toDate('2024-02-04') AS d);
SELECT HOUR(t), MINUTE(t), SECOND(t), hour(t), minute(t), second(t) FROM (SELECT toDateTime('2024-02-04 13:14:15') AS t);
SELECT toStartOfTenMinutes(t), toStartOfFiveMinute(t), toStartOfTenMinutes(toDateTime64('2024-01-31 20:59:59.9', 3)) AS x, toTypeName(x) FROM (SELECT toDateTime('2024-01-31 20:59:59') AS t);
-- A time zone argument reads the moment on that zone's clock.
SELECT toYear(t, 'Asia/Tokyo'), toMonth(t, 'Asia/Tokyo'), toDayOfMonth(t, 'Asia/Tokyo'), toHour(t, 'Asia/Kolkata'), toMinute(t, 'Asia/Kolkata'), toDayOfWeek(t, 0, 'Asia/Tokyo'), toWeek(t, 1, 'Asia/Tokyo'), toYearWeek(t, 1, 'Asia/Tokyo') FROM (SELECT toDateTime('2024-12-31 20:30:00') AS t);
SELECT toStartOfHour(t, 'Asia/Kolkata') AS h, toTypeName(h), toStartOfDay(t, 'Asia/Tokyo') AS d, toTypeName(d), toStartOfMonth(t, 'Asia/Tokyo'), toStartOfWeek(t, 0, 'Asia/Tokyo'), toLastDayOfMonth(t, 'Asia/Tokyo') FROM (SELECT toDateTime('2024-12-31 20:30:00') AS t);
SELECT toStartOfDay(toDate('2024-01-01'), 'Asia/Tokyo') AS d, toTypeName(d), toYear(toDate('2024-12-31'), 'Asia/Tokyo');
-- Around the spring and autumn changes in Berlin.
SELECT t, toHour(t), toStartOfHour(t), toStartOfDay(t), toStartOfFifteenMinutes(t), toStartOfTenMinutes(t) FROM (SELECT toTimeZone(toDateTime('2024-03-31 00:00:00') + number * 1800, 'Europe/Berlin') AS t FROM numbers(5)) ORDER BY t;
SELECT t, toHour(t), toStartOfHour(t), toDayOfMonth(t) FROM (SELECT toTimeZone(toDateTime('2024-10-27 00:00:00') + number * 1800, 'Europe/Berlin') AS t FROM numbers(5)) ORDER BY t;
-- Results stop at the ends of Date and DateTime.
SELECT toStartOfMonth(toDateTime64('1900-05-05 00:00:00', 3)), toStartOfDay(toDateTime64('1900-01-01 10:00:00', 3)), toStartOfHour(toDateTime64('2200-01-01 10:00:00', 3)), toLastDayOfMonth(toDate('2149-06-06')), toYear(toDateTime64('1900-05-05 00:00:00', 3)), toISOYear(toDateTime64('1900-01-01 00:00:00', 3));
SELECT toYear(NULL), toTypeName(toYear(NULL)), toWeek(today(), NULL), toTypeName(toStartOfDay(nullIf(toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-01 00:00:00'))));
SELECT n, toISOWeek(x), toLastDayOfMonth(x) FROM (SELECT number AS n, if(number = 1, NULL, toDate('2020-02-29') + number) AS x FROM numbers(3)) ORDER BY n;
SELECT toYear(now(), 'Mars/Olympus'); -- { serverError BAD_ARGUMENTS }
SELECT toYear(now(), 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toYear(now(), toString(number)) FROM numbers(1); -- { serverError ILLEGAL_COLUMN }
SELECT toYear(now(), 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toWeek(today(), 1, 'UTC', 4); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toWeek(toDate('2024-01-10'), -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toWeek(toDate('2024-01-10'), 256); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toWeek(toDate('2024-01-10'), 'UTC'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toWeek(toDate('2024-01-10'), toUInt8(number)) FROM numbers(1); -- { serverError ILLEGAL_COLUMN }
SELECT toStartOfTenMinutes(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toISOWeek('2024-01-01'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Periods counted from fixed points.
SELECT toRelativeYearNum(d), toRelativeQuarterNum(d), toRelativeMonthNum(d), toRelativeWeekNum(d), toRelativeDayNum(d), toRelativeHourNum(d), toRelativeMinuteNum(d), toRelativeSecondNum(d), toMonthNumSinceEpoch(d), toYearNumSinceEpoch(d) FROM (SELECT arrayJoin([toDate('1970-01-01'), toDate('1970-01-04'), toDate('1970-01-05'), toDate('2024-05-05'), toDate('2149-06-06')]) AS d) ORDER BY d;
SELECT toTypeName(toRelativeYearNum(now())), toTypeName(toRelativeQuarterNum(now())), toTypeName(toRelativeWeekNum(now())), toTypeName(toRelativeSecondNum(today())), toTypeName(toMonthNumSinceEpoch(now())), toTypeName(toYearNumSinceEpoch(now()));
SELECT toRelativeHourNum(t), toRelativeMinuteNum(t), toRelativeSecondNum(t), toRelativeDayNum(t) FROM (SELECT toTimeZone(toDateTime('2024-01-01 18:30:00'), 'Asia/Kolkata') AS t);
SELECT toRelativeHourNum(toTimeZone(t, 'UTC')), toRelativeHourNum(toTimeZone(t, 'Europe/Amsterdam')), toRelativeHourNum(toTimeZone(t, 'Asia/Kathmandu')), toRelativeHourNum(toTimeZone(t, 'America/St_Johns')), toRelativeHourNum(toTimeZone(t, 'America/Caracas')), toRelativeHourNum(toTimeZone(t, 'Asia/Tokyo')) FROM (SELECT toDateTime('2024-05-05 18:00:00') AS t);
SELECT toRelativeSecondNum(toDate('2024-05-05'), 'Asia/Tokyo'), toRelativeHourNum(toDate('2024-05-05'), 'Asia/Kolkata'), toRelativeDayNum(toDateTime('2024-05-05 20:00:00'), 'Asia/Tokyo'), toRelativeMinuteNum(toDate('2024-05-05'), 'Asia/Kolkata');
SELECT toRelativeDayNum(t), toRelativeWeekNum(t), toRelativeHourNum(t), toRelativeSecondNum(t), toMonthNumSinceEpoch(t), toYearNumSinceEpoch(t) FROM (SELECT arrayJoin([toDateTime64('1969-12-31 23:59:59', 3, 'UTC'), toDateTime64('1960-05-05 20:00:00', 3, 'UTC'), toDateTime64('2200-12-31 23:59:00', 3, 'UTC'), toDateTime64('2299-12-31 23:59:59', 3, 'UTC')]) AS t) ORDER BY t;
SELECT toRelativeDayNum(NULL), toRelativeDayNum(nullIf(toDate('2024-01-01'), toDate('2024-01-01'))) AS x, toTypeName(x);
SELECT toRelativeDayNum(toDate('2024-01-01'), 'Nowhere'); -- { serverError BAD_ARGUMENTS }
SELECT toRelativeDayNum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
