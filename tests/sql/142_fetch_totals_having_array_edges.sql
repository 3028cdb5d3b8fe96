-- FETCH FIRST as LIMIT, WITH TOTALS under HAVING, aggregates of empty arrays, has(arr, NULL)
SELECT number FROM numbers(10) ORDER BY number FETCH FIRST 3 ROWS ONLY;
SELECT number FROM numbers(10) ORDER BY number OFFSET 2 ROWS FETCH NEXT 2 ROWS ONLY;
SELECT intDiv(number, 3) AS k FROM numbers(10) ORDER BY k FETCH FIRST 2 ROWS WITH TIES;
SELECT number FROM numbers(10) ORDER BY number OFFSET 8 ROWS;
SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS HAVING c > 3 ORDER BY k;
SELECT number % 3 AS k, number % 2 AS j, sum(number) AS s FROM numbers(20) WHERE number > 2 GROUP BY k, j WITH TOTALS HAVING s > 25 ORDER BY k, j;
SELECT number % 3, count() FROM numbers(10) GROUP BY 1 WITH TOTALS HAVING count() > 3 ORDER BY 1;
SELECT arraySum(emptyArrayUInt8()), arraySum(arrayFilter(x -> x > 5, [1, 2])), arrayProduct(arrayFilter(x -> x > 5, [1, 2])), arrayAvg(arrayFilter(x -> x > 5, [1, 2]));
SELECT number, arraySum(range(number)), arraySum(x -> x * 2, range(number)) FROM numbers(3) ORDER BY number;
SELECT has([1, NULL], NULL), has([1, 2], NULL), has(['a', NULL], NULL), has([1, NULL], 1);
SELECT x, has(x, NULL) FROM (SELECT arrayJoin([[1], [NULL, 2], []]) AS x) ORDER BY x;
