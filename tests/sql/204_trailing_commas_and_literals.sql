-- Trailing commas ClickHouse reads: after the last column of a SELECT, of
-- a CREATE TABLE, of an INSERT's column list and of a VALUES row.
CREATE TABLE tc (a UInt8, b UInt8,) ENGINE = Memory;
INSERT INTO tc (a, b, ) VALUES (1, 2);
INSERT INTO tc (a, b) VALUES (3, 4,) (5, 6,);
INSERT INTO tc VALUES (7, 8,), (9, 10);
SELECT a, b, FROM tc ORDER BY a;
SELECT 1, 2,;
-- In a function's arguments it stays an error.
SELECT plus(1, 2,); -- { serverError SYNTAX_ERROR }
DROP TABLE tc;

-- A tuple of one element.
SELECT (1,), ((1,),), (1, 2), toTypeName((1,)), 1 IN (1,), ('a',) = tuple('a');

-- Numbers with underscores, and the typeset minus sign.
SELECT 1_000_000, 0x12_34, 0b1_0, 1_0.5;
SELECT 1 − 2, 10 −3;

-- Names that start with digits and contain underscores.
CREATE TABLE 03314_digits_t (x UInt8) ENGINE = Memory;
INSERT INTO 03314_digits_t VALUES (1);
SELECT * FROM 03314_digits_t;
DROP TABLE 03314_digits_t;

-- A WITH before INSERT belongs to the inserted SELECT.
CREATE TABLE wi (n UInt64) ENGINE = Memory;
WITH y AS (SELECT number FROM numbers(3)) INSERT INTO wi SELECT * FROM y;
WITH y AS (SELECT number + 10 AS number FROM numbers(2)) INSERT INTO wi SELECT * FROM (SELECT * FROM y);
WITH y AS (SELECT 1) INSERT INTO wi WITH z AS (SELECT 2) SELECT * FROM z; -- { serverError SYNTAX_ERROR }
SELECT * FROM wi ORDER BY n;
DROP TABLE wi;

-- addDate / subDate and replicate.
SELECT ADDDATE(materialize('2022-05-07'::Date), INTERVAL 5 MINUTE), addDate(toDate('2022-05-07'), INTERVAL 5 DAY), subDate(toDate('2022-05-07'), INTERVAL 5 DAY);
SELECT replicate(number, [1, 2]), replicate('a', []), replicate([1], [3, 4]) FROM numbers(2);
SELECT replicate(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- JSONEachRow rows separated by commas or wrapped in an array.
CREATE TABLE je (n UInt64, s String, a Array(UInt8)) ENGINE = Memory;
INSERT INTO je FORMAT JSONEachRow {"n": 2}, {"s": "w,[]{"}
;
INSERT INTO je FORMAT JSONEachRow [{"n": 3, "a": [1,2]}, {"n": 4}]
;
INSERT INTO je FORMAT JSONCompactEachRow [5, "x", [3]], [6, "y", []]
;
SELECT * FROM je ORDER BY n;
DROP TABLE je;
