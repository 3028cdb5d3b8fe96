-- Output formats beyond TabSeparated: strings needing escapes, NULLs, arrays,
-- tuples, maps, dates, floats and empty results in each.
-- Values: SQL tuples, no newline at the end.
SELECT number, toString(number) AS s, [number] AS a, NULL AS n FROM numbers(3) FORMAT Values;
SELECT 'it''s', 'tab\there', 'back\\slash', 'new\nline', ['x', NULL], (1, 'y'), toDate('2024-01-02'), 1.5, nan, -inf, true, map('k', 2) FORMAT Values;
SELECT 1 AS x WHERE 0 FORMAT Values;
SELECT 'after Values';
-- CSV and TabSeparatedRaw with headers; CSV spreads a tuple over columns.
SELECT number, 'x"y,z' AS s, [1, 2] AS a, NULL AS n, (number, 'q') AS t, toDate('2024-01-01') AS d FROM numbers(2) FORMAT CSVWithNamesAndTypes;
SELECT 1 AS x WHERE 0 FORMAT CSVWithNamesAndTypes;
SELECT number, 'a\tb\\c\'d' AS s, NULL AS n, ['e\'f'] AS a FROM numbers(2) FORMAT TSVRawWithNames;
SELECT number, 'a\\b' AS s, (1, NULL) AS t FROM numbers(2) FORMAT TabSeparatedRawWithNamesAndTypes;
SELECT 1 AS x WHERE 0 FORMAT TSVRawWithNamesAndTypes;
-- JSON rows as arrays, with and without header lines, and as strings.
SELECT number, 'a"b\\c/d\te' AS s, [number, 2] AS a, NULL AS n, (1, 'x') AS t, toDate('2024-01-01') AS d, number / 4 AS f FROM numbers(2) FORMAT JSONCompactEachRow;
SELECT number, ['p', NULL] AS a, nan AS f FROM numbers(2) FORMAT JSONCompactEachRowWithNames;
SELECT number, map('k', number) AS m, toDateTime('2024-01-01 10:00:00', 'UTC') AS t FROM numbers(2) FORMAT JSONCompactEachRowWithNamesAndTypes;
SELECT 1 AS x WHERE 0 FORMAT JSONCompactEachRowWithNamesAndTypes;
SELECT number, 'a"b/c' AS s, [1, 2] AS a, ['x/y', NULL] AS sa, NULL AS n, (1, 'x') AS t, 1.5 AS f, -inf AS i FROM numbers(2) FORMAT JSONStringsEachRow;
SELECT number, 'a"b' AS s, [1, 2] AS a, NULL AS n, toDate('2024-01-01') AS d FROM numbers(2) FORMAT JSONCompactStringsEachRow;
SELECT number, 'x' AS s FROM numbers(2) FORMAT JSONCompactStringsEachRowWithNamesAndTypes;
SELECT number, 'a"b' AS s, [number] AS a, NULL AS n, map('k', 1) AS m FROM numbers(3) FORMAT JSONObjectEachRow;
SELECT 1 AS x WHERE 0 FORMAT JSONObjectEachRow;
-- TSKV: name=value pairs escaped as in TabSeparated, `=` escaped in names.
SELECT number, 'a=b\tc\\d\'e' AS s, NULL AS n, [1, 2] AS a, (1, 'x') AS t, toDate('2024-01-01') AS d, 0.1 AS f, 1 AS `k=v` FROM numbers(2) FORMAT TSKV;
SELECT 1 AS x WHERE 0 FORMAT TSKV;
-- Markdown: numbers, dates and times right-aligned.
SELECT number, 'a|b\tc\\d' AS s, NULL AS n, [1, 2] AS a, (1, 'x') AS t, toDate('2024-01-01') AS d, 1e-7 AS f, true AS b FROM numbers(2) FORMAT Markdown;
SELECT number, '' AS e FROM numbers(1) FORMAT MD;
SELECT 1 AS x WHERE 0 FORMAT Markdown;
-- Pretty variants: no colours are written, and the whole result is one block.
SELECT number, 'a\\b\'c' AS s, [number, 2] AS a, NULL AS n, toDate('2024-01-01') + number AS d, number * 1.5 AS f FROM numbers(3) FORMAT PrettySpace;
SELECT number, 'x' AS s FROM numbers(2) SETTINGS output_format_pretty_row_numbers = 0 FORMAT PrettySpaceNoEscapes;
SELECT number, 'xyz' AS s, toDate('2024-01-01') AS d FROM numbers(2) FORMAT PrettyNoEscapes;
SELECT number, 'xyz' AS s, (number, 'q') AS t FROM numbers(2) FORMAT PrettyCompactNoEscapes;
SELECT number, 'xyz' AS s FROM numbers(2) FORMAT PrettyCompactMonoBlock;
SELECT * FROM (SELECT 1 AS x UNION ALL SELECT 22 UNION ALL SELECT 333) ORDER BY x FORMAT PrettyCompactMonoBlock;
SELECT 1 AS x WHERE 0 FORMAT PrettySpace;
-- NULL as TabSeparated and Pretty write it, nested and alone.
SELECT NULL AS n, [NULL] AS a FORMAT TSVRaw;
SELECT NULL AS n, [NULL] AS a FORMAT PrettyCompact;
-- Settings that shape the formats.
SELECT number, (number, 'x') AS t FROM numbers(2) SETTINGS output_format_json_quote_64bit_integers = 1, format_csv_delimiter = ';' FORMAT JSONCompactEachRow;
SELECT number, (number, 'x') AS t FROM numbers(2) SETTINGS format_csv_delimiter = ';' FORMAT CSVWithNamesAndTypes;
