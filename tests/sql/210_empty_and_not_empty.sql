-- empty() and notEmpty() as UInt8: no byte, element or key; a FixedString,
-- UUID or IPv6 of zero bytes only is empty; NULL stays NULL.
SELECT empty(''), empty('a'), notEmpty(''), notEmpty('a'), toTypeName(empty('x'));
SELECT empty(toFixedString('', 3)), empty(toFixedString('a', 3)), notEmpty(toFixedString('', 2)), notEmpty(toFixedString('ab', 2));
SELECT empty(toUUID('00000000-0000-0000-0000-000000000000')), empty(toUUID('00000000-0000-0000-0000-000000000001'));
SELECT empty(toIPv6('::')), notEmpty(toIPv6('::1'));
SELECT empty([]), empty([1]), notEmpty([[]]), empty(map()), notEmpty(map(1, 2));
SELECT empty(NULL), notEmpty(CAST(NULL AS Nullable(String))), empty(CAST('' AS Nullable(String)));
SELECT s, empty(s), notEmpty(f) FROM (SELECT arrayJoin(['', 'x', 'yz']) AS s, toFixedString(s, 2) AS f) ORDER BY s;
SELECT count() FROM numbers(10) WHERE notEmpty(toString(number % 2 = 0 ? '' : 'x'));
SELECT empty(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
