-- DETACH TABLE keeps the definition and the parts; ATTACH brings the table back.
CREATE TABLE kept (x UInt64, s String) ENGINE = MergeTree ORDER BY x;
INSERT INTO kept VALUES (1, 'a'), (2, 'b');
INSERT INTO kept VALUES (3, 'c');
DETACH TABLE kept;
SELECT * FROM kept; -- { serverError UNKNOWN_TABLE }
EXISTS TABLE kept;
DETACH TABLE kept; -- { serverError UNKNOWN_TABLE }
DETACH TABLE IF EXISTS kept;
CREATE TABLE kept (y UInt8) ENGINE = Memory; -- { serverError TABLE_ALREADY_EXISTS }
ATTACH TABLE kept;
SELECT * FROM kept ORDER BY x;
ATTACH TABLE kept; -- { serverError TABLE_ALREADY_EXISTS }
ATTACH TABLE IF NOT EXISTS kept;
INSERT INTO kept VALUES (4, 'd');
SELECT count(), sum(x) FROM kept;
-- A Memory table keeps its definition but not its rows.
CREATE TABLE in_memory (x UInt8) ENGINE = Memory;
INSERT INTO in_memory VALUES (5);
DETACH TABLE in_memory;
ATTACH TABLE in_memory;
SELECT count() FROM in_memory;
-- Views detach and attach too.
CREATE VIEW kept_view AS SELECT x * 10 AS y FROM kept;
DETACH VIEW kept_view;
SELECT * FROM kept_view; -- { serverError UNKNOWN_TABLE }
ATTACH TABLE kept_view;
SELECT sum(y) FROM kept_view;
ATTACH TABLE never_made; -- { serverError CANNOT_GET_CREATE_TABLE_QUERY }
