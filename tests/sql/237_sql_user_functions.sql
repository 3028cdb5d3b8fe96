-- SQL user-defined functions: a call is the function's expression over its arguments.
CREATE FUNCTION strata_linear AS (x, k, b) -> k * x + b;
SELECT strata_linear(number, 2, 1) FROM numbers(3);
SELECT strata_linear(number, 2, 1) AS y, toTypeName(y) FROM numbers(2) ORDER BY strata_linear(number, 2, 1) DESC;
SELECT number FROM numbers(10) WHERE strata_linear(number, 3, 0) > 20 ORDER BY number;
SELECT strata_linear(number % 3, 1, 0) AS g, count() FROM numbers(9) GROUP BY g ORDER BY g;
SELECT name, origin, is_aggregate FROM system.functions WHERE name = 'strata_linear';
-- Arguments are expressions, in parentheses where they land; parameters named like columns.
SELECT strata_linear(1 + 1, 3, number) AS k FROM numbers(2);
SELECT strata_linear(x, k, b) FROM (SELECT 1 AS x, 10 AS k, 100 AS b);
SELECT strata_linear(k, x, b) FROM (SELECT 1 AS x, 10 AS k, 100 AS b);
-- No parameters; calls of other functions; lambdas inside.
CREATE FUNCTION strata_answer AS () -> 42;
SELECT strata_answer(), toTypeName(strata_answer());
CREATE FUNCTION strata_plus_answer AS (a) -> strata_answer() + a;
SELECT strata_plus_answer(1);
CREATE FUNCTION strata_doubled AS (arr) -> arrayMap(x -> x * 2, arr);
SELECT strata_doubled([1, 2, 3]);
CREATE FUNCTION strata_shadow AS (x, arr) -> arrayMap(x -> x + 1, arr);
SELECT strata_shadow(100, [1, 2]);
CREATE FUNCTION strata_text AS (s) -> concat('<', upper(s), '>');
SELECT strata_text('ab'), strata_text(toString(number)) FROM numbers(2);
-- Case matters, as for ClickHouse's own camelCase names.
SELECT STRATA_LINEAR(1, 1, 1); -- { serverError UNKNOWN_FUNCTION }
-- Replacing, keeping, dropping.
CREATE FUNCTION strata_linear AS (x) -> x; -- { serverError FUNCTION_ALREADY_EXISTS }
CREATE FUNCTION IF NOT EXISTS strata_linear AS (x) -> x;
SELECT strata_linear(1, 2, 3);
CREATE OR REPLACE FUNCTION strata_linear AS (x, k) -> k * x;
SELECT strata_linear(3, 2);
SELECT strata_linear(3); -- { serverError BAD_ARGUMENTS }
CREATE FUNCTION sum AS (x) -> x; -- { serverError FUNCTION_ALREADY_EXISTS }
CREATE FUNCTION plus AS (x) -> x; -- { serverError FUNCTION_ALREADY_EXISTS }
CREATE FUNCTION strata_twice AS (x, x) -> x; -- { serverError BAD_ARGUMENTS }
DROP FUNCTION strata_linear;
SELECT strata_linear(3, 2); -- { serverError UNKNOWN_FUNCTION }
DROP FUNCTION strata_linear; -- { serverError UNKNOWN_FUNCTION }
DROP FUNCTION IF EXISTS strata_linear;
DROP FUNCTION sum; -- { serverError CANNOT_DROP_FUNCTION }
DROP FUNCTION strata_answer;
DROP FUNCTION strata_plus_answer;
DROP FUNCTION strata_doubled;
DROP FUNCTION strata_shadow;
DROP FUNCTION strata_text;
SELECT count() FROM system.functions WHERE name LIKE 'strata\_%';
