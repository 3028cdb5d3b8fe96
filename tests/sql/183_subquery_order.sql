-- A subquery's ORDER BY orders what order-sensitive aggregates of the
-- outer query see, as in ClickHouse.
SELECT groupArray(number) FROM (SELECT number FROM numbers(5) ORDER BY number DESC);
SELECT any(number), anyLast(number), groupConcat(toString(number)) FROM (SELECT number FROM numbers(10) ORDER BY number DESC);
SELECT k, groupArray(n) FROM (SELECT number AS n, number % 3 AS k FROM numbers_mt(12) ORDER BY n DESC) GROUP BY k ORDER BY k;
SELECT groupArray(x) FROM (SELECT number * 2 AS x FROM numbers(5) ORDER BY x DESC);
SELECT arrayStringConcat(groupArray(s), ',') FROM (SELECT s FROM (SELECT toString(number) AS s, number FROM numbers(6)) ORDER BY s DESC);
SELECT groupArray(x), groupArray(y) FROM (SELECT number % 3 AS x, number AS y FROM numbers(6) ORDER BY x, y DESC);
CREATE TABLE events (user UInt32, t DateTime, page String) ENGINE = MergeTree ORDER BY (user, t);
INSERT INTO events SELECT number % 3, toDateTime('2024-01-01 00:00:00') + number * 60, concat('p', toString(number)) FROM numbers(12);
SELECT user, groupArray(page) FROM (SELECT user, page, t FROM events ORDER BY t DESC) GROUP BY user ORDER BY user;
SELECT user, groupArray(page) AS path FROM (SELECT * FROM events ORDER BY user, t) GROUP BY user ORDER BY user;
SELECT groupArray(number) FROM (SELECT number FROM numbers(10) ORDER BY number DESC LIMIT 3);
-- The sort key is not among the subquery's columns.
SELECT arrayStringConcat(groupArray(s), ',') FROM (SELECT toString(number) AS s FROM numbers(5) ORDER BY number DESC);
SELECT groupArray(s) FROM (SELECT toString(number) AS s FROM numbers(5) ORDER BY number % 3, number DESC);
SELECT k, groupArray(s) FROM (SELECT number % 3 AS k, toString(number) AS s FROM numbers(20) ORDER BY number DESC) GROUP BY k ORDER BY k;
SELECT groupArray(s) FROM (SELECT toString(number) AS s FROM numbers(10) ORDER BY number DESC) WHERE s != '5';
-- argMax / argMin keep the first row of a tie.
SELECT argMax(number, 1), argMin(number, 1) FROM (SELECT number FROM numbers(10) ORDER BY number DESC);
SELECT k, argMax(s, 1) FROM (SELECT number % 3 AS k, number AS s FROM numbers_mt(100000) ORDER BY number DESC) GROUP BY k ORDER BY k;
