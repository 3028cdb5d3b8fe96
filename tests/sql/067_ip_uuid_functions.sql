-- IP address functions over UInt32 and FixedString(16) addresses (text to number and back, IPv4-mapped IPv6, cutIPv6, validity checks, CIDR ranges) and UUID conversions (UUIDStringToNum, UUIDNumToString, UUIDToNum, UUIDv7ToDateTime, toUUIDOrDefault).
SELECT IPv4NumToString(3232235521), IPv4NumToString(0), IPv4NumToString(4294967295), IPv4NumToString(toUInt8(1)), IPv4NumToString(toUInt16(258)), INET_NTOA(167772161), toTypeName(IPv4NumToString(1));
SELECT IPv4NumToStringClassC(3232235521), IPv4NumToStringClassC(0), IPv4NumToStringClassC(4294967295), toTypeName(IPv4NumToStringClassC(1));
SELECT IPv4StringToNum('192.168.0.1'), IPv4StringToNum('0.0.0.0'), IPv4StringToNum('255.255.255.255'), INET_ATON('10.0.0.1'), toTypeName(IPv4StringToNum('1.2.3.4'));
SELECT IPv4StringToNumOrDefault('1.2.3.4'), IPv4StringToNumOrDefault('abc'), IPv4StringToNumOrDefault(''), IPv4StringToNumOrDefault('256.1.1.1'), IPv4StringToNumOrDefault('1.2.3'), IPv4StringToNumOrDefault('1.2.3.4.5'), IPv4StringToNumOrDefault(' 1.2.3.4');
SELECT IPv4StringToNumOrNull('1.2.3.4'), IPv4StringToNumOrNull('abc'), IPv4StringToNumOrNull(''), IPv4StringToNumOrNull('1.2.3.-4'), IPv4StringToNumOrNull('01.2.3.4');
SELECT IPv4StringToNumOrNull(NULL); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6StringToNumOrDefault(NULL); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv4StringToNum('bad'); -- { serverError CANNOT_PARSE_IPV4 }
SELECT IPv4StringToNum(''); -- { serverError CANNOT_PARSE_IPV4 }
SELECT IPv4StringToNum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv4NumToString('1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv4NumToString(toInt32(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv4NumToString(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT hex(IPv6StringToNum('::1')), hex(IPv6StringToNum('2001:db8::ff00:42:8329')), hex(IPv6StringToNum('::ffff:1.2.3.4')), hex(IPv6StringToNum('1.2.3.4')), hex(INET6_ATON('fe80::1')), toTypeName(IPv6StringToNum('::'));
SELECT hex(IPv6StringToNum('::')), hex(IPv6StringToNum('FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF')), hex(IPv6StringToNum('1:2:3:4:5:6:7:8')), hex(IPv6StringToNum('1::8')), hex(IPv6StringToNum('::2:3:4:5:6:7:8'));
SELECT hex(IPv6StringToNumOrDefault('bad')), hex(IPv6StringToNumOrDefault('1:2:3')), hex(IPv6StringToNumOrDefault('1::2::3')), hex(IPv6StringToNumOrDefault('')), hex(IPv6StringToNumOrDefault('::1'));
SELECT IPv6StringToNumOrNull('bad'), IPv6StringToNumOrNull('12345::'), hex(IPv6StringToNumOrNull('::1')), IPv6StringToNumOrNull('::ffff:1.2.3');
SELECT IPv6StringToNum('not an ip'); -- { serverError CANNOT_PARSE_IPV6 }
SELECT IPv6StringToNum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6NumToString(IPv6StringToNum('2001:db8:0:0:1:0:0:1')), IPv6NumToString(IPv6StringToNum('::')), IPv6NumToString(IPv6StringToNum('::1')), IPv6NumToString(IPv6StringToNum('::ffff:10.0.0.1')), IPv6NumToString(IPv6StringToNum('1:0:0:2:0:0:0:3'));
SELECT IPv6NumToString(IPv6StringToNum('2001:DB8::1')), IPv6NumToString(IPv6StringToNum('1:2:3:4:5:6:7:8')), IPv6NumToString(IPv6StringToNum('1:0:2:0:3:0:4:0')), INET6_NTOA(IPv6StringToNum('fe80::abcd')), toTypeName(IPv6NumToString(IPv6StringToNum('::')));
SELECT IPv6NumToString(IPv6StringToNum('::1.2.3.4')), IPv6NumToString(toFixedString('0123456789abcdef', 16)), IPv6NumToString(NULL);
SELECT IPv6NumToString('abc'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6NumToString(toFixedString('abc', 3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6NumToString(IPv4ToIPv6(IPv4StringToNum('192.168.0.1'))), hex(IPv4ToIPv6(toUInt32(1))), hex(IPv4ToIPv6(toUInt32(0))), toTypeName(IPv4ToIPv6(toUInt32(1)));
SELECT IPv4ToIPv6(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv4ToIPv6('1.2.3.4'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT cutIPv6(IPv6StringToNum('2001:db8:ac10:fe01:feed:babe:cafe:f00d'), 2, 0), cutIPv6(IPv6StringToNum('2001:db8:ac10:fe01:feed:babe:cafe:f00d'), 10, 0), cutIPv6(IPv6StringToNum('::ffff:192.168.1.1'), 0, 1), cutIPv6(IPv6StringToNum('::ffff:192.168.1.1'), 0, 2), cutIPv6(IPv6StringToNum('::1'), 16, 0);
SELECT cutIPv6(IPv6StringToNum('::1'), 17, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT cutIPv6(IPv6StringToNum('::1'), 0, 17); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT cutIPv6(IPv6StringToNum('::1'), 1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT cutIPv6(IPv6StringToNum('::ffff:1.2.3.4'), 0, 5), cutIPv6(IPv6StringToNum('::1'), 0, 5), cutIPv6(IPv6StringToNum('2001:db8::1'), 16, 0), cutIPv6(IPv6StringToNum('::ffff:1.2.3.4'), 0, 16), cutIPv6(NULL, 1, 1);
SELECT cutIPv6('::1', 0, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isIPv4String('1.2.3.4'), isIPv4String('1.2.3'), isIPv4String(''), isIPv4String('::1'), isIPv4String('300.1.1.1'), isIPv4String(NULL), toTypeName(isIPv4String('a'));
SELECT isIPv6String('::1'), isIPv6String('2001:db8::1'), isIPv6String('1.2.3.4'), isIPv6String(''), isIPv6String('::ffff:1.2.3.4'), isIPv6String('gggg::'), isIPv6String(':::'), toTypeName(isIPv6String('a'));
SELECT isIPv4String(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isIPAddressInRange('127.0.0.1', '127.0.0.0/8'), isIPAddressInRange('128.0.0.1', '127.0.0.0/8'), isIPAddressInRange('10.1.2.3', '10.0.0.0/0'), isIPAddressInRange('10.1.2.3', '10.1.2.3/32'), isIPAddressInRange('::1', '::/0'), isIPAddressInRange('2001:db8::1', '2001:db8::/32'), isIPAddressInRange('2001:db9::1', '2001:db8::/32');
SELECT isIPAddressInRange('1.2.3.4', '::/0'), isIPAddressInRange('::ffff:1.2.3.4', '1.2.3.0/24'), toTypeName(isIPAddressInRange('1.1.1.1', '1.0.0.0/8'));
SELECT isIPAddressInRange('1.1.1.1', 'bad'); -- { serverError CANNOT_PARSE_TEXT }
SELECT isIPAddressInRange('not ip', '1.0.0.0/8'); -- { serverError CANNOT_PARSE_TEXT }
SELECT isIPAddressInRange('1.1.1.1', '1.0.0.0/33'); -- { serverError CANNOT_PARSE_TEXT }
SELECT isIPAddressInRange(1, '1.0.0.0/8'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE ip_text (id UInt8, ip Nullable(String)) ENGINE = Memory;
INSERT INTO ip_text VALUES (1, '10.0.0.1'), (2, 'junk'), (3, NULL), (4, '::1'), (5, '192.168.10.20');
SELECT id, IPv4StringToNumOrNull(ip), IPv4StringToNumOrDefault(ip), isIPv4String(ip), isIPv6String(ip), hex(IPv6StringToNumOrDefault(ip)), hex(IPv6StringToNumOrNull(ip)) FROM ip_text ORDER BY id;
SELECT id, isIPAddressInRange(ip, '10.0.0.0/8'), isIPAddressInRange(ip, '::/1') FROM ip_text WHERE id != 2 ORDER BY id;
SELECT id, toTypeName(IPv4StringToNumOrNull(ip)), toTypeName(IPv4StringToNumOrDefault(ip)), toTypeName(isIPv4String(ip)), IPv4NumToString(IPv4StringToNumOrDefault(ip)) FROM ip_text ORDER BY id LIMIT 1;
DROP TABLE ip_text;
SELECT number, IPv4NumToString(toUInt32(number * 16777217)), IPv4NumToStringClassC(toUInt32(number * 256 + 3232235520)) FROM numbers(3) ORDER BY number;
SELECT hex(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29')), hex(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29', 2)), hex(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29', 1)), toTypeName(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29'));
SELECT UUIDNumToString(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29')), UUIDNumToString(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29', 2), 2), UUIDNumToString(UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29'), 2), UUIDNumToString(toFixedString('0123456789abcdef', 16));
SELECT UUIDStringToNum(NULL), UUIDNumToString(NULL), toTypeName(UUIDNumToString(toFixedString('0123456789abcdef', 16)));
SELECT UUIDStringToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29', 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT UUIDStringToNum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT UUIDNumToString('abc'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT UUIDStringToNum(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT UUIDToNum(NULL);
SELECT UUIDToNum('612f3c40-5d3b-217e-707b-6a546a3d7b29'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT UUIDv7ToDateTime(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'), 'UTC'), UUIDv7ToDateTime(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'), 'Asia/Tokyo'), toTypeName(UUIDv7ToDateTime(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'), 'UTC'));
SELECT UUIDv7ToDateTime(toUUID('612f3c40-5d3b-217e-707b-6a546a3d7b29'), 'UTC'), UUIDv7ToDateTime(toUUID('00000000-0000-0000-0000-000000000000'), 'UTC'), UUIDv7ToDateTime(NULL);
SELECT UUIDv7ToDateTime('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toUUIDOrDefault('612f3c40-5d3b-217e-707b-6a546a3d7b29', toUUID('00000000-0000-0000-0000-000000000001')), toUUIDOrDefault('bad', toUUID('00000000-0000-0000-0000-000000000001')), toUUIDOrDefault('', toUUID('00000000-0000-0000-0000-000000000002')), toTypeName(toUUIDOrDefault('x', toUUID('00000000-0000-0000-0000-000000000001')));
SELECT toUUIDOrDefault('bad', 'x'); -- { serverError BAD_ARGUMENTS }
