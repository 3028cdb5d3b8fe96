-- lagInFrame / leadInFrame: the value offset rows away inside the frame, else the default
CREATE TABLE w (g UInt8, t UInt32, v Int64, n Nullable(String)) ENGINE = Memory;
INSERT INTO w VALUES (1, 1, 10, 'a'), (1, 2, 20, NULL), (1, 3, 30, 'c'), (1, 3, 35, 'd'), (2, 1, 100, 'x'), (2, 5, 500, 'y');
SELECT g, t, v, lagInFrame(v) OVER (PARTITION BY g ORDER BY t, v) AS prev FROM w ORDER BY g, t, v;
SELECT g, t, v, leadInFrame(v) OVER (PARTITION BY g ORDER BY t, v) AS next_default_frame FROM w ORDER BY g, t, v;
SELECT g, t, v, leadInFrame(v) OVER (PARTITION BY g ORDER BY t, v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS next FROM w ORDER BY g, t, v;
SELECT g, t, v, lagInFrame(v, 2, -1) OVER (PARTITION BY g ORDER BY t, v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS two_back FROM w ORDER BY g, t, v;
SELECT g, t, v, leadInFrame(v, 1, v * 2) OVER (PARTITION BY g ORDER BY t, v ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS next_or_double FROM w ORDER BY g, t, v;
SELECT g, t, v, lagInFrame(v, 1) OVER (PARTITION BY g ORDER BY t, v ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS outside FROM w ORDER BY g, t, v;
SELECT g, t, n, lagInFrame(n) OVER (PARTITION BY g ORDER BY t, v) AS prev_n, toTypeName(prev_n) FROM w ORDER BY g, t, v;
SELECT t, v, lagInFrame(toString(v), 0) OVER (ORDER BY t, v) AS same FROM w WHERE g = 1 ORDER BY t, v;
SELECT t, v - lagInFrame(v) OVER (ORDER BY t, v) AS delta FROM w WHERE g = 1 ORDER BY t, v;
SELECT t, v, leadInFrame(v) OVER w1 AS nxt FROM w WHERE g = 2 WINDOW w1 AS (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY t;
SELECT name, is_aggregate FROM system.functions WHERE name IN ('lagInFrame', 'leadInFrame') ORDER BY name;
DROP TABLE w;
