-- INTERSECT, EXCEPT and UNION with ClickHouse's default modes.
SELECT count() FROM (SELECT number FROM numbers(1, 1000) INTERSECT SELECT number FROM numbers(1, 1000));
SELECT count() FROM (SELECT number FROM numbers(10) INTERSECT SELECT number FROM numbers(5, 10));
SELECT count() FROM (SELECT number % 3 FROM numbers(10) INTERSECT SELECT number % 3 FROM numbers(10));
SELECT count() FROM (SELECT number % 3 FROM numbers(10) INTERSECT DISTINCT SELECT number % 3 FROM numbers(10));
SELECT number FROM numbers(5) EXCEPT SELECT number FROM numbers(3) ORDER BY number;
SELECT count() FROM (SELECT number % 2 FROM numbers(6) EXCEPT DISTINCT SELECT 5);
SELECT count() FROM (SELECT 1 UNION ALL SELECT 1);
SELECT count() FROM (SELECT 1 UNION DISTINCT SELECT 1);
SELECT 1 UNION SELECT 1; -- { serverError EXPECTED_ALL_OR_DISTINCT }
SET union_default_mode = 'DISTINCT';
SELECT count() FROM (SELECT 1 UNION SELECT 1);
SET intersect_default_mode = 'DISTINCT';
SELECT count() FROM (SELECT number % 3 FROM numbers(10) INTERSECT SELECT number % 3 FROM numbers(10));
SET except_default_mode = '';
SELECT 1 EXCEPT SELECT 2; -- { serverError EXPECTED_ALL_OR_DISTINCT }
