-- max_result_rows and max_rows_to_read with their overflow modes.
SELECT number FROM numbers(10) SETTINGS max_result_rows = 5; -- { serverError TOO_MANY_ROWS_OR_BYTES }
SELECT number FROM numbers(5) SETTINGS max_result_rows = 5;
SELECT number FROM numbers(100) SETTINGS max_result_rows = 5, result_overflow_mode = 'break', max_block_size = 10;
SELECT count() FROM numbers(100) SETTINGS max_rows_to_read = 10; -- { serverError TOO_MANY_ROWS }
SELECT count() FROM numbers(10) SETTINGS max_rows_to_read = 10;
SELECT count() FROM numbers(20) SETTINGS max_rows_to_read = 10, read_overflow_mode = 'break', max_block_size = 100;
CREATE TABLE t (a UInt64) ENGINE = MergeTree ORDER BY a SETTINGS index_granularity = 10;
INSERT INTO t SELECT number FROM numbers(1000);
SELECT count() FROM t WHERE a < 10 SETTINGS max_rows_to_read = 100;
SELECT sum(a) FROM t SETTINGS max_rows_to_read = 100; -- { serverError TOO_MANY_ROWS }
SET result_overflow_mode = 'nope'; -- { serverError UNKNOWN_OVERFLOW_MODE }
