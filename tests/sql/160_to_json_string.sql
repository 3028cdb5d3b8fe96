-- toJSONString writes a value as the JSON formats write it
SELECT toJSONString(map('a', 1)), toJSONString([1, 2]), toJSONString((1, 'x')), toJSONString(toUInt64(5)), toJSONString('a"b'), toJSONString(NULL), toJSONString(1.5), toJSONString(CAST((1, 'x'), 'Tuple(a UInt8, b String)')), toJSONString(toDate('2024-01-01')), toJSONString(nan), toJSONString([NULL, 1]);
SELECT toJSONString(x) FROM (SELECT arrayJoin([1, NULL]) AS x);
SELECT toJSONString(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')), toJSONString(toIPv4('1.2.3.4')), toJSONString(toDateTime('2024-01-01 00:00:00')), toJSONString(toDecimal32(1.5, 2)), toJSONString(true), toJSONString(1e300);
SELECT toJSONString(map('k', [1, 2], 'j', [])), toJSONString(number), JSONExtractInt(toJSONString(map('n', number)), 'n') FROM numbers(2);
