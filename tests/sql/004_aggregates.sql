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
-- uniq is ClickHouse's adaptive sampling with ClickHouse's hashes: past 65,536 values the estimates are equal too.
SELECT uniq(number) FROM numbers(1000000);
SELECT uniq(x) FROM (SELECT toInt32(number) - 500000 AS x FROM numbers(300000));
SELECT uniq(x), uniq(y) FROM (SELECT toFloat64(number) * 0.37 AS x, toFloat32(number) / 3 AS y FROM numbers(300000));
SELECT uniq(x) FROM (SELECT if(number % 3 = 0, NULL, number) AS x FROM numbers(400000));
SELECT number % 3 AS k, uniq(number) FROM numbers_mt(3000000) GROUP BY k ORDER BY k;
SELECT toUInt8(number % 3) AS k, uniq(number) FROM numbers_mt(3000000) GROUP BY k ORDER BY k;
SELECT uniq(number) FROM numbers(1000000) WHERE number % 7 = 1;
