-- an INSERT leaving out columns whose DEFAULTs read each other: each computed from the row, in chains
DROP TABLE IF EXISTS t_chain;
CREATE TABLE t_chain (a UInt32, b UInt32 DEFAULT 7, c String DEFAULT toString(a + b), d UInt32 DEFAULT length(c) + b) ENGINE = MergeTree ORDER BY a;
INSERT INTO t_chain (a) VALUES (5);
INSERT INTO t_chain (a, b) VALUES (6, 1);
INSERT INTO t_chain (a, c) VALUES (7, 'xyz');
INSERT INTO t_chain (a) SELECT number FROM numbers(2);
INSERT INTO t_chain (a, c) SELECT number + 10, 'q' FROM numbers(2);
SELECT * FROM t_chain ORDER BY a;
DROP TABLE t_chain;
CREATE TABLE m_chain (a UInt32, b UInt32 DEFAULT 7, c UInt32 DEFAULT a + b) ENGINE = Memory;
INSERT INTO m_chain (a) VALUES (1), (2);
SELECT * FROM m_chain ORDER BY a;
DROP TABLE m_chain;
