-- uniqHLL12: exact for few distinct values (ClickHouse's estimate differs past 16).
SELECT uniqHLL12(number % 10), uniqHLL12(toString(number % 16)), uniqHLL12(number % 3, number % 5) FROM numbers(1000);
SELECT number % 3 AS k, uniqHLL12(number % 7) FROM numbers(100) GROUP BY k ORDER BY k;
SELECT uniqHLL12(x) FROM (SELECT arrayJoin([1, NULL, 2, NULL, 1]) AS x);
SELECT uniqHLL12(number) FROM numbers(0);
SELECT uniqHLL12Merge(s) FROM (SELECT uniqHLL12State(number % 12) AS s FROM numbers(50) GROUP BY number % 2);
SELECT uniqHLL12If(number, number < 5) FROM numbers(10);
