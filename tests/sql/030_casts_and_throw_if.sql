-- CAST to ClickHouse numeric types, throwIf, currentUser.
SELECT CAST(1 AS UInt8), CAST('41' AS Nullable(UInt8)), toTypeName(CAST(300 AS UInt16)), toTypeName(CAST(-1 AS Int8)), CAST(2.5 AS Float32);
SELECT toTypeName(CAST(1 AS Int64)), toTypeName(CAST(number AS UInt32)), CAST(number AS Int16) FROM numbers(2);
SELECT CAST(200 AS Int8), CAST(-1 AS UInt8), CAST(65537 AS UInt16);
SELECT throwIf(number = 3) FROM numbers(2);
SELECT throwIf(number = 3, 'three is too many') FROM numbers(5); -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT throwIf(number = 3) FROM numbers(5); -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT currentUser(), user();
