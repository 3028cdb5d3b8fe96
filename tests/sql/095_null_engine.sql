#!/usr/bin/env strata
-- The Null table engine: inserts are accepted and pass to materialized views; nothing is kept.
CREATE TABLE nsrc (k UInt32, v String) ENGINE = Null;
CREATE TABLE ndst (k UInt32, n UInt64) ENGINE = MergeTree ORDER BY k;
CREATE MATERIALIZED VIEW nmv TO ndst AS SELECT k, length(v) AS n FROM nsrc;
INSERT INTO nsrc VALUES (1, 'a'), (2, 'bb');
INSERT INTO nsrc SELECT number, repeat('x', number) FROM numbers(4);
INSERT INTO nsrc FORMAT CSV 9,nine
;
SELECT count() FROM nsrc;
SELECT * FROM nsrc;
SELECT k, n FROM ndst ORDER BY k, n;
SHOW CREATE TABLE nsrc;
SELECT engine, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'nsrc';
SELECT name FROM system.table_engines WHERE name IN ('Null', 'Memory') ORDER BY name;
ALTER TABLE nsrc ADD COLUMN w UInt8;
SHOW CREATE TABLE nsrc;
