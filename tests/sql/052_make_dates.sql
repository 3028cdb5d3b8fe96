-- Dates and moments from their parts.
SELECT makeDate(2024, 2, 29) AS a, toTypeName(a), makeDate(2023, 2, 29), makeDate(2024, 60), makeDate(2024, 365), makeDate(2023, 365), makeDate(2024.7, 1.9, 1.9);
SELECT makeDate(1969, 1, 1), makeDate(2150, 1, 1), makeDate(2024, 13, 1), makeDate(2024, 0, 1), makeDate(2024, 1, 0), makeDate(2024, 1, 32), makeDate(-5, 1, 1), makeDate(2024, 0), makeDate(2024, 366), makeDate(2149, 6, 6), makeDate(2149, 6, 7), makeDate(2149, 157), makeDate(2149, 158);
SELECT makeDate32(1900, 1, 1) AS a, toTypeName(a), makeDate32(2299, 12, 31), makeDate32(2300, 1, 1), makeDate32(1899, 12, 31), makeDate32(0, 1, 1), makeDate32(9999, 365), makeDate32(10000, 1, 1), makeDate32(-1, 1, 1), makeDate32(2024, 366), makeDate32(1900, 2, 30);
SELECT makeDateTime(2024, 2, 29, 10, 11, 12) AS a, toTypeName(a), makeDateTime(2024, 2, 29, 10, 11, 12, 'Asia/Tokyo') AS b, toTypeName(b), toUnixTimestamp(b), makeDateTime(2024, 2, 30, 10, 11, 12), makeDateTime(2024, 2, 28, 25, 11, 12);
SELECT makeDateTime(2024, 1, 1, 0, 0, 99), makeDateTime(2024, 1, 1, 0, 0, 100), makeDateTime(2024, 1, 1, 99, 99, 0), makeDateTime(2024, 1, 1, -1, 0, 0), makeDateTime(2024, 13, 1, 0, 0, 0), makeDateTime(2024, 1, 1, 10.7, 0, 0.5);
SELECT makeDateTime(1969, 1, 1, 0, 0, 0), makeDateTime(2106, 2, 7, 6, 28, 15), makeDateTime(2106, 2, 7, 6, 28, 16), makeDateTime(2200, 1, 1, 0, 0, 0), makeDateTime(1970, 1, 1, 0, 0, 0, 'Asia/Tokyo');
-- Times the clocks skip or repeat.
SELECT makeDateTime(2024, 3, 31, 2, 30, 0, 'Europe/Berlin') AS a, toUnixTimestamp(a), makeDateTime(2024, 10, 27, 2, 30, 0, 'Europe/Berlin') AS b, toUnixTimestamp(b), makeDateTime(2024, 10, 27, 3, 30, 0, 'Europe/Berlin') AS c, toUnixTimestamp(c);
SELECT makeDateTime64(2024, 2, 29, 10, 11, 12, 5) AS a, toTypeName(a), makeDateTime64(2024, 2, 29, 10, 11, 12, 5, 6) AS b, toTypeName(b), makeDateTime64(2024, 2, 29, 10, 11, 12, 5, 9, 'Asia/Tokyo') AS c, toTypeName(c), makeDateTime64(2024, 2, 29, 10, 11, 12) AS d, toTypeName(d);
SELECT makeDateTime64(1900, 1, 1, 0, 0, 0, 0, 3), makeDateTime64(2299, 12, 31, 23, 59, 59, 999, 3), makeDateTime64(2300, 1, 1, 0, 0, 0, 0, 3), makeDateTime64(1850, 1, 1, 0, 0, 0, 0, 3), makeDateTime64(2299, 12, 31, 23, 59, 60, 0, 3);
SELECT makeDateTime64(2024, 1, 1, 0, 0, 0, 1234, 3), makeDateTime64(2024, 1, 1, 0, 0, 0, -5, 3), makeDateTime64(2024, 1, 1, 0, 0, 0, 0.5, 3), makeDateTime64(2024, 1, 1, 25, 0, 0, 0, 3), makeDateTime64(2024, 13, 1, 0, 0, 0, 0, 3), makeDateTime64(2024, 1, 1, 0, 0, 100, 0, 3), makeDateTime64(2024, 1, 1, 0, 0, 0, 999999999, 9);
SELECT makeDateTime64(2024, 3, 31, 2, 30, 0, 0, 3, 'Europe/Berlin');
SELECT y, makeDate(y, m, d), makeDateTime(y, m, d, 12, 0, 0) FROM (SELECT 2020 + number AS y, number + 1 AS m, number * 10 + 1 AS d FROM numbers(4)) ORDER BY y;
SELECT makeDate(NULL, 1, 1), toTypeName(makeDate(NULL, 1, 1)), makeDate(if(number = 0, NULL, 2024), 1, 1) AS n, toTypeName(n) FROM numbers(2) ORDER BY n;
SELECT makeDate('2024', 1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT makeDate(2024); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT makeDateTime(2024, 1, 1, 0, 0); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT makeDateTime64(2024, 1, 1, 0, 0, 0, 0, 3, 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT makeDateTime64(2024, 1, 1, 0, 0, 0, 0, 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT makeDateTime(2024, 1, 1, 0, 0, 0, 'Nowhere'); -- { serverError BAD_ARGUMENTS }
-- Other names of dateDiff and formatDateTime; time_bucket.
SELECT DATE_DIFF('day', toDate('2024-01-01'), toDate('2024-03-01')), TIMESTAMP_DIFF('hour', toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-02 06:00:00')), timestampDiff('month', toDate('2023-11-30'), toDate('2024-02-01')), timestamp_diff('year', toDate('2020-12-31'), toDate('2024-01-01'));
SELECT DATE_FORMAT(toDateTime('2024-03-05 07:08:09'), '%Y-%m-%d %H:%i:%S'), date_format(toDate('2024-03-05'), '%d/%m/%Y %W');
SELECT time_bucket(toDateTime('2024-03-05 07:08:09'), INTERVAL 15 MINUTE), TIME_BUCKET(toDateTime('2024-03-05 07:08:09'), INTERVAL 1 HOUR);
SELECT DATE_DIFF('day', toDate('2024-01-01')); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
