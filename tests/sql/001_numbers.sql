-- numbers, numbers_mt, zeros and system.numbers stream generated rows.
SELECT * FROM numbers(5);
SELECT number FROM numbers(3, 4);
SELECT count(), sum(number), min(number), max(number) FROM numbers_mt(100000);
SELECT count() FROM numbers(1e5);
SELECT count() FROM numbers(100000.);
SELECT sum(number) FROM numbers_mt(1000000) SETTINGS max_threads = 3;
SELECT * FROM zeros(3);
SELECT number FROM system.numbers LIMIT 3;
SELECT number FROM system.numbers WHERE number > 10 LIMIT 2;
SELECT * FROM system.one;
SELECT dummy FROM system.one;
SELECT count() FROM numbers(0);
SELECT toTypeName(number) FROM numbers(1);
SELECT number FROM numbers(10) ORDER BY number DESC LIMIT 3;
SELECT number FROM numbers(-1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
