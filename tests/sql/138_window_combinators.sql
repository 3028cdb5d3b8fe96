-- any, anyLast and -If aggregates over a window
SELECT number, anyLast(number) OVER (ORDER BY number), any(number) OVER (ORDER BY number DESC) FROM numbers(4) ORDER BY number;
SELECT number, anyLast(if(number = 2, NULL, number)) OVER (ORDER BY number) FROM numbers(4) ORDER BY number;
SELECT number, countIf(number > 0) OVER (ORDER BY number), sumIf(number, number > 0) OVER (ORDER BY number) FROM numbers(4) ORDER BY number;
SELECT number, avgIf(number, number > 0) OVER (), minIf(number, number > 1) OVER () FROM numbers(4) ORDER BY number;
SELECT number, maxIf(number, number < 2) OVER (PARTITION BY number % 2), countIf(number % 2 = 0) OVER (PARTITION BY number % 2) FROM numbers(6) ORDER BY number;
