-- Temporary tables (Memory tables of the session, found before the current database's), and the ?: operator.
DROP TABLE IF EXISTS shadowed;
CREATE TABLE shadowed (a UInt8) ENGINE = Memory;
INSERT INTO shadowed VALUES (1);
CREATE TEMPORARY TABLE shadowed (a UInt8, s String);
INSERT INTO shadowed VALUES (2, 'two') (3, 'three');
SELECT * FROM shadowed ORDER BY a;
SELECT * FROM default.shadowed;
SELECT count() FROM system.tables WHERE name = 'shadowed' AND database = 'default';
SHOW CREATE TABLE shadowed;
CREATE TEMPORARY TABLE from_query AS SELECT number AS n FROM numbers(3);
SELECT sum(n) FROM from_query;
SELECT s, n FROM shadowed AS a JOIN from_query AS b ON a.a = b.n + 1 ORDER BY n;
DROP TEMPORARY TABLE shadowed;
SELECT * FROM shadowed;
DROP TEMPORARY TABLE shadowed; -- { serverError UNKNOWN_TABLE }
DROP TEMPORARY TABLE IF EXISTS shadowed;
SELECT count() FROM shadowed;
DROP TABLE shadowed;
DROP TABLE from_query;
SELECT 1 > 0 ? 'yes' : 'no', number % 3 = 0 ? 'three' : (number % 2 = 0 ? 'even' : 'odd') AS kind FROM numbers(4);
