-- A Date beside a DateTime is a DateTime, a FixedString beside a String a
-- String: in a union's columns and in least, greatest, coalesce and ifNull.
SELECT x, toTypeName(x) FROM (SELECT toDate('2024-01-02') AS x UNION ALL SELECT toDateTime('2024-01-01 10:00:00')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime('2024-01-01 10:00:00', 'UTC') AS x UNION ALL SELECT toDate('2024-01-02') UNION ALL SELECT toDate('2023-12-31')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT 'abc' AS x UNION ALL SELECT toFixedString('de', 2)) ORDER BY x;
SELECT least(toDateTime('2024-01-01 00:00:00'), toDate('2024-01-02')), greatest(toDate('2024-01-03'), toDateTime('2024-01-01 10:00:00'));
SELECT coalesce(CAST(NULL AS Nullable(Date)), toDateTime('2024-01-01 10:00:00')) AS c, toTypeName(c);

-- INSERT ... SELECT stores a column's default where the query gives NULL to
-- a column that is not Nullable (insert_null_as_default).
CREATE TABLE nd (a UInt8, s String DEFAULT 'd', d Date, e DateTime, n Nullable(UInt8)) ENGINE = Memory;
INSERT INTO nd SELECT NULL, NULL, NULL, NULL, NULL;
INSERT INTO nd SELECT if(number % 2, NULL, number), if(number = 0, NULL, 'v'), if(number = 2, '2024-05-06', NULL), NULL, number FROM numbers(3);
SELECT * FROM nd ORDER BY a, s, n;
INSERT INTO nd SELECT NULL, 'x', NULL, NULL, 1 SETTINGS insert_null_as_default = 0; -- { serverError CANNOT_CONVERT_TYPE }
SELECT count() FROM nd;
DROP TABLE nd;

-- CREATE TABLE under data_type_default_nullable.
CREATE TABLE dn (a UInt8, b String NOT NULL, c Nullable(UInt8), d UInt8 DEFAULT 1) ENGINE = Memory SETTINGS data_type_default_nullable = 1;
DESCRIBE TABLE dn;
DROP TABLE dn;

-- NULL in TSV and CSV, and Decimals with their trailing zeros.
SELECT NULL, 1, [NULL] FORMAT TSV SETTINGS format_tsv_null_representation = 'NULL';
SELECT NULL, 'a' FORMAT CSV SETTINGS format_csv_null_representation = '';
SELECT toDecimal32(1.5, 3), toDecimal64(2, 2), toDecimal128(-0.05, 4) SETTINGS output_format_decimal_trailing_zeros = 1;
SELECT toDecimal32(1.5, 3), toDecimal64(2, 2);

-- tokens, with each tokenizer.
SELECT tokens('a b-c,d'), tokens('Hello, wörld! x_y 12'), tokens('  ');
SELECT tokens('abcd', 'ngrams', 3), tokens('ab', 'ngrams'), tokens('abcde', 'ngrams');
SELECT tokens('a;b  c', 'splitByString', [';', ' ']), tokens('a;b c', 'splitByString'), tokens('a,, b', 'splitByString', [',']);
SELECT tokens('abc de', 'array'), tokens(materialize('x y'), 'splitByNonAlpha');
SELECT tokens('a', 'nope'); -- { serverError BAD_ARGUMENTS }

-- N-gram distance and search.
SELECT ngramDistance('abcd', 'abce'), ngramDistance('abcde', 'abcdf'), ngramDistance('', ''), ngramDistance('hello', 'hello');
SELECT ngramSearch('hello world', 'world'), ngramSearch('abc', ''), ngramSearch('abcdef', 'xcdez');
SELECT round(ngramDistanceUTF8('абвгдеёжз', 'гдеёзд'), 4), ngramDistanceCaseInsensitiveUTF8('ПРИВЕТ', 'привет'), ngramSearchCaseInsensitive('HELLO', 'ello');
SELECT round(ngramDistance(s, 'clickhouse'), 4), round(ngramSearchUTF8(s, 'house'), 4) FROM (SELECT arrayJoin(['clickhouse', 'ClickHouse', 'click', 'warehouse']) AS s) ORDER BY s;

-- HTML entities, named and numeric.
SELECT decodeHTMLComponent('&euro;&#65;&#x42; &amp;lt; &copy &AElig; &unknown; &'), decodeXMLComponent('&euro;&lt;');
