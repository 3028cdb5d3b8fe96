-- ORDER BY ... WITH FILL: rows added for the values the sorted result skips
SELECT number * 3 AS n, 'x' AS s, toNullable(1) AS z FROM numbers(4) ORDER BY n WITH FILL;
SELECT arrayJoin([3, 12]) AS n ORDER BY n WITH FILL FROM 0 TO 20 STEP 5;
SELECT arrayJoin([12, 3]) AS n ORDER BY n DESC WITH FILL STEP -5;
SELECT arrayJoin([12, 3]) AS n ORDER BY n DESC WITH FILL FROM 15 TO 0 STEP -4;
SELECT arrayJoin([12, 3]) AS n ORDER BY n DESC WITH FILL STEP 5; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT arrayJoin([3, 12]) AS n ORDER BY n WITH FILL STEP -1; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT arrayJoin([3, 12]) AS n ORDER BY n WITH FILL STEP 0; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT arrayJoin(['a', 'c']) AS s ORDER BY s WITH FILL; -- { serverError INVALID_WITH_FILL_EXPRESSION }
SELECT number * 1.5 AS n FROM numbers(3) ORDER BY n WITH FILL STEP 0.5;

-- Dates step by days, times by seconds, and both by intervals
SELECT toDate('2024-01-01') + arrayJoin([0, 3]) AS d, 1 AS v ORDER BY d WITH FILL;
SELECT toDate('2024-01-31') + arrayJoin([0, 100]) AS d, 1 AS v ORDER BY d WITH FILL STEP INTERVAL 1 MONTH;
SELECT toDate('2024-01-01') + arrayJoin([0, 21]) AS d ORDER BY d WITH FILL STEP 7;
SELECT toDate('2024-03-01') + arrayJoin([0, 20]) AS d ORDER BY d WITH FILL FROM toDate('2024-02-25') TO toDate('2024-03-30') STEP INTERVAL 1 WEEK;
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 3 AS t FROM numbers(2) ORDER BY t WITH FILL;
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 7200 AS t, count() AS c FROM numbers(3) GROUP BY t ORDER BY t WITH FILL STEP INTERVAL 30 MINUTE;
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 7200 AS t, count() AS c FROM numbers(2) GROUP BY t ORDER BY t DESC WITH FILL STEP toIntervalHour(-1);

-- Filling runs within each run of the ORDER BY keys before the filled one
SELECT number % 2 AS g, number * 2 AS n FROM numbers(6) ORDER BY g, n WITH FILL;
SELECT number % 2 AS g, number * 2 AS n FROM numbers(6) ORDER BY g, n WITH FILL TO 14 STEP 3;
SELECT number * 2 AS n, number % 2 AS g FROM numbers(4) ORDER BY n WITH FILL, g;
SELECT number * 2 AS n, toString(number) AS s FROM numbers(3) ORDER BY 1 WITH FILL;

-- LIMIT counts the added rows
SELECT number * 2 AS n FROM numbers(3) ORDER BY n WITH FILL LIMIT 3;
SELECT number * 2 AS n FROM numbers(3) ORDER BY n WITH FILL LIMIT 2 OFFSET 2;

-- Over a table, across blocks
CREATE TABLE wf (d Date, k UInt8, v UInt32) ENGINE = MergeTree ORDER BY (k, d) SETTINGS index_granularity = 3;
INSERT INTO wf SELECT toDate('2024-01-01') + number * 2, number % 3, number FROM numbers(30);
SELECT k, d, sum(v) AS s FROM wf WHERE d < toDate('2024-01-20') GROUP BY k, d ORDER BY k, d WITH FILL SETTINGS max_block_size = 2;
SELECT d, sum(v) AS s FROM wf GROUP BY d ORDER BY d WITH FILL FROM toDate('2024-02-20') TO toDate('2024-03-05');
DROP TABLE wf;
