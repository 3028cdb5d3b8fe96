-- OPTIMIZE ... DEDUPLICATE keeps one of equal rows, in every column or in the columns listed
CREATE TABLE dedup (k UInt8, s String, v UInt8) ENGINE = MergeTree ORDER BY k;
INSERT INTO dedup VALUES (1, 'a', 1), (1, 'b', 2), (1, 'a', 1), (2, 'c', 4);
INSERT INTO dedup VALUES (1, 'a', 1), (1, 'a', 5);
-- Without FINAL, the parts that merge are deduplicated.
OPTIMIZE TABLE dedup DEDUPLICATE;
SELECT * FROM dedup ORDER BY k, s, v;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'dedup' AND active;
OPTIMIZE TABLE dedup FINAL DEDUPLICATE BY k, s;
SELECT * FROM dedup ORDER BY k, s, v;
INSERT INTO dedup VALUES (1, 'a', 9), (3, 'd', 1), (3, 'd', 1);
OPTIMIZE TABLE dedup FINAL DEDUPLICATE BY * EXCEPT v;
SELECT * FROM dedup ORDER BY k, s, v;
INSERT INTO dedup VALUES (3, 'e', 1), (3, 'e', 1);
OPTIMIZE TABLE dedup FINAL DEDUPLICATE BY COLUMNS('k|s');
SELECT * FROM dedup ORDER BY k, s, v;
OPTIMIZE TABLE dedup FINAL DEDUPLICATE BY s; -- { serverError THERE_IS_NO_COLUMN }
OPTIMIZE TABLE dedup FINAL DEDUPLICATE BY k, nope; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
CREATE TABLE dedup_partitioned (d Date, k UInt8, v UInt8) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY k;
INSERT INTO dedup_partitioned VALUES ('2024-01-01', 1, 1), ('2024-01-01', 1, 1), ('2024-02-01', 1, 1), ('2024-02-01', 1, 2);
OPTIMIZE TABLE dedup_partitioned PARTITION 202401 FINAL DEDUPLICATE;
SELECT * FROM dedup_partitioned ORDER BY d, k, v;
OPTIMIZE TABLE dedup_partitioned FINAL DEDUPLICATE BY k; -- { serverError THERE_IS_NO_COLUMN }
