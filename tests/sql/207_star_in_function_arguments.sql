-- `*` and `t.*` as a function's argument stand for every column (of `t`),
-- as in `tuple(*)` or `cityHash64(*)`; `count(*)` still counts rows.
CREATE TABLE sf (a UInt8, s String, f Float64) ENGINE = Memory;
INSERT INTO sf VALUES (1, 'x', 0.5), (2, 'y', 1.5);
SELECT tuple(*) FROM sf ORDER BY a;
SELECT toTypeName(tuple(*)) FROM sf LIMIT 1;
SELECT concat(*) FROM sf ORDER BY a;
SELECT cityHash64(*) = cityHash64(a, s, f) FROM sf ORDER BY a;
SELECT count(*), count() FROM sf;
CREATE TABLE sg (a UInt8, t String) ENGINE = Memory;
INSERT INTO sg VALUES (1, 'one'), (2, 'two');
SELECT tuple(l.*), tuple(r.*) FROM sf AS l JOIN sg AS r ON l.a = r.a ORDER BY l.a;
DROP TABLE sf;
DROP TABLE sg;
-- A subquery's * stands for the subquery's own columns.
SELECT tuple(*), (SELECT tuple(*) FROM (SELECT 5 AS z)) FROM (SELECT 1 a, 2 b);
