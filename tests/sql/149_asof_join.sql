-- ASOF JOIN: each left row meets the right row with equal keys whose ASOF value is nearest on the allowed side
DROP TABLE IF EXISTS trades;
DROP TABLE IF EXISTS quotes;
CREATE TABLE trades (sym String, ts DateTime('UTC'), qty UInt32) ENGINE = MergeTree ORDER BY (sym, ts);
CREATE TABLE quotes (sym String, ts DateTime64(3, 'UTC'), price Decimal(10, 2), venue Nullable(String)) ENGINE = Memory;
INSERT INTO trades VALUES ('A', '2024-01-01 10:00:05', 10), ('A', '2024-01-01 10:00:10', 20), ('A', '2024-01-01 09:59:59', 5), ('B', '2024-01-01 10:00:03', 7), ('C', '2024-01-01 10:00:00', 1);
INSERT INTO quotes VALUES ('A', '2024-01-01 10:00:04.500', 1.10, 'x'), ('A', '2024-01-01 10:00:05', 1.20, 'first'), ('A', '2024-01-01 10:00:09', 1.30, NULL), ('B', '2024-01-01 10:00:04', 2.00, 'y'), ('A', '2024-01-01 10:00:05', 1.25, 'second');

-- The four inequalities, written either way round; ties take the first right row
SELECT t.sym, t.ts, q.ts, q.price, q.venue FROM trades AS t ASOF JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts ORDER BY t.sym, t.ts;
SELECT t.sym, t.ts, q.ts, q.price FROM trades AS t ASOF JOIN quotes AS q ON t.sym = q.sym AND t.ts > q.ts ORDER BY t.sym, t.ts;
SELECT t.sym, t.ts, q.ts, q.price FROM trades AS t ASOF JOIN quotes AS q ON t.sym = q.sym AND t.ts <= q.ts ORDER BY t.sym, t.ts;
SELECT t.sym, t.ts, q.ts, q.price FROM trades AS t ASOF JOIN quotes AS q ON q.sym = t.sym AND q.ts > t.ts ORDER BY t.sym, t.ts;
SELECT t.sym, t.ts, q.ts, q.price FROM trades AS t ASOF JOIN quotes AS q ON q.sym = t.sym AND q.ts <= t.ts - INTERVAL 1 SECOND ORDER BY t.sym, t.ts;

-- LEFT keeps the rows that meet none, with defaults (or NULLs under join_use_nulls)
SELECT t.sym, t.ts, q.ts, q.price, q.venue FROM trades AS t ASOF LEFT JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts ORDER BY t.sym, t.ts;
SELECT t.sym, t.qty, q.price, toTypeName(q.price) FROM trades AS t ASOF LEFT JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts ORDER BY t.sym, t.ts SETTINGS join_use_nulls = 1;
SELECT sum(q.price * t.qty), count() FROM trades AS t ASOF LEFT JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts;
SELECT q.venue, count() FROM trades AS t ASOF INNER JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts GROUP BY q.venue ORDER BY q.venue;

-- USING (keys..., asof column) compares left >= right
SELECT * FROM (SELECT sym, toDateTime64(ts, 3, 'UTC') AS ts, qty FROM trades) AS t ASOF JOIN quotes AS q USING (sym, ts) ORDER BY sym, ts;
SELECT sym, ts, q.ts, price FROM (SELECT sym, toDateTime64(ts, 3, 'UTC') AS ts FROM trades) AS t ASOF LEFT JOIN quotes AS q USING (sym, ts) ORDER BY sym, ts;

-- Several keys, NULL keys never match, numeric ASOF values of mixed types
SELECT a.k1, a.k2, a.v, b.v, b.w FROM (SELECT number % 2 AS k1, toNullable(number % 3) AS k2, toUInt8(number * 10) AS v FROM numbers(6)) AS a ASOF LEFT JOIN (SELECT number % 2 AS k1, if(number = 4, NULL, number % 3) AS k2, toInt64(number * 7) AS v, number AS w FROM numbers(12)) AS b ON a.k1 = b.k1 AND a.k2 = b.k2 AND a.v >= b.v ORDER BY a.k1, a.k2, a.v;
SELECT count(), sum(b.t) FROM (SELECT number % 100 AS k, number AS t FROM numbers(200000)) AS a ASOF LEFT JOIN (SELECT number % 100 AS k, number * 3 AS t FROM numbers(100000)) AS b ON a.k = b.k AND a.t >= b.t;

-- The right side is held in memory, counted against the query's limit
SELECT count() FROM numbers(10) AS a ASOF JOIN (SELECT number % 10 AS k, number AS t, toString(number) AS s FROM numbers(3000000)) AS b ON a.number = b.k AND a.number >= b.t SETTINGS max_memory_usage = 20000000; -- { serverError MEMORY_LIMIT_EXCEEDED }

-- What ClickHouse refuses
SELECT * FROM trades AS t ASOF JOIN quotes AS q ON t.ts >= q.ts; -- { serverError NOT_IMPLEMENTED }
SELECT * FROM trades AS t ASOF JOIN quotes AS q ON t.sym = q.sym; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT * FROM trades AS t ASOF JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts AND t.ts < q.ts + 10; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT * FROM trades AS t ASOF RIGHT JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts; -- { serverError NOT_IMPLEMENTED }
SELECT * FROM trades AS t ASOF FULL JOIN quotes AS q ON t.sym = q.sym AND t.ts >= q.ts; -- { serverError NOT_IMPLEMENTED }

DROP TABLE trades;
DROP TABLE quotes;
