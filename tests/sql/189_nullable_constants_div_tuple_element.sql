-- Constants that ClickHouse types Nullable stay Nullable although their
-- value is not NULL.
SELECT nullIf(1, 2), toTypeName(nullIf(1, 2)), toTypeName(nullIf('a', 'b')), nullIf(1, 1);
SELECT if(1, 'a', NULL) AS x, toTypeName(x), toTypeName(if(0, NULL, 5)), toTypeName(if(1, 'a', 'b'));
SELECT CASE WHEN 1 THEN 'a' END AS x, toTypeName(x), toTypeName(CASE WHEN 1 THEN 'a' ELSE 'b' END);
SELECT multiIf(1, 'x', 0, 'y', NULL) AS x, toTypeName(x);
SELECT greatest(1, NULL) AS x, toTypeName(x), least(NULL, 2) AS y, toTypeName(y), toTypeName(greatest(1, 2));
SELECT concat(if(1, 'a', NULL), 'b') AS x, toTypeName(x);
SELECT number, toTypeName(nullIf(number, 1)), nullIf(number, 1) FROM numbers(2);
-- DIV and MOD are intDiv and modulo, at the precedence of *.
SELECT 7 DIV 2, -7 DIV 2, -7 MOD 3, 7 MOD -3, 1 + 7 DIV 2 * 2, 10 - 7 MOD 4, toTypeName(7 DIV 2);
SELECT number DIV 3 AS k, count() FROM numbers(10) GROUP BY k ORDER BY k;
SELECT 7 DIV 0; -- { serverError ILLEGAL_DIVISION }
-- tupleElement's third argument is what a missing element gives.
SELECT tupleElement((1, 'a'), 3, 'default'), tupleElement((1, 'a'), 2, 'x'), tupleElement(CAST((1, 'a') AS Tuple(x UInt8, y String)), 'z', 0) AS z, toTypeName(z), tupleElement(CAST((1, 'a') AS Tuple(x UInt8, y String)), 'y', 'none');
SELECT tupleElement(t, 3, -1) FROM (SELECT (number, 'a') AS t FROM numbers(2));
SELECT tupleElement((1, 'a'), 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
