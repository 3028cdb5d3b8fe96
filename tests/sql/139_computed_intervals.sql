-- intervals of a computed amount: INTERVAL expr unit, toInterval<Unit>(x), add<Unit>s(d, x), date_add(UNIT, n, d)
SELECT number, toDate('2024-01-31') + INTERVAL number MONTH, toDate('2024-01-01') + INTERVAL (number * 10) DAY FROM numbers(4) ORDER BY number;
SELECT number, toDateTime('2024-01-01 00:00:00', 'UTC') + INTERVAL number * 90 MINUTE, toDateTime('2024-01-01 00:00:00', 'UTC') - toIntervalHour(number) FROM numbers(3) ORDER BY number;
SELECT number, addDays(toDate('2024-02-27'), number), subtractWeeks(toDate('2024-01-01'), number), addYears(toDate('2024-02-29'), number), addQuarters(toDate('2024-11-30'), number) FROM numbers(3) ORDER BY number;
SELECT number, addMonths(toDateTime('2024-01-31 10:00:00', 'UTC'), number), subtractSeconds(toDateTime('2024-01-01 00:00:00', 'UTC'), number) FROM numbers(3) ORDER BY number;
SELECT toDateTime64('2024-01-01 00:00:00.5', 3, 'UTC') + toIntervalMillisecond(number) AS d FROM numbers(2) ORDER BY d;
SELECT toDate('2024-01-01') + INTERVAL 1 QUARTER, toDate('2024-05-31') - toIntervalQuarter(1), toDate('2024-01-01') + toIntervalWeek(2);
SELECT addDays(toDate('2024-01-01'), 1.9), toDate('2024-01-01') + toIntervalDay(-2.5);
SELECT addDays(NULL, 1), toDate('2024-01-01') + toIntervalDay(NULL), addDays(toDate('2024-01-01'), if(number = 1, NULL, number)) FROM numbers(2) ORDER BY number;
SELECT date_add(DAY, 3, toDate('2024-01-01')) AS a, date_add(toDate('2024-01-01'), INTERVAL 3 DAY) AS b, timestamp_add(toDate('2024-01-01'), INTERVAL 3 DAY) AS c, date_sub(YEAR, 1, toDate('2024-01-01')) AS d;
SELECT DATE_ADD(month, number, toDate('2024-01-31')), dateSub(WEEK, number, toDate('2024-01-01')), timestamp_sub(HOUR, number, toDateTime('2024-01-01 00:00:00', 'UTC')) FROM numbers(2) ORDER BY number;
SELECT toDate('2024-01-01') + INTERVAL 1 DAY, toDateTime('2024-01-01 00:00:00', 'UTC') - INTERVAL '2' HOUR;
SELECT count() FROM numbers(10) WHERE toDate('2024-01-01') + INTERVAL number DAY < toDate('2024-01-05');
SELECT date_add('day', 1, toDate('2024-01-01')); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toIntervalDay([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
