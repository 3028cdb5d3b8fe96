-- Errors carry ClickHouse's codes; the session goes on after each.
SELEC 1; -- { serverError SYNTAX_ERROR }
SELECT 1 FROM; -- { serverError SYNTAX_ERROR }
SELECT (1; -- { serverError SYNTAX_ERROR }
SELECT * FROM no_such_table; -- { serverError UNKNOWN_TABLE }
SELECT * FROM no_such_db.t; -- { serverError UNKNOWN_DATABASE }
INSERT INTO no_such_db.t VALUES (1); -- { serverError UNKNOWN_DATABASE }
SELECT * FROM system.no_such_table; -- { serverError UNKNOWN_TABLE }
SELECT count() FROM numbers(3) WHERE number IN (SELECT number FROM no_such_db.t); -- { serverError UNKNOWN_DATABASE }
WITH no_such_table AS (SELECT 1 AS x) SELECT x FROM no_such_table;
SELECT no_such_column FROM numbers(1); -- { serverError UNKNOWN_IDENTIFIER }
SELECT nosuchfunction(1); -- { serverError UNKNOWN_FUNCTION }
SELECT 'still alive';
SELECT toUInt8('x'); -- { serverError CANNOT_PARSE_TEXT }
SELECT 2;
