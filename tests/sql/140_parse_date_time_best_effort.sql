-- parseDateTimeBestEffort and its family: moments from text in the common shapes
SELECT parseDateTimeBestEffort('2024-01-02 03:04:05', 'UTC'), parseDateTimeBestEffort('2024-01-02T03:04:05.123+02:00', 'UTC'), parseDateTimeBestEffort('20240102', 'UTC');
SELECT parseDateTimeBestEffort('1704164645', 'UTC'), parseDateTimeBestEffort('Tue, 02 Jan 2024 03:04:05 GMT', 'UTC'), parseDateTimeBestEffort('Mon Jan  2 03:04:05 2024', 'UTC');
SELECT parseDateTimeBestEffort('January 2 2024 3:04 PM', 'UTC'), parseDateTimeBestEffort('2 January 2024', 'UTC'), parseDateTimeBestEffort('Jan 2, 2024', 'UTC');
SELECT parseDateTimeBestEffort('02/01/2024', 'UTC'), parseDateTimeBestEffortUS('02/01/2024', 'UTC'), parseDateTimeBestEffort('12/31/2024', 'UTC'), parseDateTimeBestEffortUS('31/12/2024', 'UTC');
SELECT parseDateTimeBestEffort('17.4.2021 12:00:00', 'UTC'), parseDateTimeBestEffort('02/01/24', 'UTC'), parseDateTimeBestEffort('02/01/70', 'UTC');
SELECT parseDateTimeBestEffort('2024-01', 'UTC'), parseDateTimeBestEffort('2024', 'UTC'), parseDateTimeBestEffort('2024 Jan 2', 'UTC'), parseDateTimeBestEffort('Jan 2024', 'UTC');
SELECT parseDateTimeBestEffort('2024-01-02 03', 'UTC'), parseDateTimeBestEffort('2024-01-02 25:00:00', 'UTC'), parseDateTimeBestEffort('20240102T030405', 'UTC');
SELECT parseDateTimeBestEffort('2024-01-02 03:04:05 MSK', 'UTC'), parseDateTimeBestEffort('2024-01-02 03:04:05 +0300', 'UTC'), parseDateTimeBestEffort('2024-01-02T03:04:05 +03:00', 'UTC'), parseDateTimeBestEffort('2024-01-02 03:04:05+3', 'UTC');
SELECT parseDateTimeBestEffort('2024-01-02 12:00:00 AM', 'UTC'), parseDateTimeBestEffort('2024-01-02 12:30 PM', 'UTC'), parseDateTimeBestEffort('2024-01-02 3:04:05 pm', 'UTC');
SELECT parseDateTime64BestEffort('2021-04-17 12:00:00.123456789', 6, 'UTC'), parseDateTime64BestEffort('1704164645.5', 3, 'UTC'), parseDateTime64BestEffort('2024-01-02T03:04:05.5-0130', 3, 'UTC');
SELECT parseDateTimeBestEffortOrNull('1704164645.5', 'UTC'), parseDateTimeBestEffortOrNull('garbage'), parseDateTimeBestEffortOrNull('2024-13-01'), parseDateTimeBestEffortOrNull('2024-02-30'), parseDateTimeBestEffortOrNull('123');
SELECT parseDateTimeBestEffortOrZero('garbage', 'UTC'), parseDateTime64BestEffortOrZero('x', 3, 'UTC'), parseDateTime64BestEffortUSOrNull('2024-01-02 03:04:05,123');
SELECT toTypeName(parseDateTimeBestEffort('2024-01-02')), toTypeName(parseDateTime64BestEffort('2024-01-02')), toTypeName(parseDateTimeBestEffortOrNull('x')), toTypeName(parseDateTime64BestEffort('2024-01-02', 6, 'UTC'));
SELECT parseDateTime32BestEffort('2024-01-01 10:00:00', 'Asia/Tokyo') AS t, toUnixTimestamp(t), parseDateTimeBestEffort(NULL), parseDateTimeBestEffort(toNullable('2024-01-01'), 'UTC');
SELECT s, parseDateTimeBestEffortOrNull(s, 'UTC') FROM (SELECT arrayJoin(['2024-01-02', 'bad', '02.01.2024 10:11']) AS s) ORDER BY s;
SELECT parseDateTimeBestEffort('garbage'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeBestEffort(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
