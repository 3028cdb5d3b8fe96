-- Memory tables: DDL, inserts, reads.
CREATE DATABASE test_db;
CREATE TABLE test_db.t (a UInt64, s String, n Nullable(Int32)) ENGINE = Memory;
INSERT INTO test_db.t VALUES (1, 'one', NULL), (2, 'two', -2);
INSERT INTO test_db.t SELECT number + 10, toString(number), number FROM numbers(3);
SELECT * FROM test_db.t ORDER BY a;
SELECT count(), sum(a) FROM test_db.t;
SELECT toTypeName(a), toTypeName(s), toTypeName(n) FROM test_db.t LIMIT 1;
USE test_db;
SELECT a FROM t WHERE s = 'two';
SHOW TABLES;
DESCRIBE TABLE t;
CREATE TABLE t (a UInt8) ENGINE = Memory; -- { serverError TABLE_ALREADY_EXISTS }
CREATE TABLE IF NOT EXISTS t (a UInt8) ENGINE = Memory;
CREATE TABLE t2 ENGINE = Memory AS SELECT number AS x FROM numbers(3);
SELECT x FROM t2 ORDER BY x;
DROP TABLE t2;
SELECT * FROM t2; -- { serverError UNKNOWN_TABLE }
DROP TABLE IF EXISTS t2;
DROP TABLE t2; -- { serverError UNKNOWN_TABLE }
USE default;
DROP DATABASE test_db;
USE test_db; -- { serverError UNKNOWN_DATABASE }
