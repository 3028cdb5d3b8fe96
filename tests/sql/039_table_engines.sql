-- The MergeTree family's engines: rows of one key combine at insert, at merges and under FINAL; the Log family keeps insertion order.
CREATE TABLE r (k UInt32, v String, ver UInt32) ENGINE = ReplacingMergeTree(ver) ORDER BY k;
INSERT INTO r VALUES (1, 'a', 2), (1, 'b', 1), (2, 'c', 0);
SELECT * FROM r ORDER BY k;
INSERT INTO r VALUES (1, 'z', 1), (2, 'd', 5);
SELECT * FROM r ORDER BY k, v;
SELECT * FROM r FINAL ORDER BY k;
SELECT k, v FROM r FINAL WHERE ver > 1 ORDER BY k;
SELECT count() FROM r FINAL;
OPTIMIZE TABLE r FINAL;
SELECT * FROM r ORDER BY k;
CREATE TABLE rl (k UInt32, v String) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO rl VALUES (1, 'first'), (1, 'second');
INSERT INTO rl VALUES (1, 'third'), (2, 'x');
SELECT * FROM rl FINAL ORDER BY k;
CREATE TABLE rd (k UInt32, ver UInt8, d UInt8) ENGINE = ReplacingMergeTree(ver, d) ORDER BY k;
INSERT INTO rd VALUES (1, 1, 0), (1, 2, 1), (2, 1, 0);
SELECT * FROM rd ORDER BY k;
SELECT * FROM rd FINAL ORDER BY k;
CREATE TABLE rs (k UInt32, ver Int32, t DateTime) ENGINE = ReplacingMergeTree(ver) ORDER BY k;
INSERT INTO rs VALUES (1, -5, '2024-01-01 00:00:00'), (1, -7, '2024-01-02 00:00:00');
SELECT * FROM rs FINAL;
CREATE TABLE s (k UInt32, a UInt64, b Float64, c String, n UInt8) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO s VALUES (1, 1, 1.5, 'x', 200), (1, 2, 2.5, 'y', 100), (2, 0, 0, 'z', 0);
SELECT * FROM s ORDER BY k;
INSERT INTO s VALUES (1, 10, 0, 'w', 1), (3, 5, 0, 'v', 0);
SELECT * FROM s FINAL ORDER BY k;
SELECT k, sum(a) FROM s GROUP BY k ORDER BY k;
CREATE TABLE s2 (k UInt32, a UInt8, b UInt8) ENGINE = SummingMergeTree((a)) ORDER BY k;
INSERT INTO s2 VALUES (1, 200, 1), (1, 100, 2);
SELECT * FROM s2;
CREATE TABLE c (k UInt32, v UInt32, sign Int8) ENGINE = CollapsingMergeTree(sign) ORDER BY k;
INSERT INTO c VALUES (1, 10, 1), (1, 10, -1), (1, 20, 1), (2, 5, 1);
SELECT * FROM c ORDER BY k, v;
INSERT INTO c VALUES (2, 5, -1), (3, 7, -1), (3, 8, 1);
SELECT * FROM c FINAL ORDER BY k, v;
SELECT k, sum(v * sign) FROM c GROUP BY k HAVING sum(sign) > 0 ORDER BY k;
CREATE TABLE l (a UInt8, s String) ENGINE = Log;
INSERT INTO l VALUES (3, 'c'), (1, 'a');
INSERT INTO l VALUES (2, 'b');
SELECT * FROM l;
CREATE TABLE tl (a UInt8) ENGINE = TinyLog;
INSERT INTO tl SELECT number FROM numbers(5);
SELECT sum(a), count() FROM tl;
CREATE TABLE sl (a UInt8) ENGINE = StripeLog;
INSERT INTO sl VALUES (9), (8);
SELECT * FROM sl;
CREATE TABLE ls (a UInt8) ENGINE = Log SETTINGS any_name = 1;
SHOW CREATE TABLE ls;
SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name;
ALTER TABLE l DELETE WHERE a = 1; -- { serverError NOT_IMPLEMENTED }
SELECT * FROM l FINAL; -- { serverError ILLEGAL_FINAL }
CREATE TABLE m (a UInt8) ENGINE = MergeTree ORDER BY a;
SELECT * FROM m FINAL; -- { serverError ILLEGAL_FINAL }
CREATE TABLE bad1 (a UInt8) ENGINE = Log ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad2 (k UInt32, v String) ENGINE = ReplacingMergeTree(v) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad3 (k UInt32, v String) ENGINE = ReplacingMergeTree(nope) ORDER BY k; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
CREATE TABLE bad4 (k UInt32, s UInt8) ENGINE = CollapsingMergeTree(s) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad5 (k UInt32, s Int8) ENGINE = CollapsingMergeTree ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
