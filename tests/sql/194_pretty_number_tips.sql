-- Pretty formats follow a large number in the last column with its size in words
SELECT 1234567 FORMAT Pretty;
SELECT number * 1000000 AS x FROM numbers(3) FORMAT PrettyCompact;
SELECT number AS n, 'привет' AS s, 123456789 AS big FROM numbers(2) FORMAT PrettyCompactMonoBlock;
SELECT 123456789 AS big, 'x' AS s FORMAT PrettyCompact;
SELECT -123456789 AS a, 1234567.5 AS b FORMAT PrettyCompact;
SELECT toDecimal64(12345678, 2) AS a FORMAT PrettyCompact;
SELECT 'x' AS b, 12345678 AS a FORMAT PrettySpace;
SELECT 1000001 AS a, 999999999999999999 AS b FORMAT PrettySpace;
SELECT toUInt64(1e15) AS a FORMAT PrettyCompact;
SELECT * FROM (SELECT toNullable(1234567) AS a UNION ALL SELECT NULL) ORDER BY a FORMAT PrettyCompact;
SELECT 1234567 AS a FORMAT PrettyCompact SETTINGS output_format_pretty_single_large_number_tip_threshold = 0;
SELECT 1234567 AS a FORMAT PrettyCompact SETTINGS output_format_pretty_row_numbers = 0;
SELECT 2000 AS a FORMAT PrettyCompact SETTINGS output_format_pretty_single_large_number_tip_threshold = 1000;
SELECT toIPv4('255.255.255.255') AS ip, toDate('2020-01-01') AS d FORMAT PrettyCompact;
SELECT toDate('2020-01-01') AS d, 12345678 AS a, 'x' AS s, 5000000000 AS b FORMAT Vertical;
