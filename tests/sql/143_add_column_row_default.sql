-- ALTER TABLE ADD COLUMN with a DEFAULT over other columns: rows written before it take the expression's value
DROP TABLE IF EXISTS t_add_default;
CREATE TABLE t_add_default (a UInt32) ENGINE = MergeTree ORDER BY a;
INSERT INTO t_add_default VALUES (1), (2);
INSERT INTO t_add_default VALUES (3);
ALTER TABLE t_add_default ADD COLUMN b UInt32 DEFAULT a * 10;
SELECT a, b FROM t_add_default ORDER BY a;
SELECT a, b FROM t_add_default WHERE b > 10 ORDER BY a;
ALTER TABLE t_add_default ADD COLUMN c UInt8 DEFAULT 7, ADD COLUMN d String DEFAULT toString(a + c);
INSERT INTO t_add_default (a, c) VALUES (4, 1);
SELECT a, b, c, d FROM t_add_default ORDER BY a;
ALTER TABLE t_add_default ADD COLUMN e UInt32;
SELECT sum(e), count() FROM t_add_default;
DROP TABLE t_add_default;
