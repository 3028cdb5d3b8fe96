-- LIMIT n WITH TIES, tuple elements (t.1, tupleElement), bitCount, and the cityHash64/xxHash64/xxHash32 family.
SELECT number FROM numbers(10) ORDER BY intDiv(number, 3) LIMIT 2 WITH TIES;
SELECT number FROM numbers(10) ORDER BY intDiv(number, 3) LIMIT 4 OFFSET 1 WITH TIES;
SELECT number FROM numbers(10) ORDER BY intDiv(number, 3) DESC, number LIMIT 1, 3 WITH TIES;
SELECT number FROM numbers(10) ORDER BY intDiv(number, 3) LIMIT 0 WITH TIES;
SELECT * FROM (SELECT number % 4 AS k, count() AS c FROM numbers(10) GROUP BY k ORDER BY c DESC LIMIT 1 WITH TIES) ORDER BY k;
SELECT number FROM numbers(10) LIMIT 2 WITH TIES; -- { serverError WITH_TIES_WITHOUT_ORDER_BY }
SELECT tuple(1, 'a').1, tuple(1, 'a').2, tupleElement(tuple(1, 2), 2);
SELECT t.2, t.1 + 1 FROM (SELECT tuple(number, toString(number)) AS t FROM numbers(3)) ORDER BY t.1;
SELECT tupleElement(tuple(1, 2), 'x'); -- { serverError BAD_ARGUMENTS }
SELECT tupleElement(tuple(1, 2), 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tupleElement(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitCount(7), bitCount(-1), bitCount(toInt64(-1)), bitCount(1.5), bitCount('ab'), bitCount(toNullable(3)), bitCount(NULL);
SELECT toTypeName(bitCount(7)), toTypeName(bitCount('ab'));
SELECT cityHash64('a'), cityHash64(''), cityHash64('hello world, a longer string over sixty-four bytes long to exercise all paths');
SELECT cityHash64(1), cityHash64(toInt8(-1)), cityHash64(toInt32(-1)), cityHash64(1.5), cityHash64(toDate('2020-01-01'));
SELECT cityHash64('a', 1), cityHash64(1, 2), cityHash64('a', NULL), cityHash64(toNullable('a'));
SELECT xxHash64('a'), xxHash64(1), xxHash64(toUInt64(1)), xxHash64(1.5), xxHash64('a', 'b');
SELECT xxHash32('a'), xxHash32(1), xxHash32('a', 'b'), toTypeName(xxHash32('a'));
SELECT number, cityHash64(number), xxHash64(toString(number)) FROM numbers(3) ORDER BY number;
