-- A Date32 moved by days (a number, an interval or addDays) stays a Date32.
SELECT toTypeName(toDate32('1960-01-01') + 1), toTypeName(1 + toDate32('1960-01-01')), toTypeName(toDate32('1960-01-01') - 1), toDate32('1960-01-01') - 1;
SELECT toTypeName(addDays(toDate32('1960-01-01'), 10)), addDays(toDate32('1960-01-01'), 10), subtractDays(toDate32('1960-01-01'), 1), addYears(toDate32('1960-02-29'), 1);
SELECT toTypeName(toDate32('1960-01-01') + INTERVAL 1 DAY), toDate32('1960-01-31') + INTERVAL 1 MONTH, toTypeName(toDate32('1960-01-01') + INTERVAL 1 HOUR);
SELECT toTypeName(toDate('2020-01-01') + 1), subtractMonths(toDate('2020-03-31'), 1), toTypeName(addHours(toDate('2020-01-01'), 1));
SELECT toDate32(number) - INTERVAL 2 WEEK, toTypeName(toDate32(number) - INTERVAL 2 WEEK) FROM numbers(2);

-- DISTINCT of a small integer over one stream keeps the order rows are first seen in.
SELECT DISTINCT x FROM (SELECT arrayJoin([3, 1, 3, 2, 1]) AS x);
SELECT DISTINCT x % 7 FROM (SELECT arrayJoin([12, 3, 5, 10, 6, 19]) AS x);
