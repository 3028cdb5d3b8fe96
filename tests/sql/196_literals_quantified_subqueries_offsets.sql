-- Hexadecimal floats and binary literals.
SELECT 0x1p4, 0xFFp-1, 0x1P+2, toTypeName(0x1p4), 0b0101, toTypeName(0b11), 0x10;
SELECT 0x1p4 AS x, x * 2;

-- Quantified comparisons with subqueries.
SELECT 1 = ANY (SELECT number FROM numbers(10)), 5 > ALL (SELECT number FROM numbers(3));
SELECT 1 > ALL (SELECT number FROM numbers(0)), 1 > ANY (SELECT number FROM numbers(0)), 1 = ANY (SELECT number FROM numbers(0)), 1 != ALL (SELECT number FROM numbers(0));
SELECT 2 > ALL (SELECT number FROM numbers(2)), 2 >= ALL (SELECT number FROM numbers(3)), 0 < ANY (SELECT number FROM numbers(3));
SELECT 1 = ALL (SELECT 1), 1 = ALL (SELECT number FROM numbers(2)), 1 != ANY (SELECT 1), 1 != ANY (SELECT number FROM numbers(2));
SELECT number FROM numbers(5) WHERE number > ANY (SELECT number FROM numbers(3));
SELECT number FROM numbers(5) WHERE number = ANY (SELECT number + 3 FROM numbers(3)) OR number < SOME (SELECT 1);

-- An OFFSET inside a subquery skips its rows whatever the outer ORDER BY.
CREATE TABLE offsets (a UInt8, b UInt8) ENGINE = Memory;
INSERT INTO offsets VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (3, 0);
SELECT * FROM (SELECT * FROM offsets ORDER BY a, b OFFSET 1 ROW FETCH FIRST 3 ROWS ONLY) ORDER BY a, b;
SELECT * FROM (SELECT * FROM offsets ORDER BY a, b LIMIT 3 OFFSET 1) ORDER BY a;
SELECT * FROM (SELECT * FROM offsets ORDER BY a, b LIMIT 3 OFFSET 1) ORDER BY a DESC, b;
SELECT * FROM (SELECT * FROM numbers(100) ORDER BY number DESC LIMIT 3 OFFSET 2) ORDER BY number;
SELECT * FROM (SELECT * FROM numbers(10) ORDER BY number OFFSET 7) ORDER BY number DESC;
SELECT * FROM numbers(10) ORDER BY number DESC LIMIT 2 OFFSET 3;
