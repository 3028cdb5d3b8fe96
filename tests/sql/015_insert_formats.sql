-- INSERT ... FORMAT with the data inline: CSV, TabSeparated and JSONEachRow, with and without names, into MergeTree and Memory tables.
CREATE TABLE f (id UInt32, name String, d Date, dt DateTime, price Decimal(10, 2), ok Bool, n Nullable(Int64), tags Array(String), fs FixedString(3), score Float64 DEFAULT id * 1.5) ENGINE = MergeTree ORDER BY id;
INSERT INTO f (id, name, d, dt, price, ok, n, tags, fs) FORMAT CSV
1,alpha,2024-01-01,2024-01-01 10:00:00,1.25,true,\N,"['a','b']",abc
2,"be,ta",2024-02-29,2024-02-29 23:59:59,-3.5,false,7,[],xy
3,"say ""hi""",1970-01-02,1970-01-01 00:00:01,0,1,,"['x']",
;
SELECT * FROM f ORDER BY id;
INSERT INTO f FORMAT TabSeparated
4	tab\there	2024-03-01	2024-03-01 00:00:00	9.99	true	\N	['t']	t	100
5	line\nbreak	2024-03-02	2024-03-02 00:00:00	0.01	false	-5	[]	uvw	0.5
;
SELECT id, name, n, tags, fs, score FROM f WHERE id >= 4 ORDER BY id;
INSERT INTO f FORMAT JSONEachRow
{"id": 6, "name": "json", "d": "2024-04-01", "dt": "2024-04-01 12:00:00", "price": 12.5, "ok": true, "n": null, "tags": ["p", "q"], "fs": "jj"}
{"id": 7, "name": "skips unknown keys", "unknown": 1, "price": "7.25", "ok": false, "n": 3}
;
SELECT id, name, d, dt, price, ok, n, tags, fs, score FROM f WHERE id >= 6 ORDER BY id;
INSERT INTO f FORMAT CSVWithNames
"name","id","n"
from header,8,11
;
INSERT INTO f FORMAT TSVWithNames
id	score
9	42
;
SELECT id, name, n, score FROM f WHERE id >= 8 ORDER BY id;
INSERT INTO f (id, name) FORMAT Values (10, 'values'), (11, 'format');
SELECT id, name, score FROM f WHERE id >= 10 ORDER BY id;
-- Malformed data fails the whole insert: nothing of it becomes visible.
INSERT INTO f (id, name) FORMAT CSV
100,good
zz,bad
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO f (id, name, d) FORMAT CSV
101,one,2024-01-01
102,two
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO f (id, name) FORMAT CSV
103,one
104,two,extra
; -- { serverError INCORRECT_DATA }
INSERT INTO f (id, name) FORMAT TSV
105	one
106x	two
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO f (id, name) FORMAT JSONEachRow
{"id": 107, "name": "one"}
{"id": "q", "name": "two"}
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO f (id, name) FORMAT JSONEachRow
{"id": 108, "name": "one"}
{"id": 109, "name": "two"
; -- { serverError CANNOT_READ_ALL_DATA }
INSERT INTO f FORMAT CSV; -- { serverError NO_DATA_TO_INSERT }
INSERT INTO f (id, no_such_column) FORMAT CSV 1,2; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
INSERT INTO f FORMAT NoSuchFormat 1; -- { serverError UNKNOWN_FORMAT }
SELECT count(), max(id) FROM f;
-- Column names keep their case.
CREATE TABLE up (Key Int64, Name String DEFAULT 'none', D Date) ENGINE = MergeTree ORDER BY Key;
INSERT INTO up (Key, D) FORMAT CSV 1,2026-11-22
;
INSERT INTO up FORMAT JSONEachRow {"Key": 2, "D": "2026-11-21"}
;
SELECT * FROM up ORDER BY Key;
-- Memory tables read the same formats.
CREATE TABLE m (k Int64, v Nullable(String)) ENGINE = Memory;
INSERT INTO m FORMAT CSV
-1,\N
2,two
;
INSERT INTO m FORMAT JSONEachRow {"k": 3, "v": "three"} {"k": 4}
;
SELECT * FROM m ORDER BY k;
-- RENAME TABLE keeps the data and moves the name.
RENAME TABLE m TO m2;
SELECT count() FROM m; -- { serverError UNKNOWN_TABLE }
SELECT sum(k) FROM m2;
RENAME TABLE f TO f2;
SELECT count() FROM f2;
SHOW CREATE TABLE f2;
RENAME TABLE f2 TO m2; -- { serverError TABLE_ALREADY_EXISTS }
CREATE DATABASE other;
RENAME TABLE f2 TO other.f3;
SELECT database, name FROM system.tables WHERE name IN ('f', 'f2', 'f3') ORDER BY name;
SELECT count(), sum(id) FROM other.f3 WHERE id < 5;
