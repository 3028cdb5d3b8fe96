-- toDateTime, toDate and toDateTime64 with a time zone argument.
SELECT toDateTime('2024-01-01 10:00:00', 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a), toDateTime(1704103200, 'Asia/Tokyo') AS b, toTypeName(b);
SELECT toDateTime(toDateTime('2024-01-01 00:00:00'), 'Asia/Tokyo') AS a, toTypeName(a), toDateTime(toDate('2024-01-01'), 'Asia/Tokyo') AS b, toUnixTimestamp(b), toDateTime(toDateTime64('2024-01-01 10:00:00.7', 3, 'Asia/Tokyo'), 'Europe/Berlin') AS c, toTypeName(c);
SELECT toTypeName(toDateTime(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'))), toDateTime(toTimeZone(toDateTime('2024-01-01 00:00:00'), 'America/New_York')) AS a, toTypeName(a);
SELECT toDateTime('2024-03-31 02:30:00', 'Europe/Berlin') AS a, toUnixTimestamp(a), toDateTime('2024-10-27 02:30:00', 'Europe/Berlin') AS b, toUnixTimestamp(b), toDateTime('1960-01-01', 'Asia/Tokyo'), toDateTime('2200-01-01', 'Asia/Tokyo');
SELECT toDate('2024-01-01 23:00:00', 'Asia/Tokyo') AS a, toTypeName(a), toDate(1704146400, 'Asia/Tokyo'), toDate(100, 'Asia/Tokyo'), toDate(toDateTime('2024-01-01 20:00:00'), 'Asia/Tokyo'), toDate(toDateTime64('2024-01-01 20:00:00.5', 3), 'Asia/Tokyo'), toDate(toDate32('2024-01-01'), 'Asia/Tokyo');
SELECT toDate(toDateTime('2024-01-01 20:00:00', 'Asia/Tokyo')), toDate(toTimeZone(toDateTime('2024-01-01 20:00:00'), 'Asia/Tokyo')), toDate(65535), toDate(65536), toDate(1.9), toDate(65535.5), toDate(-1.5), toDate(toInt64(-5)), toDate(toUInt64(18446744073709551615));
SELECT toDateTime(-1), toDateTime(4294967296), toDateTime(1.9), toDateTime(-1.5), toDateTime(1e20), toDateTime(toInt64(-5)), toDateTime(toUInt64(18446744073709551615));
SELECT toDateTime('2024-01-01 10:00'), toDateTime('2024/01/01 10:00:00'), toDateTime('  2024-01-01 10:00:00 '), toDateTime('20240101'), toDateTime('20240101100000'), toDateTime('1704146400'), toDateTime('2024-1-1 1:2:3'), toDateTime('2024.01.01 10'), toDateTime('2024-01-01 25:00:00');
SELECT toDateTime('2024-01-01T10:00:00.5Z'), toDateTime('2024-01-01 10:00:00+0330'), toDateTime('2024-01-01 10:00:00 -03'), toDateTime('2024-01-01 10:00:00 +03:00', 'Asia/Tokyo');
SELECT toDateTime64('2024-01-01 10:00:00.123', 3, 'Asia/Tokyo') AS a, toTypeName(a), toDateTime64(1704146400, 3, 'Asia/Tokyo'), toDateTime64(toDateTime('2024-01-01 00:00:00'), 3, 'Asia/Tokyo'), toDateTime64(toDate('2024-01-01'), 3, 'Asia/Tokyo'), toDateTime64(1704146400.5, 3);
SELECT toDateTime64('2024-01-01 00:00:00.123456789', 6) AS a, toTypeName(a), toDateTime64(-1.5, 3), toDateTime64(1.5, 9), toDateTime64(toDecimal64(1.23456, 5), 3), toDateTime64(toDate32('1950-01-01'), 3), toDateTime64('1969-12-31 23:59:59', 3);
SELECT toDateTime('2024-01-01 10:00:00.25', 3) AS s, toTypeName(s), toDateTime(1704103200, 6, 'Asia/Tokyo') AS z, toTypeName(z), toDateTime(NULL, 'Asia/Tokyo'), toDateTime(materialize('2024-01-01 10:00:00'), 'Asia/Tokyo'), toDate(materialize(toDateTime('2024-01-01 20:00:00')), 'Asia/Tokyo');
SELECT x, toDateTime(x, 'Asia/Tokyo') AS t, toUnixTimestamp(t), toDate(t, 'America/Los_Angeles') FROM (SELECT arrayJoin(['2024-01-01 00:00:00', '2024-06-30 23:59:59', '2024-02-29 12:00:00']) AS x) ORDER BY x;
SELECT toDateTime('2024-01-01 10:00:00', 'Nowhere'); -- { serverError BAD_ARGUMENTS }
SELECT toDateTime('2024-01-01 10:00:00', [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDateTime('not a time', 'Asia/Tokyo'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT toDateTime('2024-02-30 10:00:00'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT toDateTime64('2024-01-01', 3, 'Asia/Tokyo', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toDateTime64('2024-01-01', 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
-- CAST to ClickHouse's date types.
SELECT CAST('2024-01-01' AS Date32) AS a, toTypeName(a), CAST('1900-01-01' AS Date32), CAST(NULL AS Nullable(Date)) AS b, toTypeName(b), CAST(65536 AS Date), CAST(-1 AS Date);
SELECT CAST('2024-01-01 10:00:00' AS DateTime('Asia/Tokyo')) AS a, toTypeName(a), toUnixTimestamp(a), CAST(1704146400 AS DateTime('Asia/Tokyo')), CAST(NULL AS Nullable(DateTime('Asia/Tokyo'))) AS b, toTypeName(b);
SELECT CAST('2024-01-01 10:00:00.5' AS DateTime64(3, 'Asia/Tokyo')) AS a, toTypeName(a), CAST(NULL AS Nullable(DateTime64(3))) AS b, toTypeName(b), CAST('2024-01-01 10:00:00.123456' AS DateTime64(6)) AS c, toTypeName(c);
SELECT '2024-01-01 10:00:00'::DateTime AS a, toTypeName(a), '2024-01-01'::Date AS b, toTypeName(b), 1704146400::DateTime('Europe/Berlin') AS c, toTypeName(c), CAST(toDateTime('2024-01-01 20:00:00', 'Asia/Tokyo') AS Date);
CREATE TABLE zoned (d DateTime('Asia/Tokyo'), e Nullable(DateTime('Europe/Berlin')), f DateTime64(3, 'UTC')) ENGINE = Memory;
INSERT INTO zoned VALUES ('2024-01-01 10:00:00', '2024-01-01 02:00:00', '2024-01-01 01:00:00.250'), ('2024-07-01 10:00:00', NULL, '2024-07-01 00:00:00');
SELECT d, e, f, toTypeName(d), toTypeName(e), d = e, d < f, toUnixTimestamp(d) FROM zoned ORDER BY d;
-- Zoned DateTimes compare as instants.
SELECT toDateTime('2024-01-01 10:00:00') AS t, toTimeZone(t, 'Asia/Tokyo') = t, toTimeZone(t, 'Asia/Tokyo') < t + 1, toTimeZone(t, 'Asia/Tokyo') = toTimeZone(t, 'Europe/Berlin'), toTimeZone(t, 'Asia/Tokyo') != t;
SELECT toDate('2024-01-01') = toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'), toDate('2024-01-01') < toDateTime('2024-01-01 08:00:00', 'Asia/Tokyo'), toDateTime('2024-01-01 09:00:00', 'Asia/Tokyo') = '2024-01-01 09:00:00', toDateTime('2024-01-01 09:00:00', 'Asia/Tokyo') IN (toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-02 00:00:00'));
SELECT toDateTime('2024-01-01 09:00:00', 'Asia/Tokyo') BETWEEN toDateTime('2023-12-31 23:00:00') AND toDateTime('2024-01-01 01:00:00', 'Europe/Berlin'), toDateTime64('2024-01-01 00:00:00', 3, 'Asia/Tokyo') = toDateTime64('2024-01-01 00:00:00', 3), toDateTime64('2024-01-01 09:00:00.5', 3, 'Asia/Tokyo') > toDateTime('2024-01-01 00:00:00');
SELECT number FROM numbers(5) WHERE toTimeZone(toDateTime('2024-01-01 00:00:00') + number, 'Asia/Tokyo') >= toDateTime('2024-01-01 00:00:02') ORDER BY number;
