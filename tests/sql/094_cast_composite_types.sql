#!/usr/bin/env strata
-- CAST to the types DataFusion's SQL does not name: Nullable(String), LowCardinality, Array, Tuple.
SELECT CAST('x' AS Nullable(String)) AS a, toTypeName(a);
SELECT CAST(NULL AS Nullable(String)) AS a, toTypeName(a);
SELECT CAST(number AS Nullable(String)) AS a, toTypeName(a) FROM numbers(2);
SELECT CAST('a' AS LowCardinality(String)) AS a, toTypeName(a);
SELECT CAST(number AS LowCardinality(String)) AS a, toTypeName(a) FROM numbers(2);
SELECT CAST(['1', '2'] AS Array(UInt8)) AS a, toTypeName(a);
SELECT CAST([], 'Array(String)') AS a, toTypeName(a);
SELECT CAST([[1], [2, 3]] AS Array(Array(Int64))) AS a, toTypeName(a);
SELECT CAST([300, 1] AS Array(UInt8)) AS a;
SELECT CAST([1, 2] AS Array(String)) AS a, toTypeName(a);
SELECT [1, 2]::Array(Float64) AS a, toTypeName(a);
SELECT CAST((1, 'x') AS Tuple(UInt16, String)) AS a, toTypeName(a);
SELECT CAST(arr AS Array(String)) FROM (SELECT [number, number + 1] AS arr FROM numbers(3)) ORDER BY 1;
SELECT CAST(['x'] AS Array(UInt8)); -- { serverError CANNOT_PARSE_TEXT }
