-- min and max of an enum take the element of the least or greatest number, not name.
DROP TABLE IF EXISTS enum_ext;
CREATE TABLE enum_ext (g UInt8, s Enum8('z' = 1, 'y' = 2, 'x' = 3), n Nullable(Enum16('a' = 500, 'b' = -1))) ENGINE = MergeTree ORDER BY g;
INSERT INTO enum_ext VALUES (1, 'y', 'a'), (1, 'x', NULL), (2, 'z', 'b'), (2, 'x', 'a');
SELECT min(s), max(s), toTypeName(max(s)), min(n), max(n), toTypeName(min(n)) FROM enum_ext;
SELECT g, min(s), max(s), minIf(s, s != 'z'), argMax(s, g) FROM enum_ext GROUP BY g ORDER BY g;
SELECT min(s), max(n) FROM enum_ext WHERE g > 5;
SELECT max(s) OVER (PARTITION BY g) AS m FROM enum_ext ORDER BY g, m;
DROP TABLE enum_ext;
