-- startsWith/endsWith with a FixedString on either side compare bytes,
-- zero padding included, as ClickHouse does.
SELECT startsWith(toFixedString('abc', 5), 'ab'), endsWith(toFixedString('abc', 5), 'c'), endsWith(toFixedString('abc', 5), 'c\0\0');
SELECT startsWith('abc', toFixedString('ab', 2)), startsWith(toFixedString('ab', 2), toFixedString('a', 1)), endsWith(toFixedString('ab', 2), '');
SELECT startsWith(materialize(toNullable(toFixedString('ab', 2))), 'a'), endsWith(CAST(NULL, 'Nullable(FixedString(2))'), 'a');
DROP TABLE IF EXISTS fixed_affixes;
CREATE TABLE fixed_affixes (s FixedString(4), p String) ENGINE = Memory;
INSERT INTO fixed_affixes VALUES ('ab', 'a'), ('abcd', 'cd'), ('x', 'x\0'), ('', '');
SELECT s, startsWith(s, p), endsWith(s, p), startsWith(s, 'ab') FROM fixed_affixes ORDER BY s;
DROP TABLE fixed_affixes;
