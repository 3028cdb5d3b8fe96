-- Columns of joined tables: unqualified names shared by several tables read the leftmost; repeated names shown as r.a
CREATE TABLE users (id UInt32, name String, city String) ENGINE = MergeTree ORDER BY id;
CREATE TABLE orders (id UInt32, user_id UInt32, amount Float64, city String) ENGINE = MergeTree ORDER BY id;
INSERT INTO users VALUES (1, 'ann', 'Oslo'), (2, 'bob', 'Rome'), (3, 'cy', 'Lima');
INSERT INTO orders VALUES (10, 1, 5.5, 'Bergen'), (11, 1, 2.5, 'Oslo'), (12, 2, 10, 'Rome');

SELECT * FROM users JOIN orders ON users.id = orders.user_id ORDER BY orders.id FORMAT TSVWithNames;
SELECT id, name, amount, city FROM users JOIN orders ON users.id = orders.user_id ORDER BY amount FORMAT TSVWithNames;
SELECT orders.id, id, orders.city FROM users JOIN orders ON users.id = orders.user_id ORDER BY 1 FORMAT TSVWithNames;
SELECT u.id, o.id, o.amount * 2, concat(u.city, '/', o.city) FROM users AS u JOIN orders AS o ON u.id = o.user_id ORDER BY o.id FORMAT TSVWithNames;
SELECT id, count(), sum(amount) FROM users LEFT JOIN orders ON users.id = orders.user_id GROUP BY id ORDER BY id;
SELECT name FROM users JOIN orders ON users.id = orders.user_id WHERE city = 'Oslo' ORDER BY name;
SELECT city, count() FROM users AS u JOIN orders AS o ON u.id = o.user_id GROUP BY city ORDER BY city;
SELECT id + 1 AS next, o.id FROM users AS u JOIN orders AS o ON u.id = o.user_id ORDER BY o.id FORMAT TSVWithNames;
SELECT * FROM users AS u, orders AS o WHERE u.id = o.user_id AND amount > 3 ORDER BY o.id FORMAT TSVWithNames;
SELECT * FROM (SELECT id, name FROM users) AS a JOIN (SELECT id, amount FROM orders) AS b ON a.id = b.id - 9 ORDER BY a.id FORMAT TSVWithNames;
SELECT id FROM (SELECT id FROM users JOIN orders ON users.id = orders.user_id) ORDER BY id;
SELECT arrayMap(x -> x + id, [1, 2]) FROM users JOIN orders ON users.id = orders.user_id ORDER BY orders.id;
SELECT users.* FROM users JOIN orders ON users.id = orders.user_id ORDER BY orders.id;
SELECT id AS id, upper(city) AS city FROM users AS u JOIN orders AS o ON u.id = o.user_id ORDER BY o.id FORMAT TSVWithNames;
