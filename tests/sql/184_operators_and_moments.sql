-- A Date or DateTime moved by a finer interval takes the finer type.
SELECT toDate('2024-01-01') + INTERVAL 1 HOUR AS x, toTypeName(x);
SELECT toDate32('2024-01-01') + INTERVAL 1 HOUR AS x, toTypeName(x);
SELECT toDate('2024-01-01') - INTERVAL 1 SECOND, INTERVAL 90 MINUTE + toDate('2024-01-01');
SELECT toDate('2024-05-06') + (INTERVAL 1 DAY + INTERVAL 2 HOUR);
SELECT toDate('2024-05-06') - INTERVAL 1 DAY - INTERVAL 1 MONTH AS x, toTypeName(x);
SELECT toDate('2024-01-01') + toIntervalMinute(number * 30) AS x, toTypeName(x) FROM numbers(3);
SELECT toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo') + INTERVAL 1 MILLISECOND AS x, toTypeName(x);
SELECT toDateTime64('2024-06-01 12:00:00.25', 3, 'UTC') + INTERVAL 1 MICROSECOND AS x, toTypeName(x);
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + INTERVAL 1 DAY AS x, toTypeName(x);
SELECT addHours(toDate('2024-01-01'), 2), subtractMinutes(toDate('2024-01-01'), 1);
-- REGEXP is match().
SELECT 'abc' REGEXP 'b', 'abc' REGEXP '^b', s REGEXP '[0-9]' FROM (SELECT arrayJoin(['a1', 'b']) AS s);
-- EXISTS in the select list.
SELECT EXISTS(SELECT 1 FROM numbers(3) WHERE number > 1) AS e, toTypeName(e), NOT EXISTS(SELECT 1 FROM numbers(3) WHERE number > 5);
SELECT number, EXISTS(SELECT 1 FROM numbers(2) WHERE number = 7) FROM numbers(2) ORDER BY number;
SELECT count() FROM numbers(5) WHERE EXISTS(SELECT 1 FROM numbers(2) WHERE number = 1) OR number = 0;
-- A LIMIT after LIMIT BY limits all the rows.
SELECT number % 3 AS k, number FROM numbers(12) ORDER BY k, number LIMIT 1 BY k LIMIT 2;
SELECT number % 3 AS k, number FROM numbers(12) ORDER BY k, number LIMIT 2 BY k LIMIT 3;
SELECT k, n FROM (SELECT number % 3 AS k, number AS n FROM numbers(12) ORDER BY k, n LIMIT 1 BY k LIMIT 2) ORDER BY k DESC;
-- toUnixTimestamp of text reads it on the given zone's clock.
SELECT toUnixTimestamp('2024-01-01 00:00:00', 'Asia/Tokyo'), toUnixTimestamp(toDateTime('2024-01-01 00:00:00', 'UTC'), 'Asia/Tokyo'), toUnixTimestamp('2024-01-01 00:00:00', 'UTC');
