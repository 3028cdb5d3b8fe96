-- Column and table comments, shown by SHOW CREATE, DESCRIBE and the system tables
CREATE TABLE mc (a UInt32 DEFAULT 1 COMMENT 'the a' CODEC(ZSTD(1)), b String COMMENT 'it''s b', c Float64) ENGINE = MergeTree ORDER BY a SETTINGS index_granularity = 128 COMMENT 'table c';
SHOW CREATE TABLE mc;
DESCRIBE TABLE mc;
SELECT name, comment FROM system.columns WHERE database = currentDatabase() AND table = 'mc' ORDER BY position;
SELECT name, comment, engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'mc';
CREATE TABLE mm (x Int8 COMMENT 'ex\nline') ENGINE = Memory COMMENT 'memory \\ table';
SHOW CREATE TABLE mm;
SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = 'mm';

-- ALTER ... COMMENT COLUMN, MODIFY COMMENT, MODIFY COLUMN c COMMENT / REMOVE
ALTER TABLE mc COMMENT COLUMN c 'see', MODIFY COMMENT 'new table comment';
ALTER TABLE mc MODIFY COLUMN b COMMENT 'bee';
ALTER TABLE mc MODIFY COLUMN a REMOVE COMMENT;
SHOW CREATE TABLE mc;
ALTER TABLE mc COMMENT COLUMN IF EXISTS nope 'x';
ALTER TABLE mc MODIFY COLUMN IF EXISTS nope UInt8;
ALTER TABLE mc COMMENT COLUMN nope 'x'; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE mc MODIFY COLUMN nope UInt8; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE mc MODIFY COLUMN a REMOVE COMMENT; -- { serverError BAD_ARGUMENTS }
ALTER TABLE mc MODIFY COLUMN c REMOVE DEFAULT; -- { serverError BAD_ARGUMENTS }
ALTER TABLE mc MODIFY COLUMN a REMOVE DEFAULT;
ALTER TABLE mc MODIFY COLUMN c DEFAULT 2.5;
ALTER TABLE mc MODIFY COLUMN a REMOVE CODEC;
SHOW CREATE TABLE mc;

-- MODIFY COLUMN changing a type converts the rows as CAST does
INSERT INTO mc (a, b) VALUES (1, '12'), (2, '7'), (3, '300');
ALTER TABLE mc MODIFY COLUMN b UInt32;
INSERT INTO mc (a, b, c) VALUES (4, 5, 1);
SELECT a, b, c, toTypeName(b) FROM mc ORDER BY a;
ALTER TABLE mc MODIFY COLUMN b UInt8;
SELECT a, b, toTypeName(b) FROM mc ORDER BY a;
ALTER TABLE mc MODIFY COLUMN c String;
SELECT a, c, toTypeName(c) FROM mc ORDER BY a;
ALTER TABLE mc MODIFY COLUMN c Nullable(Float32) COMMENT 'nullable now';
SELECT a, c, toTypeName(c) FROM mc ORDER BY a;
SHOW CREATE TABLE mc;
ALTER TABLE mc MODIFY COLUMN a UInt64; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
SELECT count(), sum(b) FROM mc;
CREATE TABLE mn (k UInt32, z Nullable(UInt8)) ENGINE = MergeTree ORDER BY k;
INSERT INTO mn VALUES (1, NULL), (2, 4);
ALTER TABLE mn MODIFY COLUMN z UInt8; -- { serverError BAD_ARGUMENTS }
SELECT k, z FROM mn ORDER BY k;
DROP TABLE mn;

-- A Memory table's rows convert too
CREATE TABLE mt (k UInt32, s String, n Int32) ENGINE = Memory;
INSERT INTO mt VALUES (1, '1.5', -1), (2, '2', 300);
ALTER TABLE mt MODIFY COLUMN s Float64;
ALTER TABLE mt MODIFY COLUMN n UInt8;
SELECT k, s, n, toTypeName(s), toTypeName(n) FROM mt ORDER BY k;
ALTER TABLE mt MODIFY COLUMN s String DEFAULT 'none';
INSERT INTO mt (k, n) VALUES (3, 7);
SELECT k, s, n FROM mt ORDER BY k;
DESCRIBE TABLE mt;
DROP TABLE mt;
DROP TABLE mc;
DROP TABLE mm;
