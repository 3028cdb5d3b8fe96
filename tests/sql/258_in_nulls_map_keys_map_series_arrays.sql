-- x IN (subquery) outside a filter's conjuncts: a NULL value answers NULL
SELECT x, x IN (SELECT 1) AS a, x NOT IN (SELECT 1) AS b, toTypeName(a) FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x;
SELECT 1 IN (SELECT 1) AS a, toTypeName(a), 1 IN (SELECT NULL) AS b, 2 IN (SELECT toNullable(2)) AS c;
SELECT count() FROM (SELECT arrayJoin([1, NULL, 2]) AS x) WHERE x = 2 OR x IN (SELECT 1);

-- nullIn and notNullIn never answer NULL
SELECT x, nullIn(x, (1, NULL)) AS a, notNullIn(x, (1, NULL)) AS b, nullIn(x, [1, NULL]) AS c, globalNullIn(x, (1, 2)) AS d, globalNotNullIn(x, (1, 2)) AS e, toTypeName(a) FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x;
SELECT nullIn(x, (SELECT 1)), notNullIn(x, (SELECT 1)) FROM (SELECT arrayJoin([1, NULL, 2]) AS x) ORDER BY x;

-- has(map, key) looks among the keys
SELECT has(map(1, 2), 1), has(map('a', 2), 'b'), has(map('a', 2, 'b', 3), 'b');
SELECT k, has(m, k) FROM (SELECT map('x', 1, 'y', 2) AS m, arrayJoin(['x', 'z', 'y']) AS k) ORDER BY k;
DROP TABLE IF EXISTS map_keys;
CREATE TABLE map_keys (id UInt32, m Map(String, UInt64)) ENGINE = Memory;
INSERT INTO map_keys VALUES (1, {'a': 1}), (2, {'b': 2, 'c': 3}), (3, {});
SELECT id, has(m, 'b'), has(m, 'a') FROM map_keys ORDER BY id;
SELECT id FROM map_keys WHERE has(m, 'c');
DROP TABLE map_keys;

-- mapAdd, mapSubtract and mapPopulateSeries over key and value arrays
SELECT mapAdd(([1, 2], [10, 20]), ([2, 3], [1, 1])) AS a, toTypeName(a);
SELECT mapSubtract(([toUInt8(1), 2], [toInt32(1), 1]), ([1], [toInt8(2)])) AS a, toTypeName(a);
SELECT mapAdd(([1], [1.5]), ([1], [2.])) AS a, toTypeName(a), mapAdd((['a'], [1]), (['a'], [2])) AS b, toTypeName(b);
SELECT mapPopulateSeries([1, 2, 4], [11, 22, 44], 5) AS a, toTypeName(a), mapPopulateSeries([1, 2, 4], [11, 22, 44]) AS b;
SELECT mapAdd((range(number), range(number)), ([toUInt64(1)], [5])) FROM numbers(4);
SELECT mapAdd(([1, 2], [1]), ([1], [1])); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- A column that does not exist, with the closest name as a hint
SELECT numbr FROM numbers(1); -- { serverError UNKNOWN_IDENTIFIER }
SELECT number FROM numbers(1) ORDER BY nmber; -- { serverError UNKNOWN_IDENTIFIER }

-- Temporary tables of the MergeTree family
CREATE TEMPORARY TABLE tmp_merge_tree (k UInt32, v String) ENGINE = MergeTree ORDER BY k;
INSERT INTO tmp_merge_tree VALUES (2, 'b'), (1, 'a');
INSERT INTO tmp_merge_tree VALUES (3, 'c');
SELECT * FROM tmp_merge_tree ORDER BY k;
SELECT count() FROM tmp_merge_tree WHERE k >= 2;
DROP TEMPORARY TABLE tmp_merge_tree;
CREATE TEMPORARY TABLE tmp_replacing (k UInt32, v String) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO tmp_replacing VALUES (1, 'old');
INSERT INTO tmp_replacing VALUES (1, 'new');
SELECT * FROM tmp_replacing FINAL;
