-- Output formats.
SELECT number, toString(number) AS s, number / 2 AS f FROM numbers(3) FORMAT TabSeparatedWithNames;
SELECT number, 'a\tb' AS s FROM numbers(2) FORMAT TSVWithNamesAndTypes;
SELECT number, 'x"y,z' AS s, [1, 2] AS a, NULL AS n FROM numbers(2) FORMAT CSV;
SELECT number, 'x' AS s FROM numbers(2) FORMAT CSVWithNames;
SELECT number, 'a"b/c' AS s, [1, 2] AS a, NULL AS n, 1.5 AS f, toDate('2024-01-01') AS d FROM numbers(2) FORMAT JSONEachRow;
SELECT number, toString(number) AS s, number * 1.5 AS m FROM numbers(3) FORMAT PrettyCompact;
SELECT 1000000 AS a, 'xxxxx' AS b, 5 AS c FORMAT Pretty;
SELECT number, toString(number) AS s FROM numbers(2) FORMAT Vertical;
SELECT number FROM numbers(10) FORMAT Null;
SELECT 'a\'b', 'tab\there', 'back\\slash', ['x', 'y\'z'], NULL, 1.5, -0.0, nan, inf;
SELECT 1e-7, 1e21, 1e20, 123.456, toFloat32(1.1);
SELECT number FROM numbers(3) FORMAT NoSuchFormat; -- { serverError UNKNOWN_FORMAT }
