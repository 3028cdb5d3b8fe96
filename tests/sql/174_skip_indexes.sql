-- INDEX declarations in CREATE TABLE: kept, shown and listed.
CREATE TABLE indexed (x UInt64, s String, INDEX ix s TYPE bloom_filter GRANULARITY 1, INDEX iy x * 2 TYPE minmax, index iz (x, s) TYPE set(100) GRANULARITY 4) ENGINE = MergeTree ORDER BY x;
SHOW CREATE TABLE indexed;
SELECT name, type, type_full, expr, creation, granularity, data_compressed_bytes FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'indexed' ORDER BY name;
INSERT INTO indexed VALUES (1, 'a'), (2, 'b'), (3, 'c');
SELECT * FROM indexed WHERE s = 'b';
SELECT count() FROM indexed WHERE x * 2 > 3;
-- An index first in the list, a quoted column named index, type arguments.
CREATE TABLE first_index (INDEX i0 x TYPE minmax, x UInt64, `index` UInt8) ENGINE = MergeTree ORDER BY x;
SHOW CREATE TABLE first_index;
CREATE TABLE text_indexes (id UInt64, s String, INDEX ng lower(s) TYPE ngrambf_v1(3, 256, 2, 0) GRANULARITY 1, INDEX tk s TYPE tokenbf_v1(256,2,0), INDEX bf s TYPE bloom_filter(0.01) GRANULARITY 3) ENGINE = MergeTree ORDER BY id;
SHOW CREATE TABLE text_indexes;
CREATE TABLE no_engine_index (x UInt64, INDEX i x TYPE minmax GRANULARITY 2) ORDER BY x;
SELECT name, granularity FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'no_engine_index';
-- Errors: unknown type, duplicate name, unknown column, engines without indexes.
CREATE TABLE bad_index (x UInt64, INDEX ix x TYPE foo GRANULARITY 1) ENGINE = MergeTree ORDER BY x; -- { serverError INCORRECT_QUERY }
CREATE TABLE bad_index (x UInt64, INDEX ix x TYPE minmax, INDEX ix x TYPE minmax) ENGINE = MergeTree ORDER BY x; -- { serverError ILLEGAL_INDEX }
CREATE TABLE bad_index (x UInt64, INDEX ix y TYPE minmax) ENGINE = MergeTree ORDER BY x; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE bad_index (x UInt64, INDEX ix x TYPE minmax) ENGINE = Memory; -- { serverError BAD_ARGUMENTS }
EXISTS TABLE bad_index;
-- ALTER TABLE ... ADD | DROP | MATERIALIZE | CLEAR INDEX.
CREATE TABLE altered (x UInt64, s String, INDEX a x TYPE minmax) ENGINE = MergeTree ORDER BY x;
INSERT INTO altered VALUES (1, 'one');
ALTER TABLE altered ADD INDEX b s TYPE bloom_filter GRANULARITY 2;
ALTER TABLE altered ADD INDEX c x * 3 TYPE set(10) FIRST;
ALTER TABLE altered ADD INDEX d x TYPE minmax AFTER a;
SHOW CREATE TABLE altered;
ALTER TABLE altered ADD INDEX a x TYPE minmax; -- { serverError ILLEGAL_COLUMN }
ALTER TABLE altered ADD INDEX IF NOT EXISTS a x TYPE minmax;
ALTER TABLE altered DROP INDEX zz; -- { serverError BAD_ARGUMENTS }
ALTER TABLE altered DROP INDEX IF EXISTS zz;
ALTER TABLE altered DROP INDEX b;
ALTER TABLE altered MATERIALIZE INDEX a;
ALTER TABLE altered CLEAR INDEX a;
ALTER TABLE altered ADD INDEX e y TYPE minmax; -- { serverError UNKNOWN_IDENTIFIER }
ALTER TABLE altered ADD INDEX e x TYPE bar; -- { serverError INCORRECT_QUERY }
SHOW CREATE TABLE altered;
SELECT * FROM altered;
CREATE TABLE memory_table (x UInt64) ENGINE = Memory;
ALTER TABLE memory_table ADD INDEX e x TYPE minmax; -- { serverError NOT_IMPLEMENTED }
