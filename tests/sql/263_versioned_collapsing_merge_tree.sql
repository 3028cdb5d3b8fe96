-- VersionedCollapsingMergeTree(sign, version): rows of one key and version
-- cancel in pairs of opposite signs, whatever order the parts came in; the
-- version ends the sorting key.
CREATE TABLE vc (k UInt8, v UInt32, sign Int8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(sign, ver) ORDER BY k;
INSERT INTO vc VALUES (1, 10, -1, 1), (2, 5, 1, 1), (2, 6, 1, 1), (3, 1, 1, 1), (3, 2, 1, 2), (3, 3, -1, 1);
INSERT INTO vc VALUES (2, 7, -1, 1), (4, 1, 1, 1), (4, 2, -1, 1), (4, 3, 1, 1);
SELECT * FROM vc FINAL ORDER BY k, ver, v;
SELECT k, sum(v * sign) FROM vc GROUP BY k HAVING sum(sign) > 0 ORDER BY k;
OPTIMIZE TABLE vc FINAL;
SELECT * FROM vc ORDER BY k, ver, v;
SELECT sorting_key, primary_key, engine FROM system.tables WHERE database = currentDatabase() AND name = 'vc';
-- A cancel row inserted before its state row still cancels it.
INSERT INTO vc VALUES (5, 1, -1, 7);
INSERT INTO vc VALUES (5, 1, 1, 7);
SELECT count() FROM vc FINAL WHERE k = 5;
DROP TABLE vc;
-- The engine's arguments and their types are checked.
CREATE TABLE vc_bad (k UInt8, sign Int8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(sign) ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE vc_bad (k UInt8, sign UInt8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(sign, ver) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE vc_bad (k UInt8, sign Int8, ver String) ENGINE = VersionedCollapsingMergeTree(sign, ver) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
