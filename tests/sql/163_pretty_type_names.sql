-- Type names for people: named tuples spread over lines in toTypeName and DESCRIBE, every tuple in SHOW CREATE; formats and system.columns keep one line
CREATE TABLE pretty (x Tuple(a UInt8, c Tuple(d UInt8, `e.f` String)), y Map(String, Tuple(a UInt8, b UInt8)), z Array(Tuple(UInt8, String)), w Nullable(String)) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO pretty VALUES ((1, (2, 'x')), {'k': (3, 4)}, [(5, 'y')], NULL);
DESCRIBE pretty;
SHOW CREATE TABLE pretty;
SELECT name, type FROM system.columns WHERE table = 'pretty' ORDER BY name;
SELECT toTypeName(x), toTypeName(y), toTypeName(z), toTypeName((1, 'a')), toTypeName(CAST((1, 2) AS Tuple(a UInt8, b UInt8))) FROM pretty;
SELECT x, y, z FROM pretty FORMAT TSVWithNamesAndTypes;
DESCRIBE (SELECT x, CAST((1, 2) AS Tuple(a UInt8, b UInt8)) AS t FROM pretty);
