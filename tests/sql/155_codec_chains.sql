-- Codec chains: transformations, then a general-purpose codec, checked against the column's type
CREATE TABLE codecs (k UInt64 CODEC(Delta, ZSTD), d Date CODEC(Delta, LZ4), t DateTime CODEC(DoubleDelta), f Float64 CODEC(Gorilla), g Float32 CODEC(Gorilla, LZ4HC(5)), i Int16 CODEC(T64, ZSTD(5)), n Nullable(UInt32) CODEC(Delta(4), T64, ZSTD), s String CODEC(LZ4HC), raw UInt8 CODEC(NONE)) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 100;
SELECT name, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = 'codecs' ORDER BY position;
INSERT INTO codecs SELECT number * 3, toDate('2024-01-01') + intDiv(number, 100), toDateTime('2024-01-01 00:00:00', 'UTC') + number * 10, number / 7, number * 0.5, toInt16(number % 1000 - 500), if(number % 5 = 0, NULL, number), toString(number % 17), number % 256 FROM numbers(1000);
SELECT count(), sum(k), min(d), max(t), round(sum(f), 3), sum(g), sum(i), count(n), sum(n), uniqExact(s), sum(raw) FROM codecs;
SELECT * FROM codecs WHERE k IN (0, 2997, 1500) ORDER BY k;
OPTIMIZE TABLE codecs FINAL;
SELECT count(), sum(k), sum(i), sum(n), round(sum(f), 3) FROM codecs;
ALTER TABLE codecs MODIFY COLUMN raw UInt8 CODEC(T64, ZSTD);
SELECT compression_codec FROM system.columns WHERE database = currentDatabase() AND table = 'codecs' AND name = 'raw';
CREATE TABLE bad (k UInt8, s String CODEC(Delta, ZSTD)) ENGINE = MergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(Delta)) ENGINE = MergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(ZSTD, Delta)) ENGINE = MergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(Gorilla)) ENGINE = MergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, x Float64 CODEC(T64)) ENGINE = MergeTree ORDER BY k; -- { serverError ILLEGAL_SYNTAX_FOR_CODEC_TYPE }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(Delta(3), ZSTD)) ENGINE = MergeTree ORDER BY k; -- { serverError ILLEGAL_CODEC_PARAMETER }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(ZSTD(30))) ENGINE = MergeTree ORDER BY k; -- { serverError ILLEGAL_CODEC_PARAMETER }
CREATE TABLE bad (k UInt8, x UInt64 CODEC(Foo)) ENGINE = MergeTree ORDER BY k; -- { serverError UNKNOWN_CODEC }
SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'bad';
