-- tumble: the toStartOfInterval bin holding a moment, and its end
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'US/Samoa'), INTERVAL '1' WEEK, 'US/Samoa') AS w, toTypeName(w);
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 5 MINUTE) AS w, toTypeName(w);
SELECT tumbleStart(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 2 HOUR), tumbleEnd(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 3 DAY);
SELECT tumbleStart(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 MONTH) AS s, toTypeName(s), tumbleEnd(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 YEAR) AS e, toTypeName(e);
SELECT tumbleStart(tumble(toDateTime('2020-01-09 12:00:01', 'Asia/Tokyo'), INTERVAL 1 DAY)), tumbleEnd(tumble(toDateTime('2020-01-09 12:00:01', 'Asia/Tokyo'), INTERVAL 1 DAY));
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC') + number * 700, INTERVAL 10 MINUTE) FROM numbers(4);
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 QUARTER);

-- hop: of the windows holding the moment, the one ending first after it
SELECT hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 DAY, INTERVAL 3 DAY) AS w, toTypeName(w);
SELECT hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 2 DAY, INTERVAL 3 DAY);
SELECT hopStart(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 HOUR, INTERVAL 3 HOUR), hopEnd(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 HOUR, INTERVAL 3 HOUR);
SELECT hopEnd(toDateTime('2020-01-09 12:00:01', 'US/Samoa'), INTERVAL '1' WEEK, INTERVAL '3' WEEK, 'US/Samoa'), hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 MONTH, INTERVAL 3 MONTH);
SELECT hopStart(hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 MINUTE, INTERVAL 5 MINUTE)), hopEnd(hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 MINUTE, INTERVAL 5 MINUTE));
SELECT hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 1 DAY, INTERVAL 3 HOUR); -- { serverError ILLEGAL_COLUMN }
SELECT hop(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 3 DAY, INTERVAL 1 DAY); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC'), INTERVAL 0 DAY); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC'), 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tumble(toDateTime('2020-01-09 12:00:01', 'UTC')); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- formatReadable* with a precision, exact halves rounded away from zero, every unit
SELECT formatReadableSize(1234567, 4), formatReadableDecimalSize(1234567, 3), formatReadableQuantity(1234567, 1), formatReadableSize(100, 0);
SELECT formatReadableSize(1024, 0), formatReadableSize(1536, 0), formatReadableSize(2560, 0), formatReadableSize(1152), formatReadableQuantity(1125);
SELECT formatReadableQuantity(1e40), formatReadableQuantity(1e63), formatReadableSize(inf), formatReadableSize(1e30), formatReadableDecimalSize(inf), formatReadableSize(nan), formatReadableSize(-1234567);
SELECT formatReadableSize(toNullable(5), 1), formatReadableSize(CAST(NULL, 'Nullable(UInt64)')), FORMAT_BYTES(1000), format_bytes(1000, 1);
SELECT formatReadableSize(1, 20), formatReadableSize(exp(number), 3) FROM numbers(4);
SELECT formatReadableSize(1234, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableSize(1234, number) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableSize('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- A Map cast to an array of (key, value) tuples
WITH map(1, 'Test') AS value, 'Array(Tuple(UInt64, String))' AS type SELECT value, cast(value, type), cast(materialize(value), type);
WITH map(1, ['1', '2', '3']) AS value SELECT cast(value, 'Array(Tuple(UInt64, Array(UInt64)))'), cast(materialize(value), 'Array(Tuple(String, Array(UInt8)))');
SELECT CAST(m, 'Array(Tuple(String, UInt64))') FROM values('m Map(String, UInt64)', map('a', 1, 'b', 2), map(), map('c', 3));
SELECT CAST(map(1, map(1, '1234')), 'Array(Tuple(UInt64, Map(UInt64, UInt64)))');

-- A number literal ::Decimal reads its text
SELECT 0.1::Decimal(38, 38) AS c, toTypeName(c), -1.1::Decimal(20, 18) AS d, CAST(1.5 AS Decimal(10, 2));

-- toStartOfInterval of weeks, months, quarters and years on the moment's own calendar
SELECT toStartOfInterval(toDateTime64('2020-01-09 12:00:01', 3, 'US/Samoa'), INTERVAL 1 WEEK) a, toStartOfInterval(toDateTime('2020-01-09 12:00:01', 'US/Samoa'), INTERVAL 3 WEEK) b, toStartOfInterval(toDateTime('2020-01-01 02:00:01', 'Asia/Tokyo'), INTERVAL 5 MONTH) c, toStartOfInterval(toDateTime('2020-01-01 02:00:01', 'Asia/Tokyo'), INTERVAL 2 QUARTER) d;
SELECT toStartOfInterval(toDateTime('2021-01-01 02:00:01', 'Asia/Tokyo'), INTERVAL 3 YEAR) e, toStartOfInterval(toDate('2020-01-09'), INTERVAL 3 WEEK) f, toStartOfInterval(toDateTime('1970-01-02 00:00:00', 'UTC'), INTERVAL 100 YEAR) g, toStartOfInterval(toDateTime('1970-01-02 00:00:00', 'UTC'), INTERVAL 2 WEEK) h, toTypeName(h);
SELECT d, toStartOfInterval(d, INTERVAL 2 WEEK), toStartOfInterval(d, INTERVAL 1 MONTH), toStartOfInterval(d, INTERVAL 4 MONTH), toStartOfInterval(d, INTERVAL 1 QUARTER), toStartOfInterval(d, INTERVAL 1 YEAR), toStartOfInterval(d, INTERVAL 5 YEAR) FROM (SELECT toDateTime('2019-12-31 20:00:00', 'America/New_York') + number * 86400 * 45 AS d FROM numbers(5));

-- ntile, cume_dist and percent_rank refuse the frames ClickHouse refuses
SELECT b, ntile(2) OVER (ORDER BY b), ntile(3) OVER (ORDER BY b RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), cume_dist() OVER (PARTITION BY b % 2), percent_rank() OVER (ORDER BY b RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM (SELECT number AS b FROM numbers(5)) ORDER BY b;
SELECT ntile(2) OVER (PARTITION BY number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT ntile(2) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT ntile(2) OVER (ORDER BY number RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT cume_dist() OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT percent_rank() OVER (ORDER BY number RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
