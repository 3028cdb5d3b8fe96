#!/usr/bin/env strata
-- MATERIALIZED, ALIAS and EPHEMERAL columns, columns typed by their default, DESCRIBE.
CREATE TABLE ck (a UInt8, b UInt16 MATERIALIZED a + 1, c UInt32 ALIAS a * 2, d UInt8 EPHEMERAL, f UInt8 DEFAULT d + 5) ENGINE = MergeTree ORDER BY a;
INSERT INTO ck VALUES (1, 2);
INSERT INTO ck (a, d) VALUES (3, 7), (4, 200);
INSERT INTO ck (a) VALUES (5);
INSERT INTO ck (a, b) VALUES (5, 6); -- { serverError ILLEGAL_COLUMN }
INSERT INTO ck (a, c) VALUES (5, 6); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
INSERT INTO ck SELECT number + 10, number FROM numbers(2);
INSERT INTO ck FORMAT CSV 20,1
;
INSERT INTO ck (a, b) FORMAT CSV 21,1; -- { serverError ILLEGAL_COLUMN }
SELECT * FROM ck ORDER BY a FORMAT TSVWithNames;
SELECT a, b, c, f FROM ck ORDER BY a FORMAT TSVWithNames;
SELECT c, toTypeName(c), toTypeName(b), c + 1 FROM ck WHERE c > 6 AND c < 30 ORDER BY c FORMAT TSVWithNames;
SELECT c, count() FROM ck GROUP BY c HAVING c < 20 ORDER BY c;
SELECT ck.c, x.c FROM ck, ck AS x WHERE ck.a = x.a AND x.c > 20 ORDER BY 1 FORMAT TSVWithNames;
SELECT t.c FROM ck AS t WHERE t.a = 3;
SELECT sum(c), max(b) FROM ck;
SELECT a FROM ck WHERE a IN (SELECT a FROM ck WHERE c = 6);
SELECT * FROM (SELECT c FROM ck) WHERE c = 8;
DESCRIBE ck;
SHOW CREATE TABLE ck;
OPTIMIZE TABLE ck FINAL;
SELECT a, b, c, f FROM ck WHERE a < 5 ORDER BY a;
CREATE TABLE ck2 (a UInt8, c ALIAS a * 2, m MATERIALIZED toString(a), k DEFAULT 5, z DEFAULT a + 1, n Nullable(UInt8) DEFAULT NULL) ENGINE = Memory;
INSERT INTO ck2 (a) VALUES (3);
INSERT INTO ck2 VALUES (4, 1, 2, 9);
SELECT *, c, m, toTypeName(c), toTypeName(m), toTypeName(k), toTypeName(z), toTypeName(n) FROM ck2 ORDER BY a FORMAT TSVWithNames;
DESCRIBE ck2;
CREATE TABLE ck3 (raw String EPHEMERAL, len UInt64 DEFAULT length(raw), up String DEFAULT upper(raw)) ENGINE = Memory;
INSERT INTO ck3 (raw) VALUES ('abc'), ('');
INSERT INTO ck3 (raw, up) VALUES ('xy', 'given');
SELECT * FROM ck3 ORDER BY len;
SELECT defaultValueOfTypeName('UInt8'), defaultValueOfTypeName('Nullable(String)'), defaultValueOfTypeName('Array(UInt8)'), defaultValueOfTypeName('Date');
SELECT name, type, position, default_kind, default_expression FROM system.columns WHERE database = currentDatabase() AND table IN ('ck', 'ck2') ORDER BY table, position;
DESCRIBE (SELECT a, c FROM ck);
