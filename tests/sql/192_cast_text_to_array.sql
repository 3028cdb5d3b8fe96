-- CAST of text to Array reads ClickHouse's array literals
SELECT CAST('[1,2]' AS Array(UInt8)), CAST('[[1],[2,3]]' AS Array(Array(Int32))), CAST('[''x'',NULL]' AS Array(Nullable(String))), toTypeName(CAST('[1]' AS Array(Int64)));
SELECT CAST(concat('[', toString(number), ',', toString(number * 2), ']') AS Array(UInt16)) AS a, arraySum(a) FROM numbers(3);
SELECT CAST('[]' AS Array(String)), CAST('[''a'',''b c'']' AS Array(String)), length(CAST('[1.5,2.25]' AS Array(Float64)));
SELECT CAST(s AS Array(UInt32)) FROM (SELECT '[7]' AS s UNION ALL SELECT '[8,9]') ORDER BY 1;
SELECT CAST('abc' AS Array(UInt8)); -- { serverError CANNOT_READ_ARRAY_FROM_TEXT }
SELECT CAST(toString(number) AS Array(UInt8)) FROM numbers(1); -- { serverError CANNOT_READ_ARRAY_FROM_TEXT }
