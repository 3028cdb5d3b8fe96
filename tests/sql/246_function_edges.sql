-- ClickHouse finds `if` in any letter case.
SELECT If(1, 2, 3), IF(0, 2, 3), iF(number = 1, 'a', 'b') FROM numbers(2);
-- overlay with a negative length replaces as many characters as the replacement has.
SELECT overlay('Spark SQL', 'ANSI ', 7, -1), overlay('Spark SQL', 'X', 3, -100), overlayUTF8('Spark SQL', 'X', 3, -1), overlay('abc', 'X', 2, -1);
-- makeDate takes Bool parts as numbers.
SELECT makeDate(1994, true, 24), makeDate32(2000, false + 2, true);
-- LIKE and ILIKE over FixedString.
SELECT toFixedString('hello', 5) LIKE '%ell%', toFixedString('hello', 5) ILIKE '%HE%', toFixedString('hello', 5) NOT ILIKE 'x%';
SELECT count() FROM (SELECT toFixedString(toString(number), 3) AS s FROM numbers(20)) WHERE s LIKE '1%';
-- groupConcat writes each value as toString does.
SELECT groupConcat(x) FROM (SELECT [1, 2, 3] AS x);
SELECT groupConcat('|')(x) FROM (SELECT arrayJoin([[1], [2, 3]]) AS x);
SELECT groupConcat(t) FROM (SELECT (1, 'a') AS t);
SELECT groupConcat(d) FROM (SELECT toDate('2024-01-02') + number AS d FROM numbers(2));
-- Arrays of UUIDs read from text.
CREATE TABLE uuid_arrays (a Array(UUID)) ENGINE = Memory;
INSERT INTO uuid_arrays SELECT CAST(['01234567-89ab-cdef-0123-456789abcdef', '00000000-0000-0000-0000-000000000001'] AS Array(UUID));
SELECT a, toTypeName(a), length(a) FROM uuid_arrays ORDER BY length(a);
SELECT * FROM values('v Array(UUID)', (['01234567-89ab-cdef-0123-456789abcdef']));
SELECT CAST(['01234567-89ab-cdef-0123-456789abcdef'] AS Array(UUID));
SELECT CAST(['not a uuid'] AS Array(UUID)); -- { serverError CANNOT_PARSE_UUID }
-- A map's keys and values wrap into narrower integer types, as other integers do.
CREATE TABLE narrow_maps (m Map(UInt8, Int16)) ENGINE = Memory;
INSERT INTO narrow_maps SELECT map(number, number * 100) FROM numbers(1000, 2);
SELECT m, toTypeName(m) FROM narrow_maps ORDER BY toString(m);
SELECT CAST(map(300, 70000), 'Map(UInt8, UInt16)');
-- WITH FILL by a column that `*` expands to.
SELECT * FROM (SELECT 1 AS a, 'x' AS b UNION ALL SELECT 4, 'y') ORDER BY a WITH FILL;
SELECT *, a * 2 AS c FROM (SELECT 1 AS a UNION ALL SELECT 3) ORDER BY a WITH FILL STEP 1;
