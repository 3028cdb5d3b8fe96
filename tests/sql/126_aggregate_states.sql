#!/usr/bin/env strata
-- -State, -Merge, -MergeState, finalizeAggregation, AggregateFunction and SimpleAggregateFunction columns, AggregatingMergeTree fed by a materialized view
SELECT toTypeName(countState()), toTypeName(sumState(toUInt32(1))), toTypeName(avgState(toNullable(toInt8(1))));
SELECT toTypeName(sumIfState(number, number > 1)), toTypeName(quantilesState(0.5, 0.9)(number)), toTypeName(uniqState(toString(number))) FROM numbers(3);
SELECT toTypeName(sumStateIf(number, number > 1)), toTypeName(groupArrayState(10)(number)), toTypeName(quantileState(0.5)(number)) FROM numbers(3);
SELECT sumMerge(s), avgMerge(a), countMerge(c), minMerge(lo), maxMerge(hi) FROM (SELECT sumState(number) AS s, avgState(number) AS a, countState() AS c, minState(number) AS lo, maxState(number) AS hi FROM numbers(1000));
SELECT k, sumMerge(s), uniqExactMerge(u), arraySort(groupArrayMerge(g)) FROM (SELECT number % 3 AS k, sumState(number) AS s, uniqExactState(number % 5) AS u, groupArrayState(number) AS g FROM numbers(12) GROUP BY k, number % 2) GROUP BY k ORDER BY k;
SELECT finalizeAggregation(s), toTypeName(finalizeAggregation(s)) FROM (SELECT sumState(toUInt8(number)) AS s FROM numbers(300));
SELECT k, finalizeAggregation(s) FROM (SELECT number % 2 AS k, avgState(number) AS s FROM numbers(10) GROUP BY k) ORDER BY k;
SELECT finalizeAggregation(m), toTypeName(m) FROM (SELECT sumMergeState(s) AS m FROM (SELECT sumState(number) AS s FROM numbers(10) GROUP BY number % 3));
SELECT quantileMerge(0.5)(s), groupArrayMerge(2)(g) FROM (SELECT quantileState(0.5)(number) AS s, groupArrayState(2)(number) AS g FROM numbers(11));
SELECT groupArray(2)(number), groupArray(10)(number), groupArray(1)(toNullable(if(number = 0, NULL, number))) FROM numbers(5);
SELECT groupArray(0)(number) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT sum(1)(number) FROM numbers(3); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
SELECT sumIfMerge(s) FROM (SELECT sumIfState(number, number % 2 = 0) AS s FROM numbers(10));
SELECT sumMerge(s) FROM (SELECT sumState(toNullable(number)) AS s FROM numbers(10));
SELECT sumMerge(s) FROM (SELECT sumState(number) AS s FROM numbers(0));
SELECT avgMerge(s) FROM (SELECT sumState(number) AS s FROM numbers(3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMerge(number) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE states (k UInt64, s AggregateFunction(sum, UInt64), u AggregateFunction(uniqExact, String), n AggregateFunction(sum, Nullable(UInt64)), m SimpleAggregateFunction(max, UInt64)) ENGINE = MergeTree ORDER BY k;
DESCRIBE states;
INSERT INTO states SELECT number % 3, sumState(number), uniqExactState(toString(number % 4)), sumState(toNullable(number)), max(number) FROM numbers(30) GROUP BY number % 3;
INSERT INTO states SELECT number % 3, sumState(number), uniqExactState(toString(number % 7)), sumState(toNullable(number)), max(number) FROM numbers(30, 30) GROUP BY number % 3;
SELECT k, sumMerge(s), uniqExactMerge(u), sumMerge(n), max(m) FROM states GROUP BY k ORDER BY k;
SELECT count() FROM states;
OPTIMIZE TABLE states FINAL;
SELECT count() FROM states;
SELECT name, type FROM system.columns WHERE table = 'states' ORDER BY name;
CREATE TABLE events (day Date, user String, amount UInt64) ENGINE = MergeTree ORDER BY day;
CREATE TABLE daily (day Date, users AggregateFunction(uniqExact, String), total AggregateFunction(sum, UInt64), biggest SimpleAggregateFunction(max, UInt64), first_user String) ENGINE = AggregatingMergeTree ORDER BY day; -- { serverError BAD_ARGUMENTS }
CREATE TABLE daily (day Date, users AggregateFunction(uniqExact, String), total AggregateFunction(sum, UInt64), biggest SimpleAggregateFunction(max, UInt64), first_user String) ENGINE = AggregatingMergeTree ORDER BY day SETTINGS allow_dimensions_outside_sorting_key = 1;
CREATE MATERIALIZED VIEW daily_mv TO daily AS SELECT day, uniqExactState(user) AS users, sumState(amount) AS total, max(amount) AS biggest, min(user) AS first_user FROM events GROUP BY day;
INSERT INTO events SELECT toDate('2024-01-01') + number % 3, concat('u', toString(number % 5)), number FROM numbers(20);
INSERT INTO events SELECT toDate('2024-01-01') + number % 4, concat('u', toString(number % 9)), number * 10 FROM numbers(20);
SELECT day, uniqExactMerge(users), sumMerge(total), max(biggest) FROM daily GROUP BY day ORDER BY day;
SELECT day, finalizeAggregation(users), finalizeAggregation(total), biggest FROM daily FINAL ORDER BY day;
OPTIMIZE TABLE daily FINAL;
SELECT count() FROM daily;
SELECT day, finalizeAggregation(users), finalizeAggregation(total), biggest, first_user FROM daily ORDER BY day;
SHOW CREATE TABLE daily;
CREATE TABLE simple (k UInt8, a SimpleAggregateFunction(sum, UInt64), b SimpleAggregateFunction(anyLast, String), c SimpleAggregateFunction(min, Int32)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO simple VALUES (1, 10, 'x', 5), (2, 1, 'y', -1);
INSERT INTO simple VALUES (1, 5, 'z', 7), (2, 2, 'w', -3);
SELECT * FROM simple FINAL ORDER BY k;
OPTIMIZE TABLE simple FINAL;
SELECT * FROM simple ORDER BY k;
CREATE TABLE bad (k UInt8) ENGINE = AggregatingMergeTree(k) ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT initializeAggregation('sum', number), toTypeName(initializeAggregation('sum', number)) FROM numbers(3);
SELECT finalizeAggregation(initializeAggregation('sumState', number)) FROM numbers(3);
SELECT uniqMerge(s) FROM (SELECT initializeAggregation('uniqState', number % 4) AS s FROM numbers(20));
SELECT toTypeName(initializeAggregation('quantileState(0.5)', number)) FROM numbers(2);
SELECT quantileMerge(0.5)(s) FROM (SELECT initializeAggregation('quantileState(0.5)', number) AS s FROM numbers(11));
SELECT initializeAggregation('sumIf', number, number > 1) FROM numbers(3);
SELECT initializeAggregation(number, number) FROM numbers(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT initializeAggregation('noSuchAggregate', number) FROM numbers(1); -- { serverError UNKNOWN_AGGREGATE_FUNCTION }
CREATE TABLE summed (k UInt8, v UInt64, st AggregateFunction(uniq, UInt64), m SimpleAggregateFunction(max, UInt64)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO summed SELECT 1, number, uniqState(number), number FROM numbers(5) GROUP BY number;
INSERT INTO summed SELECT 1, 10, uniqState(number), 100 FROM numbers(50, 5) GROUP BY number;
SELECT k, v, finalizeAggregation(st), m FROM summed FINAL;
OPTIMIZE TABLE summed FINAL;
SELECT k, v, finalizeAggregation(st), m FROM summed;
SELECT name, is_internal FROM system.aggregate_function_combinators WHERE name IN ('State', 'Merge', 'If', 'Array', 'OrNull') ORDER BY name;
