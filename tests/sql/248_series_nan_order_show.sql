-- NaN sorts beside NULL: after the numbers where NULLs go last, before them under NULLS FIRST.
SELECT x FROM (SELECT arrayJoin([1., nan, NULL, -1., inf, -nan, -inf]) AS x) ORDER BY x;
SELECT x FROM (SELECT arrayJoin([1., nan, NULL, -1., inf, -nan, -inf]) AS x) ORDER BY x DESC;
SELECT x FROM (SELECT arrayJoin([1., nan, NULL, -1., inf]) AS x) ORDER BY x NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([1., nan, NULL, -1., inf]) AS x) ORDER BY x DESC NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([toFloat32(2), nan, -nan, 0]) AS x) ORDER BY x DESC;
SELECT x, y FROM (SELECT arrayJoin([1., nan, 2., nan]) AS x, 1 AS y) ORDER BY y, x LIMIT 3;
SELECT number, x FROM (SELECT number, if(number % 3 = 0, nan, number / 2) AS x FROM numbers(7)) ORDER BY x DESC, number LIMIT 4;
-- The stepped forms of numbers, and generate_series (stop included).
SELECT * FROM numbers(2, 10, 3);
SELECT arraySort(groupArray(number)) FROM numbers_mt(1, 10, 4);
SELECT * FROM generate_series(1, 10, 4);
SELECT * FROM generateSeries(3, 4);
SELECT count(), sum(generate_series) FROM generate_series(10, 1);
SELECT generate_series * 2 AS doubled FROM generate_series(5, 7) ORDER BY doubled DESC;
SELECT * FROM numbers(1, 10, 0); -- { serverError BAD_ARGUMENTS }
SELECT * FROM generate_series(1, 10, 0); -- { serverError BAD_ARGUMENTS }
-- HAVING without aggregation filters rows, as WHERE does.
SELECT 1 HAVING 1;
SELECT number FROM numbers(5) HAVING number > 2;
SELECT number AS n FROM numbers(5) WHERE n < 4 HAVING n > 1;
SELECT count() FROM numbers(5) HAVING count() > 3;
-- coalesce of nothing is NULL.
SELECT coalesce(), toTypeName(coalesce());
-- SHOW ... NOT LIKE.
CREATE TABLE shown_alpha (x UInt8) ENGINE = Memory;
CREATE TABLE shown_beta (x UInt8) ENGINE = Memory;
CREATE TABLE other_gamma (x UInt8) ENGINE = Memory;
SHOW TABLES NOT LIKE 'shown%';
SHOW TABLES NOT ILIKE '%ALPHA' LIMIT 2;
-- Bools take the representation the settings give them in text formats.
SELECT true AS a, false AS b, [true] AS c SETTINGS bool_true_representation = 'yes', bool_false_representation = 'no';
SELECT toBool(number % 2) FROM numbers(2) FORMAT CSV SETTINGS bool_true_representation = 'Y', bool_false_representation = 'N';
SELECT true AS a FORMAT JSONEachRow SETTINGS bool_true_representation = 'yes';
-- JSONEachRow as one array.
SELECT number AS a, toString(number) AS s FROM numbers(3) FORMAT JSONEachRow SETTINGS output_format_json_array_of_rows = 1;
SELECT number AS a FROM numbers(0) FORMAT JSONEachRow SETTINGS output_format_json_array_of_rows = 1;
SELECT number AS a FROM numbers(2) FORMAT JSONCompactEachRow SETTINGS output_format_json_array_of_rows = 1;
-- aggregate_functions_null_for_empty: aggregates other than counts are NULL over no rows.
SELECT count(), uniq(number), sum(number), avg(number), min(number), sumOrNull(number) FROM numbers(0) SETTINGS aggregate_functions_null_for_empty = 1;
SELECT sum(number), toTypeName(sum(number)), max(number) FROM numbers(3) SETTINGS aggregate_functions_null_for_empty = 1;
SELECT sumIf(number, number > 5), maxIf(number, number > 1) FROM numbers(3) SETTINGS aggregate_functions_null_for_empty = 1;
SELECT number % 2 AS k, sum(number) FROM numbers(4) GROUP BY k ORDER BY k SETTINGS aggregate_functions_null_for_empty = 1;
-- A FixedString trims as its text.
SELECT trimBoth(toFixedString('xxaxx', 5), 'x'), trimLeft(toFixedString('xxab', 4), 'x'), trimRight(toFixedString('abyy', 4), 'y');
-- A CAST to Bool is a Bool.
SELECT CAST(number AS Bool) AS b, toTypeName(b), CAST(number, 'Bool') AS c, toTypeName(c) FROM numbers(2);
SELECT concat('With ', true::Bool), concatWithSeparator('|', 'a', false::Bool);
-- Zero-argument calls.
SELECT COALESCE(), arrayZip();
-- DEC, NUMERIC and FIXED name Decimals, as does a bare Decimal.
SELECT CAST(1.5 AS DEC(4, 2)) AS a, toTypeName(a), CAST(1.5 AS NUMERIC(4, 2)) AS b, toTypeName(b), CAST(1.5 AS FIXED(4, 2)) AS c, toTypeName(c);
SELECT CAST(2.5, 'Decimal') AS d, toTypeName(d);
CREATE TABLE decimals (a DEC(18, 4), b NUMERIC(10, 2)) ENGINE = Memory;
INSERT INTO decimals VALUES (1.23456, 7.891);
SELECT a, b, toTypeName(a), toTypeName(b) FROM decimals;
-- AggregatingMergeTree takes a plain column of the partition key.
CREATE TABLE partitioned_states (d Date, k UInt64, u AggregateFunction(uniq, UInt64)) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(d) ORDER BY k;
INSERT INTO partitioned_states SELECT toDate('2020-01-01'), number % 2, uniqState(number) FROM numbers(10) GROUP BY number % 2;
SELECT k, uniqMerge(u) FROM partitioned_states GROUP BY k ORDER BY k;
CREATE TABLE unpartitioned_states (d Date, k UInt64, u AggregateFunction(uniq, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
-- cast_ipv4_ipv6_default_on_conversion_error: text that is no address is the zero address.
SELECT IPv4StringToNum('') = 0, IPv4StringToNum('not an ip') = 0, hex(IPv6StringToNum('x')), toIPv4('x') SETTINGS cast_ipv4_ipv6_default_on_conversion_error = 1;
SELECT IPv4StringToNum('x'); -- { serverError CANNOT_PARSE_IPV4 }
-- URL parts: netloc, the first significant subdomain, an address's top-level domain.
SELECT netloc('http://paul@www.example.com:80/'), netloc('http://www.example.com/a/b/c?a=b#d=f'), netloc('//h.com/a/b'), netloc('ftp://h.com:21');
SELECT firstSignificantSubdomain(u), cutToFirstSignificantSubdomain(u), cutToFirstSignificantSubdomainWithWWW(u), topLevelDomain(u) FROM (SELECT arrayJoin(['http://www.example.com/a?x', 'https://news.clickhouse.com.tr/', 'http://www.com', 'http://127.0.0.1:443/', 'http://localhost/', 'http://a.b.example.co.uk']) AS u);
-- uniqCombined takes its HyperLogLog precision as a parameter.
SELECT uniqCombined(17)(number), uniqCombined64(12)(number % 7) FROM numbers(100);
SELECT uniqCombined(25)(number) FROM numbers(3); -- { serverError ARGUMENT_OUT_OF_BOUND }
-- Floats past Int64's range still convert to UInt64; sizes past EiB have their units.
SELECT toUInt64(1.2858e19), toUInt64(1e19), toUInt64(-1.5), toUInt32(5e9);
SELECT formatReadableSize(1e22), formatReadableSize(1e25), formatReadableDecimalSize(1e22), formatReadableQuantity(1e25);
