-- Column matchers and transformers: COLUMNS('re'), COLUMNS(a, b), * and t.* with APPLY, EXCEPT, REPLACE
CREATE TABLE m (price_a UInt8, price_b Float64, name String, qty Int64, `price c` Nullable(Int32)) ENGINE = MergeTree ORDER BY name;
INSERT INTO m VALUES (1, 1.5, 'x', 10, NULL), (2, 2.5, 'y', 20, 7), (3, 0.25, 'z', -5, -1);

SELECT COLUMNS('price') FROM m ORDER BY name;
SELECT COLUMNS('^price_') APPLY(sum) FROM m;
SELECT COLUMNS('^p') APPLY(toString) FROM m ORDER BY name;
SELECT COLUMNS(name, qty) FROM m ORDER BY name;
SELECT name, COLUMNS('_[ab]$') FROM m ORDER BY name;
SELECT COLUMNS('price') EXCEPT (price_b) FROM m ORDER BY name;
SELECT COLUMNS('price|qty') EXCEPT ('_b$') APPLY(max) FROM m;
SELECT COLUMNS('price') EXCEPT price_a FROM m ORDER BY name;
SELECT * APPLY(toString) FROM m ORDER BY name;
SELECT * EXCEPT (name) APPLY(sum) FROM m;
SELECT * EXCEPT (name) APPLY(sum) APPLY(toString) FROM m;
SELECT * EXCEPT (name, `price c`) APPLY(x -> x * 2) FROM m ORDER BY qty;
SELECT * REPLACE (qty + 1 AS qty) APPLY(toString) FROM m ORDER BY name;
SELECT COLUMNS('qty') REPLACE (qty * 10 AS qty) FROM m ORDER BY qty;
SELECT * REPLACE (qty * 10 AS qty, upper(name) AS name) FROM m ORDER BY name;
SELECT * EXCEPT (`price c`) REPLACE (price_a + 1 AS price_a) FROM m ORDER BY name;
SELECT m.* APPLY toString FROM m ORDER BY name;
SELECT m.* APPLY(length) FROM m ORDER BY name SETTINGS max_threads = 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT COLUMNS('^price_') APPLY(quantiles(0.5)) FROM m;
SELECT COLUMNS('^price_') APPLY(avg), COLUMNS('qty') APPLY(min) FROM m;
SELECT concat(COLUMNS('name'), '!') FROM m ORDER BY name;
SELECT greatest(COLUMNS('^price_')) FROM m ORDER BY name;
SELECT x.* APPLY(toString) FROM (SELECT name, qty FROM m) AS x ORDER BY name;
SELECT * APPLY(sum) FROM (SELECT COLUMNS('^price_') FROM m);
WITH s AS (SELECT qty, name FROM m) SELECT COLUMNS('q') APPLY(negate) FROM s ORDER BY 1;
SELECT COLUMNS('^price_a') FROM m AS l JOIN m AS r ON l.name = r.name ORDER BY 1;
SELECT COLUMNS('^(name|qty)$') FROM m WHERE qty > 0 ORDER BY qty DESC LIMIT 1;
SELECT name, COLUMNS('qty') APPLY(sum) FROM m GROUP BY name ORDER BY name;
SELECT * FROM (SELECT COLUMNS('_a$') FROM m WHERE qty = 10 UNION ALL SELECT COLUMNS('_b$') FROM m WHERE qty = 20) ORDER BY 1;
SELECT COLUMNS('nothing') FROM m; -- { serverError EMPTY_LIST_OF_COLUMNS_QUERIED }
SELECT COLUMNS('[') FROM m; -- { serverError CANNOT_COMPILE_REGEXP }
SELECT COLUMNS('qty'), number FROM numbers(2) AS m2, m WHERE qty = 10 ORDER BY number;
SELECT COLUMNS('number') APPLY(x -> x + 1) FROM numbers(3);
SELECT 1 AS one, * EXCEPT (qty, `price c`) FROM m ORDER BY name;
SELECT COLUMNS('^price_') APPLY(sum) FROM m FORMAT TSVWithNames;
SELECT * EXCEPT (name, `price c`) APPLY(x -> x * 2) FROM m ORDER BY qty FORMAT TSVWithNames;
SELECT * REPLACE (qty + 1 AS qty) APPLY(toString) FROM m ORDER BY name FORMAT TSVWithNames;
SELECT COLUMNS('qty') REPLACE (qty * 10 AS qty) FROM m ORDER BY qty FORMAT TSVWithNames;
SELECT COLUMNS('^price_') APPLY(quantiles(0.5)) FROM m FORMAT TSVWithNames;
SELECT name FROM m WHERE (price_a, qty) IN (SELECT COLUMNS('^(qty|price_a)$') FROM m WHERE qty > 0) ORDER BY name;
SELECT (SELECT COLUMNS('qty') APPLY(max) FROM m) AS top;
SELECT * EXCEPT STRICT (nope) APPLY(toString) FROM m; -- { serverError BAD_ARGUMENTS }
SELECT COLUMNS('^price_') EXCEPT STRICT (price_a) FROM m ORDER BY 1;
SELECT name, (price_a, qty) IN (SELECT price_a, qty FROM m WHERE qty > 0) AS found FROM m ORDER BY name;
SELECT name FROM m WHERE (price_a, name) NOT IN (SELECT price_a, name FROM m WHERE qty < 0) ORDER BY name;
SELECT name FROM m WHERE (price_a, qty) IN (SELECT (price_a, qty) FROM m WHERE qty = 20);
