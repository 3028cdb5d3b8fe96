-- Arrays keep what their elements' bytes mean: UUIDs, IP addresses, Enums
-- and Date32 built into an array ([...], array(), groupArray) read back as
-- such, by type name and by value.
SELECT [toUUID('00000000-0000-0000-0000-000000000001')], toTypeName([toUUID('00000000-0000-0000-0000-000000000001')]);
SELECT [toIPv4('1.2.3.4'), toIPv4('10.0.0.1')], toTypeName([toIPv4('1.2.3.4')]);
SELECT array(toIPv6('::1')), toTypeName(array(toIPv6('::1')));
SELECT [CAST('a' AS Enum8('a' = 1, 'b' = 2))], toTypeName([CAST('b' AS Enum8('a' = 1, 'b' = 2))]);
SELECT [toDate32('2001-02-03')], toTypeName([toDate32('2001-02-03')]);
SELECT [toUUID('00000000-0000-0000-0000-000000000002'), NULL], toTypeName([toUUID('00000000-0000-0000-0000-000000000002'), NULL]);
SELECT groupArray(toUUID(concat('00000000-0000-0000-0000-00000000000', toString(number)))) FROM numbers(3);
SELECT toTypeName(groupArray(toIPv4('1.1.1.1'))), groupArray(toIPv4(number)) FROM numbers(2);
SELECT [[toUUID('00000000-0000-0000-0000-000000000003')]], toTypeName([[toUUID('00000000-0000-0000-0000-000000000003')]]);
-- WITH TOTALS without GROUP BY: the one row, then the same as totals.
SELECT count(), sum(number) FROM numbers(10) WITH TOTALS;
SELECT count() AS c FROM numbers(10) WHERE number > 3 WITH TOTALS;
SELECT count() AS c FROM numbers(0) WITH TOTALS;
SELECT count() AS c FROM numbers(10) WITH TOTALS HAVING c > 5;
SELECT number FROM numbers(3) WITH TOTALS; -- { serverError NOT_IMPLEMENTED }
