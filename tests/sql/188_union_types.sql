-- A union's columns take the common type of its inputs' literals, typed as
-- ClickHouse types them (the smallest type that holds each value).
SELECT toTypeName(x) FROM (SELECT 1 AS x UNION ALL SELECT 1000);
SELECT toTypeName(x), x FROM (SELECT 1 AS x UNION ALL SELECT -1) ORDER BY x;
SELECT toTypeName(x), x FROM (SELECT 1 AS x UNION DISTINCT SELECT 2 UNION ALL SELECT 300) ORDER BY x;
SELECT toTypeName(x) FROM (SELECT 1.5 AS x UNION ALL SELECT 2);
SELECT k, sum(v) AS s, toTypeName(s) FROM (SELECT 'a' AS k, 1 AS v UNION ALL SELECT 'b', 2) GROUP BY k ORDER BY k;
SELECT k, sum(v) AS s FROM (SELECT 'a' AS k, 1 AS v UNION ALL SELECT 'b', 2) GROUP BY k WITH TOTALS ORDER BY k FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT c1, c2, toTypeName(c1), toTypeName(c2) FROM values((1, 'x'), (300, 'y'));
-- An empty array adds no nullability.
SELECT toTypeName(arr) FROM (SELECT 'a' AS s, [1, 2] AS arr UNION ALL SELECT 'b', []);
SELECT s, x FROM (SELECT 'a' AS s, [1, 2] AS arr UNION ALL SELECT 'b', []) LEFT ARRAY JOIN arr AS x ORDER BY s, x;
SELECT toTypeName(arr), arr FROM (SELECT 'a' AS s, [1, 2] AS arr UNION ALL SELECT 'b', [] UNION ALL SELECT 'c', [NULL]) ORDER BY s;
-- sumMap's partial states carry the sums' type (Int64), not the values' (Int16).
SELECT sumMap(k, v) FROM (SELECT [1, 2] AS k, [-1, 1] AS v UNION ALL SELECT [3] AS k, [1] AS v);
SELECT sumMap(k, v), maxMap(k, v), minMap(k, v) FROM (SELECT [1, 2] AS k, [toInt8(number % 100), 1] AS v FROM numbers_mt(100000));
SELECT number, toString(number) AS s FROM numbers(2) FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(2) FORMAT XML SETTINGS output_format_write_statistics = 0;
SELECT arr FROM (SELECT [] AS arr UNION ALL SELECT [NULL]) ORDER BY length(arr);
SELECT toTypeName(arr) FROM (SELECT [1, 2] AS arr UNION ALL SELECT [NULL]);
