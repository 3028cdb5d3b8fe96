-- toStartOfInterval: months and quarters count from 1900-01, years from year 0, bins before 1970 start on 1970-01-01.
SELECT d, toStartOfInterval(d, INTERVAL 3 quarter), toStartOfInterval(d, INTERVAL 9 month), toStartOfInterval(d, INTERVAL 2 quarter), toStartOfInterval(toDateTime(d, 'UTC'), INTERVAL 3 quarter), toStartOfInterval(d, INTERVAL 4 year), toStartOfInterval(d, toIntervalYear(7)), toStartOfInterval(d, INTERVAL 1 week), toStartOfInterval(toDate32(d), INTERVAL 5 year) FROM (SELECT arrayJoin([toDate('1970-01-01'), toDate('1970-10-01'), toDate('1971-07-01'), toDate('2024-08-15'), toDate('2024-03-15'), toDate('2023-12-31'), toDate('2000-02-29')]) AS d);
-- toDate32 on a zone's clock; timeDiff; hex of a UUID.
SELECT toDate32('2020-01-01 23:00:00', 'Asia/Tokyo'), toDate32(toDateTime('2020-01-01 23:00:00', 'UTC'), 'Asia/Tokyo'), toDate32(1577919600, 'Asia/Tokyo'), toDate32(toDate('2020-05-05'), 'America/New_York');
SELECT timeDiff(toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-01 01:00:00')), TIMEDIFF(toDate('2024-01-01'), toDate('2024-01-03'));
SELECT hex(toUUID('ed87e57c-9331-462a-80b4-9f0c005e88c8'));
-- firstNonDefault: the first argument neither NULL nor its type's default.
SELECT firstNonDefault(0, 3, 4) AS a, toTypeName(a), firstNonDefault('', 'x'), firstNonDefault(NULL, 0, 5) AS c, toTypeName(c), firstNonDefault(0, 0), firstNonDefault(toUInt8(0), 300) AS e, toTypeName(e), firstNonDefault([], [1]);
SELECT firstNonDefault(number % 3, 7) FROM numbers(4);
