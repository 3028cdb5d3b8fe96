-- DateTime64 of every precision: the type it shows, the digits it keeps, the values it cuts.
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 0) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 1) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 2) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 4) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 5) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 7) AS x, toTypeName(x);
SELECT toDateTime64('2024-03-05 10:11:12.987654321', 8, 'Asia/Tokyo') AS x, toTypeName(x);
SELECT toDateTime64(1700000000.56789, 2) AS x, toTypeName(x);
SELECT toDateTime64('2024-01-01', 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toDateTime64('2024-01-01', number) FROM numbers(1); -- { serverError ILLEGAL_COLUMN }
SELECT CAST('2024-03-05 10:11:12.987654' AS DateTime64(2)) AS x, toTypeName(x);
SELECT CAST(toDateTime64('2024-03-05 10:11:12.987654', 6, 'UTC') AS DateTime64(1, 'Asia/Tokyo')) AS x, toTypeName(x);
SELECT CAST('2024-01-01' AS DateTime64(12)); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toTypeName(CAST(number AS Nullable(DateTime64(1)))), toTypeName(CAST(number AS Nullable(DateTime))), toTypeName(CAST('2024-01-01' AS Nullable(DateTime('Asia/Tokyo')))), toTypeName(CAST('2024-01-01' AS Nullable(Date))), toTypeName(CAST(NULL AS Nullable(Date32))), CAST(NULL AS Nullable(DateTime)), CAST('2024-01-01 10:11:12.345' AS Nullable(DateTime64(2))) FROM numbers(1);
SELECT toString(toDateTime64('2024-03-05 10:11:12.987', 2));
SELECT concat('at ', toDateTime64('2024-03-05 10:11:12.987', 1));
SELECT toUnixTimestamp64Milli(toDateTime64('2024-03-05 10:11:12.987', 2)), fromUnixTimestamp64Second(toInt64(1700000000)) AS s, toTypeName(s), fromUnixTimestamp64Milli(toInt64(1700000000123), 'Asia/Tokyo') AS m, toTypeName(m);
SELECT now64(2) > toDateTime64('2024-01-01 00:00:00', 2), toTypeName(now64(2)), toTypeName(now64(0));
-- Arithmetic keeps the moment's precision; a finer interval widens it.
WITH toDateTime64('2024-03-05 10:11:12.98', 2) AS d SELECT d + INTERVAL 1 DAY AS a, toTypeName(a), d - INTERVAL 90 SECOND AS b, toTypeName(b);
WITH toDateTime64('2024-03-05 10:11:12.98', 2) AS d SELECT d + INTERVAL 5 MILLISECOND AS a, toTypeName(a);
WITH toDateTime64('2024-03-05 10:11:12.98', 2) AS d SELECT addSeconds(d, 1) AS a, toTypeName(a), addMilliseconds(d, 1) AS b, toTypeName(b);
WITH toDateTime64('2024-03-05 10:11:12.98', 2) AS d SELECT toStartOfSecond(d) AS a, toTypeName(a), toStartOfMinute(d) AS b, toTypeName(b);
WITH toDateTime64('2024-03-05 10:11:12.98', 2) AS d SELECT toTimeZone(d, 'Asia/Tokyo') AS a, toTypeName(a);
-- dateTrunc of a DateTime64 to a second or longer is a DateTime64(0).
WITH toDateTime64('2024-03-05 10:11:12.987', 3, 'Asia/Tokyo') AS d SELECT dateTrunc('day', d) AS a, toTypeName(a), date_trunc('hour', d) AS b, toTypeName(b), dateTrunc('minute', d, 'UTC') AS c, toTypeName(c), dateTrunc('second', d) AS e, toTypeName(e);
SELECT dateTrunc('minute', toDateTime64(number * 7.25, 2)) AS m, count() FROM numbers(30) GROUP BY m ORDER BY m;
-- DateTime('zone') stays a DateTime beside a DateTime64(0, 'zone').
SELECT CAST(0 AS DateTime('Asia/Tokyo')) AS a, toTypeName(a), CAST(0 AS DateTime64(0, 'Asia/Tokyo')) AS b, toTypeName(b);
CREATE TABLE dtz (z DateTime('Asia/Tokyo'), y DateTime64(0, 'Asia/Tokyo')) ENGINE = Memory;
SHOW CREATE TABLE dtz;
DROP TABLE dtz;
-- Columns of such types in tables: values cut on insert, shown with their digits in every format.
DROP TABLE IF EXISTS dt64p;
CREATE TABLE dt64p (id UInt8, a DateTime64(0), b DateTime64(2), c DateTime64(4, 'Europe/Berlin'), n Nullable(DateTime64(1))) ENGINE = MergeTree ORDER BY id;
INSERT INTO dt64p VALUES (1, '2024-03-05 10:11:12.999', '2024-03-05 10:11:12.999', '2024-03-05 10:11:12.123456', NULL);
INSERT INTO dt64p VALUES (2, '2024-12-31 23:59:59', '2024-12-31 23:59:59.5', '2024-12-31 23:59:59.00009', '2024-12-31 23:59:59.99');
INSERT INTO dt64p SELECT 3, toDateTime64('2025-01-01 00:00:00.777', 3), toDateTime64('2025-01-01 00:00:00.777', 3), toDateTime64('2025-01-01 00:00:00.7777777', 7), toDateTime64('2025-01-01 00:00:00.777', 3);
INSERT INTO dt64p FORMAT CSV
4,"2025-06-01 12:00:00.5","2025-06-01 12:00:00.567","2025-06-01 12:00:00.56789","2025-06-01 12:00:00.56"

SELECT * FROM dt64p ORDER BY id;
SELECT toTypeName(a), toTypeName(b), toTypeName(c), toTypeName(n) FROM dt64p LIMIT 1;
DESCRIBE TABLE dt64p;
SHOW CREATE TABLE dt64p;
SELECT b, count() FROM dt64p GROUP BY b ORDER BY b;
SELECT argMax(id, b), argMin(id, c), min(b), max(c), toTypeName(max(c)), argMax(b, id) FROM dt64p;
SELECT min(toDate32('1950-01-01') + number) AS m, toTypeName(m) FROM numbers(3);
SELECT id FROM dt64p WHERE b = '2024-03-05 10:11:12.99' ORDER BY id;
SELECT id, b FROM dt64p WHERE b > toDateTime64('2024-12-31 23:59:59.4', 1) ORDER BY id;
SELECT id, b + INTERVAL 1 HOUR, toTypeName(b + INTERVAL 1 HOUR) FROM dt64p ORDER BY id;
SELECT id, dateDiff('millisecond', b, c) FROM dt64p ORDER BY id;
SELECT id, b FROM dt64p ORDER BY id FORMAT JSONEachRow;
SELECT id, c FROM dt64p ORDER BY id FORMAT CSV;
SELECT id, b, c FROM dt64p WHERE id = 1 FORMAT Vertical;
SELECT [b] AS arr, (id, b) AS t FROM dt64p WHERE id = 2;
SELECT id, b FROM dt64p WHERE id < 3 ORDER BY id SETTINGS date_time_output_format = 'unix_timestamp';
ALTER TABLE dt64p MODIFY COLUMN b DateTime64(1);
SELECT id, b, toTypeName(b) FROM dt64p ORDER BY id;
DROP TABLE dt64p;
-- parseDateTime64: a DateTime64(6), or as many digits as the Joda format's S run.
SELECT parseDateTime64('2024-01-01 10:11:12.123456', '%Y-%m-%d %H:%i:%s.%f') AS a, parseDateTime64('2024-01-01 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f') AS b, parseDateTime64('2024-01-01 10:11:12', '%Y-%m-%d %H:%i:%s', 'Asia/Tokyo') AS c, toTypeName(c);
SELECT parseDateTime64OrNull('x', '%Y') AS d, parseDateTime64OrZero('x', '%Y') AS e, parseDateTime64('1960-01-01 10:11:12', '%Y-%m-%d %H:%i:%s') AS f;
SELECT parseDateTime64InJodaSyntax('2024-01-01 10:11:12.123', 'yyyy-MM-dd HH:mm:ss.SSS') AS g, parseDateTime64InJodaSyntax('2024-01-01 10:11:12', 'yyyy-MM-dd HH:mm:ss') AS h, parseDateTime64InJodaSyntaxOrNull('2024-01-01 10:11:12.123456', 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'UTC') AS i, toTypeName(i);
SELECT parseDateTime64('junk', '%Y-%m-%d'); -- { serverError CANNOT_PARSE_DATETIME }
-- toUnixTimestamp64* read any precision; makeDateTime64's fraction counts its precision's units; CAST to String writes the text toString does.
SELECT toUnixTimestamp64Milli(toDateTime64('2024-03-05 07:08:09.5', 1)), toUnixTimestamp64Nano(toDateTime64('2024-03-05 07:08:09', 0)), toUnixTimestamp64Milli(toDateTime64('2024-03-05 07:08:09.9999', 4));
SELECT makeDateTime64(2024, 11, 3, 1, 30, 0, 5, 1, 'America/New_York') AS b, toTypeName(b), makeDateTime64(2024, 1, 1, 0, 0, 0, 12345, 5) AS c;
SELECT CAST(toDateTime64('2024-03-05 07:08:09.120', 3) AS String), CAST(toDateTime64('2024-03-05 07:08:09.1', 2) AS String), CAST(toDateTime('2024-03-05 07:08:09') AS String);
SELECT [toDateTime64('2024-01-01 00:00:00.5', 1), toDateTime64('2024-01-01 00:00:00.25', 3)] AS a, toTypeName(a);
SELECT x, toTypeName(x) FROM (SELECT toDateTime64('2024-01-01 00:00:00.5', 1) AS x UNION ALL SELECT toDateTime64('2024-01-01 00:00:00.12345', 5)) ORDER BY x;
