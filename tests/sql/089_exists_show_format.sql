-- EXISTS, trailing FORMAT after SHOW, EXISTS and KILL, query-level settings in CREATE TABLE.
CREATE TABLE t1 (a UInt64) ENGINE = MergeTree ORDER BY a SETTINGS enable_time_time64_type = 1, index_granularity = 100;
SHOW CREATE TABLE t1;
CREATE TABLE t2 (a UInt64) ENGINE = MergeTree ORDER BY a SETTINGS allow_suspicious_low_cardinality_types = 1, allow_suspicious_variant_types = 1;
CREATE TABLE t3 (a UInt64) ENGINE = MergeTree ORDER BY a SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
EXISTS TABLE t1;
EXISTS t1;
EXISTS default.t1;
EXISTS TEMPORARY TABLE t1;
EXISTS TABLE nope;
EXISTS TABLE nope.t;
EXISTS DATABASE default;
EXISTS DATABASE nope;
EXISTS VIEW t1;
EXISTS DICTIONARY t1;
CREATE VIEW v AS SELECT 1;
EXISTS VIEW v;
EXISTS TABLE v;
CREATE TEMPORARY TABLE tmp (a UInt8);
EXISTS TEMPORARY TABLE tmp;
EXISTS tmp;
EXISTS t1 FORMAT TSVWithNamesAndTypes;
SHOW TABLES FORMAT TSVWithNames;
SHOW TABLES FROM default FORMAT JSONCompactEachRow;
SHOW CREATE TABLE t1 FORMAT TSVRaw;
KILL QUERY WHERE query_id = 'no such query' TEST FORMAT TabSeparated;
