-- generateRandom: random rows of a structure. The values differ from ClickHouse's
-- (another generator); their types, counts and bounds do not.
SELECT count() FROM (SELECT * FROM generateRandom('a UInt8, s String', 1) LIMIT 1000);
SELECT toTypeName(a), toTypeName(s), toTypeName(arr), toTypeName(m), toTypeName(d) FROM generateRandom('a Nullable(UInt8), s LowCardinality(String), arr Array(Tuple(UInt8, String)), m Map(String, Int16), d DateTime64(3, ''UTC'')') LIMIT 1;
SELECT max(length(s)) <= 5, max(length(arr)) <= 3, min(d32) >= '1900-01-01', max(d32) <= '2299-12-31', max(length(fs)) FROM (SELECT * FROM generateRandom('s String, arr Array(UInt8), d32 Date32, fs FixedString(4)', 42, 5, 3) LIMIT 2000);
SELECT countIf(n IS NULL) BETWEEN 1 AND 200, countIf(n IS NOT NULL) > 800 FROM (SELECT n FROM generateRandom('n Nullable(UInt8)', 5) LIMIT 1000);
SELECT e IN ('x', 'y') FROM generateRandom('e Enum8(''x'' = 1, ''y'' = 5)', 1) LIMIT 3;
SELECT max(abs(dec)) < 1000 FROM (SELECT dec FROM generateRandom('dec Decimal(5, 2)', 3) LIMIT 1000);
SELECT max(length(s)), max(length(arr)) FROM (SELECT * FROM generateRandom('s String, arr Array(String)', NULL, 0, 0) LIMIT 100);
-- The same seed gives the same rows.
SELECT (SELECT groupArray(a) FROM (SELECT a FROM generateRandom('a UInt64, s String', 9) LIMIT 20)) = (SELECT groupArray(a) FROM (SELECT a FROM generateRandom('a UInt64, s String', 9) LIMIT 20));
DROP TABLE IF EXISTS random_rows;
CREATE TABLE random_rows (k UInt32, s String) ENGINE = MergeTree ORDER BY k;
INSERT INTO random_rows SELECT * FROM generateRandom('k UInt32, s String', 3) LIMIT 10000;
SELECT count(), max(length(s)) <= 10 FROM random_rows;
DROP TABLE random_rows;
SELECT * FROM generateRandom('a UInt8', 1, 10, 10, 5) LIMIT 1; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT * FROM generateRandom('a Interval') LIMIT 1; -- { serverError UNKNOWN_TYPE }
