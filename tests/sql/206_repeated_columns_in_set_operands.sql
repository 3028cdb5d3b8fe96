-- A SELECT joined by UNION, EXCEPT or INTERSECT may repeat a column, at the
-- top or inside a subquery, as every other SELECT may.
CREATE TABLE rc (x UInt8) ENGINE = Memory;
INSERT INTO rc VALUES (1), (2);
SELECT a1 FROM (SELECT x AS a1, x AS a2 FROM rc UNION ALL SELECT x, x FROM rc) ORDER BY a1;
SELECT a, b FROM (SELECT x AS a, x + 1 AS b, x AS c FROM rc UNION ALL SELECT x + 10, x + 20, x + 10 FROM rc) ORDER BY a;
-- At the top, the repeat keeps its name (one row: the operands' order is free),
-- and an operand's WHERE may be a number.
SELECT x, x FROM rc WHERE x = 1 UNION ALL SELECT 5, 6 FROM rc WHERE 0 FORMAT TSVWithNames;
SELECT count() FROM (SELECT x, x FROM rc EXCEPT SELECT 1, 1);
SELECT * FROM (SELECT x, x + 1 FROM rc INTERSECT SELECT x, x + 1 FROM rc WHERE x = 2);
DROP TABLE rc;
