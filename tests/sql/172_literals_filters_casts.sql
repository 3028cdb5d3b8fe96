-- 0x... is a number; x'...' a string.
SELECT 0x7f000001, toTypeName(0x7f000001), 0xFF + 1, x'41' = 'A';
-- f(args) FILTER (WHERE cond) is the -If combinator.
SELECT argMax(number, number) FILTER (WHERE number < 5), count() FILTER (WHERE number % 2 = 0), sum(number) FILTER (WHERE number > 7) FROM numbers(10);
-- CAST of a UUID or an IP address to String is its text.
SELECT CAST(toUUID('00000000-0000-0000-0000-000000000001') AS String), CAST(toIPv4('1.2.3.4') AS String), CAST(toIPv6('::1') AS String);
SELECT CAST(toIPv4('10.0.0.1'), 'String'), CAST(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0'), 'Nullable(String)');
-- length of a Map counts its keys.
SELECT length(map(1, 2, 3, 4)), length(map('a', 1)), length(m) FROM (SELECT map('x', number) AS m FROM numbers(1));
-- ADD COLUMN takes ClickHouse's nested types.
CREATE TABLE widened (a UInt8) ENGINE = MergeTree ORDER BY a;
INSERT INTO widened VALUES (1);
ALTER TABLE widened ADD COLUMN tags Array(String);
ALTER TABLE widened ADD COLUMN pairs Array(Tuple(String, UInt8)) AFTER a;
INSERT INTO widened VALUES (2, [('p', 1)], ['x', 'y']);
SELECT * FROM widened ORDER BY a;
DESCRIBE widened;
-- Intervals show the count of their unit.
SELECT INTERVAL 2 year, INTERVAL 3 day, INTERVAL 5 minute, toIntervalQuarter(2), toIntervalWeek(3), toIntervalMillisecond(1500);
SELECT toTypeName(INTERVAL 2 year), toTypeName(toIntervalHour(1));
-- system.numbers_mt and system.zeros_mt.
SELECT number FROM (SELECT * FROM system.numbers_mt LIMIT 3) ORDER BY number;
SELECT count() FROM (SELECT * FROM system.zeros_mt LIMIT 5);
-- An array of pairs casts to a Map.
SELECT CAST([('a', 1), ('b', 2)], 'Map(String, UInt8)'), CAST([(1, 'x')] AS Map(UInt64, String)), CAST(arr, 'Map(String, UInt64)') FROM (SELECT number, [('k', number)] AS arr FROM numbers(2)) ORDER BY number;
-- Filters on number narrow what numbers() generates.
SELECT count() FROM numbers(1e12) WHERE number IN (123, 456);
SELECT number FROM numbers(10, 1e12) WHERE number IN (7, 1000000000000, 999999999999, 20) ORDER BY number;
SELECT sum(number) FROM numbers_mt(1e12) WHERE number BETWEEN 500000000000 AND 500000000009 OR number = 3;
SELECT number FROM system.numbers WHERE number < 3 AND number >= 1 ORDER BY number;
SELECT count() FROM numbers(100) WHERE number > 90 AND number % 2 = 0;
SELECT count() FROM numbers(100) WHERE number < 0;
