-- LIMIT and OFFSET counted from the end (negative) or as a share of the
-- result (a fraction in (0, 1), rounded up), alone and together.
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT -3);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT -3 OFFSET 2);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 3 OFFSET -2);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT -3 OFFSET -2);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) OFFSET -3);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT -20);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 5 OFFSET -20);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 2, -3);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 0.25);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 0.3 OFFSET 0.5);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 0.5 OFFSET 3);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) OFFSET 0.05);
SELECT groupArray(number) FROM (SELECT number FROM numbers(100) LIMIT 0.07);
SELECT groupArray(number) FROM (SELECT number FROM numbers(3) LIMIT 0.5);
-- In the query's order, and the order of the rows kept.
SELECT number FROM numbers(10) ORDER BY number DESC LIMIT -3;
SELECT number % 3 AS k, number FROM numbers(9) ORDER BY k, number DESC LIMIT 0.4 OFFSET 1;
SELECT number % 3 AS k, number FROM numbers(9) ORDER BY k, number DESC LIMIT -4 OFFSET -1;
SELECT number FROM numbers(5) WHERE number > 10 LIMIT -2;
SELECT count() FROM (SELECT number FROM numbers(1000) LIMIT 0.1);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT 5.0 OFFSET 1e0);
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) LIMIT -2.0);
SELECT number FROM numbers(10) LIMIT 1.5; -- { serverError INVALID_LIMIT_EXPRESSION }
SELECT number FROM numbers(10) LIMIT -0.25; -- { serverError INVALID_LIMIT_EXPRESSION }
SELECT number FROM numbers(10) LIMIT -2 OFFSET 0.5; -- { serverError NOT_IMPLEMENTED }
SELECT number FROM numbers(10) LIMIT 0.5 OFFSET -2; -- { serverError NOT_IMPLEMENTED }
-- An array literal joined, alone and after a comma of the clause's list.
SELECT a FROM system.one ARRAY JOIN [1, 2] AS a;
SELECT number, a, b FROM numbers(2) ARRAY JOIN ['x', 'y'] AS a, [number, number * 10] AS b ORDER BY number, a;
SELECT number, a FROM numbers(2) LEFT ARRAY JOIN [[1], []] AS a ORDER BY number, length(a);
SELECT s, x FROM (SELECT 'q' AS s) ARRAY JOIN [(1, 'a'), (2, 'b')] AS x;
-- trimLeft/trimRight/trimBoth and lengthUTF8 of a FixedString read its bytes (Strata's
-- toString of a FixedString drops its trailing zero bytes, ClickHouse's keeps them).
SELECT trimLeft(toFixedString('  ab', 4)), trimBoth(toFixedString(' ab ', 4)), trimRight(toFixedString('a b ', 4)), trimBoth(toFixedString(' x ', 3), ' ');
SELECT lengthUTF8(toFixedString('ab', 3)), lengthUTF8(toFixedString('é', 4)), lengthUTF8(unhex('C3A9FF'));
-- `x IN array(...)` is the set of its elements, as `x IN [...]`.
SELECT 1 IN array(1, 2), 3 IN array(1, 2), 3 NOT IN array(1, 2), (1, 2) IN array((1, 2), (3, 4));
-- reverse of a tuple: a named one keeps its names.
SELECT reverse((1, 'Hello', [2, 3])), toTypeName(reverse(CAST((1, 'x'), 'Tuple(a UInt8, b String)')));
SELECT reverse(CAST((1, 'x'), 'Tuple(a UInt8, b String)')).a, tupleElement(reverse((1, 'x')), 1);
-- LIMIT BY over a sorted subquery keeps each key's first rows in the subquery's order.
SELECT * FROM (SELECT a, b FROM (SELECT number % 3 AS a, number AS b FROM numbers(10) ORDER BY b DESC) LIMIT 1 BY a) ORDER BY a;
SELECT a, arraySort(groupArray(b)) FROM (SELECT a, b FROM (SELECT number % 3 AS a, toString(number) AS b FROM numbers(100000) ORDER BY number DESC) LIMIT 2 BY a) GROUP BY a ORDER BY a;
