-- Other functions: block and row functions, errorCodeToName, MAC addresses, ignore/isConstant/sleep, readable sizes and durations, server and session facts checked deterministically, getSettingOrDefault.
SELECT number, blockSize(), rowNumberInBlock(), rowNumberInAllBlocks(), toTypeName(blockSize()), toTypeName(rowNumberInBlock()), toTypeName(rowNumberInAllBlocks()) FROM numbers(4) ORDER BY number;
SELECT count(), min(rowNumberInAllBlocks()), max(rowNumberInAllBlocks()), uniqExact(rowNumberInAllBlocks()) FROM numbers(10000);
SELECT count(DISTINCT blockNumber()), toTypeName(blockNumber()) FROM numbers(3);
SELECT blockNumber(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT blockSize(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT rowNumberInBlock(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT runningDifference(number) FROM numbers(3); -- { serverError DEPRECATED_FUNCTION }
SELECT neighbor(number, 1) FROM numbers(3); -- { serverError DEPRECATED_FUNCTION }
SET allow_deprecated_error_prone_window_functions = 1;
SELECT number, runningDifference(number * number), runningDifferenceStartingWithFirstValue(number * number + 5), toTypeName(runningDifference(number)) FROM numbers(5);
SELECT runningDifference(x), toTypeName(runningDifference(x)) FROM (SELECT toUInt8(number * number % 7) AS x FROM numbers(4));
SELECT runningDifference(x) FROM (SELECT arrayJoin([1.5, 4, 2.25]) AS x);
SELECT runningDifference(x), runningDifferenceStartingWithFirstValue(x) FROM (SELECT arrayJoin([1, NULL, 4, 6]) AS x);
SELECT runningDifference(d), toTypeName(runningDifference(d)) FROM (SELECT toDate('2020-01-01') + number * number AS d FROM numbers(3));
SELECT runningDifference('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT number, neighbor(number, 1), neighbor(number, -1), neighbor(number, 2, 100), neighbor(toString(number), -1, 'none'), neighbor(number, 0) FROM numbers(4);
SELECT neighbor(number, 10) FROM numbers(2);
SELECT neighbor(number, 'a') FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT neighbor(number) FROM numbers(2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE events (b Date, e Date) ENGINE = Memory;
INSERT INTO events VALUES ('2020-01-01', '2020-01-03'), ('2020-01-02', '2020-01-05'), ('2020-01-04', '2020-01-04'), ('2020-01-06', '2020-01-07');
SELECT b, e, runningConcurrency(b, e) FROM events;
DROP TABLE events;
SELECT b, runningConcurrency(b, b) FROM (SELECT toDate('2020-01-01') + number AS b FROM numbers(3));
SELECT toTypeName(runningConcurrency(toDate('2020-01-01'), toDate('2020-01-02'))), runningConcurrency(toDateTime('2020-01-01 00:00:00', 'UTC'), toDateTime('2020-01-01 01:00:00', 'UTC'));
SELECT runningConcurrency(toDate('2020-01-05'), toDate('2020-01-01')); -- { serverError INCORRECT_DATA }
SELECT runningConcurrency(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT runningConcurrency(toDate('2020-01-01'), toDateTime('2020-01-02 00:00:00')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT errorCodeToName(0), errorCodeToName(1), errorCodeToName(42), errorCodeToName(43), errorCodeToName(60), errorCodeToName(159), errorCodeToName(241), errorCodeToName(1000), toTypeName(errorCodeToName(1));
SELECT errorCodeToName(-1), errorCodeToName(100000), errorCodeToName(toUInt8(36)), errorCodeToName(toInt64(44)), errorCodeToName(NULL);
SELECT number, errorCodeToName(number + 47) FROM numbers(3) ORDER BY number;
SELECT errorCodeToName('a'); -- { serverError BAD_ARGUMENTS }
SELECT errorCodeToName(1.5), errorCodeToName(toFloat32(43.9));
SELECT MACNumToString(toUInt64(1099511627775)), MACNumToString(toUInt64(0)), MACNumToString(toUInt64(281474976710655)), MACNumToString(toUInt64(18446744073709551615)), toTypeName(MACNumToString(toUInt64(1)));
SELECT MACNumToString(toUInt8(255)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT MACStringToNum('01:02:03:04:05:06'), MACStringToNum('FF:FF:FF:FF:FF:FF'), MACStringToNum('aa-bb-cc-dd-ee-ff'), MACStringToNum('bad'), MACStringToNum(''), MACStringToNum('1:2:3:4:5:6'), toTypeName(MACStringToNum('a'));
SELECT MACStringToOUI('01:02:03:04:05:06'), MACStringToOUI('FF:FF:FF:FF:FF:FF'), MACStringToOUI('bad'), MACStringToOUI(''), toTypeName(MACStringToOUI('a'));
SELECT MACNumToString(MACStringToNum('0a:1b:2c:3d:4e:5f')), MACNumToString(NULL), MACStringToNum(NULL), MACStringToOUI(NULL);
SELECT MACNumToString('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT MACNumToString(-1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT MACStringToNum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT MACStringToOUI(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT ignore(), ignore(1), ignore('a', 2, NULL), ignore(number) FROM numbers(2);
SELECT toTypeName(ignore(1)), count() FROM numbers(10) WHERE NOT ignore(number);
SELECT isConstant(1), isConstant('a'), isConstant(1 + 2), isConstant(NULL), isConstant(number), isConstant(number + 1), isConstant(toString(1)), toTypeName(isConstant(1)) FROM numbers(1);
SELECT isConstant(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sleep(0), sleep(0.001), sleepEachRow(0), toTypeName(sleep(0));
SELECT sum(sleepEachRow(0)) FROM numbers(5);
SELECT sleep(4); -- { serverError TOO_SLOW }
SELECT sleep(-1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sleep('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableDecimalSize(0), formatReadableDecimalSize(1), formatReadableDecimalSize(999), formatReadableDecimalSize(1000), formatReadableDecimalSize(1234567), formatReadableDecimalSize(1e15), formatReadableDecimalSize(1e30);
SELECT formatReadableDecimalSize(-1500), formatReadableDecimalSize(1.5), formatReadableDecimalSize(NULL), toTypeName(formatReadableDecimalSize(1)), formatReadableDecimalSize(toUInt64(18446744073709551615));
SELECT number, formatReadableDecimalSize(pow(1000, number) * 1.5) FROM numbers(10) ORDER BY number;
SELECT formatReadableDecimalSize('1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableSize(1024), FORMAT_BYTES(1536), format_bytes(1048576);
SELECT parseReadableSize('1 KiB'), parseReadableSize('1KB'), parseReadableSize('1.5 MiB'), parseReadableSize('2 gb'), parseReadableSize('0 B'), parseReadableSize('1 b'), parseReadableSize('3.1 TiB'), parseReadableSize('1 PB'), parseReadableSize('1 EiB'), toTypeName(parseReadableSize('1 B'));
SELECT parseReadableSize('0.5 B'), parseReadableSize('1.0001 KiB'), parseReadableSize('1   MB');
SELECT parseReadableSize(' 1 KiB'); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT parseReadableSizeOrNull('1 KiB'), parseReadableSizeOrNull('bad'), parseReadableSizeOrNull(''), parseReadableSizeOrNull('-1 KiB'), parseReadableSizeOrNull('1 XB'), parseReadableSizeOrNull('1'), parseReadableSizeOrNull(NULL);
SELECT toTypeName(parseReadableSizeOrNull(toString(number))), toTypeName(parseReadableSizeOrZero(toString(number))) FROM numbers(1);
SELECT parseReadableSizeOrZero('1 KiB'), parseReadableSizeOrZero('bad'), parseReadableSizeOrZero(''), parseReadableSizeOrZero('1 ZiB'), toTypeName(parseReadableSizeOrZero('1 B'));
SELECT parseReadableSize('bad'); -- { serverError CANNOT_PARSE_NUMBER }
SELECT parseReadableSize('1 XB'); -- { serverError CANNOT_PARSE_TEXT }
SELECT parseReadableSize(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT parseReadableSize(x) FROM (SELECT arrayJoin(['1 KB', '1 KiB', '5 MiB', '0.1 MB']) AS x);
SELECT parseTimeDelta('1h'), parseTimeDelta('1h 30m'), parseTimeDelta('1 day'), parseTimeDelta('2 weeks 3 days'), parseTimeDelta('1.5 seconds'), parseTimeDelta('10 ms'), parseTimeDelta('1y'), parseTimeDelta('1 month'), toTypeName(parseTimeDelta('1s'));
SELECT parseTimeDelta('1h30m'), parseTimeDelta('1h,30m'), parseTimeDelta('1 hour, 2 minutes; 3 seconds'), parseTimeDelta('5us'), parseTimeDelta('3ns'), parseTimeDelta('0s'), parseTimeDelta(NULL);
SELECT parseTimeDelta('bad'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta(''); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('1 parsec'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT length(hostName()) > 0, hostname() = hostName(), length(FQDN()) > 0, fullHostName() = FQDN(), fqdn() = FQDN(), length(displayName()) > 0, toTypeName(hostName()), toTypeName(FQDN()), toTypeName(displayName());
SELECT uptime() >= 0, toTypeName(uptime()), length(version()) > 0;
SELECT hostName(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT uptime(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT currentDatabase(), DATABASE(), SCHEMA(), database(), current_database(), currentSchemas(true), current_schemas(false), toTypeName(currentSchemas(true));
SELECT currentUser() = session_user(), authenticatedUser() = currentUser(), authUser() = currentUser(), currentRoles(), enabledRoles(), defaultRoles(), toTypeName(currentRoles());
SELECT connectionId(), connection_id(), CONNECTIONID(), toTypeName(connectionId()), shardNum(), shardCount(), toTypeName(shardNum());
SELECT queryID() = currentQueryID(), query_id() = queryID(), initialQueryID() = queryID(), initial_query_id() = queryID(), toTypeName(queryID()), initialQueryStartTime() <= now(), toTypeName(initialQueryStartTime());
SELECT currentSchemas(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT current_database(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT shardNum(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT getSettingOrDefault('allow_deprecated_error_prone_window_functions', 0), getSettingOrDefault('no_such_setting_at_all', 42), getSettingOrDefault('no_such_setting_at_all', 'text'), getSettingOrDefault('max_block_size', 1) > 0;
SELECT getSettingOrDefault('max_block_size'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT getSettingOrDefault(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT number, getSettingOrDefault('no_such_setting_at_all', number) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
