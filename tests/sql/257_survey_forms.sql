-- TIMESTAMP in any letter case
SELECT TIMESTAMP('2003-12-31'), Timestamp('2003-12-31 12:00:00', '12:00:00'), timestamp(materialize('2003-12-31'));

-- A Date has no clock to move by a fraction of a second
SELECT toDate('2001-09-29') + INTERVAL 1 HOUR AS x, toTypeName(x), toDateTime('2001-09-29 00:00:00', 'UTC') + INTERVAL 12345 MILLISECOND AS y, toTypeName(y);
SELECT toDate('2001-09-29') + INTERVAL 12345 MILLISECOND; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDate('2001-09-29') - INTERVAL 12345 MICROSECOND; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDate32('2001-09-29') + INTERVAL 1 NANOSECOND; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- A Decimal256 with a float is a Float64
SELECT toDecimal256(-25.5, 40) + toFloat32(-2.5) AS x, toTypeName(x), toDecimal256(2, 10) * 1.5 AS y, toTypeName(y);

-- Inline data ends at a blank line
DROP TABLE IF EXISTS inline_rows;
CREATE TABLE inline_rows (v1 String, v2 UInt8, v3 UInt16, v4 UInt8) ENGINE = Memory;
INSERT INTO inline_rows FORMAT JSONCompactEachRow ["first", 1, "2", null] ["second", 2, null, 6]

SELECT * FROM inline_rows ORDER BY v1;
INSERT INTO inline_rows FORMAT TSV third	3	3	3
fourth	4	4	4

SELECT count() FROM inline_rows;
DROP TABLE inline_rows;

-- A NULL element of an array whose elements cannot be NULL is their default
SELECT CAST('[1,NULL]' AS Array(UInt32)), CAST('[[1],NULL]', 'Array(Array(UInt8))'), CAST('[''a'',NULL]', 'Array(String)');
DROP TABLE IF EXISTS null_elements;
CREATE TABLE null_elements (n UInt8, a Array(UInt32)) ENGINE = Memory;
INSERT INTO null_elements FORMAT JSONCompactEachRow [1, [15, 16, null]]

INSERT INTO null_elements FORMAT JSONEachRow {"n": 2, "a": [null, 3]}

INSERT INTO null_elements FORMAT TSV 3	[1,NULL]

SELECT * FROM null_elements ORDER BY n;
DROP TABLE null_elements;
