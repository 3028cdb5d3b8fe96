-- Sliding frames over aggregates that cannot take rows back out: the frame's
-- rows are aggregated anew for each row.
SELECT number, groupArray(number) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM numbers(5) ORDER BY number;
SELECT number, argMax(number, number % 3) OVER (ORDER BY number ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM numbers(6) ORDER BY number;
SELECT number, uniqExact(number % 2) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM numbers(4) ORDER BY number;
SELECT k, number, groupArray(number) OVER (PARTITION BY k ORDER BY number ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS g FROM (SELECT number, number % 2 AS k FROM numbers(7)) ORDER BY k, number;
SELECT number, sum(number) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), max(number) OVER (ORDER BY number ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM numbers(4) ORDER BY number;
SELECT number, quantileExact(0.5)(number) OVER (ORDER BY number ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM numbers(5) ORDER BY number;
