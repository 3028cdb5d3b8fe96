-- parseDateTime reads what formatDateTime writes; OrNull/OrZero forms and str_to_date
SELECT parseDateTime('2024-03-05 07:08:09', '%Y-%m-%d %H:%i:%s') AS a, parseDateTime('2024-03-05', '%Y-%m-%d') AS b, parseDateTime('07:08', '%H:%i') AS c;
SELECT parseDateTime('2024-03-05 07:08:09', '%Y-%m-%d %H:%i:%s', 'Asia/Tokyo') AS a, toUnixTimestamp(a);
SELECT parseDateTime('March 5 2024 7PM', '%M %e %Y %l%p'), parseDateTime('05/03/24', '%d/%m/%y'), parseDateTime('2024-065', '%Y-%j');
SELECT parseDateTime('Tue, 05 Mar 2024 07:08:09', '%a, %d %b %Y %H:%i:%S'), parseDateTime('2024-3-5', '%Y-%c-%e'), parseDateTime('2024-03-05T07:08:09', '%Y-%m-%dT%H:%i:%s');
SELECT s, parseDateTimeOrNull(s, '%Y-%m-%d') AS n, parseDateTimeOrZero(s, '%Y-%m-%d') AS z, str_to_date(s, '%Y-%m-%d') AS m FROM (SELECT arrayJoin(['2024-01-01', 'bad', '2024-02-30', '1969-12-31']) AS s);
SELECT toDate(parseDateTime('2024-03-05', '%F')), parseDateTime(formatDateTime(toDateTime('2024-07-01 12:34:56'), '%Y%m%d%H%i%S'), '%Y%m%d%H%i%S');
SELECT parseDateTime('x', '%Y'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2024-03-05 07:08', '%Y-%m-%d'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2024-02-30', '%Y-%m-%d'); -- { serverError CANNOT_PARSE_DATETIME }
