-- A scalar subquery of several columns is one tuple of them, named after the columns
SELECT (SELECT min(number), max(number) AS mx FROM numbers(5)) AS t, t.2, t.mx;
SELECT (SELECT 1, 'a').2, (SELECT count(), sum(number) FROM numbers(10)).1;
SELECT number FROM numbers(10) WHERE number = (SELECT max(number), 1 FROM numbers(4)).1;
