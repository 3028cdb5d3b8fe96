-- Comparisons and logical operators are UInt8 0/1 wherever their results go;
-- numbers are conditions. Bool columns and true/false stay Bool.
SELECT number = 1 FROM numbers(3) ORDER BY number DESC;
SELECT [number = 1] FROM numbers(2);
SELECT max(number = 1), min(number < 5) FROM numbers(3);
SELECT * FROM (SELECT number = 1 AS e FROM numbers(2)) ORDER BY e;
SELECT * FROM (SELECT number = 1 AS e FROM numbers(2)) WHERE e;
SELECT number = 1, count() FROM numbers(3) GROUP BY number = 1 ORDER BY 1;
SELECT number % 2 = 0 AS even, count() FROM numbers(10) GROUP BY even ORDER BY even;
SELECT toString(number > 0), (number > 0) + 1, (number > 0) * 10 FROM numbers(2);
SELECT (number = 1) AND 1, 1 OR (number = 1), (number > 0) = 1 FROM numbers(2);
SELECT true, toTypeName(true), toTypeName(1 = 1), toTypeName(number IN (1, 2)) FROM numbers(1);
SELECT countIf(number > 1), sumIf(number, number > 1), sum(number > 0) FROM numbers(4);
SELECT CASE WHEN e THEN 'yes' ELSE 'no' END FROM (SELECT number = 1 AS e FROM numbers(2)) ORDER BY e;
SELECT number FROM numbers(5) WHERE number > 1 AND number < 4;
SELECT number BETWEEN 1 AND 2 AS b, toString(number) LIKE '%1' FROM numbers(3) ORDER BY number DESC LIMIT 2;
DROP TABLE IF EXISTS flags;
CREATE TABLE flags (k UInt8, f Bool) ENGINE = Memory;
INSERT INTO flags VALUES (1, true), (2, false);
SELECT k, f, toTypeName(f), f = true, NOT f FROM flags ORDER BY k;
DROP TABLE flags;
SELECT toTypeName(NOT true), toTypeName(true AND true), toTypeName(true AND 1), toTypeName(NOT (1 = 1)), toTypeName(NOT NOT true);
-- A number is a condition in WHERE, HAVING and NOT.
SELECT number FROM numbers(5) WHERE number % 2;
SELECT NOT number FROM numbers(2);
SELECT toBool(2), toBool(0), toBool('true'), toBool('False'), toBool(0.5), toTypeName(toBool(1));
SELECT toBool('x'); -- { serverError CANNOT_PARSE_BOOL }
SELECT number FROM numbers(4) WHERE number AND number > 1;
SELECT number FROM numbers(4) WHERE (number % 2) OR (number % 3);
SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k HAVING k ORDER BY k;
SELECT number FROM numbers(3) WHERE NOT number;
SELECT number FROM numbers(3) WHERE 0;
SELECT count() FROM numbers(3) WHERE NULL;
DROP TABLE IF EXISTS flagged;
CREATE TABLE flagged (k UInt32, active UInt8) ENGINE = MergeTree ORDER BY k;
INSERT INTO flagged SELECT number, number % 2 FROM numbers(10);
SELECT count() FROM flagged WHERE active;
SELECT count() FROM flagged WHERE NOT active AND k > 2;
DROP TABLE flagged;
