-- JSON functions over JSON text: JSONExtract* with paths of keys and indexes, JSONHas/JSONLength/JSONType/JSONKey, the CaseInsensitive variants, isValidJSON, JSONArrayLength, the SQL/JSON path functions and simpleJSON* (visitParam*).
SELECT JSONHas('{"a": 1, "b": {"c": [1, 2]}}', 'a'), JSONHas('{"a": 1}', 'z'), JSONHas('{"a": {"b": 1}}', 'a', 'b'), JSONHas('[1, 2, 3]', 3), JSONHas('[1, 2, 3]', 4), JSONHas('[1, 2, 3]', -1), JSONHas('{"a": 1}'), toTypeName(JSONHas('{}', 'a'));
SELECT JSONLength('{"a": 1, "b": 2}'), JSONLength('[1, 2, 3]'), JSONLength('{"a": [1, 2]}', 'a'), JSONLength('"abc"'), JSONLength('1'), JSONLength('{}'), JSONLength('not json'), toTypeName(JSONLength('[]'));
SELECT JSONType('{"a": 1}'), JSONType('[1]'), JSONType('{"a": "x"}', 'a'), JSONType('{"a": -1}', 'a'), JSONType('{"a": 1}', 'a'), JSONType('{"a": 1.5}', 'a'), JSONType('{"a": true}', 'a'), JSONType('{"a": null}', 'a'), JSONType('{"a": 18446744073709551615}', 'a');
SELECT JSONType('{"a": 1}', 'b'), JSONType('bad');
SELECT JSONKey('{"a": 1, "b": 2}', 2), JSONKey('{"a": 1, "b": 2}', -1), JSONKey('{"a": {"x": 1}}', 'a', 1), JSONKey('[1, 2]', 1), JSONKey('{"a": 1}', 5);
SELECT JSONExtractInt('{"a": 42}', 'a'), JSONExtractInt('{"a": -42}', 'a'), JSONExtractInt('{"a": 3.9}', 'a'), JSONExtractInt('{"a": "7"}', 'a'), JSONExtractInt('{"a": true}', 'a'), JSONExtractInt('{"a": 1}', 'b'), JSONExtractInt('[10, 20, 30]', 2), JSONExtractInt('[10, 20, 30]', -1), JSONExtractInt('{"a": 18446744073709551615}', 'a');
SELECT JSONExtractUInt('{"a": 42}', 'a'), JSONExtractUInt('{"a": -1}', 'a'), JSONExtractUInt('{"a": 18446744073709551615}', 'a'), JSONExtractUInt('{"a": 2.5}', 'a'), toTypeName(JSONExtractUInt('{}', 'a')), toTypeName(JSONExtractInt('{}', 'a'));
SELECT JSONExtractFloat('{"a": 1.5}', 'a'), JSONExtractFloat('{"a": 2}', 'a'), JSONExtractFloat('{"a": -1e3}', 'a'), JSONExtractFloat('{"a": "x"}', 'a'), JSONExtractFloat('{"a": "1.25"}', 'a'), toTypeName(JSONExtractFloat('{}'));
SELECT JSONExtractBool('{"a": true}', 'a'), JSONExtractBool('{"a": false}', 'a'), JSONExtractBool('{"a": 1}', 'a'), JSONExtractBool('{"a": "true"}', 'a'), JSONExtractBool('{}', 'a'), toTypeName(JSONExtractBool('{}'));
SELECT JSONExtractString('{"a": "hello"}', 'a'), JSONExtractString('{"a": "esc\\"aped\\n"}', 'a'), JSONExtractString('{"a": "\\u00e9\\u4e2d"}', 'a'), JSONExtractString('{"a": 1}', 'a'), JSONExtractString('{"a": {"b": "deep"}}', 'a', 'b'), JSONExtractString('"top"'), JSONExtractString('{"a": null}', 'a');
SELECT JSONExtractRaw('{"a": {"b": [1, 2, {"c": "x"}]}}', 'a'), JSONExtractRaw('{"a": "s"}', 'a'), JSONExtractRaw('{"a": 1.50}', 'a'), JSONExtractRaw('{"a": true}'), JSONExtractRaw('{"a": 1}', 'missing'), JSONExtractRaw('[ 1 , 2 ]');
SELECT JSONExtractArrayRaw('[1, "a", [2], {"b": null}]'), JSONExtractArrayRaw('{"a": [true, false]}', 'a'), JSONExtractArrayRaw('{"a": 1}', 'a'), JSONExtractArrayRaw('[]'), toTypeName(JSONExtractArrayRaw('[]'));
SELECT JSONExtractKeys('{"a": 1, "b": {"c": 2}}'), JSONExtractKeys('{"a": 1, "b": {"c": 2}}', 'b'), JSONExtractKeys('[1, 2]'), JSONExtractKeys('{}'), toTypeName(JSONExtractKeys('{}'));
SELECT JSONExtractKeysAndValuesRaw('{"a": [1, 2], "b": "x"}'), JSONExtractKeysAndValuesRaw('{"x": {"y": 1}}', 'x'), JSONExtractKeysAndValuesRaw('[1]'), toTypeName(JSONExtractKeysAndValuesRaw('{}'));
SELECT JSONExtract('{"a": 1}', 'a', 'Int32'), JSONExtract('{"a": 1}', 'a', 'Nullable(Int32)'), JSONExtract('{"a": 1}', 'b', 'Nullable(Int32)'), JSONExtract('{"a": [1, 2, 3]}', 'a', 'Array(UInt8)'), JSONExtract('{"a": "str"}', 'a', 'String'), JSONExtract('{"a": 2.5}', 'a', 'Float32');
SELECT JSONExtract('{"a": ["x", "y"]}', 'a', 'Array(String)'), JSONExtract('[1, "s", 2.5]', 'Tuple(Int8, String, Float64)'), JSONExtract('{"n": 1, "s": "t"}', 'Tuple(s String, n UInt8)'), JSONExtract('{"a": [true, false, 1]}', 'a', 'Array(Bool)'), JSONExtract('{"a": 300}', 'a', 'UInt8'), JSONExtract('{"a": -1}', 'a', 'UInt32');
SELECT mapKeys(JSONExtract('{"a": {"x": 1, "y": 2}}', 'a', 'Map(String, Int32)')), mapValues(JSONExtract('{"a": {"x": 1, "y": 2}}', 'a', 'Map(String, Int32)')), JSONExtract('{"a": [[1], [2, 3]]}', 'a', 'Array(Array(Int64))'), toTypeName(JSONExtract('{}', 'Array(Nullable(String))'));
SELECT JSONExtract('{"a": "x"}', 'a', 'LowCardinality(String)'), JSONExtract('{"a": [1, null]}', 'a', 'Array(Nullable(Int8))'), JSONExtract('bad json', 'Int64'), JSONExtract('{"a": {"b": 1}}', 'a', 'String');
SELECT JSONExtractKeysAndValues('{"a": 1, "b": 2}', 'Int8'), JSONExtractKeysAndValues('{"a": "x", "b": 2}', 'String'), JSONExtractKeysAndValues('{"o": {"k": [1]}}', 'o', 'Array(Int32)'), toTypeName(JSONExtractKeysAndValues('{}', 'UInt8'));
SELECT JSONExtract('{"a": 1}', 'a'); -- { serverError UNKNOWN_TYPE }
SELECT JSONExtract('{"a": 1}'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT JSONExtract('{"a": 1}', 'a', 'NoSuchType'); -- { serverError UNKNOWN_TYPE }
SELECT JSONExtractInt(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONExtractInt('{"a": 1}', 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONHas(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT JSONExtractKeysAndValues('{}'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT JSONExtractIntCaseInsensitive('{"ABC": 1}', 'abc'), JSONExtractUIntCaseInsensitive('{"Abc": 2}', 'aBC'), JSONExtractFloatCaseInsensitive('{"X": 1.5}', 'x'), JSONExtractBoolCaseInsensitive('{"Flag": true}', 'FLAG'), JSONExtractStringCaseInsensitive('{"Name": "n"}', 'name'), JSONExtractInt('{"ABC": 1}', 'abc');
SELECT JSONExtractRawCaseInsensitive('{"A": {"b": 1}}', 'a'), JSONExtractArrayRawCaseInsensitive('{"L": [1, 2]}', 'l'), JSONExtractKeysCaseInsensitive('{"O": {"k1": 1, "k2": 2}}', 'o'), JSONExtractKeysAndValuesRawCaseInsensitive('{"O": {"k": "v"}}', 'o');
SELECT JSONExtractCaseInsensitive('{"A": [1, 2]}', 'a', 'Array(Int16)'), JSONExtractKeysAndValuesCaseInsensitive('{"O": {"k": 3}}', 'o', 'UInt8'), JSONExtractIntCaseInsensitive('{"a": 1, "A": 2}', 'A'), JSONExtractStringCaseInsensitive('{"Outer": {"INNER": "v"}}', 'outer', 'inner');
SELECT isValidJSON('{"a": 1}'), isValidJSON('[1, 2'), isValidJSON(''), isValidJSON('1'), isValidJSON('"s"'), isValidJSON('{a: 1}'), isValidJSON('null'), isValidJSON('{"a": 1} trailing'), toTypeName(isValidJSON('{}'));
SELECT JSONArrayLength('[1, 2, 3]'), JSONArrayLength('[]'), JSONArrayLength('{"a": 1}'), JSONArrayLength('bad'), JSON_ARRAY_LENGTH('[[1], 2]');
SELECT JSONHas(NULL, 'a'), JSONExtractInt(NULL, 'a'), JSONExtractString('{"a": "x"}', NULL), JSONLength(NULL), isValidJSON(NULL), JSONArrayLength(NULL), JSONExtract(NULL, 'Int8');
SELECT JSONExtractInt('', 'a'), JSONExtractString('', 'a'), JSONExtractKeys(''), JSONLength(''), JSONHas('', 'a'), JSONExtractRaw(''), JSONExtract('', 'Array(Int8)');
CREATE TABLE json_docs (id UInt8, doc String, key Nullable(String)) ENGINE = Memory;
INSERT INTO json_docs VALUES (1, '{"k": 10, "s": "a"}', 'k'), (2, '{"k": -5, "arr": [1, 2]}', 'arr'), (3, 'garbage', 'k'), (4, '{"s": "only"}', NULL);
SELECT id, JSONExtractInt(doc, 'k'), JSONExtractString(doc, 's'), JSONHas(doc, key), JSONLength(doc), JSONExtractRaw(doc, key), isValidJSON(doc), toTypeName(JSONHas(doc, key)), JSONArrayLength(doc), toTypeName(JSONArrayLength(doc)) FROM json_docs ORDER BY id;
SELECT id, JSONExtract(doc, 'k', 'Nullable(Int64)'), JSONExtractKeys(doc), simpleJSONExtractInt(doc, 'k'), JSON_VALUE(doc, '$.s') FROM json_docs ORDER BY id;
DROP TABLE json_docs;
SELECT JSON_EXISTS('{"a": {"b": 1}}', '$.a.b'), JSON_EXISTS('{"a": 1}', '$.b'), JSON_EXISTS('{"a": [1, 2]}', '$.a[1]'), JSON_EXISTS('{"a": [1, 2]}', '$.a[5]'), JSON_EXISTS('[1]', '$[0]'), JSON_EXISTS('bad', '$.a'), toTypeName(JSON_EXISTS('{}', '$'));
SELECT JSON_VALUE('{"a": "x"}', '$.a'), JSON_VALUE('{"a": 1.5}', '$.a'), JSON_VALUE('{"a": {"b": 1}}', '$.a'), JSON_VALUE('{"a": [1, 2]}', '$.a[0]'), JSON_VALUE('{"a": true}', '$.a'), JSON_VALUE('{"a": null}', '$.a'), JSON_VALUE('{}', '$.z'), toTypeName(JSON_VALUE('{}', '$'));
SELECT JSON_QUERY('{"a": {"b": 1}}', '$.a'), JSON_QUERY('{"a": [1, 2]}', '$.a'), JSON_QUERY('{"a": "x"}', '$.a'), JSON_QUERY('{"a": [1, 2]}', '$.a[*]'), JSON_QUERY('{"a": 1}', '$.b'), toTypeName(JSON_QUERY('{}', '$'));
SELECT JSON_VALUE('{"a": 1}', 'not a path'); -- { serverError BAD_ARGUMENTS }
SELECT JSON_EXISTS(1, '$'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSON_QUERY('{}'); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT simpleJSONHas('{"a": 1}', 'a'), simpleJSONHas('{"a": 1}', 'b'), visitParamHas('{"ab": 1}', 'a'), simpleJSONExtractInt('{"a": -12}', 'a'), simpleJSONExtractInt('{"a": "12"}', 'a'), simpleJSONExtractInt('{"a": 1.9}', 'a'), visitParamExtractInt('{"x": 1}', 'a');
SELECT simpleJSONExtractUInt('{"a": 12}', 'a'), simpleJSONExtractUInt('{"a": -12}', 'a'), visitParamExtractUInt('{"a": "5"}', 'a'), simpleJSONExtractFloat('{"a": 1.25}', 'a'), simpleJSONExtractFloat('{"a": -3}', 'a'), visitParamExtractFloat('{"a": "x"}', 'a');
SELECT simpleJSONExtractBool('{"a": true}', 'a'), simpleJSONExtractBool('{"a": false}', 'a'), simpleJSONExtractBool('{"a": 1}', 'a'), visitParamExtractBool('{"b": true}', 'a');
SELECT simpleJSONExtractRaw('{"a": {"b": [1, 2]}, "c": 3}', 'a'), simpleJSONExtractRaw('{"a": "s"}', 'a'), simpleJSONExtractRaw('{"a": 12 }', 'a'), visitParamExtractRaw('{}', 'a'), simpleJSONExtractRaw('{"a": [1, "]"]}', 'a');
SELECT simpleJSONExtractString('{"a": "hello"}', 'a'), simpleJSONExtractString('{"a": "q\\"uote"}', 'a'), simpleJSONExtractString('{"a": "\\u0041"}', 'a'), simpleJSONExtractString('{"a": 1}', 'a'), visitParamExtractString('{"a": "x"}', 'b');
SELECT simpleJSONExtractInt('{"a": {"a": 5}, "a": 7}', 'a'), simpleJSONExtractString('{"b": "x", "a": "first", "a": "second"}', 'a'), toTypeName(simpleJSONExtractInt('', 'a')), toTypeName(simpleJSONExtractUInt('', 'a')), toTypeName(simpleJSONExtractFloat('', 'a')), toTypeName(simpleJSONExtractBool('', 'a')), toTypeName(simpleJSONHas('', 'a'));
SELECT simpleJSONHas(NULL, 'a'), simpleJSONExtractString(NULL, 'a'), simpleJSONExtractInt('', ''), simpleJSONExtractRaw('', 'a');
SELECT simpleJSONExtractInt('{"a": 1}', number::String) FROM numbers(1); -- { serverError ILLEGAL_COLUMN }
SELECT simpleJSONHas(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT simpleJSONHas('{}'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
