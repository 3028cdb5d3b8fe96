-- -SimpleState: the aggregate's result typed SimpleAggregateFunction(f, T)
WITH sumSimpleState(number) AS c SELECT toTypeName(c), c FROM numbers(4);
WITH anySimpleState(number) AS c SELECT toTypeName(c), c FROM numbers(1);
SELECT minSimpleState(number) AS a, toTypeName(a), maxSimpleState(number) AS b, toTypeName(b), groupBitOrSimpleState(number) AS c, toTypeName(c) FROM numbers(5);
SELECT number % 2 AS k, sumSimpleState(number) AS s, toTypeName(s) FROM numbers(6) GROUP BY k ORDER BY k;
SELECT groupArrayArraySimpleState([number]) AS a, toTypeName(a) FROM numbers(3);
SELECT countSimpleState(number) FROM numbers(1); -- { serverError BAD_ARGUMENTS }
SELECT avgSimpleState(number) FROM numbers(1); -- { serverError BAD_ARGUMENTS }

-- The limit and offset settings: a LIMIT around the whole result, after its own
SELECT number FROM numbers(100) SETTINGS limit = 3, offset = 2;
SELECT number FROM numbers(100) LIMIT 5 OFFSET 1 SETTINGS limit = 3, offset = 2;
SELECT number FROM numbers(100) LIMIT 2 SETTINGS limit = 5;
SELECT number FROM numbers(10) ORDER BY number DESC SETTINGS offset = 8;
SELECT count() FROM (SELECT number FROM numbers(100)) SETTINGS limit = 3;
SELECT number FROM numbers(10) UNION ALL SELECT number FROM numbers(10) SETTINGS limit = 3;
SELECT number FROM numbers_mt(1000) WHERE number % 100 = 7 ORDER BY number SETTINGS limit = 2, offset = 1;

-- date_time_output_format
SELECT toDateTime('2020-10-15 00:00:00', 'Europe/Moscow') a, toDateTime64('2020-10-15 00:00:00.123', 3, 'Europe/Moscow') b, [toDateTime('2020-10-15 00:00:00', 'UTC')] c, toDate('2020-01-01') d SETTINGS date_time_output_format = 'iso';
SELECT toDateTime('2020-10-15 00:00:00', 'Europe/Moscow') a, toDateTime64('2020-10-15 00:00:00.120', 3, 'UTC') b, toDateTime64('1960-10-15 00:00:00.123', 3, 'UTC') e, [toDateTime('2020-10-15 00:00:00', 'UTC')] c SETTINGS date_time_output_format = 'unix_timestamp';
SELECT toDateTime('2020-10-15 00:00:00', 'Europe/Moscow') a FORMAT JSONEachRow SETTINGS date_time_output_format = 'iso';
SELECT toDateTime('2020-10-15 00:00:00', 'UTC') SETTINGS date_time_output_format = 'other'; -- { serverError BAD_ARGUMENTS }

-- An alias defined inside an array literal
SELECT has([0 AS x], x), [1, 2 AS y], y;
SELECT arrayMap(e -> e * 2, [number AS n, n + 1]) FROM numbers(2);

-- Dates read with any separators and one-digit parts
DROP TABLE IF EXISTS loose_dates;
CREATE TABLE loose_dates (d Date) ENGINE = Memory;
INSERT INTO loose_dates FORMAT JSONEachRow {"d": "2017-01-02"}, {"d": "2017-1-02"}, {"d": "2017-01-2"}, {"d": "2017-1-2"}, {"d": "2017/01/02"}, {"d": "2017/1/02"}, {"d": "2017/01/2"}, {"d": "2017/1/2"}, {"d": "2017-11-12"};

SELECT * FROM loose_dates ORDER BY d;
DROP TABLE loose_dates;
