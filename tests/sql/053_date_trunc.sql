-- dateTrunc: the start of the unit holding a moment.
SELECT dateTrunc('year', d) AS a, toTypeName(a), dateTrunc('quarter', d), dateTrunc('month', d), dateTrunc('week', d), dateTrunc('day', d) AS b, toTypeName(b) FROM (SELECT toDate('2024-05-05') AS d);
SELECT dateTrunc('year', t) AS a, toTypeName(a), dateTrunc('week', t), dateTrunc('day', t) AS b, toTypeName(b), dateTrunc('hour', t), dateTrunc('minute', t), dateTrunc('second', t) AS c, toTypeName(c) FROM (SELECT toTimeZone(toDateTime('2024-05-05 10:11:12'), 'Asia/Tokyo') AS t);
SELECT dateTrunc('minute', toDateTime('2024-05-05 10:11:12'), 'Asia/Tokyo') AS a, toTypeName(a), dateTrunc('day', toDateTime('2024-05-05 20:00:00'), 'Asia/Tokyo') AS b, toTypeName(b), dateTrunc('month', toDateTime('2024-05-31 20:00:00'), 'Asia/Tokyo'), dateTrunc('second', toDateTime('2024-05-05 10:11:12'), 'Asia/Kolkata') AS c, toTypeName(c);
SELECT dateTrunc('Year', toDate('2024-05-05')), DATE_TRUNC('MONTH', toDate('2024-05-05')), date_trunc('month', toDate('2024-05-05')), dateTrunc('month', toDate('1970-01-01'));
SELECT dateTrunc('quarter', t) AS a, toTypeName(a), dateTrunc('year', toDateTime64('1900-05-05 10:00:00.123', 3)) AS b, toTypeName(b), dateTrunc('millisecond', t) AS c, toTypeName(c), dateTrunc('microsecond', t) AS d, toTypeName(d), dateTrunc('nanosecond', t) AS e, toTypeName(e) FROM (SELECT toDateTime64('2024-05-05 10:11:12.345678', 6) AS t);
SELECT n, dateTrunc('month', x) AS m, toTypeName(m) FROM (SELECT number AS n, if(number = 1, NULL, toDate('2020-02-29') + number * 40) AS x FROM numbers(3)) ORDER BY n;
SELECT dateTrunc('hour', toDate('2024-05-05')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('millisecond', toDateTime('2024-05-05 10:00:00')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('years', toDate('2024-05-05')); -- { serverError BAD_ARGUMENTS }
SELECT dateTrunc(toString(number), toDate('2024-05-05')) FROM numbers(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('month', 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('month'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
