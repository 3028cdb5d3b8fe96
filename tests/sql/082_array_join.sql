-- ARRAY JOIN repeats a row per array element; LEFT ARRAY JOIN keeps empty arrays as one default element.
CREATE TABLE events (id UInt32, tags Array(String), scores Array(UInt8)) ENGINE = MergeTree ORDER BY id;
INSERT INTO events VALUES (1, ['a', 'b'], [10, 20]), (2, [], []), (3, ['c'], [30]);
SELECT id, tag FROM events ARRAY JOIN tags AS tag ORDER BY id, tag;
SELECT id, tags FROM events ARRAY JOIN tags ORDER BY id, tags;
SELECT id, tag FROM events LEFT ARRAY JOIN tags AS tag ORDER BY id, tag;
SELECT id, score FROM events LEFT ARRAY JOIN scores AS score ORDER BY id, score;
SELECT id, tag, score FROM events ARRAY JOIN tags AS tag, scores AS score ORDER BY id, tag;
SELECT * FROM events ARRAY JOIN tags ORDER BY id, tags;
SELECT tag, sum(score) FROM events ARRAY JOIN tags AS tag, scores AS score WHERE score > 10 GROUP BY tag ORDER BY tag;
SELECT e.id, t FROM events AS e ARRAY JOIN e.tags AS t ORDER BY e.id, t;
SELECT number, x FROM numbers(4) ARRAY JOIN range(number) AS x ORDER BY number, x;
SELECT number, x FROM numbers(3) LEFT ARRAY JOIN range(number) AS x ORDER BY number, x;
SELECT count() FROM numbers(100) ARRAY JOIN range(number % 5) AS x;
SELECT x, y FROM (SELECT [1, 2] AS a, ['p'] AS b) ARRAY JOIN a AS x, b AS y; -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
