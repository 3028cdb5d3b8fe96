-- MergeTree's virtual columns _part and _partition_id: readable and filterable
-- by name, left out of SELECT *, hidden by a real column of the same name.
CREATE TABLE v (k UInt64, s String) ENGINE = MergeTree PARTITION BY intDiv(k, 40) ORDER BY k SETTINGS index_granularity = 8;
INSERT INTO v SELECT number, toString(number) FROM numbers(100);
INSERT INTO v SELECT number + 100, toString(number) FROM numbers(50);
SELECT _partition_id, _part, count(), min(k), max(k) FROM v GROUP BY _partition_id, _part ORDER BY _part;
SELECT * FROM v WHERE _partition_id = '2' ORDER BY k LIMIT 3;
SELECT count() FROM v WHERE _part IN ('0_1_1_0', '3_5_5_0') AND k > 30;
SELECT *, _part FROM v ORDER BY k LIMIT 2;
SELECT v.*, v._partition_id FROM v ORDER BY k DESC LIMIT 2;
SELECT * EXCEPT (s), _partition_id FROM v ORDER BY k LIMIT 1;
SELECT * FROM (SELECT k, _part FROM v) ORDER BY k LIMIT 1;
SELECT * FROM v WHERE k IN (SELECT k FROM v WHERE _partition_id = '3') ORDER BY k LIMIT 2;
WITH x AS (SELECT k, _partition_id AS p FROM v) SELECT * FROM x ORDER BY k DESC LIMIT 1;
SELECT * FROM v ORDER BY k LIMIT 1;
SELECT count() FROM v WHERE _part = 'no_such_part';
OPTIMIZE TABLE v FINAL;
SELECT _part, count() FROM v GROUP BY _part ORDER BY _part;
SELECT _nope FROM v; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE w (k UInt64, _part String) ENGINE = MergeTree ORDER BY k;
INSERT INTO w VALUES (1, 'mine');
SELECT _part, _partition_id FROM w;
SELECT * FROM w;
