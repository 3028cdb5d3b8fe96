-- IPv4CIDRToRange and IPv6CIDRToRange.
SELECT IPv4CIDRToRange(toIPv4('192.168.5.2'), 16) AS r, toTypeName(r);
SELECT IPv4CIDRToRange(toIPv4('192.168.5.2'), 0), IPv4CIDRToRange(toIPv4('192.168.5.2'), 32), IPv4CIDRToRange(toIPv4('192.168.5.2'), 40);
SELECT IPv4CIDRToRange(3232236802, 16);
SELECT tupleElement(IPv4CIDRToRange(toIPv4('10.1.2.3'), 8), 1) AS low, toTypeName(low), IPv4NumToString(tupleElement(IPv4CIDRToRange(toIPv4('10.1.2.3'), 8), 2));
SELECT IPv4CIDRToRange(toIPv4(concat('10.0.', toString(number), '.7')), toUInt8(20 + number)) FROM numbers(4);
SELECT IPv6CIDRToRange(toIPv6('2001:0db8:0000:85a3:0000:0000:ac1f:8001'), 32) AS r, toTypeName(r);
SELECT IPv6CIDRToRange(toIPv6('2001:db8::1'), 200), IPv6CIDRToRange(toIPv6('::'), 0), IPv6CIDRToRange(toIPv6('2001:db8::1'), 127);
SELECT IPv4CIDRToRange(toIPv4('1.2.3.4'), toUInt16(8)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6CIDRToRange('2001:db8::1', 8); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT IPv6CIDRToRange(toIPv4('1.2.3.4'), 8); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
