-- CHECK constraints hold for every inserted row; ASSUME constraints are kept, not checked.
DROP TABLE IF EXISTS checked;
CREATE TABLE checked (a Int32, s String, n Nullable(Int32), CONSTRAINT small CHECK a < 10, CONSTRAINT short CHECK length(s) <= 3, CONSTRAINT positive ASSUME a >= 0) ENGINE = MergeTree ORDER BY a;
SHOW CREATE TABLE checked;
INSERT INTO checked VALUES (1, 'a', NULL), (-5, 'bcd', 2);
INSERT INTO checked VALUES (2, 'x', NULL), (20, 'y', NULL); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked SELECT number, toString(number * 1000), NULL FROM numbers(5); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked FORMAT JSONEachRow {"a": 3, "s": "abcd", "n": 1}; -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked FORMAT JSONEachRow {"a": 3, "s": "abc", "n": 1};
SELECT * FROM checked ORDER BY a;
-- A failing INSERT writes none of its rows.
SELECT count() FROM checked;
ALTER TABLE checked ADD CONSTRAINT not_seven CHECK a != 7;
INSERT INTO checked VALUES (7, '', NULL); -- { serverError VIOLATED_CONSTRAINT }
ALTER TABLE checked ADD CONSTRAINT not_seven CHECK a != 8; -- { serverError ILLEGAL_COLUMN }
ALTER TABLE checked ADD CONSTRAINT IF NOT EXISTS not_seven CHECK a != 8;
ALTER TABLE checked DROP CONSTRAINT not_seven;
ALTER TABLE checked DROP CONSTRAINT not_seven; -- { serverError BAD_ARGUMENTS }
ALTER TABLE checked DROP CONSTRAINT IF EXISTS not_seven;
INSERT INTO checked VALUES (7, '', NULL);
SELECT a FROM checked ORDER BY a;
DROP TABLE checked;
-- A NULL result violates the constraint; a non-UInt8 result is refused at INSERT.
CREATE TABLE nullable_check (n Nullable(Int32), CONSTRAINT c CHECK n > 0) ENGINE = Memory;
INSERT INTO nullable_check VALUES (1);
INSERT INTO nullable_check VALUES (NULL); -- { serverError VIOLATED_CONSTRAINT }
SELECT * FROM nullable_check;
DROP TABLE nullable_check;
CREATE TABLE string_check (s String, CONSTRAINT c CHECK s) ENGINE = Memory;
INSERT INTO string_check VALUES ('x'); -- { serverError UNSUPPORTED_METHOD }
DROP TABLE string_check;
CREATE TABLE unknown_column (a Int32, CONSTRAINT c CHECK b > 0) ENGINE = Memory; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE memory_check (a UInt8) ENGINE = Memory;
ALTER TABLE memory_check ADD CONSTRAINT c CHECK a > 1; -- { serverError NOT_IMPLEMENTED }
DROP TABLE memory_check;
