#!/usr/bin/env strata
-- Map(K, V) columns in Memory and MergeTree tables, their defaults, CAST to Map.
CREATE TABLE mm (id UInt8, m Map(String, UInt64)) ENGINE = Memory;
INSERT INTO mm VALUES (1, map('x', 1, 'y', 2)), (2, map('z', 0));
INSERT INTO mm (id) VALUES (3);
SELECT id, m, m['x'], mapKeys(m) FROM mm ORDER BY id;
SELECT toTypeName(m) FROM mm LIMIT 1;
CREATE TABLE mt (id UInt8, m Map(String, UInt64)) ENGINE = MergeTree ORDER BY id;
INSERT INTO mt VALUES (1, map('x', 1, 'y', 2)), (2, map('z', 3));
INSERT INTO mt (id) VALUES (3);
SELECT id, m, m['y'], mapKeys(m), mapValues(m) FROM mt ORDER BY id;
OPTIMIZE TABLE mt FINAL;
SELECT id, m FROM mt ORDER BY id;
SELECT CAST(map('a', 1) AS Map(String, UInt16)) AS a, toTypeName(a);
SELECT m['x'] + 1, length(mapKeys(m)) FROM mm WHERE mapContains(m, 'x');
