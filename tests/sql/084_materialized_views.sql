-- A materialized view runs each block inserted into its source through its query into its target.
CREATE TABLE src (k UInt32, v UInt64, s String) ENGINE = MergeTree ORDER BY k;
CREATE TABLE totals (k UInt32, total UInt64, n UInt64) ENGINE = SummingMergeTree ORDER BY k;
CREATE TABLE copies (s String, k UInt32, extra UInt8 DEFAULT 7) ENGINE = MergeTree ORDER BY k;
CREATE MATERIALIZED VIEW by_key TO totals AS SELECT k, sum(v) AS total, count() AS n FROM src GROUP BY k;
CREATE MATERIALIZED VIEW upper TO copies AS SELECT upper(s) AS s, k FROM src WHERE v > 10;
INSERT INTO src VALUES (1, 10, 'a'), (2, 20, 'b'), (1, 5, 'c');
INSERT INTO src SELECT number % 3, number, toString(number) FROM numbers(30);
INSERT INTO src FORMAT CSV 2,100,"z"
;
SELECT * FROM totals FINAL ORDER BY k;
SELECT k, sum(total), sum(n) FROM by_key GROUP BY k ORDER BY k;
SELECT s, k, extra FROM copies ORDER BY k, s;
SELECT count() FROM src;
SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name;
DROP TABLE upper;
INSERT INTO src VALUES (5, 50, 'after');
SELECT count() FROM copies;
SELECT * FROM totals FINAL WHERE k = 5;
CREATE MATERIALIZED VIEW bad TO totals AS SELECT nope FROM src; -- { serverError UNKNOWN_IDENTIFIER }
CREATE MATERIALIZED VIEW bad TO no_such_table AS SELECT k FROM src; -- { serverError UNKNOWN_TABLE }
