-- Inputs that once stopped the process: each now answers or fails cleanly.
-- A DateTime64 whose ticks overflow 64 bits.
SELECT parseDateTime64BestEffortOrNull('9279104477', 9), parseDateTime64BestEffortOrZero('9279104477', 9);
SELECT parseDateTime64BestEffort('9279104477', 3);
SELECT parseDateTime64BestEffort('9279104477', 9); -- { serverError DECIMAL_OVERFLOW }
-- Arrays of tuples whose literals type differently (-5 Int8, 5 UInt8).
CREATE TABLE polygons (poly Array(Tuple(Int32, Int32))) ENGINE = Memory;
INSERT INTO polygons VALUES ([(0, 0), (10, 0)]), ([(-5, -5), (5, -5)]);
INSERT INTO polygons VALUES ([(5, 5), (-5, 5)]);
-- A tuple literal into a declared Tuple: elements match by position.
INSERT INTO polygons SELECT [(1, -2), (300, 4)];
SELECT * FROM polygons ORDER BY poly;
CREATE TABLE pairs (p Tuple(Int32, String), n Tuple(a UInt8, b String)) ENGINE = Memory;
INSERT INTO pairs SELECT (number, toString(number)), (number, 'x') FROM numbers(2);
SELECT p, n, n.a FROM pairs ORDER BY p;
-- A Map inside a Tuple column takes the empty map as its default.
CREATE TABLE nested (c Tuple(v String, pe Map(String, Tuple(a UInt64, b UInt64))), k UInt8) ENGINE = Memory;
INSERT INTO nested (k) VALUES (1);
INSERT INTO nested VALUES (('a', {'k': (1, 2)}), 2);
SELECT c, k FROM nested ORDER BY k;
-- A Tuple key left NULL by a grouping set is a tuple of NULLs.
SELECT tuple(number) AS t, toTypeName(t), count() FROM numbers(2) GROUP BY GROUPING SETS ((tuple(number)), ()) ORDER BY count(), t SETTINGS group_by_use_nulls = 1;
