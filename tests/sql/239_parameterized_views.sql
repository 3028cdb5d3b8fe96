-- Parameterized views: {name:Type} in a view's query, given by FROM view(name = value).
CREATE TABLE pv_source (k UInt32, s String, d Date) ENGINE = MergeTree ORDER BY k;
INSERT INTO pv_source SELECT number, toString(number), toDate('2024-01-01') + number FROM numbers(20);
CREATE VIEW pv_range AS SELECT k, s FROM pv_source WHERE k >= {lo:UInt32} AND k < {hi:UInt32};
SELECT * FROM pv_range(lo = 3, hi = 6) ORDER BY k;
SELECT count(), sum(k) FROM pv_range(hi = 10, lo = 0);
SELECT r.k FROM pv_range(lo = 18, hi = 100) AS r WHERE r.k > 18;
CREATE VIEW pv_named AS SELECT k, {label:String} AS label, d FROM pv_source WHERE s = {name:String} OR d = {day:Date};
SELECT * FROM pv_named(name = '7', label = 'x', day = '2024-01-03') ORDER BY k;
SELECT k, toTypeName(label) FROM pv_named(name = '1', label = 'y', day = '1999-01-01');
SELECT * FROM pv_range(lo = 1); -- { serverError UNKNOWN_QUERY_PARAMETER }
SELECT {missing:UInt8}; -- { serverError UNKNOWN_QUERY_PARAMETER }
