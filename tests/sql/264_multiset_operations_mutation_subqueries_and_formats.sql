-- INTERSECT and EXCEPT (ALL by default, as intersect_default_mode and
-- except_default_mode say) count copies: a row twice on the left and once
-- on the right is kept once by INTERSECT and once by EXCEPT.
SELECT * FROM (SELECT 0 FROM numbers(3) INTERSECT SELECT 0 FROM numbers(1));
SELECT * FROM (SELECT 0 FROM numbers(3) EXCEPT SELECT 0 FROM numbers(1));
SELECT * FROM (SELECT number % 3 FROM numbers(7) INTERSECT ALL SELECT number % 2 FROM numbers(5)) ORDER BY 1;
SELECT * FROM (SELECT number % 3 FROM numbers(7) EXCEPT ALL SELECT number % 2 FROM numbers(5)) ORDER BY 1;
SELECT * FROM (SELECT number % 3 AS a, toString(number % 2) AS b FROM numbers_mt(20) INTERSECT SELECT number % 2, toString(number % 4) FROM numbers_mt(15)) ORDER BY a, b;
SELECT * FROM (SELECT number % 3 AS a, toString(number % 2) AS b FROM numbers_mt(20) EXCEPT SELECT number % 2, toString(number % 4) FROM numbers_mt(15)) ORDER BY a, b;
SELECT * FROM (SELECT number % 3 FROM numbers(20) INTERSECT DISTINCT SELECT number % 2 FROM numbers(15)) ORDER BY 1;
-- NULLs are equal to each other here, and counted as any value is.
SELECT * FROM (SELECT if(number % 3 = 0, NULL, number % 2) AS a FROM numbers(20) INTERSECT SELECT if(number % 2 = 0, NULL, 1) FROM numbers(5)) ORDER BY a;
-- An IN keeps every row whose value is on the right, however often.
SELECT count() FROM (SELECT number % 3 AS a FROM numbers(20) WHERE a IN (SELECT number % 2 FROM numbers(5)));
-- Sorted inputs take the merge join, which counts copies too.
SELECT count(), sum(k) FROM (SELECT intDiv(number, 3) AS k FROM numbers(30) INTERSECT SELECT intDiv(number, 2) FROM numbers(12));

-- Mutations: subqueries run once before the rows are rewritten; functions
-- that exist only simplified (coalesce) work in conditions and values.
CREATE TABLE mut (k UInt32, v Nullable(Int64), s String) ENGINE = MergeTree ORDER BY k;
INSERT INTO mut SELECT number, if(number % 3 = 0, NULL, number * 10), toString(number) FROM numbers(10);
CREATE TABLE keys (k UInt32) ENGINE = Memory;
INSERT INTO keys VALUES (2), (5), (7);
ALTER TABLE mut UPDATE v = coalesce(v, -1) WHERE 1 SETTINGS mutations_sync = 2;
ALTER TABLE mut UPDATE s = 'picked' WHERE k IN (SELECT k FROM keys) SETTINGS mutations_sync = 2;
ALTER TABLE mut DELETE WHERE k NOT IN (SELECT k FROM keys) AND ifNull(v, 0) > 60 SETTINGS mutations_sync = 2;
DELETE FROM mut WHERE k = (SELECT min(k) FROM keys);
SELECT * FROM mut ORDER BY k;
ALTER TABLE mut UPDATE s = 'x' WHERE k = (SELECT k FROM keys) SETTINGS mutations_sync = 2; -- { serverError INCORRECT_RESULT_OF_SCALAR_SUBQUERY }
DROP TABLE mut;
DROP TABLE keys;

-- PARTITION names a partition by its key's value: a tuple for a key of
-- several expressions, a date's text for a Date key.
CREATE TABLE pt (d Date, s String, k UInt8) ENGINE = MergeTree PARTITION BY (toYYYYMM(d), s) ORDER BY k;
INSERT INTO pt VALUES ('2024-01-02', 'a', 1), ('2024-02-02', 'b', 2), ('2024-02-03', 'b', 3);
ALTER TABLE pt DROP PARTITION (202401, 'a');
SELECT * FROM pt ORDER BY k;
ALTER TABLE pt DROP PARTITION 202402; -- { serverError INVALID_PARTITION_VALUE }
ALTER TABLE pt DETACH PARTITION tuple(202402, 'b');
SELECT count() FROM pt;
ALTER TABLE pt ATTACH PARTITION (202402, 'b');
SELECT count() FROM pt;
DROP TABLE pt;
CREATE TABLE pd (d Date, k UInt8) ENGINE = MergeTree PARTITION BY d ORDER BY k;
INSERT INTO pd VALUES ('2024-01-02', 1), ('2024-01-03', 2);
ALTER TABLE pd DROP PARTITION '2024-01-02';
OPTIMIZE TABLE pd PARTITION '2024-01-03' FINAL;
SELECT partition, partition_id, rows FROM system.parts WHERE database = currentDatabase() AND table = 'pd' AND active;
DROP TABLE pd;
TRUNCATE TABLE IF EXISTS no_such_table_264;

-- groupConcat(x, delimiter), arrayExists and arrayAll of an array of
-- conditions, windowFunnel's modes.
SELECT groupConcat(s, '|'), group_concat(s, ', ') FROM (SELECT arrayJoin(['a', 'b', 'c']) AS s);
SELECT arrayExists([0, 0, 1]), arrayAll([1, 1]), arrayAll([1, 0]), arrayExists(x -> x > 2, [1, 2]);
CREATE TABLE funnel (u UInt8, t DateTime, e UInt8) ENGINE = Memory;
INSERT INTO funnel VALUES (1, '2024-01-01 00:00:00', 1), (1, '2024-01-01 00:00:01', 3), (1, '2024-01-01 00:00:02', 2), (1, '2024-01-01 00:00:03', 3),
    (2, '2024-01-01 00:00:00', 1), (2, '2024-01-01 00:00:01', 2), (2, '2024-01-01 00:00:01', 2), (2, '2024-01-01 00:00:02', 3),
    (3, '2024-01-01 00:00:00', 1), (3, '2024-01-01 00:00:00', 2), (3, '2024-01-01 00:00:05', 3), (3, '2024-01-01 00:00:06', 9);
SELECT u,
    windowFunnel(10)(t, e = 1, e = 2, e = 3),
    windowFunnel(10, 'strict_order')(t, e = 1, e = 2, e = 3),
    windowFunnel(10, 'strict_deduplication')(t, e = 1, e = 2, e = 3),
    windowFunnel(10, 'strict_increase')(t, e = 1, e = 2, e = 3)
FROM funnel GROUP BY u ORDER BY u;
SELECT windowFunnel(10, 'no_such_mode')(t, e = 1) FROM funnel; -- { serverError BAD_ARGUMENTS }
DROP TABLE funnel;

-- toStartOfInterval from an origin, timeSlots.
SELECT toStartOfInterval(toDateTime('2024-01-01 00:38:00'), INTERVAL 15 MINUTE, toDateTime('2024-01-01 00:07:00')),
    toStartOfInterval(toDateTime('2024-01-01 05:00:00'), INTERVAL 2 HOUR, toDateTime('2024-01-01 00:30:00')),
    toStartOfInterval(toDate('2024-01-20'), INTERVAL 1 WEEK, toDate('2024-01-03'));
SELECT timeSlots(toDateTime('2012-01-01 12:20:00'), toUInt32(600)), timeSlots(toDateTime('1980-12-12 21:01:02', 'UTC'), toUInt32(600), 299);

-- * EXCEPT with a regular expression; the empty null() table function.
CREATE TABLE ex (k UInt32, g String, v Int64, n Nullable(Int32)) ENGINE = Memory;
INSERT INTO ex VALUES (1, 'a', 10, 1), (2, 'b', 20, NULL);
SELECT * EXCEPT ('^[gn]$') FROM ex ORDER BY k;
DROP TABLE ex;
SELECT count(), toTypeName(any(x)) FROM null('x UInt8, s String');

-- Output formats by column, PrettyJSONEachRow, SQLInsert, RawBLOB.
SELECT number AS n, toString(number) AS s, [1, 2] AS a, CAST(NULL AS Nullable(UInt8)) AS z FROM numbers(2) FORMAT JSONColumns;
SELECT number AS n, toString(number) AS s FROM numbers(2) FORMAT JSONCompactColumns;
SELECT number FROM numbers(0) FORMAT JSONColumns;
SELECT number FROM numbers(0) FORMAT JSONCompactColumns;
SELECT number, map('a', [1]) AS m, (1, 'a') AS t, [map('b', 2)] AS am FROM numbers(2) FORMAT PrettyJSONEachRow;
SELECT number, 'a\'b' AS s, [1, 2] AS a, toDate('2024-01-01') AS d FROM numbers(2) FORMAT SQLInsert;
SELECT concat('line', toString(number), '\n') FROM numbers(3) FORMAT RawBLOB;

-- ClickHouse's error codes.
SELECT number FROM numbers(3) WHERE sum(number) > 1; -- { serverError ILLEGAL_AGGREGATION }
