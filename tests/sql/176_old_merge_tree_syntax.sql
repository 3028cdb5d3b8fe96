-- MergeTree(date, [sampling,] key, granularity): refused unless allow_deprecated_syntax_for_merge_tree.
CREATE TABLE old_form (d Date, x UInt64) ENGINE = MergeTree(d, x, 8192); -- { serverError BAD_ARGUMENTS }
SET allow_deprecated_syntax_for_merge_tree = 1;
CREATE TABLE old_form (d Date, x UInt64, s String) ENGINE = MergeTree(d, (x, s), 8192);
INSERT INTO old_form VALUES ('2020-01-05', 2, 'b'), ('2020-02-05', 1, 'a'), ('2020-01-06', 1, 'c');
SELECT * FROM old_form ORDER BY d;
SELECT partition, rows FROM system.parts WHERE database = currentDatabase() AND table = 'old_form' AND active ORDER BY partition;
SELECT partition_key, sorting_key, primary_key, sampling_key FROM system.tables WHERE database = currentDatabase() AND name = 'old_form';
CREATE TABLE old_sampled (d Date, x UInt64) ENGINE = MergeTree(d, intHash32(x), (x, intHash32(x)), 512);
INSERT INTO old_sampled SELECT toDate('2021-03-01') + number % 40, number FROM numbers(1000);
SELECT partition_key, sorting_key, sampling_key FROM system.tables WHERE database = currentDatabase() AND name = 'old_sampled';
SELECT count() FROM old_sampled SAMPLE 1/2;
SELECT partition, count() FROM system.parts WHERE database = currentDatabase() AND table = 'old_sampled' AND active GROUP BY partition ORDER BY partition;
CREATE TABLE old_replacing (d Date, x UInt64, v Int8) ENGINE = ReplacingMergeTree(d, x, 8192, v);
INSERT INTO old_replacing VALUES ('2020-01-01', 1, 1), ('2020-01-01', 1, 3), ('2020-01-01', 2, 1);
SELECT x, v FROM old_replacing FINAL ORDER BY x;
CREATE TABLE old_collapsing (d Date, x UInt64, sign Int8) ENGINE = CollapsingMergeTree(d, x, 8192, sign);
INSERT INTO old_collapsing VALUES ('2020-01-01', 1, 1), ('2020-01-01', 1, -1), ('2020-01-01', 2, 1);
SELECT x FROM old_collapsing FINAL ORDER BY x;
CREATE TABLE old_summing (d Date, x UInt64, v Int64) ENGINE = SummingMergeTree(d, x, 8192, (v));
INSERT INTO old_summing VALUES ('2020-01-01', 1, 1), ('2020-01-01', 1, 5), ('2020-01-01', 2, 1);
SELECT x, v FROM old_summing FINAL ORDER BY x;
