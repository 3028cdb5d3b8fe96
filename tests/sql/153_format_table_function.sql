-- format(Format, 'structure', data): rows in the query, read as INSERT ... FORMAT reads them
SELECT * FROM format(CSV, 'x UInt8, s String', '1,"a"
2,"b"');
SELECT * FROM format('TSV', 'x UInt8, s String', '1\ta\n2\tb') ORDER BY x DESC;
SELECT x, s, toTypeName(x) FROM format(JSONEachRow, 'x UInt8, s String', '{"x":1,"s":"a"} {"x":2}') ORDER BY x;
SELECT sum(x), groupArray(s) FROM format(CSVWithNames, 'x UInt32, s Nullable(String)', 'x,s
10,\N
20,q');
SELECT x, s, isNull(s), n, isNull(n) FROM format(CSV, 'x UInt32, s Nullable(String), n Nullable(UInt8)', '10,,
20,"",
30,q,5');
SELECT * FROM format(TSVWithNames, 'b String, a Date', 'a\tb\n2024-01-02\tz');
DROP TABLE IF EXISTS ff_t;
CREATE TABLE ff_t (x UInt8, s String) ENGINE = Memory;
INSERT INTO ff_t SELECT * FROM format(CSV, 'x UInt8, s String', '1,"a"
2,"b"');
INSERT INTO ff_t SELECT * FROM format(JSONEachRow, 'x UInt8, s String', '{"x":3,"s":"c"}');
SELECT * FROM ff_t ORDER BY x;
SELECT * FROM format(NoSuchFormat, 'x UInt8', '1'); -- { serverError UNKNOWN_FORMAT }
DROP TABLE ff_t;
