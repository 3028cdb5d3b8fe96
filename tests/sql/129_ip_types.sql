-- IPv4 and IPv6 types: conversions, casts, comparisons with text, ordering, storage, output
SELECT toIPv4('1.2.3.4') AS ip, toTypeName(ip), toUInt32(ip), ip = '1.2.3.4', toString(ip), ip < toIPv4('10.0.0.0');
SELECT toIPv6('::1') AS ip, toTypeName(ip), toIPv6('1.2.3.4') AS m, toString(m);
SELECT toIPv4OrNull('x'), toIPv4OrDefault('x'), toIPv6OrNull('zz'), toIPv4OrZero('x'), toIPv6OrDefault('x');
SELECT toIPv4('x'); -- { serverError CANNOT_PARSE_IPV4 }
SELECT toIPv6('1.2.3'); -- { serverError CANNOT_PARSE_IPV6 }
SELECT CAST('1.2.3.4' AS IPv4), CAST(16909060 AS IPv4), CAST('1.2.3.4' AS IPv6), CAST('::ffff:a00:1' AS IPv6);
SELECT toIPv4(167772161), IPv4NumToString(toIPv4('8.8.8.8')), IPv4ToIPv6(toIPv4('1.2.3.4')) AS v6, toTypeName(v6);

CREATE TABLE ips (a IPv4, b IPv6, c Nullable(IPv4), k UInt8) ENGINE = MergeTree ORDER BY k;
INSERT INTO ips VALUES ('10.0.0.1', '2001:db8::1', NULL, 1), ('9.1.1.1', '::ffff:1.2.3.4', '1.1.1.1', 2), (167772161, '::', NULL, 3);
INSERT INTO ips VALUES ('300.1.1.1', '::', NULL, 4); -- { serverError CANNOT_PARSE_IPV4 }
INSERT INTO ips (k) VALUES (5);
INSERT INTO ips FORMAT TSV 192.168.0.1	fe80::1	\N	6
;
INSERT INTO ips FORMAT JSONEachRow {"a": "8.8.4.4", "b": "2001:4860:4860::8888", "c": "8.8.8.8", "k": 7}
;
SELECT * FROM ips ORDER BY a, k;
SELECT * FROM ips ORDER BY b, k FORMAT JSONEachRow;
SELECT a, count() FROM ips GROUP BY a ORDER BY a;
SELECT k FROM ips WHERE a = '10.0.0.1' ORDER BY k;
SELECT k FROM ips WHERE a IN ('10.0.0.1', '9.1.1.1') ORDER BY k;
SELECT k FROM ips WHERE a > '9.5.0.0' ORDER BY k;
SELECT k FROM ips WHERE b = '::ffff:1.2.3.4';
SELECT k, IPv4NumToString(a), IPv6NumToString(b), toUInt32(a) + 1 FROM ips ORDER BY k;
SELECT toTypeName(a), toTypeName(b), toTypeName(c) FROM ips LIMIT 1;
SELECT toTypeName(toIPv4OrNull(IPv4NumToString(a))), toTypeName(toIPv6OrDefault(IPv6NumToString(b))) FROM ips LIMIT 1;
SELECT max(a), min(a), min(b), max(c), argMax(a, k), toTypeName(max(c)) FROM ips;
SELECT max(a), min(b), toTypeName(max(a)) FROM ips WHERE k > 100;
DESCRIBE ips;
SELECT k, a, b FROM ips ORDER BY k FORMAT CSV;
SELECT k, a, b FROM ips ORDER BY k FORMAT JSONCompactEachRow;
