-- avg of Decimals: the exact Decimal sum divided in Float64, as ClickHouse computes it
SELECT avg(x), toTypeName(avg(x)) FROM (SELECT toDecimal64(number, 2) / 3 AS x FROM numbers(7));
SELECT number % 2 AS k, avg(toDecimal64(number + 0.01, 2)) AS a, avgIf(toDecimal32(number, 3), number > 2) FROM numbers(9) GROUP BY k ORDER BY k;
SELECT avg(d), count(), sum(d) FROM (SELECT toDecimal128(number, 4) / 7 AS d FROM numbers(100));
SELECT avg(toDecimal64(number, 2)) FROM numbers(0);
SELECT avg(toNullable(toDecimal64(number, 2))) FROM numbers(3) WHERE number > 5;
SELECT avg(DISTINCT toDecimal64(number % 3, 1)) FROM numbers(10);
SELECT k, 0.2 * avg(d) FROM (SELECT number % 3 AS k, toDecimal64(number, 2) AS d FROM numbers(11)) GROUP BY k ORDER BY k;
-- a Decimal compared with a float compares as Float64
SELECT toDecimal64(0.07, 2) <= 0.06 + 0.01, toDecimal64(0.07, 2) = 0.07, toDecimal64(1, 2) < nan, toDecimal64(1, 2) > nan, toDecimal64(1, 2) < inf;
SELECT 0.5 < toDecimal32(1, 1), toDecimal64(2.5, 1) BETWEEN 2.4 AND 2.6, toDecimal64(2.5, 1) NOT BETWEEN 2.6 AND 3.0;
SELECT count() FROM numbers(100) WHERE toDecimal64(number, 2) / 100 BETWEEN 0.05 AND 0.07;
-- a correlated scalar subquery over a Decimal average
SELECT number FROM (SELECT number, number % 3 AS k FROM numbers(9)) AS o WHERE toDecimal64(number, 2) < (SELECT 0.5 * avg(toDecimal64(i.number, 2)) FROM (SELECT number, number % 3 AS k FROM numbers(9)) AS i WHERE i.k = o.k) ORDER BY number;
-- a correlated subquery over no rows is NULL, sum and avg too
SELECT number, (SELECT sum(i.number) FROM numbers(3) AS i WHERE i.number = o.number) AS s, (SELECT avg(toDecimal32(i.number, 1)) FROM numbers(3) AS i WHERE i.number = o.number) AS a FROM numbers(4) AS o ORDER BY number;
SELECT number FROM numbers(5) AS o WHERE 1 < (SELECT sum(i.number) + 1 FROM numbers(3) AS i WHERE i.number = o.number) ORDER BY number;
SELECT number FROM numbers(5) AS o WHERE 0 = (SELECT sum(i.number) FROM numbers(3) AS i WHERE i.number = o.number) ORDER BY number;
-- Decimal arithmetic with a constant on either side, NULL rows and overflow
SELECT toDecimal64(number, 2) * 3, 3 - toDecimal32(number, 2), toDecimal128(number, 3) / 4, 1 + toDecimal64(number, 1) * (1 - toDecimal64(0.05, 2)) FROM numbers(3);
SELECT NULL + toDecimal64(number, 2), true + toDecimal64(number, 2), toDecimal64(5, 2) / nullIf(number, 0) FROM numbers(3);
SELECT toDecimal32(900000, 3) * toDecimal32(9000, 3); -- { serverError DECIMAL_OVERFLOW }
SELECT toDecimal64(number, 2) / 0 FROM numbers(2); -- { serverError ILLEGAL_DIVISION }
SELECT toDecimal64(100000000000000, 2) / toDecimal64(3, 2), toDecimal64(10, 2) / toUInt64(10000000000000000000), toDecimal64(100000000000000, 2) * 2, toDecimal64(0, 2) * toUInt64(10000000000000000000);
