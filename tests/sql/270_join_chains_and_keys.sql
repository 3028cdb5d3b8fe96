-- A comma before a JOIN: the FROM joins left to right, so ON reads the first table.
SELECT count() FROM numbers(3) a, numbers(2) b JOIN numbers(4) c ON c.number = a.number;
SELECT a.number, b.number, c.number FROM numbers(3) a, numbers(2) b JOIN numbers(4) c ON c.number = a.number + b.number ORDER BY ALL;
SELECT a.number, c.number FROM numbers(3) a, numbers(2) b LEFT JOIN numbers(2) c ON c.number = a.number WHERE b.number = 1 ORDER BY ALL;
-- An outer join's ON needs a key from each side; an inner join's does not.
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON 1;
SELECT count() FROM numbers(3) a FULL JOIN numbers(2) b ON a.number + 1 = b.number * 2;
SELECT count() FROM numbers(3) a INNER JOIN numbers(2) b ON a.number < b.number;
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number = b.number AND a.number < b.number + 1;
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number > b.number; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM numbers(3) a RIGHT JOIN numbers(2) b ON b.number = 1; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM numbers(3) a RIGHT JOIN numbers(2) b ON a.number = 1;
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON b.number > 0;
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number < b.number AND b.number = 1; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM numbers(3) a FULL JOIN numbers(2) b ON a.number = a.number; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number > b.number OR a.number = b.number; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number = b.number OR a.number = b.number + 1;
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON ((a.number = b.number) AND (a.number > 0));
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON equals(a.number, b.number);
SELECT count() FROM numbers(3) a LEFT JOIN numbers(2) b ON a.number = b.number OR a.number > 1; -- { serverError INVALID_JOIN_ON_EXPRESSION }
-- Two relations may not share an alias.
SELECT count() FROM numbers(3) a CROSS JOIN numbers(2) b;
SELECT count() FROM numbers(3) AS t JOIN numbers(2) AS t ON t.number = t.number; -- { serverError MULTIPLE_EXPRESSIONS_FOR_ALIAS }
SELECT 1;
