-- Integer literals take the smallest type; arithmetic widens as ClickHouse does.
SELECT toTypeName(1), toTypeName(255), toTypeName(256), toTypeName(65536), toTypeName(4294967296);
SELECT toTypeName(-1), toTypeName(-129), toTypeName(-32769), toTypeName(-2147483649);
SELECT toTypeName(1.5), toTypeName(1e9), toTypeName('a'), toTypeName(NULL);
SELECT toTypeName(number % 10000), toTypeName(0 + (number % 10000)) FROM numbers(1);
SELECT toTypeName(number * 2), toTypeName(number / 2), toTypeName(intDiv(number, 2)), toTypeName(-number) FROM numbers(1);
SELECT toTypeName(1 + 1), toTypeName(1 - 1), toTypeName(255 * 255), toTypeName(10 % 3);
SELECT toTypeName(toUInt8(1) + toInt8(1)), toTypeName(toInt32(1) % toUInt16(3)), toTypeName(toFloat32(1) * toFloat32(2));
SELECT toTypeName(count()), toTypeName(sum(number)), toTypeName(avg(number)), toTypeName(uniq(number)) FROM numbers(3);
