-- Aggregate functions, including their values over empty input.
SELECT count(), count(number), sum(number), min(number), max(number), avg(number) FROM numbers(10);
SELECT any(number), anyLast(number) FROM numbers(1);
SELECT argMin(number, number % 7), argMax(number, number % 7) FROM numbers(10);
SELECT groupArray(number) FROM numbers(5);
SELECT uniq(number), uniqExact(number), uniqCombined(number) FROM numbers(1000);
SELECT uniqExact(number % 37), uniq(toString(number % 100)) FROM numbers(10000);
SELECT sum(number), min(number), max(number), avg(number), count() FROM numbers(0);
SELECT number % 3 AS k, count(), sum(number), groupArray(number) FROM numbers(9) GROUP BY k ORDER BY k;
SELECT number % 5 AS k, uniqExact(number), argMax(number, number) FROM numbers_mt(100000) GROUP BY k ORDER BY k;
SELECT count() FROM numbers(100) WHERE number % 2 = 0;
SELECT k, count() AS c FROM (SELECT number % 10 AS k FROM numbers(100)) GROUP BY k HAVING c > 5 ORDER BY k LIMIT 3;
SELECT sum(number) FROM numbers(10) GROUP BY number % 2 ORDER BY 1;
