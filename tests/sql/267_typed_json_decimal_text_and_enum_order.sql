-- JSONExtract to any type Strata knows reads the value's text as CAST does.
SELECT JSONExtract('{"d":"2024-01-01"}', 'd', 'Date'), JSONExtract('{"t":"2024-01-01 10:00:00"}', 't', 'DateTime'),
    JSONExtract('{"x":1.25}', 'x', 'Decimal(10, 2)'), JSONExtract('{"s":"lc"}', 's', 'LowCardinality(String)');
SELECT JSONExtract('{"d":"nope"}', 'd', 'Date'), JSONExtract('{"d":"nope"}', 'd', 'Nullable(Date)'), JSONExtract('{}', 'd', 'Nullable(Date)');
SELECT JSONExtract('{"u":"61f0c404-5cb3-11e7-907b-a6006ad3dba0"}', 'u', 'UUID'), JSONExtract('{"e":"b"}', 'e', 'Enum8(\'a\' = 1, \'b\' = 2)');
SELECT JSONExtract('{"a":["2024-01-01","2024-02-03"]}', 'a', 'Array(Date)'), JSONExtract('{"a":{"x":"1.5"}}', 'a', 'Map(String, Decimal(9, 1))');
SELECT toTypeName(JSONExtract('{"x":1}', 'x', 'Decimal(10, 2)')), toTypeName(JSONExtract('{"x":1}', 'x', 'Nullable(DateTime)'));
SELECT JSONExtract('{"x":1}', 'x', 'Nope(1)'); -- { serverError UNKNOWN_TYPE }

-- toDecimalString: exactly `scale` digits after the point, rounded half away from zero.
SELECT toDecimalString(1.5, 3), toDecimalString(2, 2), toDecimalString(toDecimal32(1.25, 2), 1), toDecimalString(-0.125, 2);
SELECT toDecimalString(1e20, 1), toDecimalString(CAST(12 AS UInt8), 0), toDecimalString(0.1, 20), toDecimalString(nan, 2);
SELECT toDecimalString(0.375, 2), toDecimalString(2.5, 0), toDecimalString(toDecimal64(2.5, 1), 0), toDecimalString(toDecimal64(-2.45, 2), 1), toDecimalString(9.96, 1);
SELECT toDecimalString(number / 3, 4) FROM numbers(3);
SELECT toDecimalString(1.5, 78); -- { serverError CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER }

-- An enum orders against another enum by its numbers, and a subquery's
-- ORDER BY of an enum orders what an outer aggregate reads.
SELECT CAST('z' AS Enum8('z' = 1, 'a' = 2)) < CAST('a' AS Enum8('z' = 1, 'a' = 2)), CAST('z' AS Enum8('z' = 1, 'a' = 2)) > CAST('a' AS Enum8('z' = 1, 'a' = 2));
SELECT groupArray(s) FROM (SELECT CAST(arrayJoin(['y', 'x', 'z']) AS Enum8('z' = 1, 'y' = 2, 'x' = 3)) AS s ORDER BY s);
SELECT groupArray(s) FROM (SELECT CAST(arrayJoin(['y', 'x', 'z']) AS Enum8('z' = 1, 'y' = 2, 'x' = 3)) AS s ORDER BY s DESC);

-- Text with an exponent as a Decimal256; DD-Mon-YYYY dates.
SELECT toDecimal256('1e5', 2), toDecimal256('-1.5e-1', 3), CAST('12.5E1' AS Decimal256(1));
SELECT parseDateTimeBestEffort('05-Mar-2024'), parseDateTimeBestEffort('5-Mar-2024'), parseDateTimeBestEffort('05-Mar-2024 10:00'), parseDateTimeBestEffort('5-Mar-24'), parseDateTimeBestEffort('05.Mar.2024'), parseDateTimeBestEffort('05/Mar/2024');

-- Statistics of Float32 arguments are Float32.
SELECT toTypeName(varPop(toFloat32(1))), toTypeName(stddevSamp(toFloat32(1))), toTypeName(covarPop(toFloat32(1), toFloat32(2))), toTypeName(covarPop(toFloat32(1), 2)), toTypeName(varPopStable(toFloat32(1)));
SELECT round(varPop(toFloat32(number)), 3), round(stddevSamp(toFloat32(number)), 3), toTypeName(varSamp(x)) FROM (SELECT number, toFloat32(number) AS x FROM numbers(5));
SELECT k, round(varPop(toFloat32(number)), 3) FROM numbers(6) GROUP BY number % 2 AS k ORDER BY k;

-- accurateCastOrNull of a number of days outside a Date.
SELECT accurateCastOrNull(-1, 'Date'), accurateCastOrNull(65535, 'Date'), accurateCastOrNull(5000000000, 'Date'), accurateCastOrNull(-1, 'DateTime');

-- coalesce stops at its first argument that cannot be NULL.
SELECT coalesce(NULL, toUInt8(1), toInt64(2)) AS c, toTypeName(c), toTypeName(ifNull(toUInt8(1), toInt64(2)));

-- Error codes as ClickHouse reports them.
SELECT sum(max(number)) FROM numbers(3); -- { serverError ILLEGAL_AGGREGATION }
SELECT count() OVER w FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT arrayMap(x -> x + 1, 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE dup (a UInt8, a String) ENGINE = Memory; -- { serverError ILLEGAL_COLUMN }

-- extractKeyValuePairs: key:value pairs of text, in order.
SELECT extractKeyValuePairs('a:1, b:2, c:x'), extractKeyValuePairs('k=v;z=w', '=', ';'), extractKeyValuePairs('');
SELECT extractKeyValuePairs('name:neymar, age:31 team:psg,nationality:brazil'), extractKeyValuePairs('a:"x y", b:2', ':', ', ', '"');
SELECT extractKeyValuePairs('a:1 :2 b: c:3 d'), toTypeName(extractKeyValuePairs('a:1')), extractKeyValuePairs('a:1,a:2');
SELECT extractKeyValuePairs(s)['level'] FROM (SELECT arrayJoin(['level:info msg:ok', 'msg:bad level:error', 'nothing']) AS s) ORDER BY 1;
