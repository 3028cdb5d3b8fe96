-- Calendar functions on Date and DateTime, with ClickHouse's result types.
SELECT toYear(d), toQuarter(d), toMonth(d), toDayOfMonth(d), toDayOfWeek(d), toDayOfYear(d), toYYYYMM(d), toYYYYMMDD(d) FROM (SELECT toDate('2024-01-01') + number * 37 AS d FROM numbers(12)) ORDER BY d;
SELECT toStartOfYear(d), toStartOfQuarter(d), toStartOfMonth(d), toMonday(d), toStartOfDay(d) FROM (SELECT toDate('2023-12-25') + number * 19 AS d FROM numbers(8)) ORDER BY d;
SELECT toHour(t), toMinute(t), toSecond(t), toYYYYMMDDhhmmss(t), toStartOfHour(t), toStartOfFifteenMinutes(t), toStartOfFiveMinutes(t), toStartOfMinute(t), toStartOfDay(t) FROM (SELECT toDateTime('2024-02-28 22:58:59') + number * 3333 AS t FROM numbers(6)) ORDER BY t;
SELECT toYear(t), toMonth(t), toDayOfWeek(t), toYYYYMM(t), toStartOfMonth(t), toMonday(t) FROM (SELECT toDateTime('1999-12-31 23:59:59') + number * 86400 * 40 AS t FROM numbers(4)) ORDER BY t;
SELECT toTypeName(toYear(today())), toTypeName(toMonth(today())), toTypeName(toDayOfYear(today())), toTypeName(toYYYYMM(today())), toTypeName(toYYYYMMDDhhmmss(now())), toTypeName(toStartOfMonth(now())), toTypeName(toStartOfHour(now()));
SELECT toYYYYMM(d), count() FROM (SELECT toDate('2024-01-01') + number AS d FROM numbers(100)) GROUP BY toYYYYMM(d) ORDER BY 1;
SELECT n, toYear(x), toStartOfMonth(x) FROM (SELECT number AS n, if(number = 1, NULL, toDate('2020-02-29') + number) AS x FROM numbers(3)) ORDER BY n;
SELECT toHour(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toYear('2024-01-01'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toYear(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE events (d Date, n UInt32) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY d;
INSERT INTO events SELECT toDate('2024-01-20') + number, number FROM numbers(30);
SELECT partition, rows FROM system.parts WHERE table = 'events' ORDER BY partition;
SELECT _partition_id, sum(n) FROM events WHERE toYYYYMM(d) = 202402 GROUP BY _partition_id;
-- formatDateTime with ClickHouse's specifiers; DateTime64 from text.
SELECT formatDateTime(toDateTime('2024-03-05 07:08:09'), '%Y-%m-%d %H:%i:%S|%M|%b|%a|%W|%e|%j|%p|%I|%y|%F|%T|%D|%R|%u|%w|%h|%l|%k|%s|%f|%Q|%V|%G|%%|%C|%r');
SELECT formatDateTime(toDateTime64('2024-01-01 00:00:00.123', 3), '%f'), formatDateTime(toDate('2024-01-02'), '%F %T');
SELECT formatDateTime(toDateTime('2024-01-01 00:00:00'), '%L'); -- { serverError BAD_ARGUMENTS }
SELECT toDateTime64('2024-01-01 00:00:00.123', 3) AS t, toTypeName(t), toDateTime64('2024-01-01 00:00:00', 6, 'UTC') AS u, toTypeName(u);
