#!/usr/bin/env strata
-- Table TTL: rules in CREATE TABLE and ALTER TABLE MODIFY | REMOVE TTL, DELETE applied by MODIFY TTL and OPTIMIZE, checks of the rules; toInterval functions
SELECT toDate('2020-01-01') + toIntervalMonth(2), toDateTime('2020-01-01 00:00:00') + toIntervalWeek(1), toDate('2020-01-01') + toIntervalQuarter(1), toDateTime('2020-01-01 00:00:00') - toIntervalSecond(5), toDate('2020-01-31') + toIntervalDay(1);
CREATE TABLE w (d Date, a UInt8) ENGINE = MergeTree PARTITION BY d ORDER BY a TTL d + INTERVAL 10 DAY TO DISK 'default', d + toIntervalMonth(2) SETTINGS index_granularity = 1024;
SHOW CREATE TABLE w;
ALTER TABLE w MODIFY TTL d + INTERVAL 5 DAY TO VOLUME 'default';
SHOW CREATE TABLE w;
ALTER TABLE w REMOVE TTL;
SHOW CREATE TABLE w;
INSERT INTO w VALUES ('2000-01-01', 1), ('2100-01-01', 2);
ALTER TABLE w MODIFY TTL d + INTERVAL 1 DAY;
SELECT * FROM w;
SELECT engine_full FROM system.tables WHERE name = 'w';
CREATE TABLE v (d Date, a UInt8) ENGINE = MergeTree ORDER BY a TTL d + INTERVAL 10 DAY TO DISK 'nope'; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE v (d Date, a UInt8) ENGINE = MergeTree ORDER BY a TTL a; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE v (d Date, a UInt8) ENGINE = MergeTree ORDER BY a TTL d + 1 TO VOLUME 'x'; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE v (d Date, a UInt8) ENGINE = MergeTree ORDER BY a TTL d DELETE, d + 1 DELETE; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE p (d DateTime, a UInt64) ENGINE = MergeTree ORDER BY a TTL d + INTERVAL 1 HOUR;
INSERT INTO p SELECT if(number % 2 = 0, toDateTime('2001-01-01 00:00:00'), toDateTime('2100-01-01 00:00:00')), number FROM numbers(50);
OPTIMIZE TABLE p FINAL;
SELECT count(), min(a), max(a) FROM p;
