-- ClickHouse syntax: string escapes, join strictness, USING without parentheses, VALUES without commas.
SELECT 'a\x41\tb', length('\0'), hex('\v'), 'it\'s', 'back\\slash', '\N', length('\q'), hex('\e\a'), 'caf\xC3\xA9';
SELECT a.k, b.v FROM (SELECT number AS k FROM numbers(3)) AS a ALL INNER JOIN (SELECT number AS k, number * 10 AS v FROM numbers(2, 3)) AS b USING k ORDER BY a.k;
SELECT k FROM (SELECT number AS k FROM numbers(5)) AS a LEFT SEMI JOIN (SELECT number AS k FROM numbers(2, 5)) AS b USING k ORDER BY k;
SELECT k FROM (SELECT number AS k FROM numbers(5)) AS a LEFT ANTI JOIN (SELECT number AS k FROM numbers(2, 5)) AS b USING k ORDER BY k;
SELECT k FROM (SELECT number AS k FROM numbers(5)) AS a SEMI LEFT JOIN (SELECT number AS k FROM numbers(2, 5)) AS b USING (k) ORDER BY k;
SELECT count() FROM (SELECT number AS k FROM numbers(5)) AS a ALL LEFT JOIN (SELECT number AS k FROM numbers(2, 5)) AS b ON a.k = b.k;
DROP TABLE IF EXISTS rows_without_commas;
CREATE TABLE rows_without_commas (a UInt8, s String) ENGINE = Memory;
INSERT INTO rows_without_commas VALUES (1, 'x') (2, 'y'), (3, 'z');
SELECT * FROM rows_without_commas ORDER BY a;
SELECT count() FROM numbers(4) WHERE number GLOBAL IN (1, 2);
DROP TABLE rows_without_commas;
