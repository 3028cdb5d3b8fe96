-- A query's numbers go into Date and DateTime columns as CAST reads them (days below 65536, else seconds).
CREATE TABLE moments (stamp Date, t DateTime, n Nullable(Date)) ENGINE = MergeTree ORDER BY stamp;
INSERT INTO moments SELECT number * 100000, number * 100000, if(number = 1, NULL, number) FROM numbers(3);
INSERT INTO moments SELECT '2024-01-02', '2024-01-02 03:04:05', '2024-01-03';
INSERT INTO moments (stamp, t) SELECT toDate('2025-05-06') + number, toDateTime('2025-05-06 07:08:09') FROM numbers(2);
SELECT * FROM moments ORDER BY stamp, t;
-- LIMIT n BY a position names the select list's item there.
SELECT number % 3 AS a FROM numbers(6) ORDER BY 1 LIMIT 1 BY 1;
SELECT number % 2, number FROM numbers(6) ORDER BY number LIMIT 2 BY 1;
-- A number added to a DateTime64 counts seconds, whatever the precision.
SELECT toDateTime64('2020-01-01 00:00:00', 3, 'UTC') + 1 AS a, toTypeName(a), 1 + toDateTime64('2020-01-01 00:00:00', 6) AS b, toDateTime64('2020-01-01 00:00:00', 3) - 1 AS c;
SELECT toDateTime64('2020-01-01 00:00:00.5', 9, 'UTC') + number FROM numbers(2);
-- SummingMergeTree sums the columns of a tuple.
CREATE TABLE summed (d Date, a String, y UInt64, z Float64) ENGINE = SummingMergeTree((y, z)) ORDER BY a;
INSERT INTO summed VALUES ('2000-01-01', 'x', 1, 2);
INSERT INTO summed VALUES ('2000-01-01', 'x', 3, 4);
SELECT * FROM summed FINAL;
