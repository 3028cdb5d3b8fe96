-- Unix times of 13, 16 or 19 digits are milli-, micro- or nanoseconds.
SELECT parseDateTime64BestEffort('1640649600123', 3, 'UTC'), parseDateTime64BestEffort('1640649600123456', 6, 'UTC'), parseDateTimeBestEffort('1640649600123', 'UTC');
SELECT parseDateTime64BestEffort('1640649600123456789', 9, 'UTC'), parseDateTime64BestEffort('1640649600', 3, 'UTC');
-- INSERT VALUES reads a DateTime's text as ClickHouse reads it.
CREATE TABLE moments (t DateTime('UTC'), u DateTime64(3, 'UTC')) ENGINE = Memory;
INSERT INTO moments VALUES ('1234567890', '2020-01-01 00:00:00.5'), ('2020-01-02', '1234567890');
SELECT * FROM moments ORDER BY t;
-- Text cast to a Nullable FixedString is padded.
SELECT CAST('a', 'Nullable(FixedString(3))') AS f, toTypeName(f), length(f);
SELECT CAST(NULL, 'Nullable(FixedString(2))');
-- splitByRegexp stops at an empty match.
SELECT splitByRegexp('^', 'a^b^c'), splitByRegexp('', 'abc'), splitByRegexp('x*', 'abc');
SELECT splitByRegexp('\\d+', '1a22b3'), splitByRegexp('$', 'ab'), splitByRegexp('b*', 'abbc'), splitByRegexp(',', 'a,b,,c');
-- The totals row of an Enum key is the Enum's default, its first name.
CREATE TABLE enum_totals (e Enum8('hello' = 1, 'world' = 2)) ENGINE = Memory;
INSERT INTO enum_totals VALUES ('hello'), ('world'), ('world');
SELECT e, count() FROM enum_totals GROUP BY e WITH TOTALS ORDER BY e;
-- A CAST to Nullable(Bool) is a Bool.
SELECT CAST(1 = 1, 'Nullable(Bool)') AS r, toTypeName(r), CAST(0, 'Nullable(Bool)') AS s, toTypeName(s);
