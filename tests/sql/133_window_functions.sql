-- Window functions: ClickHouse's camelCase aggregates over a window, frames, partitions
CREATE TABLE w (g String, n UInt32, v Int64) ENGINE = MergeTree ORDER BY (g, n);
INSERT INTO w VALUES ('a', 1, 10), ('a', 2, -5), ('a', 3, 7), ('b', 1, 3), ('b', 2, 4), ('c', 1, 0);

SELECT g, n, sum(v) OVER (PARTITION BY g ORDER BY n) FROM w ORDER BY g, n;
SELECT g, n, groupArray(v) OVER (PARTITION BY g ORDER BY n) FROM w ORDER BY g, n;
SELECT g, n, argMax(n, v) OVER (PARTITION BY g) FROM w ORDER BY g, n;
SELECT g, n, uniqExact(v) OVER (PARTITION BY g) FROM w ORDER BY g, n;
SELECT n, row_number() OVER (ORDER BY g, n), rank() OVER (ORDER BY v) FROM w ORDER BY g, n;
SELECT g, n, max(v) OVER (PARTITION BY g ORDER BY n ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY g, n;
SELECT g, groupArray(n) OVER (PARTITION BY g ORDER BY n DESC) AS a FROM w ORDER BY g, length(a);

-- count() over sliding frames (rows leave the frame as it moves)
SELECT number, count() OVER (ORDER BY number RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS c, count(nullIf(number, 3)) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS d FROM numbers(6);
SELECT number % 2 AS g, number, count() OVER (PARTITION BY g ORDER BY number ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM numbers(6) ORDER BY g, number;
