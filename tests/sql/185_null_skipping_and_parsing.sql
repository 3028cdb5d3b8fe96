-- argMin/argMax skip rows where either argument is NULL, and are NULL
-- over no rows when an argument is Nullable.
SELECT argMax(x, y), argMin(x, y), argMax(y, x), toTypeName(argMax(y, x)) FROM (SELECT arrayJoin([(NULL, 5), (1, 3), (2, 1)]) AS p, p.1 AS x, p.2 AS y);
SELECT argMax(x, y), argMin(y, x) FROM (SELECT CAST(NULL, 'Nullable(UInt8)') AS x, 1 AS y);
SELECT any(x), anyLast(x), argMax(x, y), groupArray(x) FROM (SELECT arrayJoin([NULL, 2, NULL, 4]) AS x, 1 AS y);
SELECT argMax(number, number), argMaxIf(number, number, number > 100) FROM numbers(0);
SELECT k, argMax(v, w) FROM (SELECT number % 2 AS k, if(number = 3, NULL, number) AS v, number AS w FROM numbers(6)) GROUP BY k ORDER BY k;
-- -OrNull over -If counts only the rows the condition keeps.
SELECT sumIfOrNull(number, number > 100), maxIfOrNull(number, number > 100), avgIfOrNull(number, number > 100), sumIfOrNull(number, number > 5) FROM numbers(10);
SELECT countIfOrNull(number > 100), uniqExactIfOrNull(number, number > 100), sumIfOrDefault(number, number > 100), groupArrayIfOrNull(number, number > 100) FROM numbers(10);
SELECT groupArrayOrNull(number), sumOrNull(number) FROM numbers(0);
-- to<Number>OrZero/OrNull parse strictly: no spaces, no trailing text.
SELECT toInt32OrZero('  5'), toInt32OrZero('5  '), toFloat64OrZero(' 1.5'), toUInt8OrNull(' 1'), toInt32OrNull('+5'), toInt32OrNull('0x10');
SELECT toUInt8OrNull('300'), toInt8OrZero('-129'), toFloat64OrNull('1e3'), toUInt64OrNull('-1'), toFloat64OrNull('.5'), toInt32OrNull('');
SELECT toTypeName(toInt32OrZero('1')), toTypeName(toUInt16OrNull('1')), toInt64OrNull(s) FROM (SELECT arrayJoin(['12', 'x', '-3']) AS s);
-- Dates in ClickHouse's other spellings.
SELECT toDate('20240305'), toDateTime('20240305', 'UTC'), toDate('2024-3-5'), toDate('2024-02-30');
