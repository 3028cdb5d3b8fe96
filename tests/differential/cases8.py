# Batch 8: JOINs in depth. Multi-way inner joins (3 to 6 tables) over a small star
# schema of MergeTree tables (a 3,000-row fact table in two parts, dimensions of 3 to 80
# rows) in star, chain and snowflake shapes, written as comma joins with WHERE equalities
# and as JOIN ... ON chains; filters on dimensions and filters that span tables (ORs,
# a.x + b.y > c.z); Nullable keys and null-safe equality, duplicate and unmatched keys,
# two-column keys, keys of different integer types, String and Date keys; self-joins,
# subqueries (GROUP BY, DISTINCT, LIMIT) and CTEs as join inputs, joins inside IN and
# scalar subqueries, correlated EXISTS / NOT EXISTS, aggregates over joins; outer joins
# mixed with inner ones under join_use_nulls = 0 and = 1, ANY/ALL/SEMI/ANTI strictness,
# USING, CROSS JOIN with a WHERE equality; and deliberate errors.
# Each case is (name, sql); the last statement's output is compared.
# Every case gave the same chdb answer under max_threads=1 and under
# max_threads=8, max_block_size=3 when it was added.

# Shared tables (fresh session per case, so names never clash across cases).
# sales: cust_id 0..96 (customers has 0..79), prod_id 0..52 (products has 0..49),
# store_id 0..10 (stores has 0..9), dt 2024-01-01 + 0..44 (cal starts 2024-01-03),
# promo NULL for every fifth row, else 0..16 (promos has 1, 1, 2, 3, 7, 7, 7, 20, NULL, NULL).
S = ("CREATE TABLE sales (id UInt32, cust_id UInt32, prod_id UInt32, store_id UInt16, dt Date, qty Int32, amount Int64, promo Nullable(UInt32)) ENGINE=MergeTree ORDER BY id; "
     "INSERT INTO sales SELECT number, (number * 7) % 97, (number * 13) % 53, number % 11, toDate('2024-01-01') + number % 45, toInt32(number % 9) + 1, toInt64((number * 37) % 1000), if(number % 5 = 0, NULL, toUInt32(number % 17)) FROM numbers(1500); "
     "INSERT INTO sales SELECT number, (number * 7) % 97, (number * 13) % 53, number % 11, toDate('2024-01-01') + number % 45, toInt32(number % 9) + 1, toInt64((number * 37) % 1000), if(number % 5 = 0, NULL, toUInt32(number % 17)) FROM numbers(1500, 1500); ")
C = ("CREATE TABLE customers (cid UInt32, cname String, region_id UInt8, tier Nullable(UInt8), signup Date) ENGINE=MergeTree ORDER BY cid; "
     "INSERT INTO customers SELECT number, concat('c', toString(number)), number % 6, if(number % 7 = 3, NULL, toUInt8(number % 4)), toDate('2023-06-01') + number * 3 FROM numbers(80); ")
R = ("CREATE TABLE regions (rid UInt8, rname String, country_id UInt16) ENGINE=MergeTree ORDER BY rid; "
     "INSERT INTO regions VALUES (0,'north',1),(1,'south',1),(2,'east',2),(3,'west',2),(4,'central',3),(9,'island',4); ")
K = ("CREATE TABLE countries (coid UInt16, coname String) ENGINE=MergeTree ORDER BY coid; "
     "INSERT INTO countries VALUES (1,'Aland'),(2,'Borduria'),(3,'Carpania'),(5,'Dorne'); ")
P = ("CREATE TABLE products (pid UInt32, pname String, cat String, price UInt32, brand Nullable(String)) ENGINE=MergeTree ORDER BY pid; "
     "INSERT INTO products SELECT number, concat('p', toString(number)), ['toys','food','tools','books','garden'][number % 5 + 1], 5 + (number * 11) % 90, if(number % 4 = 0, NULL, concat('br', toString(number % 3))) FROM numbers(50); ")
ST = ("CREATE TABLE stores (sid UInt16, city String, size String) ENGINE=MergeTree ORDER BY sid; "
      "INSERT INTO stores VALUES (0,'Oslo','S'),(1,'Bergen','M'),(2,'Oslo','L'),(3,'Turku','S'),(4,'Espoo','M'),(5,'Turku','L'),(6,'Malmo','S'),(7,'Lund','M'),(8,'Oslo','M'),(9,'Bergen','L'); ")
CAL = ("CREATE TABLE cal (d Date, dow UInt8, wk UInt8, holiday UInt8) ENGINE=MergeTree ORDER BY d; "
       "INSERT INTO cal SELECT toDate('2024-01-03') + number, toDayOfWeek(toDate('2024-01-03') + number), toISOWeek(toDate('2024-01-03') + number), if(number IN (0, 12, 29), 1, 0) FROM numbers(60); ")
PR = ("CREATE TABLE promos (pcode Nullable(UInt32), label String, pct UInt8) ENGINE=MergeTree ORDER BY tuple(); "
      "INSERT INTO promos VALUES (1,'spring',10),(1,'spring-b',15),(2,'vip',20),(3,'clear',30),(NULL,'none',0),(NULL,'void',5),(20,'ghost',50),(7,'seven',7),(7,'seven-b',8),(7,'seven-c',9); ")
TG = ("CREATE TABLE targets (sid UInt16, d Date, target Int64) ENGINE=MergeTree ORDER BY (sid, d); "
      "INSERT INTO targets SELECT number % 12, toDate('2024-01-01') + intDiv(number, 12), 1000 + (number * 53) % 700 FROM numbers(240); ")
TI = ("CREATE TABLE tiers (tier UInt8, tname String) ENGINE=MergeTree ORDER BY tier; "
      "INSERT INTO tiers VALUES (0,'bronze'),(1,'silver'),(2,'gold'),(5,'diamond'); ")
CT = ("CREATE TABLE cats (cat String, margin UInt8, owner String) ENGINE=MergeTree ORDER BY cat; "
      "INSERT INTO cats VALUES ('toys',30,'ann'),('food',10,'bob'),('tools',25,'ann'),('books',40,'cy'),('music',50,'dee'); ")
L = ("CREATE TABLE loyalty (cust Int64, points Int32) ENGINE=MergeTree ORDER BY cust; "
     "INSERT INTO loyalty SELECT toInt64(number) * 3 - 6, toInt32(number * 10) FROM numbers(40); ")
E = ("CREATE TABLE emp (eid UInt32, ename String, mgr Nullable(UInt32), dept String, salary UInt32) ENGINE=MergeTree ORDER BY eid; "
     "INSERT INTO emp SELECT number, concat('e', toString(number)), if(number = 0, NULL, intDiv(number - 1, 3)), ['eng','ops','sales'][number % 3 + 1], 1000 + (number * 97) % 500 FROM numbers(30); ")
BR = ("CREATE TABLE brands (brand String, maker String) ENGINE=MergeTree ORDER BY brand; "
      "INSERT INTO brands VALUES ('br0','Acme'),('br1','Globex'),('br9','Initech'); ")
SCP = S + C + P
STAR = S + C + P + ST
SNOW = S + C + R + K

CASES = [
# ---------------- star joins written as comma joins with WHERE equalities
("x8_comma3_count", SCP + "SELECT count(), sum(s.amount), sum(s.qty) FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid"),
("x8_comma3_group_cat", SCP + "SELECT p.cat, count(), sum(s.qty * p.price) FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid GROUP BY p.cat ORDER BY p.cat"),
("x8_comma4_group_city", STAR + "SELECT st.city, count(), sum(s.qty), max(s.amount) FROM sales s, customers c, products p, stores st WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.store_id = st.sid GROUP BY st.city ORDER BY st.city"),
("x8_comma4_dim_filters", STAR + "SELECT st.city, p.cat, count(), sum(s.amount) FROM sales s, customers c, products p, stores st WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.store_id = st.sid AND p.cat = 'toys' AND st.size = 'L' AND c.tier = 2 GROUP BY st.city, p.cat ORDER BY st.city, p.cat"),
("x8_comma5_with_cal", STAR + CAL + "SELECT cal.dow, count(), sum(s.qty) FROM sales s, customers c, products p, stores st, cal WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.store_id = st.sid AND s.dt = cal.d AND cal.holiday = 0 AND st.city = 'Oslo' GROUP BY cal.dow ORDER BY cal.dow"),
("x8_comma6_snowflake", STAR + CAL + R + "SELECT r.rname, count(), sum(s.amount) FROM sales s, customers c, products p, stores st, cal, regions r WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.store_id = st.sid AND s.dt = cal.d AND c.region_id = r.rid AND cal.wk = 3 GROUP BY r.rname ORDER BY r.rname"),
("x8_comma4_rows_limit", STAR + "SELECT s.id, c.cname, p.pname, st.city, s.amount FROM sales s, customers c, products p, stores st WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.store_id = st.sid AND s.amount > 900 ORDER BY s.id LIMIT 12"),
("x8_comma4_fact_last", STAR + "SELECT st.size, count(), sum(s.amount) FROM stores st, products p, customers c, sales s WHERE st.sid = s.store_id AND p.pid = s.prod_id AND c.cid = s.cust_id AND p.price > 60 GROUP BY st.size ORDER BY st.size"),
("x8_comma4_mixed_conjuncts", STAR + "SELECT count(), sum(s.qty) FROM sales s, customers c, products p, stores st WHERE p.price BETWEEN 20 AND 40 AND s.cust_id = c.cid AND st.city IN ('Turku', 'Lund') AND s.prod_id = p.pid AND c.region_id < 3 AND st.sid = s.store_id"),
("x8_comma_transitive_keys", S + ST + TG + "SELECT st.city, count(), sum(t.target) FROM sales s, stores st, targets t WHERE s.store_id = st.sid AND t.sid = st.sid AND t.d = s.dt GROUP BY st.city ORDER BY st.city"),
("x8_comma_expr_key", S + P + "SELECT p.cat, count() FROM sales s, products p WHERE s.id % 50 = p.pid AND s.qty = 9 GROUP BY p.cat ORDER BY p.cat"),
("x8_comma3_distinct_pairs", SCP + "SELECT DISTINCT c.region_id, p.cat FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND s.amount < 30 ORDER BY c.region_id, p.cat"),
("x8_comma_dims_only_filter_or", SCP + "SELECT count() FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND (c.cid < 5 OR p.pid < 3)"),
("x8_comma_having", SCP + "SELECT c.cname, count() AS n, sum(s.amount) AS tot FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND p.cat = 'books' GROUP BY c.cname HAVING n >= 7 ORDER BY tot DESC, c.cname LIMIT 10"),
# ---------------- star joins as explicit JOIN ... ON chains
("x8_on3_count", SCP + "SELECT count(), sum(s.amount), sum(s.qty) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid"),
("x8_on4_group_city", STAR + "SELECT st.city, count(), sum(s.qty), max(s.amount) FROM sales s INNER JOIN customers c ON s.cust_id = c.cid INNER JOIN products p ON s.prod_id = p.pid INNER JOIN stores st ON s.store_id = st.sid GROUP BY st.city ORDER BY st.city"),
("x8_on5_cal_filters", STAR + CAL + "SELECT cal.wk, st.size, count(), sum(s.amount) FROM sales s JOIN customers c ON c.cid = s.cust_id JOIN products p ON p.pid = s.prod_id JOIN stores st ON st.sid = s.store_id JOIN cal ON cal.d = s.dt WHERE cal.dow IN (6, 7) AND p.cat != 'food' GROUP BY cal.wk, st.size ORDER BY cal.wk, st.size"),
("x8_on6_snowflake", STAR + R + K + "SELECT k.coname, p.cat, count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE st.size != 'S' GROUP BY k.coname, p.cat ORDER BY k.coname, p.cat"),
("x8_on_dims_first", STAR + "SELECT st.city, count() FROM stores st JOIN sales s ON st.sid = s.store_id JOIN products p ON p.pid = s.prod_id JOIN customers c ON c.cid = s.cust_id WHERE c.tier IS NOT NULL AND p.brand IS NULL GROUP BY st.city ORDER BY st.city"),
("x8_on_filter_in_on", STAR + "SELECT p.cat, count(), sum(s.amount) FROM sales s JOIN products p ON s.prod_id = p.pid AND p.price < 30 JOIN stores st ON s.store_id = st.sid AND st.city = 'Bergen' GROUP BY p.cat ORDER BY p.cat"),
("x8_on_filter_fact_in_on", SCP + "SELECT c.region_id, count() FROM sales s JOIN customers c ON s.cust_id = c.cid AND s.qty > 7 JOIN products p ON s.prod_id = p.pid AND s.amount < 500 GROUP BY c.region_id ORDER BY c.region_id"),
("x8_on4_rows_limit", STAR + "SELECT s.id, c.cname, p.pname, st.city, s.qty FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE s.id BETWEEN 1000 AND 1040 ORDER BY s.id"),
("x8_on_without_aliases", SCP + "SELECT products.cat, count() FROM sales JOIN customers ON sales.cust_id = customers.cid JOIN products ON sales.prod_id = products.pid WHERE customers.region_id = 4 GROUP BY products.cat ORDER BY products.cat"),
("x8_on_unqualified_unique_cols", STAR + "SELECT city, cat, count() FROM sales JOIN products ON prod_id = pid JOIN stores ON store_id = sid WHERE size = 'M' AND price > 70 GROUP BY city, cat ORDER BY city, cat"),
("x8_on_comma_mix", STAR + "SELECT st.city, count() FROM sales s, stores st JOIN products p ON p.pid = s.prod_id WHERE s.store_id = st.sid AND p.cat = 'garden' GROUP BY st.city ORDER BY st.city"),
("x8_on_key_expressions", S + P + ST + "SELECT st.city, count() FROM sales s JOIN products p ON s.prod_id = p.pid + 1 JOIN stores st ON s.store_id + 1 = st.sid + 1 WHERE p.cat = 'tools' GROUP BY st.city ORDER BY st.city"),
# ---------------- chains
("x8_chain4_country", SNOW + "SELECT k.coname, count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid GROUP BY k.coname ORDER BY k.coname"),
("x8_chain4_comma", SNOW + "SELECT k.coname, r.rname, count() FROM sales s, customers c, regions r, countries k WHERE s.cust_id = c.cid AND c.region_id = r.rid AND r.country_id = k.coid AND s.store_id = 3 GROUP BY k.coname, r.rname ORDER BY k.coname, r.rname"),
("x8_chain_reverse_order", SNOW + "SELECT k.coname, count() FROM countries k JOIN regions r ON r.country_id = k.coid JOIN customers c ON c.region_id = r.rid JOIN sales s ON s.cust_id = c.cid WHERE s.qty = 1 GROUP BY k.coname ORDER BY k.coname"),
("x8_chain_products_cats", S + P + CT + "SELECT ct.owner, count(), sum(s.qty * p.price * ct.margin) FROM sales s JOIN products p ON s.prod_id = p.pid JOIN cats ct ON p.cat = ct.cat GROUP BY ct.owner ORDER BY ct.owner"),
("x8_chain6_two_branches", SNOW + P + CT + "SELECT k.coname, ct.owner, count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid JOIN products p ON s.prod_id = p.pid JOIN cats ct ON ct.cat = p.cat GROUP BY k.coname, ct.owner ORDER BY k.coname, ct.owner"),
("x8_chain_dims_only", C + R + K + "SELECT k.coname, r.rname, count() FROM customers c JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid GROUP BY k.coname, r.rname ORDER BY k.coname, r.rname"),
("x8_chain_filter_far_end", SNOW + "SELECT count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid WHERE k.coname = 'Borduria'"),
("x8_chain_emp_three_levels", E + "SELECT e.ename, m.ename, g.ename FROM emp e JOIN emp m ON e.mgr = m.eid JOIN emp g ON m.mgr = g.eid WHERE g.eid > 0 ORDER BY e.eid"),
# ---------------- filters spanning tables
("x8_or_across_two", SCP + "SELECT count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid WHERE c.tier = 0 OR p.cat = 'books'"),
("x8_or_across_three", STAR + "SELECT st.city, count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE (p.cat = 'toys' AND st.city = 'Oslo') OR (p.cat = 'food' AND c.region_id = 2) OR (c.tier IS NULL AND st.size = 'S') GROUP BY st.city ORDER BY st.city"),
("x8_sum_gt_third", STAR + "SELECT count(), sum(s.qty) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE s.qty + p.price > st.sid * 10 + c.region_id"),
("x8_ineq_two_dims", SCP + "SELECT c.region_id, count() FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND p.price > c.cid GROUP BY c.region_id ORDER BY c.region_id"),
("x8_fact_vs_dim_ineq", S + P + "SELECT p.cat, count() FROM sales s JOIN products p ON s.prod_id = p.pid WHERE s.amount > p.price * s.qty * 2 GROUP BY p.cat ORDER BY p.cat"),
("x8_date_range_across", S + C + "SELECT c.region_id, count() FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE s.dt BETWEEN c.signup + 180 AND c.signup + 200 GROUP BY c.region_id ORDER BY c.region_id"),
("x8_not_or_across", STAR + "SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE NOT (st.city = 'Oslo' OR c.tier IS NULL OR p.brand = 'br1')"),
("x8_on_or_across_tables", S + P + ST + "SELECT st.city, count() FROM sales s JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid AND (st.size = 'L' OR p.price < 20) GROUP BY st.city ORDER BY st.city"),
("x8_case_across_tables", STAR + "SELECT multiIf(p.price > 60 AND st.size = 'L', 'big', c.tier = 0, 'low', 'other') AS b, count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid GROUP BY b ORDER BY b"),
("x8_in_list_across", SCP + "SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid WHERE (c.region_id, p.cat) IN ((1, 'toys'), (2, 'food'), (5, 'garden'))"),
("x8_where_equality_dims", SCP + "SELECT count() FROM sales s, customers c, products p WHERE s.cust_id = c.cid AND s.prod_id = p.pid AND c.region_id = p.pid % 6"),
("x8_where_string_across", SCP + "SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid WHERE substring(c.cname, 2) = substring(p.pname, 2)"),
# ---------------- Nullable keys
("x8_null_key_inner", S + PR + "SELECT pr.label, count() FROM sales s JOIN promos pr ON s.promo = pr.pcode GROUP BY pr.label ORDER BY pr.label"),
("x8_null_key_null_safe", S + PR + "SELECT pr.label, count() FROM sales s JOIN promos pr ON s.promo <=> pr.pcode GROUP BY pr.label ORDER BY pr.label"),
("x8_null_key_isnotdistinct", S + PR + "SELECT pr.label, count() FROM sales s JOIN promos pr ON isNotDistinctFrom(s.promo, pr.pcode) WHERE s.store_id = 4 GROUP BY pr.label ORDER BY pr.label"),
("x8_null_key_nullable_to_plain", C + TI + "SELECT t.tname, count() FROM customers c JOIN tiers t ON c.tier = t.tier GROUP BY t.tname ORDER BY t.tname"),
("x8_null_key_left_use_nulls0", C + TI + "SELECT c.tier, t.tname, toTypeName(t.tname), count() FROM customers c LEFT JOIN tiers t ON c.tier = t.tier GROUP BY c.tier, t.tname ORDER BY c.tier, t.tname"),
("x8_null_key_left_use_nulls1", C + TI + "SELECT c.tier, t.tname, toTypeName(t.tname), count() FROM customers c LEFT JOIN tiers t ON c.tier = t.tier GROUP BY c.tier, t.tname ORDER BY c.tier, t.tname SETTINGS join_use_nulls = 1"),
("x8_null_key_three_way", S + C + PR + TI + "SELECT t.tname, pr.label, count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN tiers t ON c.tier = t.tier JOIN promos pr ON s.promo = pr.pcode WHERE pr.pct >= 20 GROUP BY t.tname, pr.label ORDER BY t.tname, pr.label"),
("x8_null_key_string", P + BR + "SELECT p.pid, p.brand, b.maker FROM products p JOIN brands b ON p.brand = b.brand WHERE p.pid < 12 ORDER BY p.pid"),
("x8_null_key_string_left", P + BR + "SELECT p.brand, b.maker, count() FROM products p LEFT JOIN brands b ON p.brand = b.brand GROUP BY p.brand, b.maker ORDER BY p.brand, b.maker"),
("x8_null_filter_is_null_plus_join", S + C + "SELECT c.region_id, count() FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE s.promo IS NULL AND c.tier IS NULL GROUP BY c.region_id ORDER BY c.region_id"),
("x8_null_key_coalesce", S + PR + "SELECT pr.label, count() FROM sales s JOIN promos pr ON coalesce(s.promo, 0) = coalesce(pr.pcode, 0) WHERE s.id < 300 GROUP BY pr.label ORDER BY pr.label"),
# ---------------- duplicate and unmatched keys
("x8_dup_keys_multiply", S + PR + "SELECT s.promo, count(), uniqExact(s.id), groupArray(DISTINCT pr.label) FROM (SELECT * FROM sales WHERE id < 200) s JOIN promos pr ON s.promo = pr.pcode GROUP BY s.promo ORDER BY s.promo"),
("x8_dup_keys_rows", S + PR + "SELECT s.id, pr.label, pr.pct FROM sales s JOIN promos pr ON s.promo = pr.pcode WHERE s.id < 60 AND s.promo IN (1, 7) ORDER BY s.id, pr.label"),
("x8_dup_keys_fact_self", S + "SELECT count() FROM sales a JOIN sales b ON a.cust_id = b.cust_id WHERE a.store_id = 1 AND b.store_id = 2"),
("x8_unmatched_customers_count", S + C + "SELECT count(), countIf(c.cid = 0), uniqExact(s.cust_id) FROM sales s JOIN customers c ON s.cust_id = c.cid"),
("x8_unmatched_left_defaults", S + C + "SELECT s.cust_id, c.cid, c.cname, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid WHERE s.cust_id >= 78 GROUP BY s.cust_id, c.cid, c.cname ORDER BY s.cust_id"),
("x8_unmatched_products_three", SCP + "SELECT s.prod_id >= 50 AS missing_p, s.cust_id >= 80 AS missing_c, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid LEFT JOIN products p ON s.prod_id = p.pid GROUP BY missing_p, missing_c ORDER BY missing_p, missing_c"),
("x8_dup_both_sides", "CREATE TABLE l (k UInt8, v String) ENGINE=MergeTree ORDER BY k; CREATE TABLE r (k UInt8, w String) ENGINE=MergeTree ORDER BY k; CREATE TABLE m (k UInt8, z UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO l VALUES (1,'a'),(1,'b'),(2,'c'),(3,'d'); INSERT INTO r VALUES (1,'x'),(1,'y'),(1,'z'),(3,'q'); INSERT INTO m VALUES (1,10),(1,20),(3,30),(3,31); SELECT l.k, v, w, z FROM l JOIN r ON l.k = r.k JOIN m ON m.k = r.k ORDER BY l.k, v, w, z"),
("x8_dup_dim_group_inflation", S + PR + "SELECT sum(s.amount), count() FROM sales s JOIN promos pr ON s.promo = pr.pcode WHERE s.promo = 7"),
# ---------------- two-column keys
("x8_key2_on", S + TG + "SELECT t.sid, count(), sum(t.target), sum(s.amount) FROM sales s JOIN targets t ON s.store_id = t.sid AND s.dt = t.d GROUP BY t.sid ORDER BY t.sid"),
("x8_key2_comma", S + TG + ST + "SELECT st.city, count(), sum(t.target - s.amount) FROM sales s, targets t, stores st WHERE s.store_id = t.sid AND s.dt = t.d AND st.sid = s.store_id GROUP BY st.city ORDER BY st.city"),
("x8_key2_left", S + TG + "SELECT s.dt > toDate('2024-01-20') AS late, t.target = 0 AS nomatch, count() FROM sales s LEFT JOIN targets t ON s.store_id = t.sid AND s.dt = t.d GROUP BY late, nomatch ORDER BY late, nomatch"),
("x8_key2_using", S + TG + "SELECT store_id, dt, count(), any(target) FROM sales JOIN (SELECT sid AS store_id, d AS dt, target FROM targets) AS t USING (store_id, dt) WHERE store_id = 5 GROUP BY store_id, dt ORDER BY dt"),
("x8_key2_swapped_order", S + TG + "SELECT count() FROM sales s JOIN targets t ON t.d = s.dt AND t.sid = s.store_id WHERE t.target > 1500"),
("x8_key2_tuple_eq", S + TG + "SELECT count() FROM sales s JOIN targets t ON (s.store_id, s.dt) = (t.sid, t.d)"),
("x8_key2_mixed_nullable", S + PR + "SELECT pr.label, count() FROM sales s JOIN promos pr ON s.promo = pr.pcode AND s.qty = pr.pct % 10 GROUP BY pr.label ORDER BY pr.label"),
# ---------------- keys of different types
("x8_types_uint32_int64", S + L + "SELECT count(), sum(l.points), min(l.cust), max(l.cust) FROM sales s JOIN loyalty l ON s.cust_id = l.cust"),
("x8_types_int64_uint32_left", S + L + "SELECT l.cust, l.points, count(s.id) FROM loyalty l LEFT JOIN sales s ON l.cust = s.cust_id WHERE l.cust < 6 OR l.cust > 95 GROUP BY l.cust, l.points ORDER BY l.cust"),
("x8_types_uint16_uint8", S + R + "SELECT r.rname, count() FROM sales s JOIN regions r ON s.store_id = r.rid GROUP BY r.rname ORDER BY r.rname"),
("x8_types_cast_key", S + C + L + "SELECT c.region_id, count(), sum(l.points) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN loyalty l ON CAST(c.cid AS Int64) = l.cust GROUP BY c.region_id ORDER BY c.region_id"),
("x8_types_to_string_key", S + C + "SELECT count() FROM sales s JOIN customers c ON concat('c', toString(s.cust_id)) = c.cname WHERE s.store_id = 7"),
("x8_types_using_supertype", S + L + "SELECT cust_id, toTypeName(cust_id), points FROM (SELECT DISTINCT cust_id FROM sales WHERE cust_id < 20) AS s JOIN (SELECT cust AS cust_id, points FROM loyalty) AS l USING (cust_id) ORDER BY cust_id"),
("x8_types_comma_mixed", S + C + L + R + "SELECT r.rname, count() FROM sales s, customers c, loyalty l, regions r WHERE s.cust_id = c.cid AND l.cust = s.cust_id AND r.rid = c.region_id AND l.points > 100 GROUP BY r.rname ORDER BY r.rname"),
# ---------------- String and Date keys
("x8_string_key_cats", P + CT + "SELECT ct.cat, ct.owner, count(), sum(p.price) FROM products p JOIN cats ct ON p.cat = ct.cat GROUP BY ct.cat, ct.owner ORDER BY ct.cat"),
("x8_string_key_names", S + C + "CREATE TABLE vip (name String, since Date) ENGINE=MergeTree ORDER BY name; INSERT INTO vip VALUES ('c1','2023-01-01'),('c10','2023-02-01'),('c77','2023-03-01'),('c99','2023-04-01'),('C1','2023-05-01'); SELECT v.name, count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN vip v ON v.name = c.cname GROUP BY v.name ORDER BY v.name"),
("x8_string_key_lowcard", "CREATE TABLE a (k LowCardinality(String), x UInt32) ENGINE=MergeTree ORDER BY x; CREATE TABLE b (k String, y UInt32) ENGINE=MergeTree ORDER BY y; INSERT INTO a SELECT ['red','green','blue','grey'][number % 4 + 1], number FROM numbers(100); INSERT INTO b VALUES ('red',1),('blue',2),('blue',3),('pink',4); SELECT b.k, count(), sum(a.x), sum(b.y) FROM a JOIN b ON a.k = b.k GROUP BY b.k ORDER BY b.k"),
("x8_date_key_cal", S + CAL + "SELECT cal.wk, count(), sum(s.qty) FROM sales s JOIN cal ON s.dt = cal.d WHERE cal.holiday = 1 OR cal.dow = 1 GROUP BY cal.wk ORDER BY cal.wk"),
("x8_date_key_unmatched_days", S + CAL + "SELECT s.dt, count() FROM sales s LEFT ANTI JOIN cal ON s.dt = cal.d GROUP BY s.dt ORDER BY s.dt"),
("x8_date_key_vs_datetime", S + "CREATE TABLE ticks (ts DateTime, note String) ENGINE=MergeTree ORDER BY ts; INSERT INTO ticks VALUES ('2024-01-05 10:00:00','a'),('2024-01-05 23:59:59','b'),('2024-02-10 00:00:00','c'); SELECT t.note, count() FROM ticks t JOIN sales s ON toDate(t.ts) = s.dt GROUP BY t.note ORDER BY t.note"),
("x8_date_key_shifted", S + CAL + "SELECT count(), countIf(cal.holiday = 1) FROM sales s JOIN cal ON s.dt + 7 = cal.d WHERE s.store_id = 2"),
# ---------------- self-joins
("x8_self_emp_manager", E + "SELECT e.eid, e.ename, m.ename AS manager FROM emp e JOIN emp m ON e.mgr = m.eid WHERE e.eid < 12 ORDER BY e.eid"),
("x8_self_emp_left_root", E + "SELECT e.ename, m.ename, m.eid FROM emp e LEFT JOIN emp m ON e.mgr = m.eid WHERE e.eid < 4 ORDER BY e.eid"),
("x8_self_emp_earns_more", E + "SELECT e.ename, e.salary, m.ename, m.salary FROM emp e JOIN emp m ON e.mgr = m.eid WHERE e.salary > m.salary ORDER BY e.eid"),
("x8_self_same_dept_pairs", E + "SELECT a.dept, count() FROM emp a JOIN emp b ON a.dept = b.dept AND a.eid < b.eid GROUP BY a.dept ORDER BY a.dept"),
("x8_self_next_row", S + "SELECT a.id, a.amount, b.amount, b.amount - a.amount FROM sales a JOIN sales b ON a.id + 1 = b.id WHERE a.id < 8 ORDER BY a.id"),
("x8_self_customers_region_pairs", C + R + "SELECT r.rname, count() FROM customers a JOIN customers b ON a.region_id = b.region_id AND a.cid < b.cid JOIN regions r ON r.rid = a.region_id WHERE a.tier = b.tier GROUP BY r.rname ORDER BY r.rname"),
("x8_self_three_aliases", S + "SELECT count() FROM sales a JOIN sales b ON b.id = a.id + 1 JOIN sales c ON c.id = b.id + 1 WHERE a.cust_id < b.cust_id AND b.cust_id < c.cust_id"),
("x8_self_comma", C + "SELECT a.cid, b.cid FROM customers a, customers b WHERE a.signup + 30 = b.signup AND a.region_id = 0 ORDER BY a.cid"),
# ---------------- subqueries as join inputs
("x8_sub_groupby_join_dims", S + C + R + "SELECT r.rname, count(), sum(t.tot) FROM (SELECT cust_id, sum(amount) AS tot FROM sales GROUP BY cust_id) t JOIN customers c ON t.cust_id = c.cid JOIN regions r ON c.region_id = r.rid GROUP BY r.rname ORDER BY r.rname"),
("x8_sub_groupby_two", S + C + "SELECT c.region_id, sum(a.n), sum(b.n) FROM (SELECT cust_id, count() AS n FROM sales WHERE store_id < 5 GROUP BY cust_id) a JOIN (SELECT cust_id, count() AS n FROM sales WHERE store_id >= 5 GROUP BY cust_id) b ON a.cust_id = b.cust_id JOIN customers c ON c.cid = a.cust_id GROUP BY c.region_id ORDER BY c.region_id"),
("x8_sub_distinct", S + ST + "SELECT st.city, count() FROM (SELECT DISTINCT cust_id, store_id FROM sales) d JOIN stores st ON d.store_id = st.sid GROUP BY st.city ORDER BY st.city"),
("x8_sub_limit", S + P + "SELECT p.pid, p.price, count(), sum(s.qty) FROM (SELECT pid, price FROM products ORDER BY price DESC, pid LIMIT 5) p JOIN sales s ON s.prod_id = p.pid GROUP BY p.pid, p.price ORDER BY p.pid"),
("x8_sub_limit_fact", S + C + "SELECT s.id, c.cname FROM (SELECT id, cust_id FROM sales ORDER BY amount DESC, id LIMIT 10) s JOIN customers c ON s.cust_id = c.cid ORDER BY s.id"),
("x8_sub_filtered_dim", STAR + "SELECT p.cat, count() FROM sales s JOIN (SELECT * FROM products WHERE price > 50) p ON s.prod_id = p.pid JOIN (SELECT sid FROM stores WHERE city = 'Oslo') st ON s.store_id = st.sid GROUP BY p.cat ORDER BY p.cat"),
("x8_sub_join_inside", S + C + R + "SELECT x.rname, count() FROM sales s JOIN (SELECT c.cid, r.rname FROM customers c JOIN regions r ON c.region_id = r.rid) x ON s.cust_id = x.cid GROUP BY x.rname ORDER BY x.rname"),
("x8_sub_having", S + C + "SELECT c.cname, t.n FROM (SELECT cust_id, count() AS n FROM sales GROUP BY cust_id HAVING n < 31) t JOIN customers c ON c.cid = t.cust_id ORDER BY c.cid"),
("x8_sub_argmax_per_customer", S + C + P + "SELECT c.cname, p.pname, t.m FROM (SELECT cust_id, argMax(prod_id, (amount, id)) AS best, max(amount) AS m FROM sales GROUP BY cust_id) t JOIN customers c ON t.cust_id = c.cid JOIN products p ON p.pid = t.best WHERE c.cid < 10 ORDER BY c.cid"),
("x8_sub_window_input", S + C + "SELECT c.region_id, count(), sum(x.amount) FROM (SELECT id, cust_id, amount, row_number() OVER (PARTITION BY cust_id ORDER BY amount DESC, id) AS rn FROM sales) x JOIN customers c ON x.cust_id = c.cid WHERE x.rn = 1 GROUP BY c.region_id ORDER BY c.region_id"),
("x8_sub_union_input", S + C + "SELECT c.region_id, count() FROM (SELECT cust_id FROM sales WHERE store_id = 1 UNION ALL SELECT cust_id FROM sales WHERE store_id = 2) u JOIN customers c ON u.cust_id = c.cid GROUP BY c.region_id ORDER BY c.region_id"),
("x8_sub_values_table", S + "SELECT v.label, count() FROM sales s JOIN (SELECT * FROM values('k UInt16, label String', (1, 'one'), (3, 'three'), (12, 'twelve'))) v ON s.store_id = v.k GROUP BY v.label ORDER BY v.label"),
("x8_sub_numbers_table", S + "SELECT n.number, count() FROM numbers(5) n JOIN sales s ON s.qty = n.number GROUP BY n.number ORDER BY n.number"),
# ---------------- CTEs
("x8_cte_used_twice", S + "WITH t AS (SELECT cust_id, sum(amount) AS tot FROM sales GROUP BY cust_id) SELECT a.cust_id, b.cust_id, a.tot FROM t a JOIN t b ON a.tot % 100 = b.tot % 100 AND a.cust_id < b.cust_id ORDER BY a.cust_id, b.cust_id"),
("x8_cte_twice_store_compare", S + ST + "WITH d AS (SELECT store_id, dt, sum(amount) AS tot FROM sales GROUP BY store_id, dt) SELECT st.city, count() FROM d a JOIN d b ON a.store_id = b.store_id AND b.dt = a.dt + 1 JOIN stores st ON st.sid = a.store_id WHERE b.tot > a.tot GROUP BY st.city ORDER BY st.city"),
("x8_cte_two_ctes_joined", S + C + P + "WITH cs AS (SELECT cust_id, count() AS n FROM sales GROUP BY cust_id), ps AS (SELECT prod_id, count() AS n FROM sales GROUP BY prod_id) SELECT count(), sum(cs.n), sum(ps.n) FROM sales s JOIN cs ON s.cust_id = cs.cust_id JOIN ps ON s.prod_id = ps.prod_id WHERE cs.n = 31 AND ps.n = 57"),
("x8_cte_join_in_cte", S + C + R + "WITH x AS (SELECT s.id, r.rname FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid) SELECT rname, count() FROM x GROUP BY rname ORDER BY rname"),
("x8_cte_twice_in_and_join", S + C + "WITH top AS (SELECT cust_id FROM sales GROUP BY cust_id ORDER BY sum(amount) DESC, cust_id LIMIT 10) SELECT c.cname, count() FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE s.cust_id IN (SELECT cust_id FROM top) AND s.prod_id IN (SELECT cust_id FROM top) GROUP BY c.cname ORDER BY c.cname"),
("x8_cte_scalar_and_join", S + P + "WITH (SELECT avg(price) FROM products) AS ap SELECT p.cat, count() FROM sales s JOIN products p ON s.prod_id = p.pid WHERE p.price > ap GROUP BY p.cat ORDER BY p.cat"),
# ---------------- joins in IN and scalar subqueries
("x8_in_sub_join", S + C + R + "SELECT count(), sum(amount) FROM sales WHERE cust_id IN (SELECT c.cid FROM customers c JOIN regions r ON c.region_id = r.rid WHERE r.rname IN ('east', 'west'))"),
("x8_not_in_sub_join", S + C + R + "SELECT count() FROM sales WHERE cust_id NOT IN (SELECT c.cid FROM customers c JOIN regions r ON c.region_id = r.rid)"),
("x8_in_sub_tuple", S + TG + "SELECT count(), sum(amount) FROM sales WHERE (store_id, dt) IN (SELECT sid, d FROM targets WHERE target > 1600)"),
("x8_in_sub_in_join_query", STAR + "SELECT st.city, count() FROM sales s JOIN stores st ON s.store_id = st.sid WHERE s.prod_id IN (SELECT p.pid FROM products p JOIN sales s2 ON s2.prod_id = p.pid WHERE s2.amount > 990) GROUP BY st.city ORDER BY st.city"),
("x8_in_sub_nullable_set", S + PR + "SELECT count() FROM sales WHERE promo IN (SELECT pcode FROM promos)"),
("x8_not_in_sub_nullable_set", S + PR + "SELECT count(), countIf(promo IS NULL) FROM sales WHERE promo NOT IN (SELECT pcode FROM promos)"),
("x8_scalar_sub_join", S + C + "SELECT (SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE c.tier = 1) AS n, (SELECT max(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE c.region_id = 5) AS m"),
("x8_scalar_sub_in_where", S + C + P + "SELECT p.cat, count() FROM sales s JOIN products p ON s.prod_id = p.pid WHERE s.amount > (SELECT avg(s2.amount) * 1.5 FROM sales s2 JOIN customers c ON s2.cust_id = c.cid WHERE c.region_id = 0) GROUP BY p.cat ORDER BY p.cat"),
("x8_scalar_sub_empty", S + C + "SELECT (SELECT max(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid WHERE c.cid = 1000) AS m, toTypeName(m)"),
("x8_scalar_sub_correlated", C + S + "SELECT c.cid, (SELECT count() FROM sales s WHERE s.cust_id = c.cid AND s.store_id = 0) AS n FROM customers c WHERE c.cid < 8 ORDER BY c.cid"),
# ---------------- EXISTS / NOT EXISTS
("x8_exists_correlated", S + C + "SELECT c.cid, c.cname FROM customers c WHERE EXISTS (SELECT 1 FROM sales s WHERE s.cust_id = c.cid AND s.amount > 995) ORDER BY c.cid"),
("x8_not_exists_correlated", S + C + "SELECT count() FROM customers c WHERE NOT EXISTS (SELECT 1 FROM sales s WHERE s.cust_id = c.cid AND s.store_id = 3 AND s.qty = 9)"),
("x8_exists_with_join_outer", S + C + R + "SELECT r.rname, count() FROM customers c JOIN regions r ON c.region_id = r.rid WHERE EXISTS (SELECT 1 FROM sales s WHERE s.cust_id = c.cid AND s.promo = 16 AND s.qty = 9) GROUP BY r.rname ORDER BY r.rname"),
("x8_exists_join_inside", S + C + P + "SELECT c.cid FROM customers c WHERE EXISTS (SELECT 1 FROM sales s JOIN products p ON s.prod_id = p.pid WHERE s.cust_id = c.cid AND p.price = 94 AND s.qty > 7) ORDER BY c.cid"),
("x8_not_exists_products", S + P + "SELECT p.pid FROM products p WHERE NOT EXISTS (SELECT 1 FROM sales s WHERE s.prod_id = p.pid AND s.store_id = 10 AND s.qty = 9) ORDER BY p.pid"),
("x8_exists_two_conditions", S + ST + "SELECT st.sid, st.city FROM stores st WHERE EXISTS (SELECT 1 FROM sales s WHERE s.store_id = st.sid AND s.dt = '2024-01-03') AND NOT EXISTS (SELECT 1 FROM sales s WHERE s.store_id = st.sid AND s.amount = 0) ORDER BY st.sid"),
("x8_exists_semantic_vs_in", S + C + "SELECT count() FROM customers c WHERE EXISTS (SELECT 1 FROM sales s WHERE s.cust_id = c.cid AND s.promo = 3) AND c.cid IN (SELECT cust_id FROM sales WHERE promo = 2)"),
# ---------------- aggregates over join results
("x8_agg_avg_round", SCP + "SELECT p.cat, round(avg(s.amount), 3), round(avg(p.price), 3) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid GROUP BY p.cat ORDER BY p.cat"),
("x8_agg_groupby_two_dims", STAR + "SELECT st.size, c.tier, count(), sum(s.qty) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid GROUP BY st.size, c.tier ORDER BY st.size, c.tier"),
("x8_agg_rollup", STAR + "SELECT st.city, p.cat, count() FROM sales s JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE p.cat IN ('toys', 'food') GROUP BY ROLLUP(st.city, p.cat) ORDER BY st.city, p.cat"),
("x8_agg_top_customers", S + C + R + "SELECT c.cname, r.rname, sum(s.amount) AS tot FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid GROUP BY c.cname, r.rname ORDER BY tot DESC, c.cname LIMIT 7"),
("x8_agg_countif_sumif", STAR + "SELECT countIf(p.cat = 'toys'), sumIf(s.amount, st.size = 'L'), countIf(c.tier IS NULL), sumIf(s.qty, p.price > 50 AND st.city = 'Oslo') FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid"),
("x8_agg_group_array_sorted", S + P + ST + "SELECT st.city, arraySort(groupUniqArray(p.cat)) FROM sales s JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid WHERE s.amount > 980 GROUP BY st.city ORDER BY st.city"),
("x8_agg_window_over_join", S + C + R + "SELECT r.rname, sum(s.amount) AS tot, rank() OVER (ORDER BY sum(s.amount) DESC) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid GROUP BY r.rname ORDER BY r.rname"),
("x8_agg_having_across", STAR + "SELECT c.cid, count() AS n FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid GROUP BY c.cid HAVING sum(p.price) > 1400 AND max(st.sid) = 9 ORDER BY c.cid"),
("x8_agg_uniq_combined", SNOW + "SELECT k.coname, uniqExact(c.cid), uniqExact(s.store_id), uniqExact(s.dt) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid JOIN countries k ON r.country_id = k.coid GROUP BY k.coname ORDER BY k.coname"),
("x8_agg_one_row_all", STAR + CAL + "SELECT count(), sum(s.amount), min(s.id), max(s.id), sum(p.price * s.qty) FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON s.prod_id = p.pid JOIN stores st ON s.store_id = st.sid JOIN cal ON cal.d = s.dt"),
# ---------------- outer joins mixed with inner joins
("x8_outer_inner_then_left", SNOW + "SELECT k.coname, count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid LEFT JOIN regions r ON c.region_id = r.rid LEFT JOIN countries k ON r.country_id = k.coid GROUP BY k.coname ORDER BY k.coname"),
("x8_outer_inner_then_left_nulls", SNOW + "SELECT k.coname, count(), sum(s.amount) FROM sales s JOIN customers c ON s.cust_id = c.cid LEFT JOIN regions r ON c.region_id = r.rid LEFT JOIN countries k ON r.country_id = k.coid GROUP BY k.coname ORDER BY k.coname SETTINGS join_use_nulls = 1"),
("x8_outer_left_then_inner", SNOW + "SELECT r.rname, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid GROUP BY r.rname ORDER BY r.rname"),
("x8_outer_left_then_inner_nulls", SNOW + "SELECT r.rname, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid JOIN regions r ON c.region_id = r.rid GROUP BY r.rname ORDER BY r.rname SETTINGS join_use_nulls = 1"),
("x8_outer_right_dim", SNOW + "SELECT k.coid, k.coname, count(r.rid), count(c.cid) FROM customers c JOIN regions r ON c.region_id = r.rid RIGHT JOIN countries k ON r.country_id = k.coid GROUP BY k.coid, k.coname ORDER BY k.coid"),
("x8_outer_right_dim_nulls", SNOW + "SELECT k.coid, k.coname, count(r.rid), count(c.cid) FROM customers c JOIN regions r ON c.region_id = r.rid RIGHT JOIN countries k ON r.country_id = k.coid GROUP BY k.coid, k.coname ORDER BY k.coid SETTINGS join_use_nulls = 1"),
("x8_outer_full_regions_countries", R + K + "SELECT r.rid, r.rname, k.coid, k.coname FROM regions r FULL JOIN countries k ON r.country_id = k.coid ORDER BY r.rid, k.coid"),
("x8_outer_full_regions_countries_nulls", R + K + "SELECT r.rid, r.rname, k.coid, k.coname FROM regions r FULL JOIN countries k ON r.country_id = k.coid ORDER BY r.rid, k.coid SETTINGS join_use_nulls = 1"),
("x8_outer_is_null_default", S + C + "SELECT count(), countIf(c.cid IS NULL), countIf(c.cname = '') FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid"),
("x8_outer_is_null_use_nulls", S + C + "SELECT count(), countIf(c.cid IS NULL), countIf(c.cname = '') FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid SETTINGS join_use_nulls = 1"),
("x8_outer_types_default", C + R + "SELECT toTypeName(r.rid), toTypeName(r.rname), toTypeName(c.tier) FROM customers c LEFT JOIN regions r ON c.region_id = r.rid LIMIT 1"),
("x8_outer_types_use_nulls", C + R + "SELECT toTypeName(r.rid), toTypeName(r.rname), toTypeName(c.tier), toTypeName(c.cid) FROM customers c FULL JOIN regions r ON c.region_id = r.rid LIMIT 1 SETTINGS join_use_nulls = 1"),
("x8_outer_left_anti_via_where", S + C + "SELECT s.cust_id, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid WHERE c.cname = '' GROUP BY s.cust_id ORDER BY s.cust_id"),
("x8_outer_left_anti_via_where_nulls", S + C + "SELECT s.cust_id, count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid WHERE c.cid IS NULL GROUP BY s.cust_id ORDER BY s.cust_id SETTINGS join_use_nulls = 1"),
("x8_outer_left_on_filter_left_side", C + R + "SELECT c.cid, r.rname FROM customers c LEFT JOIN regions r ON c.region_id = r.rid AND c.cid < 4 WHERE c.cid < 8 ORDER BY c.cid"),
("x8_outer_left_chain_three", S + P + CT + BR + "SELECT ct.owner, b.maker, count() FROM sales s JOIN products p ON s.prod_id = p.pid LEFT JOIN cats ct ON p.cat = ct.cat LEFT JOIN brands b ON p.brand = b.brand GROUP BY ct.owner, b.maker ORDER BY ct.owner, b.maker"),
("x8_outer_left_chain_three_nulls", S + P + CT + BR + "SELECT ct.owner, b.maker, count() FROM sales s JOIN products p ON s.prod_id = p.pid LEFT JOIN cats ct ON p.cat = ct.cat LEFT JOIN brands b ON p.brand = b.brand GROUP BY ct.owner, b.maker ORDER BY ct.owner, b.maker SETTINGS join_use_nulls = 1"),
("x8_outer_full_aggregated", S + "SELECT a.store_id, b.store_id, a.n, b.n FROM (SELECT store_id, count() AS n FROM sales WHERE qty = 1 AND store_id < 6 GROUP BY store_id) a FULL JOIN (SELECT store_id, count() AS n FROM sales WHERE qty = 2 AND store_id > 3 GROUP BY store_id) b ON a.store_id = b.store_id ORDER BY a.store_id, b.store_id"),
("x8_outer_full_aggregated_nulls", S + "SELECT a.store_id, b.store_id, a.n, b.n FROM (SELECT store_id, count() AS n FROM sales WHERE qty = 1 AND store_id < 6 GROUP BY store_id) a FULL JOIN (SELECT store_id, count() AS n FROM sales WHERE qty = 2 AND store_id > 3 GROUP BY store_id) b ON a.store_id = b.store_id ORDER BY a.store_id, b.store_id SETTINGS join_use_nulls = 1"),
("x8_outer_full_then_inner", R + K + C + "SELECT k.coname, r.rname, count() FROM regions r FULL JOIN countries k ON r.country_id = k.coid JOIN customers c ON c.region_id = r.rid GROUP BY k.coname, r.rname ORDER BY k.coname, r.rname"),
("x8_outer_set_in_session", SNOW + "SET join_use_nulls = 1; SELECT r.rname, k.coname, count() FROM customers c LEFT JOIN regions r ON c.region_id = r.rid LEFT JOIN countries k ON r.country_id = k.coid GROUP BY r.rname, k.coname ORDER BY r.rname, k.coname"),
("x8_outer_coalesce_defaults", C + TI + "SELECT coalesce(t.tname, 'none') AS n, count() FROM customers c LEFT JOIN tiers t ON c.tier = t.tier GROUP BY n ORDER BY n SETTINGS join_use_nulls = 1"),
("x8_outer_right_unmatched_default_key", C + TI + "SELECT t.tier, t.tname, count(c.cid) FROM customers c RIGHT JOIN tiers t ON c.tier = t.tier GROUP BY t.tier, t.tname ORDER BY t.tier"),
("x8_outer_full_using_key", C + TI + "SELECT tier, count(), countIf(tname = '') FROM customers FULL JOIN tiers USING (tier) GROUP BY tier ORDER BY tier"),
("x8_outer_full_using_key_nulls", C + TI + "SELECT tier, count(), countIf(tname IS NULL) FROM customers FULL JOIN tiers USING (tier) GROUP BY tier ORDER BY tier SETTINGS join_use_nulls = 1"),
("x8_outer_left_sum_defaults", S + L + "SELECT sum(l.points), count(), countIf(l.points = 0) FROM sales s LEFT JOIN loyalty l ON s.cust_id = l.cust"),
("x8_outer_left_filter_on_right_where", S + C + "SELECT count() FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid WHERE c.tier = 0"),
("x8_outer_left_filter_on_right_on", S + C + "SELECT count(), countIf(c.cid > 0) FROM sales s LEFT JOIN customers c ON s.cust_id = c.cid AND c.tier = 0"),
# ---------------- ANY / ALL / SEMI / ANTI strictness
("x8_strict_any_left_dups", S + PR + "SELECT count(), countIf(pr.pct > 0), countIf(pr.label != '') FROM sales s ANY LEFT JOIN promos pr ON s.promo = pr.pcode"),
("x8_strict_all_left_dups", S + PR + "SELECT count(), countIf(pr.pct > 0) FROM sales s ALL LEFT JOIN promos pr ON s.promo = pr.pcode"),
("x8_strict_any_inner_counts", "CREATE TABLE l (k UInt8, v UInt8) ENGINE=MergeTree ORDER BY (k, v); CREATE TABLE r (k UInt8, w UInt8) ENGINE=MergeTree ORDER BY (k, w); INSERT INTO l VALUES (1,1),(1,1),(2,2),(3,3),(3,3); INSERT INTO r VALUES (1,9),(1,9),(3,7),(4,4); SELECT l.k, l.v, r.w FROM l ANY INNER JOIN r ON l.k = r.k ORDER BY ALL"),
("x8_strict_semi_multiway", S + C + PR + "SELECT c.region_id, count() FROM sales s LEFT SEMI JOIN promos pr ON s.promo = pr.pcode JOIN customers c ON s.cust_id = c.cid GROUP BY c.region_id ORDER BY c.region_id"),
("x8_strict_anti_multiway", S + C + PR + "SELECT c.region_id, count() FROM sales s LEFT ANTI JOIN promos pr ON s.promo = pr.pcode JOIN customers c ON s.cust_id = c.cid GROUP BY c.region_id ORDER BY c.region_id"),
("x8_strict_anti_null_keys", S + PR + "SELECT s.promo IS NULL AS nk, count() FROM sales s LEFT ANTI JOIN promos pr ON s.promo = pr.pcode GROUP BY nk ORDER BY nk"),
("x8_strict_semi_customers", S + C + "SELECT count() FROM customers c LEFT SEMI JOIN (SELECT cust_id FROM sales WHERE amount > 990) s ON s.cust_id = c.cid"),
("x8_strict_anti_customers", S + C + "SELECT c.cid FROM customers c LEFT ANTI JOIN (SELECT cust_id FROM sales WHERE store_id = 4 AND qty > 6) s ON s.cust_id = c.cid ORDER BY c.cid"),
("x8_strict_right_semi", S + C + "SELECT c.cid FROM (SELECT cust_id FROM sales WHERE amount > 985) s RIGHT SEMI JOIN customers c ON s.cust_id = c.cid ORDER BY c.cid"),
("x8_strict_right_anti", S + C + "SELECT count(), min(c.cid), max(c.cid) FROM (SELECT cust_id FROM sales WHERE amount > 985) s RIGHT ANTI JOIN customers c ON s.cust_id = c.cid"),
("x8_strict_anti_then_left", S + P + CT + "SELECT p.cat, ct.owner, count() FROM products p LEFT ANTI JOIN (SELECT DISTINCT prod_id FROM sales WHERE store_id = 6 AND qty = 3) s ON s.prod_id = p.pid LEFT JOIN cats ct ON ct.cat = p.cat GROUP BY p.cat, ct.owner ORDER BY p.cat"),
("x8_strict_semi_then_semi", S + C + P + "SELECT count() FROM sales s SEMI LEFT JOIN (SELECT cid FROM customers WHERE tier = 1) c ON s.cust_id = c.cid SEMI LEFT JOIN (SELECT pid FROM products WHERE cat = 'food') p ON s.prod_id = p.pid"),
("x8_strict_any_left_unique_dim", SCP + "SELECT p.cat, count() FROM sales s ANY LEFT JOIN products p ON s.prod_id = p.pid ANY LEFT JOIN customers c ON s.cust_id = c.cid WHERE c.region_id = 1 GROUP BY p.cat ORDER BY p.cat"),
("x8_strict_semi_right_cols_values", "CREATE TABLE l (k UInt8, v String) ENGINE=MergeTree ORDER BY k; CREATE TABLE r (k UInt8, w String) ENGINE=MergeTree ORDER BY k; INSERT INTO l VALUES (1,'a'),(2,'b'),(3,'c'); INSERT INTO r VALUES (1,'x'),(3,'y'),(5,'z'); SELECT l.k, v, w FROM l SEMI JOIN r ON l.k = r.k ORDER BY l.k"),
# ---------------- USING
("x8_using_chain", S + C + R + "SELECT rname, count() FROM sales JOIN (SELECT cid AS cust_id, region_id FROM customers) AS c USING (cust_id) JOIN (SELECT rid AS region_id, rname FROM regions) AS r USING (region_id) GROUP BY rname ORDER BY rname"),
("x8_using_shared_name_three", "CREATE TABLE a (k UInt32, x UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt32, y UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt32, z UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO a SELECT number, number % 7 FROM numbers(100); INSERT INTO b SELECT number * 2, number % 5 FROM numbers(50); INSERT INTO c SELECT number * 3, number % 3 FROM numbers(40); SELECT count(), sum(k), sum(x + y + z) FROM a JOIN b USING (k) JOIN c USING (k)"),
("x8_using_left_key_value", "CREATE TABLE a (k UInt32, x UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt32, y UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO a VALUES (1,1),(2,2),(3,3); INSERT INTO b VALUES (2,20),(3,30),(4,40); SELECT k, x, y FROM a RIGHT JOIN b USING (k) ORDER BY k"),
("x8_using_mixed_with_on", S + C + ST + "SELECT st.city, count() FROM sales JOIN (SELECT cid AS cust_id, tier FROM customers) AS c USING (cust_id) JOIN stores st ON st.sid = sales.store_id WHERE tier = 2 GROUP BY st.city ORDER BY st.city"),
("x8_using_star_columns", "CREATE TABLE a (k UInt32, x UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt32, y UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt32, z UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO a VALUES (1,1),(2,2); INSERT INTO b VALUES (1,10),(2,20); INSERT INTO c VALUES (2,200); SELECT * FROM a JOIN b USING (k) JOIN c USING (k) ORDER BY k FORMAT TSVWithNames"),
("x8_using_left_outer_three", "CREATE TABLE a (k UInt32, x UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt32, y UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt32, z UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO a VALUES (1,1),(2,2),(3,3); INSERT INTO b VALUES (1,10),(3,30); INSERT INTO c VALUES (3,33),(1,11),(9,99); SELECT k, x, y, z FROM a LEFT JOIN b USING (k) LEFT JOIN c USING (k) ORDER BY k"),
("x8_using_full_three_nulls", "CREATE TABLE a (k UInt32, x UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt32, y UInt8) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt32, z UInt8) ENGINE=MergeTree ORDER BY k; INSERT INTO a VALUES (1,1),(2,2); INSERT INTO b VALUES (2,20),(3,30); INSERT INTO c VALUES (3,33),(4,44); SELECT k, x, y, z FROM a FULL JOIN b USING (k) FULL JOIN c USING (k) ORDER BY k, x, y, z SETTINGS join_use_nulls = 1"),
# ---------------- CROSS JOIN
("x8_cross_where_eq", S + ST + "SELECT st.city, count() FROM sales s CROSS JOIN stores st WHERE s.store_id = st.sid GROUP BY st.city ORDER BY st.city"),
("x8_cross_three_where", S + ST + P + "SELECT p.cat, count() FROM sales s CROSS JOIN stores st CROSS JOIN products p WHERE s.store_id = st.sid AND s.prod_id = p.pid AND st.size = 'S' GROUP BY p.cat ORDER BY p.cat"),
("x8_cross_dims_count", R + K + TI + "SELECT count(), sum(r.rid), sum(k.coid), sum(t.tier) FROM regions r CROSS JOIN countries k CROSS JOIN tiers t"),
("x8_cross_mixed_with_on", S + ST + C + "SELECT st.size, count() FROM sales s CROSS JOIN stores st JOIN customers c ON c.cid = s.cust_id WHERE st.sid = s.store_id AND c.tier = 3 GROUP BY st.size ORDER BY st.size"),
("x8_cross_ineq_only", R + K + "SELECT r.rname, k.coname FROM regions r CROSS JOIN countries k WHERE r.country_id < k.coid AND r.rid < 3 ORDER BY r.rname, k.coname"),
("x8_inner_ineq_only_on", R + K + "SELECT r.rname, k.coname FROM regions r JOIN countries k ON r.country_id > k.coid ORDER BY r.rname, k.coname"),
# ---------------- ClickHouse name resolution in joins
("x8_resolve_unqualified_left_wins", "CREATE TABLE a (k UInt8, x Int32) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt8, x Int32) ENGINE=MergeTree ORDER BY k; INSERT INTO a VALUES (1,10),(2,20); INSERT INTO b VALUES (1,100),(2,200); SELECT x, k FROM a JOIN b ON a.k = b.k ORDER BY x"),
("x8_resolve_table_name_with_alias", S + C + "SELECT customers.cname, count() FROM sales AS s JOIN customers AS c ON s.cust_id = c.cid WHERE c.cid < 3 GROUP BY customers.cname ORDER BY customers.cname"),
("x8_resolve_comma_then_join_left_deep", S + C + ST + "SELECT st.city, count() FROM sales s, customers c JOIN stores st ON st.sid = s.store_id WHERE s.cust_id = c.cid AND c.region_id = 3 GROUP BY st.city ORDER BY st.city"),
("x8_resolve_select_alias_in_where", S + P + "SELECT s.qty * p.price AS v, s.id FROM sales s JOIN products p ON s.prod_id = p.pid WHERE v > 800 ORDER BY v DESC, s.id LIMIT 6"),
# ---------------- deliberate errors (both sides must fail)
("x8_err_ambiguous_in_on", "CREATE TABLE a (k UInt8, x Int32) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt8, y Int32) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt8, z Int32) ENGINE=MergeTree ORDER BY k; SELECT count() FROM a JOIN b ON a.k = b.k JOIN c ON k = c.k"),
("x8_err_ambiguous_using_then_on", "CREATE TABLE a (k UInt8, x Int32) ENGINE=MergeTree ORDER BY k; CREATE TABLE b (k UInt8, y Int32) ENGINE=MergeTree ORDER BY k; CREATE TABLE c (k UInt8, z Int32) ENGINE=MergeTree ORDER BY k; SELECT count() FROM a JOIN b USING (k) JOIN c ON c.k = k"),
("x8_err_unknown_column_in_on", S + C + "SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.nosuch"),
("x8_err_unknown_column_third_table", SCP + "SELECT count() FROM sales s JOIN customers c ON s.cust_id = c.cid JOIN products p ON p.pid = s.product"),
("x8_err_unknown_table", S + "SELECT count() FROM sales s JOIN nosuch_table n ON s.id = n.id"),
("x8_err_unknown_qualifier", S + C + "SELECT zz.cid FROM sales s JOIN customers c ON s.cust_id = c.cid"),
("x8_err_duplicate_alias", S + C + "SELECT count() FROM sales t JOIN customers t ON t.cust_id = t.cid"),
("x8_err_using_missing_left", S + C + "SELECT count() FROM sales JOIN customers USING (cid)"),
("x8_err_left_ineq_only", S + C + "SELECT count() FROM sales s LEFT JOIN customers c ON s.cust_id > c.cid"),
("x8_err_full_ineq_only", R + K + "SELECT count() FROM regions r FULL JOIN countries k ON r.country_id < k.coid"),
("x8_err_cross_with_on", R + K + "SELECT count() FROM regions r CROSS JOIN countries k ON r.country_id = k.coid"),
("x8_err_join_without_on", R + K + "SELECT count() FROM regions r JOIN countries k"),
("x8_err_any_full", R + K + "SELECT count() FROM regions r ANY FULL JOIN countries k ON r.country_id = k.coid"),
("x8_err_subquery_column_not_exported", S + C + "SELECT count() FROM sales s JOIN (SELECT cid FROM customers) c ON s.cust_id = c.cid WHERE c.cname = 'c1'"),
]
