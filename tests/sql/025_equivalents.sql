-- ClickHouse functions DataFusion has under another name or form.
SELECT isNull(NULL), isNotNull(1);
SELECT like('abc', '%b%'), notLike('abc', '%b%'), ilike('ABC', '%b%');
SELECT match('abc', 'b.');
SELECT startsWith('abc', 'a'), endsWith('abc', 'c');
SELECT replaceAll('aab', 'a', 'x');
SELECT replaceRegexpAll('aab', 'a', 'x'), replaceRegexpOne('aab', 'a', 'x');
SELECT splitByChar(',', 'a,b'), splitByString('::', 'a::b');
SELECT arrayStringConcat(['a', 'b'], ','), arrayStringConcat(['a', 'b']);
SELECT has([1, 2], 1), hasAll([1, 2], [1]), hasAny([1, 2], [3]);
SELECT indexOf([1, 2], 2), indexOf([1, 2], 5);
SELECT arrayDistinct([1, 1, 2]), arrayReverse([1, 2]), arraySort([3, 1, 2]), arrayConcat([1], [2, 3]);
SELECT arrayJoin([1, 2]);
SELECT empty(''), notEmpty('a'), empty([]), notEmpty([1]);
SELECT tuple(1, 'a');
SELECT bitAnd(3, 1), bitOr(3, 4), bitXor(3, 1), bitShiftLeft(1, 3), bitShiftRight(8, 2);
SELECT leftPad('a', 3, '0'), rightPad('a', 3, '0'), leftPad('abc', 2);
SELECT toDecimal32(1.5, 2), toDecimal64(-3, 4), toTypeName(toDecimal64(-3, 4));
SELECT toInt32OrZero('x'), toInt32OrNull('x'), toUInt8OrZero('12'), toFloat64OrNull('1.5');
SELECT toStartOfInterval(toDateTime('2024-01-01 00:07:00'), INTERVAL 5 MINUTE);
SELECT number, arrayJoin([10, 20]) AS x FROM numbers(2) ORDER BY number, x;
SELECT count() FROM numbers(10) WHERE startsWith(toString(number), '1') OR isNull(number);
SELECT has([1, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
