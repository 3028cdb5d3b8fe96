-- File(format): rows kept in one file in the table's directory, read by each
-- query and appended to by each insert (the header written once).
DROP TABLE IF EXISTS file_csv;
CREATE TABLE file_csv (a UInt8, b String, c Nullable(Float64)) ENGINE = File(CSV);
SELECT count() FROM file_csv; -- { serverError FILE_DOESNT_EXIST }
SELECT count() FROM file_csv SETTINGS engine_file_empty_if_not_exists = 1;
INSERT INTO file_csv VALUES (1, 'x', 1.5), (2, 'y, with a comma', NULL);
INSERT INTO file_csv SELECT number + 10, toString(number), number / 4 FROM numbers(3);
SELECT * FROM file_csv ORDER BY a;
SELECT a, b FROM file_csv WHERE c IS NULL;
SELECT sum(a), max(b) FROM file_csv;
SHOW CREATE TABLE file_csv;
SELECT engine, engine_full FROM system.tables WHERE name = 'file_csv';
SELECT name FROM system.table_engines WHERE name = 'File';
TRUNCATE TABLE file_csv;
SELECT count() FROM file_csv;
INSERT INTO file_csv VALUES (3, 'z', 0);
SELECT * FROM file_csv;

DROP TABLE IF EXISTS file_names;
CREATE TABLE file_names (k UInt32, v String DEFAULT concat('v', toString(k))) ENGINE = File(TSVWithNames);
INSERT INTO file_names (k) VALUES (1);
INSERT INTO file_names VALUES (2, 'two');
SELECT * FROM file_names ORDER BY k;

DROP TABLE IF EXISTS file_rows;
CREATE TABLE file_rows (d Date, n Array(UInt16)) ENGINE = File(JSONEachRow);
INSERT INTO file_rows VALUES ('2024-01-02', [1, 2]), ('2024-03-04', []);
SELECT d, length(n) FROM file_rows ORDER BY d;

ALTER TABLE file_rows ADD COLUMN x UInt8; -- { serverError NOT_IMPLEMENTED }
OPTIMIZE TABLE file_rows; -- { serverError NOT_IMPLEMENTED }
CREATE TABLE file_bad (a UInt8) ENGINE = File(NoSuchFormat); -- { serverError UNKNOWN_FORMAT }
CREATE TABLE file_bad (a UInt8) ENGINE = File(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
DROP TABLE file_csv;
DROP TABLE file_names;
DROP TABLE file_rows;
