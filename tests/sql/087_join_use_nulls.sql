-- join_use_nulls = 0 (the default): the side an outer join finds no row on takes its types' defaults.
CREATE TABLE l (k UInt32, a String) ENGINE = Memory;
CREATE TABLE r (k UInt32, b Int64, d Date, n Nullable(UInt8), arr Array(UInt8)) ENGINE = Memory;
INSERT INTO l VALUES (1, 'x'), (2, 'y'), (3, 'z');
INSERT INTO r VALUES (2, -5, '2024-01-02', NULL, [1]), (3, 7, '2024-01-03', 4, []), (4, 8, '2024-01-04', 9, [2, 3]);
SELECT l.k, a, r.k, b, d, n, arr FROM l LEFT JOIN r ON l.k = r.k ORDER BY l.k;
SELECT toTypeName(r.k), toTypeName(b), toTypeName(n) FROM l LEFT JOIN r ON l.k = r.k LIMIT 1;
SELECT l.k, a, r.k, b FROM l RIGHT JOIN r ON l.k = r.k ORDER BY r.k;
SELECT l.k, a, r.k, b FROM l FULL JOIN r ON l.k = r.k ORDER BY l.k, r.k;
SELECT k, a, b FROM l LEFT JOIN r USING (k) ORDER BY k;
SELECT count(), sum(b), countIf(b = 0) FROM l LEFT JOIN r ON l.k = r.k;
SELECT l.k, r.k, b, toTypeName(b) FROM l LEFT JOIN r ON l.k = r.k ORDER BY l.k SETTINGS join_use_nulls = 1;
SELECT l.k, x.c FROM l LEFT JOIN (SELECT k, count() AS c FROM r GROUP BY k) AS x ON l.k = x.k ORDER BY l.k;
