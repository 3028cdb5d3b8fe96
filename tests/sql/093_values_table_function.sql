#!/usr/bin/env strata
-- The values() table function, with and without a structure.
SELECT * FROM values('a UInt8, b String', (1, 'x'), (2, 'y')) FORMAT TSVWithNames;
SELECT * FROM values(1, 2, 300) FORMAT TSVWithNames;
SELECT * FROM values((1, 'a'), (2, 'b')) FORMAT TSVWithNames;
SELECT * FROM values('a UInt8', 1, 2);
SELECT *, toTypeName(a) FROM values('a Nullable(UInt8), b String', (NULL, 'x'), (3, '')) FORMAT TSVWithNames;
SELECT sum(a), toTypeName(sum(a)) FROM values('a UInt64', 1, 2, 3);
SELECT v.a + 1 FROM values('a Int32', -1, 5) AS v ORDER BY 1;
SELECT * FROM values('x');
CREATE TABLE vt (k UInt32, s String) ENGINE = Memory;
INSERT INTO vt SELECT * FROM values('k UInt32, s String', (7, 'seven'), (8, 'eight'));
SELECT * FROM vt ORDER BY k;
SELECT * FROM values('a UInt8', (1, 2)); -- { serverError TYPE_MISMATCH }
