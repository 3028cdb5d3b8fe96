-- CREATE TABLE without ENGINE takes default_table_engine (MergeTree).
CREATE TABLE keyed (x UInt8, s String) ORDER BY x;
CREATE TABLE unkeyed (x UInt8);
CREATE TABLE empty_key (x UInt8) ENGINE = MergeTree ORDER BY ();
INSERT INTO keyed VALUES (2, 'b'), (1, 'a');
INSERT INTO unkeyed VALUES (3), (1), (2);
INSERT INTO empty_key VALUES (7);
SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name IN ('keyed', 'unkeyed', 'empty_key') ORDER BY name;
SELECT * FROM keyed ORDER BY x;
SELECT count(), sum(x) FROM unkeyed;
SELECT * FROM empty_key;
SET default_table_engine = 'Memory';
CREATE TABLE in_memory (x UInt8);
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'in_memory';
SET default_table_engine = 'None';
CREATE TABLE no_engine (x UInt8); -- { serverError ENGINE_REQUIRED }
SET default_table_engine = 'MergeTree';
-- Names may start with digits.
CREATE TABLE 02005_t (x UInt8) ENGINE = Memory;
INSERT INTO 02005_t VALUES (5), (6);
SELECT sum(x) FROM 02005_t;
-- IN without parentheses: a literal, or a table.
SELECT 1 IN 1, 2 IN (1), 'a' NOT IN 'b', -1 IN -1, 1 IN -1;
SELECT 5 IN 02005_t, 7 IN 02005_t, 7 NOT IN 02005_t;
SELECT x FROM keyed WHERE x IN unkeyed ORDER BY x;
-- NULL in a set is skipped.
SELECT 1 IN (NULL, 2), 1 NOT IN (NULL, 2), NULL IN (NULL), 1 IN (NULL), 1 NOT IN (NULL), 1 IN NULL;
-- reverse takes arrays, strings and FixedStrings.
SELECT reverse([1, 2, 3]), reverse('abc'), reverse(toFixedString('ab', 2)), reverse([[1, 2], [3]]), reverse(materialize([1, NULL, 3])), reverse(CAST([] AS Array(UInt8)));
SELECT reverse(range(number)) FROM numbers(4) WHERE number > 0;
