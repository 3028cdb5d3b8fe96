-- The seed articles' queries at small sizes.
SELECT count() FROM (SELECT number FROM numbers(1, 100000) INTERSECT SELECT number FROM numbers(1, 100000));
SELECT count() FROM (SELECT intHash64(number) FROM numbers(1, 100000) INTERSECT SELECT intHash64(number) FROM numbers(1, 100000));
SELECT number % 10000 AS k, uniq(number) AS u FROM numbers_mt(1000000.) GROUP BY k ORDER BY u DESC, k LIMIT 10;
SELECT 0 + (number % 10000) AS k, uniq(number) AS u FROM numbers_mt(1000000.) GROUP BY k ORDER BY u DESC, k LIMIT 10;
SELECT number % 10000 AS k, count() AS c FROM numbers_mt(1000000) GROUP BY k ORDER BY c DESC, k LIMIT 3;
SELECT number % 100 AS k, count() AS c FROM numbers_mt(1000000) GROUP BY k ORDER BY k LIMIT 3;
SELECT sum(number) FROM numbers_mt(10000000);
