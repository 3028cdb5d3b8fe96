-- Inner joins of several MergeTree tables, in whatever order the planner
-- chooses, return the rows of the order written.
CREATE TABLE jf (k UInt64, a Nullable(UInt32), b UInt32, c UInt32) ENGINE = MergeTree ORDER BY k;
INSERT INTO jf SELECT number, if(number % 11 = 0, NULL, number % 37), number % 50, number % 7 FROM numbers(3000);
CREATE TABLE ja (a UInt32, name String) ENGINE = MergeTree ORDER BY a;
INSERT INTO ja SELECT number, concat('n', toString(number % 4)) FROM numbers(30);
INSERT INTO ja VALUES (5, 'twice'), (6, 'twice');
CREATE TABLE jb (b UInt32, grp UInt8) ENGINE = MergeTree ORDER BY b;
INSERT INTO jb SELECT number, number % 5 FROM numbers(50);
CREATE TABLE jg (grp UInt8, label String) ENGINE = MergeTree ORDER BY grp;
INSERT INTO jg SELECT number, concat('g', toString(number)) FROM numbers(5);
SELECT count(), sum(jf.k), min(ja.name), max(jg.label) FROM jf, ja, jb, jg WHERE jf.a = ja.a AND jf.b = jb.b AND jb.grp = jg.grp AND jg.label = 'g2';
SELECT jg.label, ja.name, count() FROM jf JOIN jb ON jf.b = jb.b JOIN jg ON jg.grp = jb.grp JOIN ja ON ja.a = jf.a WHERE jf.c = 3 GROUP BY jg.label, ja.name ORDER BY jg.label, ja.name;
SELECT count() FROM jf, ja, jb WHERE jf.a = ja.a AND jf.b = jb.b AND (ja.name = 'twice' OR jb.grp = 4) AND jf.k + ja.a > jb.b * 50;
SELECT s.b, s.n, jg.label FROM (SELECT b, count() AS n FROM jf WHERE c = 1 GROUP BY b) AS s JOIN jb ON s.b = jb.b JOIN jg ON jg.grp = jb.grp ORDER BY s.b LIMIT 5;
SELECT count() FROM jf, ja, jb WHERE jf.a = ja.a AND jf.b = jb.b SETTINGS query_plan_optimize_join_order_limit = 0;
DROP TABLE jf;
DROP TABLE ja;
DROP TABLE jb;
DROP TABLE jg;

-- A float subquery compared with a value: NaN is neither less nor greater.
SELECT 1 < (SELECT nan), 1 <= (SELECT nan), (SELECT nan) > 1, (SELECT nan) >= 1, 1 > (SELECT nan), toFloat32(1) < (SELECT toFloat32(nan)), (SELECT -inf) <= (SELECT nan);
SELECT count() FROM numbers(5) WHERE toFloat64(number) < (SELECT avg(number) FROM numbers(0));
SELECT number FROM numbers(5) WHERE toFloat64(number) <= (SELECT avg(number) FROM numbers(4)) ORDER BY number;
SELECT number FROM numbers(5) WHERE (SELECT avg(number) FROM numbers(4)) > toFloat64(number) ORDER BY number;
