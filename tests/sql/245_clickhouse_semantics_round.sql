-- CAST to a type that is not Nullable drops the Nullable and refuses NULLs.
SELECT CAST(toNullable(1) AS Int32) AS x, toTypeName(x);
SELECT toTypeName(toNullable('a')::String), toTypeName(CAST(toNullable(2), 'UInt8'));
SELECT CAST(x, 'Int32'), toTypeName(CAST(x, 'Int32')) FROM (SELECT toNullable(number) AS x FROM numbers(2));
SELECT toTypeName(CAST(toNullable(1) AS Nullable(Int32))), toTypeName(CAST(toNullable('a') AS LowCardinality(Nullable(String))));
SELECT CAST(NULL AS Int32); -- { serverError CANNOT_CONVERT_TYPE }
SELECT CAST(if(number = 1, NULL, number) AS String) FROM numbers(3); -- { serverError CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN }
-- A constant inserted by INSERT ... SELECT takes the column's type in every engine.
CREATE TABLE typed_memory (id Int32, x Int64, s String) ENGINE = Memory;
INSERT INTO typed_memory SELECT number, 0, 'a' FROM numbers(2);
INSERT INTO typed_memory SELECT 7, 300, 'b';
SELECT id, x, s, toTypeName(x) FROM typed_memory ORDER BY id;
-- first_value and last_value skip NULLs, as aggregates and over windows.
SELECT first_value(x), last_value(x), any(x), anyLast(x) FROM values('x Nullable(Int32)', (NULL), (3), (5), (NULL));
SELECT n, first_value(x) OVER (ORDER BY n), last_value(x) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM values('n UInt8, x Nullable(Int32)', (1, NULL), (2, 3), (3, 5), (4, NULL)) ORDER BY n;
-- The same random call is one value per row; different arguments ask for different draws.
SELECT rand() = rand(), rand(1) = rand(1), randCanonical() = randCanonical() FROM numbers(3);
WITH rand(1) AS r SELECT sum(r != r), count() FROM numbers(1000);
SELECT count() FROM numbers(100) WHERE rand() = rand();
SELECT sum(generateUUIDv4(1) = generateUUIDv4(1)) FROM numbers(10);
-- PRIMARY KEY among the columns is the primary and sorting key.
CREATE TABLE keyed_inline (k Int32, v Int32, PRIMARY KEY (k)) ENGINE = MergeTree();
INSERT INTO keyed_inline VALUES (3, 0), (1, 0), (2, 0);
SELECT * FROM keyed_inline;
