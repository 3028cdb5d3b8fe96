-- A view is its query, read whenever the view is; it follows the tables it reads.
CREATE TABLE base (a UInt32, s String) ENGINE = MergeTree ORDER BY a;
INSERT INTO base VALUES (1, 'x'), (2, 'y'), (3, 'z');
CREATE VIEW big AS SELECT a, s FROM base WHERE a > 1;
SELECT * FROM big ORDER BY a;
INSERT INTO base VALUES (4, 'w');
SELECT count(), sum(a) FROM big;
SELECT b.s FROM big AS b WHERE b.a = 4;
DESCRIBE big;
SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name;
CREATE VIEW bigger AS SELECT a * 10 AS a10 FROM big;
SELECT a10 FROM bigger ORDER BY a10;
SELECT x.a, y.a10 FROM big AS x JOIN bigger AS y ON x.a * 10 = y.a10 ORDER BY x.a;
WITH t AS (SELECT a FROM big) SELECT max(a) FROM t;
SELECT a FROM base WHERE a IN (SELECT a FROM big) ORDER BY a;
CREATE VIEW big AS SELECT 1; -- { serverError TABLE_ALREADY_EXISTS }
CREATE VIEW IF NOT EXISTS big AS SELECT 1;
CREATE OR REPLACE VIEW big AS SELECT a FROM base WHERE a < 3;
SELECT * FROM big ORDER BY a;
INSERT INTO big VALUES (9); -- { serverError NOT_IMPLEMENTED }
CREATE VIEW broken AS SELECT nope FROM base; -- { serverError UNKNOWN_IDENTIFIER }
CREATE VIEW missing AS SELECT * FROM no_such_table; -- { serverError UNKNOWN_TABLE }
DROP VIEW bigger;
DROP TABLE big;
SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name;
