-- CAST(x, 'Type') in any case, and DateTime64 without a precision.
SELECT CAST(1, 'String'), cast(NULL, 'Nullable(Float64)'), Cast('1.5', 'Float64'), CAST(2 AS String) FORMAT JSONCompactEachRowWithNames;
SELECT CAST(1, 'String') AS x, toTypeName(x) FORMAT TSVWithNames;
SELECT toTypeName(cast(NULL, 'Nullable(Float64)')), toTypeName(CAST('2020-01-01', 'Date')), CAST(300, 'UInt8');
SELECT toTypeName(CAST('2020-01-01 00:00:00', 'DateTime64')), CAST('2020-01-01 00:00:00', 'DateTime64');
SELECT toTypeName(CAST('2020-01-01 00:00:00' AS DateTime64)), toTypeName(toDateTime64('2020-01-01 00:00:00', 6)::DateTime64);
CREATE TABLE d64 (a DateTime64, b DateTime64(6), c Nullable(DateTime64), d Array(DateTime64)) ENGINE = Memory;
DESCRIBE d64;
INSERT INTO d64 VALUES ('2020-01-02 03:04:05.678', '2020-01-02 03:04:05.123456', NULL, ['2020-01-01 00:00:00']);
SELECT * FROM d64;
