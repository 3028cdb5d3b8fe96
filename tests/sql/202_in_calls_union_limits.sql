-- IN over a call: a set of one value, or tuple(...)'s elements.
SELECT 1 IN toUInt8(1), 3 IN plus(1, 2), 1 IN tuple(1, 2), 5 NOT IN tuple(1, 2);
SELECT number FROM numbers(5) WHERE number IN tuple(1, 3) ORDER BY number;
-- A SELECT of a UNION other than the last may have its own ORDER BY and LIMIT.
SELECT * FROM (SELECT 1 AS x LIMIT 1 UNION ALL SELECT 2) ORDER BY x;
SELECT * FROM (SELECT number AS x FROM numbers(10) ORDER BY number DESC LIMIT 2 UNION ALL SELECT number FROM numbers(2) UNION ALL SELECT 7 LIMIT 1) ORDER BY x;
WITH 5 AS c SELECT * FROM (SELECT c AS x LIMIT 1 UNION DISTINCT SELECT c + 1) ORDER BY x;
-- String functions read a UUID or an address as its text.
SELECT concat('', toIPv4('1.2.3.4')), concat(toUUID('fae310ca-d52a-4923-9e9b-02bf67f4b009'), '!'), concatWithSeparator('-', toIPv6('::1'), 'x');
