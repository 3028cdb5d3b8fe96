-- A Date or DateTime modulo a number reads its stored number
SELECT toDate('2018-06-21') % 234 AS a, toTypeName(a), toDateTime('2018-06-21 12:12:12', 'UTC') % 234 AS b, toTypeName(b);
SELECT toDate('2018-06-21') % 2.5 AS d, toTypeName(d), toDate('2018-06-21') % toUInt64(70000) AS f, toTypeName(f), toDate('2018-06-21') % -5 AS g, toTypeName(g);
SELECT number, toDate('2020-01-01') + number AS d, d % 7 FROM numbers(3);

-- Hashes: URLHash, farmHash64, and the hash of no arguments
SELECT URLHash('http://ya.ru/a/b?c#d'), URLHash('http://ya.ru/') = URLHash('http://ya.ru'), URLHash('http://ya.ru?') = URLHash('http://ya.ru'), URLHash('') = cityHash64('');
SELECT farmHash64(123456), farmHash64('abc'), farmHash64('hello world, this is a long string with more than 64 bytes in it ok ok ok'), farmHash64('a', 'b'), farmHash64();
SELECT xxHash64(), xxHash32(), cityHash64(), sipHash64(), toTypeName(xxHash32());

-- reverseBySeparator with an empty separator reverses the bytes
SELECT reverseBySeparator('a/b/c', ''), reverseBySeparator('test', ''), reverseBySeparator('', '');

-- toTypeOrZero/OrNull take text only, and keep a NULL
SELECT toUInt64OrZero(s), toUInt64OrNull(s), toInt8OrZero(s) FROM (SELECT CASE WHEN number = 5 THEN NULL WHEN number % 2 = 1 THEN toString(number) ELSE 'hello' END AS s FROM numbers(7));
SELECT toUInt64OrZero(CAST(NULL, 'Nullable(String)')) AS b, toTypeName(b), toFloat32OrNull('1.5') AS c, toTypeName(c), toUInt8OrZero('') AS d, toTypeName(d);
SELECT toInt8OrZero(toFixedString('12', 2)), toDateOrZero(CAST(NULL, 'Nullable(String)')) AS e, toTypeName(e);
SELECT toInt32OrZero(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toInt32OrNull(5.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toFloat64OrZero(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- A Nullable(String) converts with a NULL where it does not parse
SELECT toUInt8(x), toInt64(x), toFloat64(x), toDate(x), toDateTime(x, 'UTC') FROM values('x Nullable(String)', '42', NULL, '0', '', '256', '2020-01-02');
SELECT toDate(x), toDateTime(x, 'Asia/Tokyo') FROM values('x Nullable(String)', '2020-12-24', NULL, '', 'x', '2020-12-24 01:02:03');
SELECT toUInt8(toNullable('abc')) AS a, toTypeName(a), toUInt16(toNullable('65536')), toInt8(toNullable('-128'));
SELECT toUInt8('abc'); -- { serverError CANNOT_PARSE_TEXT }

-- Set functions over arrays and tuples whose elements differ in Nullable
SELECT arrayIntersect([[1, 2, NULL], [1, 1]], [[-2, 1], [1, 1]]);
SELECT arrayIntersect([(1, ['a', 'b']), (NULL, ['c'])], [(2, ['c', NULL]), (1, ['a', 'b'])]);
CREATE TABLE tags (tags Map(String, String)) ENGINE = Memory;
INSERT INTO tags VALUES (map('fruit', 'apple', 'color', 'red'));
SELECT mapUpdate(mapFilter((k, v) -> (k IN ('fruit')), tags), map('season', 'autumn')) AS m, toTypeName(m) FROM tags;
DROP TABLE tags;

-- Markdown can escape punctuation
SELECT '!' AS a, '#' AS b, '(' AS c, '*' AS d, '-' AS e, '.' AS f, '[' AS g, '_' AS h, '`' AS i, '|' AS j, 'x1' AS k FORMAT Markdown SETTINGS output_format_markdown_escape_special_characters = 1;
SELECT '!' AS a, '#' AS b, '|' AS j FORMAT Markdown;

-- A tuple IN a subquery whose items use each other's aliases
SELECT (2, 3) IN (SELECT number + 2 AS a, a + 1 FROM numbers(3)), (3, 3) IN (SELECT number AS a, a FROM numbers(5) WHERE a > 2);

-- toStartOfInterval with a time zone
SELECT toStartOfInterval(toDateTime('2020-01-01 10:17:00', 'UTC'), toIntervalHour(1), 'Asia/Kolkata') AS a, toTypeName(a), toStartOfInterval(toDateTime('2020-01-01 22:17:00', 'UTC'), toIntervalDay(1), 'Asia/Tokyo') AS b, toTypeName(b), toStartOfInterval(toDateTime('2020-01-05 22:00:00', 'UTC'), toIntervalMonth(1), 'Asia/Tokyo') AS c, toTypeName(c);

-- arrayDistinct leaves NULL out
SELECT arrayDistinct([1, 2, NULL, 5, 2, NULL]), arrayDistinct(['x', NULL, 'y', 'x']), arrayDistinct([[1, NULL], [1, NULL]]), arrayDistinct(CAST([], 'Array(Nullable(UInt8))'));

-- JSONExtract takes SQL type aliases
SELECT JSONExtract('{"v":1.1}', 'v', 'float') AS a, toTypeName(a), JSONExtract('{"v":1.1}', 'v', 'double') AS b, toTypeName(b), JSONExtract('{"v":7}', 'v', 'INT') AS c, toTypeName(c), JSONExtract('{"v":7}', 'v', 'BIGINT') AS e, toTypeName(e);

-- TIMESTAMP is DateTime, TIMESTAMP(p) DateTime64(p)
SELECT CAST('2020-01-01 10:00:00' AS TIMESTAMP) AS a, toTypeName(a), CAST(1 AS TIMESTAMP(3)) AS b, toTypeName(b), toTimeZone(CAST(1 AS TIMESTAMP), 'UTC') AS c, toTypeName(c);

-- A Decimal conversion fits what the storage integer holds
SELECT accurateCastOrNull(1, 'Decimal32(9)'), accurateCastOrNull(2.2, 'Decimal32(9)'), accurateCastOrNull(2.1474836, 'Decimal32(9)'), toDecimal32OrNull('2.5', 9), accurateCastOrNull(-2.2, 'Decimal32(9)'), accurateCastOrNull(100, 'Decimal64(17)'), accurateCastOrNull(92, 'Decimal64(17)');
SELECT accurateCastOrNull(-1, 'DateTime'), accurateCastOrNull(4294967296, 'DateTime'), accurateCastOrNull(toInt64(4294967295), 'DateTime');

-- Enums hash as their numbers
SELECT murmurHash2_32(x), murmurHash3_64(x), halfMD5(x), farmHash64(x) FROM (SELECT CAST(1 AS Enum8('a' = 1, 'b' = 2)) AS x);
SELECT toStartOfInterval(toDateTime('2020-01-01 22:17:00', 'Asia/Tokyo'), INTERVAL 1 DAY), toStartOfInterval(toDateTime('2020-01-01 22:17:00', 'Asia/Kolkata'), INTERVAL 1 HOUR), toStartOfInterval(toDateTime('2020-01-05 22:17:00', 'Asia/Tokyo'), INTERVAL 3 DAY) AS a, toTypeName(a), toStartOfInterval(toDate('2020-01-05'), INTERVAL 2 DAY) AS b, toTypeName(b);

-- arrayResize fills with an array
SELECT arrayResize([[1, 2], [3, 4]], 4, [5, 6]), arrayResize([[1, 2], [3, 4]], -4, [5, 6]), arrayResize([1, 2], 3, 7), arrayResize(['a'], 2, 'b');

-- A choice between a DateTime and a Date is a DateTime on the DateTime's clock
SELECT toDateTime('2000-01-01 00:00:00', 'Asia/Istanbul') AS x, toDate('2000-01-02') AS y, x > y ? x : y AS z, toTypeName(z), if(number = 1, x, y) AS w, toTypeName(w) FROM numbers(2);
SELECT multiIf(number = 0, toDate('2001-02-03'), number = 1, toDateTime('2001-02-03 04:05:06', 'UTC'), NULL) AS m, toTypeName(m) FROM numbers(3);
SELECT CASE WHEN number = 0 THEN toDateTime64('2001-02-03 04:05:06.789', 3, 'Asia/Tokyo') ELSE toDate('2001-02-03') END AS c, toTypeName(c) FROM numbers(2);

-- avg of Decimals over a window is a Float64
SELECT g, p, avg(p) OVER (PARTITION BY g) AS a, toTypeName(a), avg(p) OVER (PARTITION BY g ORDER BY p ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) AS b FROM (SELECT toDecimal64(number, 2) AS p, number % 2 AS g FROM numbers(5)) ORDER BY g, p;
