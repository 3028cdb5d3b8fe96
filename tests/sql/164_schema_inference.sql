-- Schema inference: format() without a structure finds the columns as ClickHouse does (names, a header row, merged kinds, Nullable)
DESCRIBE format(CSV, 'true,-3,2020-01-01 10:00:00.123,"2020-01-01","1","[1,2]",1e5,x');
DESCRIBE format(CSV, '1,\n2.5,3\n-1,18446744073709551615');
DESCRIBE format(CSV, 'a,b\n1,x\n2,y');
SELECT * FROM format(CSV, 'a,b\n1,x\n2,y') ORDER BY a;
SELECT * FROM format(CSV, 'a,b\nx,y');
DESCRIBE format(TSV, 'n\ts\n1\tx');
DESCRIBE format(TSV, '1\t2020-01-01 00:00:00\t[\'a\',\'b\']\tTrue\t\\N');
SELECT c1 + 1, c2, c3, c4, c5 FROM format(TSV, '1\t2020-01-01 00:00:00\t[\'a\',\'b\']\tTrue\t\\N');
DESCRIBE format(JSONEachRow, '{"a":1,"b":[1,2.5],"c":null,"d":"2020-01-01","e":"x"}\n{"a":2,"b":[],"f":true}');
SELECT * FROM format(JSONEachRow, '{"a":1,"b":[1,2.5],"c":null,"d":"2020-01-01","e":"x"}\n{"a":2,"b":[],"f":true}') ORDER BY a;
SELECT a, toTypeName(a), b FROM format(JSONEachRow, '{"a":1,"b":"x"} {"a":"7","b":"y"}') ORDER BY b;
DESCRIBE format(CSVWithNames, 'x,y\n1,2020-01-01\n2,');
SELECT x * 2, y FROM format(CSVWithNames, 'x,y\n1,2020-01-01\n2,') ORDER BY x;
DESCRIBE format(CSV, '');  -- { serverError CANNOT_EXTRACT_TABLE_STRUCTURE }
DESCRIBE format(JSONCompactEachRow, '[1,"x",[1,2]]\n[2.5,null,[]]');
SELECT * FROM format(JSONCompactEachRowWithNames, '["a","b"]\n[2,"y"]\n[3,"z"]') ORDER BY a;
DESCRIBE format(JSONCompactEachRowWithNamesAndTypes, '["a","b"]\n["UInt8","String"]\n[2,"y"]');
SELECT a + 1, b FROM format(JSONCompactStringsEachRowWithNamesAndTypes, '["a","b"]\n["UInt8","String"]\n["2","y"]');
SELECT * FROM format(LineAsString, 'a b\n\nc\n');
DESCRIBE format(LineAsString, 'x');
SELECT json, length(json) FROM format(JSONAsString, '[{"a":1}, {"b": [1, {"c": "}"}]}]');
SELECT raw_blob FROM format(RawBLOB, 'a\nb');
SELECT * FROM format(LineAsString, 'x UInt8', '1');  -- { serverError INCORRECT_QUERY }
SELECT * FROM format(JSONAsString, '1');  -- { serverError INCORRECT_DATA }
