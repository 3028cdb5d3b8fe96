-- CAST to the interval types, between them, and back to numbers; columns of them.
SELECT CAST(5 AS IntervalDay) AS x, toTypeName(x);
SELECT toDate('2020-01-01') + CAST(5 AS IntervalDay), toDateTime('2020-01-01 00:00:00', 'UTC') - CAST('3' AS IntervalHour);
SELECT CAST('3' AS IntervalHour) AS x, toTypeName(x), 5::IntervalMonth, CAST(-3 AS IntervalSecond), CAST(1.7 AS IntervalDay);
SELECT CAST(INTERVAL 2 DAY AS IntervalHour), CAST(INTERVAL 1 YEAR AS IntervalDay), CAST(INTERVAL 1 QUARTER AS IntervalDay), CAST(INTERVAL 1 WEEK AS IntervalDay);
SELECT CAST(INTERVAL 90 MINUTE AS IntervalHour), CAST(INTERVAL 1 DAY AS IntervalMonth), CAST(INTERVAL 1 SECOND AS IntervalMillisecond), CAST(INTERVAL 1 YEAR AS IntervalMonth);
SELECT CAST(INTERVAL 2 DAY AS UInt8), CAST(INTERVAL 2 DAY AS String), CAST(INTERVAL 2 DAY AS Float64), toUInt8(INTERVAL 3 HOUR), toString(INTERVAL 3 HOUR);
SELECT CAST(toNullable(3) AS Nullable(IntervalDay)) AS x, toTypeName(x), CAST(NULL AS Nullable(IntervalDay));
SELECT CAST(number AS IntervalMinute) AS m, toDateTime('2024-01-01 00:00:00', 'UTC') + m FROM numbers(3) ORDER BY number;
SELECT CAST('x' AS IntervalDay); -- { serverError CANNOT_PARSE_TEXT }
DROP TABLE IF EXISTS intervals;
CREATE TABLE intervals (k UInt8, d IntervalDay, h Nullable(IntervalHour)) ENGINE = MergeTree ORDER BY k;
INSERT INTO intervals VALUES (1, 3, NULL), (2, 4, 5);
SELECT k, d, h, toTypeName(d), toTypeName(h), toDate('2020-01-01') + d FROM intervals ORDER BY k;
DROP TABLE intervals;
