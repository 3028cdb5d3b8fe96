-- Values with line breaks take several lines in Pretty formats, marked ↴ and ↳.
SELECT 'a' AS s, 'x\nyy\n' AS t, 12 AS n, 'long\nx' AS m FORMAT Pretty;
SELECT 'a' AS s, 'x\nyy\n' AS t, 12 AS n, 'long\nx' AS m FORMAT PrettyCompact;
SELECT 'a' AS s, 'x\nyy\n' AS t, 12 AS n, 'long\nx' AS m FORMAT PrettySpace;
SELECT number, repeat('ab\n', number) AS t, if(number = 1, '\n', 'z') AS u, number * 1000000000 AS big FROM numbers(3) FORMAT Pretty;
SELECT number, repeat('ab\n', number) AS t, if(number = 1, '\n', 'z') AS u, number * 1000000000 AS big FROM numbers(3) FORMAT PrettySpace;
-- Vertical's rule under `Row 9:` is as wide as `Row 10:`.
SELECT number FROM numbers(10) FORMAT Vertical;
