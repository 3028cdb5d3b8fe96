-- Snowflake IDs and Unix timestamps in seconds.
SELECT dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC')) AS id, toTypeName(id);
SELECT dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC'), 1288834974657);
SELECT dateTimeToSnowflakeID(toDateTime('1970-01-01 00:00:00', 'UTC'), 1288834974657);
SELECT dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 3, 'UTC'));
SELECT dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.123456', 6, 'UTC'));
SELECT snowflakeIDToDateTime(toUInt64(7204436857747984384), 1288834974657, 'UTC') AS t, toTypeName(t);
SELECT snowflakeIDToDateTime64(toUInt64(7204436857747984384), 1288834974657, 'UTC') AS t, toTypeName(t);
SELECT snowflakeIDToDateTime(toUInt64(0), 0, 'UTC');
SELECT snowflakeIDToDateTime64(dateTime64ToSnowflakeID(toDateTime64('2024-02-29 12:34:56.789', 3, 'UTC')), 0, 'UTC');
SELECT snowflakeIDToDateTime(dateTimeToSnowflakeID(toDateTime('2024-02-29 12:34:56', 'UTC') + number), 0, 'UTC') FROM numbers(3);
SELECT snowflakeIDToDateTime(NULL);
SELECT snowflakeIDToDateTime(toNullable(toUInt64(4194304000)), 0, 'UTC');
SELECT snowflakeIDToDateTime(-5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToSnowflakeID(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 3, 'UTC')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toUnixTimestamp64Second(toDateTime64('2023-11-14 22:13:20.5', 3, 'UTC')) AS s, toTypeName(s);
SELECT toUnixTimestamp64Second(toDateTime64('1969-12-31 23:59:59.5', 3, 'UTC'));
SELECT fromUnixTimestamp64Second(1700000000, 'UTC');
SELECT fromUnixTimestamp64Second(toInt64(-1), 'UTC');
