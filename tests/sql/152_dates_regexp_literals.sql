-- toStartOfInterval's week bins start on Mondays and calendar bins are Dates;
-- %c is zero-padded; an empty pattern replaces nothing; DATE and TIMESTAMP
-- literals; INTERVAL 'n unit'
SELECT formatDateTime(toDateTime('2024-03-05 07:08:09'), '%c|%e|%k|%l|%m'), formatDateTime(toDate('2024-11-05'), '%c');
SELECT replaceRegexpAll('abc', '', '-'), replaceRegexpOne('abc', '', '-'), replaceRegexpAll('abc', '^', '-'), replaceRegexpAll('2024-03-05', '(\\d+)-(\\d+)-(\\d+)', '\\3/\\2/\\1');
SELECT toStartOfInterval(toDate('2024-03-15'), INTERVAL 1 WEEK), toStartOfInterval(toDateTime('2024-03-15 10:00:00'), INTERVAL 1 WEEK), toStartOfInterval(toDate('2024-03-15'), INTERVAL 3 WEEK);
SELECT toStartOfInterval(toDate('2024-03-15'), INTERVAL 1 MONTH), toStartOfInterval(toDate('2024-03-15'), INTERVAL 1 QUARTER), toStartOfInterval(toDate('2024-03-15'), INTERVAL 1 YEAR);
SELECT toStartOfInterval(toDateTime('2024-03-15 10:11:12'), INTERVAL 1 MONTH) AS m, toTypeName(m), toStartOfInterval(toDateTime('2024-03-15 10:11:12'), INTERVAL 15 MINUTE);
SELECT number, toStartOfInterval(toDate('2024-01-01') + number * 5, INTERVAL 2 WEEK) FROM numbers(8) ORDER BY number;
SELECT DATE '2024-03-05', TIMESTAMP '2024-03-05 10:00:00', toTypeName(TIMESTAMP '2024-03-05 10:00:00') FORMAT TSVWithNames;
SELECT toDate('2024-03-05') + INTERVAL '2 day', toDateTime('2024-03-05 00:00:00') - INTERVAL '90 minute', toDate('2024-03-05') + INTERVAL '1' MONTH;
