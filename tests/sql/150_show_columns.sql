-- SHOW COLUMNS, and the key flags and codecs of system.columns
DROP TABLE IF EXISTS sc_a;
DROP TABLE IF EXISTS sc_b;
CREATE TABLE sc_a (x UInt8, d Date, y UInt32, n Nullable(UInt8) MATERIALIZED 1, s Nullable(String) DEFAULT 'q' COMMENT 'cm', `odd col` UInt32 CODEC(ZSTD(3))) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY (x, intHash32(y), `odd col`) PRIMARY KEY (x, intHash32(y));
CREATE TABLE sc_b (x UInt8, yy UInt8) ENGINE = Memory;
SELECT table, name, position, is_in_partition_key, is_in_sorting_key, is_in_primary_key, is_in_sampling_key, compression_codec FROM system.columns WHERE database = currentDatabase() AND table LIKE 'sc\_%' ORDER BY table, position;
SHOW COLUMNS FROM sc_a;
SHOW FULL COLUMNS FROM sc_a;
SHOW COLUMNS FROM sc_a LIKE 'x%';
SHOW COLUMNS FROM sc_b ILIKE 'X%' LIMIT 1;
SHOW COLUMNS FROM sc_a WHERE type LIKE '%Int%';
SHOW TABLES LIKE 'sc\_%';
SHOW TABLES ILIKE 'SC\_B';
SHOW DATABASES LIKE 'syst%';
DROP TABLE sc_a;
DROP TABLE sc_b;
