-- A table's own name qualifies its columns under an alias too.
DROP TABLE IF EXISTS named_t;
CREATE TABLE named_t (a UInt8, b UInt8) ENGINE = Memory;
INSERT INTO named_t VALUES (1, 2), (3, 4);
SELECT named_t.a, t.b FROM named_t AS t ORDER BY named_t.a;
SELECT default.named_t.a FROM named_t AS t WHERE named_t.b = 4;
SELECT named_t.* FROM named_t AS t ORDER BY a;
SELECT named_t.a, u.b FROM named_t AS t JOIN named_t AS u ON t.a = u.a ORDER BY named_t.a;
SELECT (SELECT max(named_t.a) FROM named_t AS x) FROM named_t AS t ORDER BY t.a;
-- SHOW CREATE without a kind of object shows a table.
SHOW CREATE named_t;
DROP TABLE named_t;
-- AggregatingMergeTree without aggregate columns keeps one row per key; with
-- them, other plain columns need allow_dimensions_outside_sorting_key.
CREATE TABLE plain_aggregating (k Int32, v UInt8) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO plain_aggregating VALUES (1, 5), (2, 6);
SELECT * FROM plain_aggregating ORDER BY k;
DROP TABLE plain_aggregating;
CREATE TABLE mixed_aggregating (k Int32, v UInt8, s SimpleAggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
