-- A LIMIT after LIMIT BY limits the rows of all keys, with its own offset
-- (`LIMIT m OFFSET k` or `LIMIT k, m`), apart from the per-key one.
SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 3 LIMIT 2 OFFSET 1;
SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 3 LIMIT 1, 5;
SELECT number FROM numbers(20) ORDER BY number LIMIT 2 BY number % 4 LIMIT 3;
SELECT number % 3 AS k, number FROM numbers(12) ORDER BY k, number LIMIT 1, 2 BY k LIMIT 4;
SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 5 LIMIT 10 OFFSET 3;
SELECT count() FROM (SELECT number FROM numbers(100) ORDER BY number LIMIT 3 BY number % 10 LIMIT 7 OFFSET 20);
