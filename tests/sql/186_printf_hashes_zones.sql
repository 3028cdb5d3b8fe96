-- printf: C's conversions, each on its own kind of argument.
SELECT printf('%d items at %.2f each, %s', 3, 1.5, 'ok'), printf('%05d|%-5s|%x', 42, 'ab', 255);
SELECT printf('%+d %u %o %#x %X %e %g %G %c %%', 5, 7, 8, 255, 255, 1234.5, 0.00001, 1e20, 65);
SELECT printf('%10.3f|%-8d|%5s|%.2s', 3.14159, -42, 'abc', 'abcdef'), printf('no conversions');
SELECT printf('%s=%d', s, n) FROM (SELECT toString(number) AS s, number AS n FROM numbers(3)) ORDER BY n;
SELECT printf('%d', 2.5); -- { serverError BAD_ARGUMENTS }
SELECT printf('%s', 1); -- { serverError BAD_ARGUMENTS }
SELECT printf('%d %d', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- sipHash64 of several arguments combines their hashes.
SELECT sipHash64(1, 2), sipHash64('a', 'b'), sipHash64(1, 'a'), sipHash64(1, 2, 3), sipHash64('hello');
-- %z: the clock's offset from UTC.
SELECT formatDateTime(toDateTime('2024-01-15 12:34:56', 'Asia/Kolkata'), '%H:%i %z'), formatDateTime(toDateTime('2024-07-15 12:34:56', 'America/New_York'), '%z');
SELECT formatDateTime(toDateTime64('2024-07-15 12:34:56.5', 3, 'UTC'), '%z %f');
-- The empty map and the empty concatenation.
SELECT map(), concat(), empty(map()), length(map()), concat('a');
-- A tuple literal with a NULL element compares as NULL.
SELECT (1, NULL) = (1, NULL), (NULL, 1) = (2, 1), (1, NULL) < (2, 3), tuple(NULL) = tuple(NULL), toTypeName((1, NULL) = (1, NULL));
SELECT (1, 2) < (1, 3), (1, 'b') > (1, 'a'), (1, 2) = (1, 2), [NULL] = [NULL], isNull((1, NULL) != (1, 2));
-- max_threads left to auto is the machine's thread count.
SELECT getSetting('max_threads') > 0, getSettingOrDefault('max_threads', 0) > 0, value LIKE 'auto(%)', default LIKE 'auto(%)' FROM system.settings WHERE name = 'max_threads';
-- unhex is Nullable only where its text is, so toFixedString takes it.
SELECT toFixedString(unhex('4142'), 2), toTypeName(unhex('41')), IPv6NumToString(toFixedString(unhex('20010DB8000000000000000000000001'), 16));
