-- SAMPLE BY: a sample is the rows whose key lies in a share of the key type's range.
CREATE TABLE sampled (x UInt64, h UInt32 DEFAULT intHash32(x)) ENGINE = MergeTree ORDER BY (h, x) SAMPLE BY h SETTINGS index_granularity = 1024;
INSERT INTO sampled (x) SELECT number FROM numbers(100000);
SHOW CREATE TABLE sampled;
SELECT sampling_key, primary_key FROM system.tables WHERE database = currentDatabase() AND name = 'sampled';
SELECT name, is_in_sampling_key FROM system.columns WHERE database = currentDatabase() AND table = 'sampled' ORDER BY name;
SELECT count(), sum(x) FROM sampled SAMPLE 0.1;
SELECT count(), sum(x) FROM sampled SAMPLE 1/10;
SELECT count(), sum(x), any(_sample_factor) FROM sampled SAMPLE 1/10 OFFSET 1/2;
SELECT count(), sum(_sample_factor) FROM sampled SAMPLE 0.25;
SELECT count() FROM sampled SAMPLE 0.5 OFFSET 0.5;
SELECT count() FROM sampled SAMPLE 0.5 OFFSET 0.75;
-- A row count above 1 becomes a share of the table's rows.
SELECT count(), any(_sample_factor) FROM sampled SAMPLE 10000;
SELECT count() FROM sampled SAMPLE 1000;
SELECT count() FROM sampled SAMPLE 1000000;
-- SAMPLE 1 and SAMPLE 0 read everything.
SELECT count() FROM sampled SAMPLE 1;
SELECT count() FROM sampled SAMPLE 0;
SELECT count() FROM sampled AS s SAMPLE 0.1 WHERE s.x < 50000;
SELECT count() FROM sampled SAMPLE 0.1 WHERE x IN (SELECT x FROM sampled SAMPLE 0.1 OFFSET 0.05);
SELECT count() FROM sampled SAMPLE 1 OFFSET 0.5; -- { serverError ARGUMENT_OUT_OF_BOUND }
-- Tables without SAMPLE BY, and table functions, cannot sample.
CREATE TABLE unsampled (x UInt64) ENGINE = MergeTree ORDER BY x;
SELECT count() FROM unsampled SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM numbers(10) SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
-- The key must be in the primary key, of an unsigned integer type.
CREATE TABLE bad_sample (x UInt64, y UInt64) ENGINE = MergeTree ORDER BY x SAMPLE BY y; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad_sample (x Int64) ENGINE = MergeTree ORDER BY x SAMPLE BY x; -- { serverError ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER }
CREATE TABLE small_key (x UInt8) ENGINE = MergeTree ORDER BY x SAMPLE BY x;
INSERT INTO small_key SELECT number FROM numbers(256);
SELECT count(), min(x), max(x) FROM small_key SAMPLE 1/4 OFFSET 1/2;
CREATE TABLE replacing (x UInt32, v UInt8) ENGINE = ReplacingMergeTree ORDER BY x SAMPLE BY x;
INSERT INTO replacing SELECT number * 1000000, 1 FROM numbers(4000);
INSERT INTO replacing SELECT number * 1000000, 2 FROM numbers(4000);
SELECT count(), sum(v) FROM replacing FINAL SAMPLE 0.5;
SELECT count() FROM sampled SAMPLE 1e30;
SELECT count() FROM sampled SAMPLE 1/2 OFFSET 1e30;
