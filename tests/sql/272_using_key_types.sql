-- A USING key is one column of the common type of both sides' keys.
SELECT k, toTypeName(k), v FROM (SELECT toUInt32(number) AS k FROM numbers(5)) AS s JOIN (SELECT toInt64(number) * 2 AS k, number AS v FROM numbers(3)) AS l USING (k) ORDER BY k;
SELECT k, toTypeName(k) FROM (SELECT toUInt8(number) AS k FROM numbers(3)) AS a RIGHT JOIN (SELECT toInt16(number) - 1 AS k FROM numbers(3)) AS b USING k ORDER BY k;
SELECT k, toTypeName(k), count() FROM (SELECT toNullable(toUInt16(number)) AS k FROM numbers(3)) AS a LEFT JOIN (SELECT toFloat32(number) AS k FROM numbers(2)) AS b USING k GROUP BY k ORDER BY k;
SELECT * FROM (SELECT toUInt8(number) AS k, 'a' AS x FROM numbers(2)) AS a JOIN (SELECT toUInt64(number) AS k, 'b' AS y FROM numbers(2)) AS b USING (k) ORDER BY k;
SELECT k, toTypeName(k) FROM (SELECT toString(number) AS k FROM numbers(2)) AS a JOIN (SELECT toString(number) AS k FROM numbers(3)) AS b USING (k) ORDER BY k;
DROP TABLE IF EXISTS using_a;
DROP TABLE IF EXISTS using_b;
CREATE TABLE using_a (id UInt32, name String) ENGINE = MergeTree ORDER BY id;
CREATE TABLE using_b (id Int64, score Int32) ENGINE = MergeTree ORDER BY id;
INSERT INTO using_a VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO using_b VALUES (-1, 10), (2, 20), (3, 30), (3, 31);
SELECT id, toTypeName(id), name, score FROM using_a JOIN using_b USING (id) WHERE id >= 3 ORDER BY id, score;
SELECT id, sum(score) FROM using_a LEFT JOIN using_b USING id GROUP BY id ORDER BY id;
SELECT id, name FROM using_a RIGHT JOIN using_b USING id ORDER BY id, score;
DROP TABLE using_a;
DROP TABLE using_b;
