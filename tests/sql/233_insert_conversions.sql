-- INSERT ... SELECT wraps integers out of a column's range, as CAST does.
CREATE TABLE wrapped (x UInt8, y Int16, z Nullable(UInt8), ip IPv4) ENGINE = Memory;
INSERT INTO wrapped SELECT number, number * 200, number, 16909060 FROM numbers(254, 3);
INSERT INTO wrapped (x, y) SELECT -1, 40000;
SELECT * FROM wrapped;
SELECT toTypeName(x), toTypeName(z), toTypeName(ip) FROM wrapped LIMIT 1;
