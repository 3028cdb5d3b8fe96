-- A Bool column summed or averaged counts its trues (UInt64 / Float64).
CREATE TABLE flags (id UInt32, b Bool, n Nullable(Bool)) ENGINE = Memory;
INSERT INTO flags VALUES (1, true, true), (2, false, NULL), (3, true, false);
SELECT sum(b), avg(b), sumIf(b, id > 1), toTypeName(sum(b)), sum(n), toTypeName(sum(n)) FROM flags;
SELECT min(b), max(b), toTypeName(min(b)) FROM flags;
SELECT id % 2 AS k, sum(b) FROM flags GROUP BY k ORDER BY k;
-- A comparison computed in a subquery is summed the same way.
SELECT sum(x), avg(x), sum(number) FROM (SELECT number, number > 5 AS x FROM numbers(10));
SELECT sum(x) AS s FROM (SELECT number > 5 AS x FROM numbers(10)) ORDER BY sum(x);
DROP TABLE flags;

-- DROP PARTITION and DROP PART on a MergeTree table.
CREATE TABLE days (d Date, x UInt8) ENGINE = MergeTree PARTITION BY d ORDER BY x;
INSERT INTO days VALUES ('2018-02-20', 1), ('2018-02-21', 2), ('2018-02-22', 3);
INSERT INTO days VALUES ('2018-02-21', 4);
ALTER TABLE days DROP PARTITION '2018-02-20';
SELECT * FROM days ORDER BY x;
-- A partition with no part: nothing to drop, no error.
ALTER TABLE days DROP PARTITION '2020-01-01';
ALTER TABLE days DROP PARTITION ID '20180222';
SELECT * FROM days ORDER BY x;
SELECT name FROM system.parts WHERE database = currentDatabase() AND table = 'days' AND active ORDER BY name;
ALTER TABLE days DROP PART '20180221_2_2_0';
SELECT * FROM days ORDER BY x;
ALTER TABLE days DROP PART 'all_9_9_0'; -- { serverError NO_SUCH_DATA_PART }
INSERT INTO days VALUES ('2018-02-20', 5);
SELECT * FROM days ORDER BY x;
DROP TABLE days;
