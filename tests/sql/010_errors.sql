-- Errors carry ClickHouse's codes; the session goes on after each.
SELEC 1; -- { serverError SYNTAX_ERROR }
SELECT 1 FROM; -- { serverError SYNTAX_ERROR }
SELECT (1; -- { serverError SYNTAX_ERROR }
SELECT * FROM no_such_table; -- { serverError UNKNOWN_TABLE }
SELECT no_such_column FROM numbers(1); -- { serverError UNKNOWN_IDENTIFIER }
SELECT nosuchfunction(1); -- { serverError UNKNOWN_FUNCTION }
SELECT 'still alive';
SELECT toUInt8('x'); -- { serverError CANNOT_PARSE_TEXT }
SELECT 2;
