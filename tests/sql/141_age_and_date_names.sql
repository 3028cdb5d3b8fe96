-- age: whole units elapsed; dateName: a part as text; toString(moment, zone)
SELECT age('day', toDate('2024-01-31'), toDate('2024-03-01')), age('month', toDate('2024-01-31'), toDate('2024-02-29')), age('month', toDate('2024-01-31'), toDate('2024-03-01')), age('year', toDate('2020-02-29'), toDate('2021-02-28'));
SELECT age('hour', toDateTime('2024-01-01 00:30:00', 'UTC'), toDateTime('2024-01-01 02:29:00', 'UTC')), age('week', toDate('2024-01-01'), toDate('2024-01-14')), age('quarter', toDate('2024-01-15'), toDate('2024-04-14')), age('month', toDate('2024-03-01'), toDate('2024-01-31'));
SELECT age('second', toDateTime64('2024-01-01 00:00:00.9', 3, 'UTC'), toDateTime64('2024-01-01 00:00:01.1', 3, 'UTC')), age('ms', toDateTime64('2024-01-01 00:00:00.9', 3, 'UTC'), toDateTime64('2024-01-01 00:00:01.1', 3, 'UTC')), age('minute', toDateTime('2024-01-01 00:00:00', 'UTC'), toDateTime('2024-01-01 01:00:59', 'UTC'));
SELECT age('day', toDate('2024-01-01'), toDateTime('2024-01-02 10:00:00', 'UTC')), age('hour', toDateTime('2024-01-01 00:00:00', 'UTC'), toDateTime('2024-01-01 05:00:00', 'Asia/Tokyo'), 'UTC'), age('day', NULL, toDate('2024-01-01'));
SELECT d, age('month', d, toDate('2024-12-31')), age('yy', d, toDate('2026-01-30')), toTypeName(age('d', d, d)) FROM (SELECT toDate('2024-01-29') + number AS d FROM numbers(4)) ORDER BY d;
SELECT dateName('year', d), dateName('quarter', d), dateName('month', d), dateName('week', d), dateName('dayofyear', d), dateName('day', d), dateName('weekday', d) FROM (SELECT toDateTime('2024-03-05 07:08:09', 'UTC') AS d);
SELECT dateName('hour', d), dateName('minute', d), dateName('second', d), dateName('hour', d, 'Asia/Tokyo'), dateName('weekday', toDate('2024-03-10')) FROM (SELECT toDateTime('2024-03-05 07:08:09', 'UTC') AS d);
SELECT toString(toDateTime('2024-01-01 00:00:00', 'UTC'), 'Asia/Tokyo'), toString(toDateTime64('2024-01-01 00:00:00.5', 3, 'UTC'), 'America/New_York');
SELECT age('fortnight', toDate('2024-01-01'), toDate('2024-01-02')); -- { serverError BAD_ARGUMENTS }
SELECT age('day', 1, toDate('2024-01-02')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateName('hour', toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
