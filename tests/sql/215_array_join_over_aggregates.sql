-- arrayJoin over an aggregate repeats the aggregated rows; ORDER BY keys
-- after a GROUP BY key still sort the repeated rows.
SELECT arrayJoin(groupArray(number)) FROM numbers(3);
SELECT number % 2 AS k, arrayJoin(groupArray(number)) AS v FROM numbers(5) GROUP BY k ORDER BY k, v;
SELECT number % 3 AS k, arrayJoin(arraySort(groupArray(number))) AS v, count() AS c FROM numbers(6) GROUP BY k ORDER BY k, v DESC LIMIT 4;
SELECT arrayJoin(groupArray(number)) AS x FROM numbers(3) WHERE number > 0 HAVING count() > 1 ORDER BY x DESC;
SELECT arrayJoin(groupUniqArray(number % 3)) AS x, sum(number) AS s FROM numbers(9) ORDER BY x;
SELECT k, arrayJoin(a) AS v FROM (SELECT number % 2 AS k, groupArray(number) AS a FROM numbers(4) GROUP BY k) ORDER BY k, v DESC;
SELECT k, v FROM (SELECT number % 2 AS k, groupArray(number) AS a FROM numbers(4) GROUP BY k) ARRAY JOIN a AS v ORDER BY k DESC, v DESC;
SELECT arrayJoin([1, 2]) AS x, count() FROM numbers(3) GROUP BY x ORDER BY x;
SELECT number % 2 AS a, number % 3 AS b FROM numbers(6) ORDER BY a, a, b;
-- Inside an expression, and over a subquery.
SELECT k, arrayJoin(groupArray(number)) + 1 AS x FROM (SELECT number, number % 2 AS k FROM numbers(4)) GROUP BY k ORDER BY k, x;
SELECT number % 2 AS k, toString(arrayJoin(groupArray(number)) * 10) AS s FROM numbers(4) GROUP BY k ORDER BY k, s;
SELECT k, arrayJoin(groupArray(number)) + k AS x FROM (SELECT number, number % 3 AS k FROM numbers(6)) AS t GROUP BY k ORDER BY x;
SELECT k, arrayJoin(arrayReverse(groupArray(number))) AS x FROM (SELECT number, number % 2 AS k FROM numbers(4)) GROUP BY k ORDER BY k, x;
SELECT arrayJoin(groupArray((number, toString(number)))).2 AS s FROM numbers(3) ORDER BY s;
