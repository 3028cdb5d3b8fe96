-- ATTACH PARTITION ... FROM, REPLACE PARTITION ... FROM and MOVE PARTITION
-- ... TO TABLE copy parts between tables of one structure.
CREATE TABLE pa (k UInt8, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY k;
CREATE TABLE pb (k UInt8, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY k;
INSERT INTO pb VALUES (1, '2024-01-01'), (2, '2024-01-02');
INSERT INTO pb VALUES (3, '2024-01-01');
INSERT INTO pa VALUES (9, '2024-01-01'), (8, '2024-01-02');
ALTER TABLE pa ATTACH PARTITION '2024-01-01' FROM pb;
SELECT * FROM pa ORDER BY k;
SELECT count() FROM pb;
ALTER TABLE pa REPLACE PARTITION '2024-01-02' FROM pb;
SELECT * FROM pa ORDER BY k;
ALTER TABLE pb MOVE PARTITION '2024-01-01' TO TABLE pa;
SELECT d, count() FROM pa GROUP BY d ORDER BY d;
SELECT * FROM pb ORDER BY k;
-- The copies are parts of their new table: they merge with its own.
OPTIMIZE TABLE pa FINAL;
SELECT partition, rows FROM system.parts WHERE database = currentDatabase() AND table = 'pa' AND active ORDER BY partition;
CREATE TABLE pc (k UInt16, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY k;
ALTER TABLE pa ATTACH PARTITION '2024-01-01' FROM pc; -- { serverError INCOMPATIBLE_COLUMNS }
CREATE TABLE pd (k UInt8, d Date) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY k;
ALTER TABLE pa REPLACE PARTITION '2024-01-01' FROM pd; -- { serverError BAD_ARGUMENTS }
DROP TABLE pa;
DROP TABLE pb;
DROP TABLE pc;
DROP TABLE pd;

-- parseDateTimeInJodaSyntax and its OrNull and OrZero forms.
SELECT parseDateTimeInJodaSyntax('2024-03-05 07', 'yyyy-MM-dd HH'),
    parseDateTimeInJodaSyntax('05/Mar/2024:07:08:09', 'dd/MMM/yyyy:HH:mm:ss'),
    parseDateTimeInJodaSyntax('2024-03-05T07:08:09', 'yyyy-MM-dd\'T\'HH:mm:ss', 'Asia/Tokyo'),
    parseDateTimeInJodaSyntaxOrNull('nope', 'yyyy'),
    parseDateTimeInJodaSyntaxOrZero('2024', 'yyyy');

-- A window built on a named one keeps the named one's PARTITION BY and
-- ORDER BY.
CREATE TABLE wn (g String, t UInt32) ENGINE = Memory;
INSERT INTO wn VALUES ('a', 1), ('a', 2), ('a', 4), ('b', 1), ('b', 3);
SELECT g, t, sum(t) OVER (w1 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), count() OVER w1, max(t) OVER (w2 ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM wn WINDOW w1 AS (PARTITION BY g ORDER BY t), w2 AS (w1) ORDER BY g, t;
DROP TABLE wn;

-- A JOIN after ARRAY JOIN joins the repeated rows.
CREATE TABLE orders (id UInt32, items Array(UInt32)) ENGINE = Memory;
CREATE TABLE products (pid UInt32, pname String) ENGINE = Memory;
INSERT INTO orders VALUES (1, [10, 20]), (2, []), (3, [30, 99]);
INSERT INTO products VALUES (10, 'pen'), (20, 'ink'), (30, 'pad');
SELECT id, it, pname FROM orders LEFT ARRAY JOIN items AS it LEFT JOIN products ON it = products.pid ORDER BY id, it;
SELECT pname, count() FROM orders ARRAY JOIN items AS it JOIN products AS p ON it = p.pid GROUP BY pname ORDER BY pname;
DROP TABLE orders;
DROP TABLE products;

-- INTERSECT and EXCEPT of columns of different types count copies too.
SELECT * FROM (SELECT number % 3 AS x FROM numbers(10) INTERSECT SELECT number FROM numbers(2)) ORDER BY x;
SELECT * FROM (SELECT number % 3 AS x FROM numbers(10) EXCEPT SELECT number FROM numbers(2)) ORDER BY x;
