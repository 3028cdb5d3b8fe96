-- Int128, UInt128, Int256 and UInt256: conversions, types, wrapping.
SELECT toInt128(-1), toUInt128(-1), toInt256(-1), toUInt256(-1);
SELECT toInt128('170141183460469231731687303715884105727') AS x, toTypeName(x), x + 1;
SELECT toInt256('-57896044618658097711785492504343953926634992332820282019728792003956564819968') AS x, x - 1;
SELECT toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935') AS x, x + 2;
SELECT toInt128(1.9), toInt256(-2.5), toUInt128(toDecimal64(12.34, 2)), toInt128(true);
SELECT 46::Int128 AS a, CAST(7 AS UInt256) AS b, CAST('-3', 'Nullable(Int256)') AS c, toTypeName(a), toTypeName(b), toTypeName(c);
SELECT toInt64(toInt128(300)), toUInt8(toInt256(300)), toFloat64(toUInt256(-1)), toFloat64(toInt128(-1)), toString(toInt128(-5));
SELECT toInt128OrNull('x'), toUInt256OrZero('12'), toInt256OrDefault('abc', toInt256(7)), toUInt128OrNull('-1');
SELECT accurateCast(5, 'UInt256'), accurateCastOrNull(-1, 'UInt128'), accurateCastOrNull(toInt256(2) * toInt256('170141183460469231731687303715884105727'), 'Int128');
SELECT accurateCast(-1, 'UInt256'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT toInt128('12x'); -- { serverError CANNOT_PARSE_TEXT }
-- Arithmetic keeps the widest integer, signed if either operand is.
SELECT (toInt128(-1) + toInt8(1)) x, (toInt256(-1) + toUInt64(1)) y, toTypeName(x), toTypeName(y);
SELECT (toInt128(-1) + toUInt256(1)) x, (toUInt128(1) - toUInt128(2)) y, toTypeName(x), toTypeName(y);
SELECT (toInt128(-1) * toInt16(3)) x, intDiv(toInt256(-7), toInt8(2)) y, toTypeName(x), toTypeName(y);
SELECT intDiv(toInt8(7), toInt128(2)) x, toInt128(7) % toInt8(2) y, toInt8(7) % toInt128(2) z, toTypeName(x), toTypeName(y), toTypeName(z);
SELECT (toInt128(-1) / toInt8(-2)) x, (toInt256(-1) / toInt256(-1)) y, toTypeName(x), -toUInt128(5) AS n, toTypeName(n);
SELECT toInt128('170141183460469231731687303715884105727') * 2, toUInt256(-1) * toUInt256(-1);
SELECT intDivOrZero(toInt128(5), 0), intDiv(toInt128(5), 0); -- { serverError ILLEGAL_DIVISION }
SELECT toInt128(1) + 1.5; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Comparisons, sorting, aggregates.
SELECT toInt128(5) = 5, toInt128(5) > toUInt128(4), toUInt256(3) IN (1, 2, 3), toInt256(-1) < 0;
SELECT x FROM (SELECT toInt128(arrayJoin([3, -1, 2])) AS x) ORDER BY x DESC;
SELECT sum(toInt128(number)) AS s, toTypeName(s), max(toUInt256(number)), avg(toInt256(number)), min(toUInt128(number)) FROM numbers(10);
SELECT toInt256(number % 3) AS k, count() FROM numbers(10) GROUP BY k ORDER BY k;
SELECT concat('With ', materialize(46 :: Int128)), concatWithSeparator('|', 'a', materialize(53 :: UInt256));
SELECT toInt128(number * number) * number AS y, toDecimal32(y, 1), toDecimal128(y, 6) FROM numbers(4) ORDER BY number;
SELECT toInt128(number * -1) * number AS y, toInt128(y), toInt256(y), toUInt256(y) FROM numbers(4) ORDER BY number;
SELECT -number AS y, toInt128(number) + y, toInt256(number) + y, toUInt256(number) + y FROM numbers(4) ORDER BY number;
-- Columns: MergeTree and Memory, arrays and maps, text and JSON formats.
CREATE TABLE wide (k UInt64, i Int128, u UInt128, s Int256, w UInt256, a Array(Int128), m Map(String, UInt256)) ENGINE = MergeTree ORDER BY k;
INSERT INTO wide VALUES (1, -170141183460469231731687303715884105728, 340282366920938463463374607431768211455, -1, 115792089237316195423570985008687907853269984665640564039457584007913129639935, [1, -2], {'a': 3});
INSERT INTO wide SELECT number + 2, number, number, number, number, [number], map('b', number) FROM numbers(2);
SELECT * FROM wide ORDER BY k;
SELECT sum(i), sum(u), sum(s), toTypeName(sum(u)) FROM wide WHERE k > 1;
SELECT i, w FROM wide ORDER BY k FORMAT JSONEachRow;
CREATE TABLE sums (x UInt64, i256 Int256, u256 UInt256, d256 Decimal256(2)) ENGINE = Memory;
INSERT INTO sums SELECT number * number * number AS x, x AS i256, x AS u256, x AS d256 FROM numbers(1000);
SELECT sum(x), sum(i256), sum(u256), sum(d256) FROM sums;
-- Bits, hex and hashes in the type's own width.
SELECT bitAnd(toInt128(12), 10), bitOr(toUInt256(12), 3), bitXor(toInt256(5), toInt8(1)), bitNot(toInt128(0)), bitNot(toUInt128(0));
SELECT bitShiftLeft(toInt128(1), 100), bitShiftRight(toUInt256(-1), 250), bitShiftRight(toInt256(-8), 2), bitShiftLeft(toUInt128(1), 128);
SELECT hex(toInt128(255)), hex(toUInt256(1)), hex(toInt128(-1));
SELECT cityHash64(toInt128(1)), sipHash64(toUInt256(1)), xxHash64(toInt256(-1));
SELECT least(toInt8(-128), toInt128(-129)) AS x, greatest(toUInt64('18446744073709551615'), toUInt256('18446744073709551616')) AS y, toTypeName(x), toTypeName(y);
SELECT if(number > 1, toInt128(number), toInt128(0)) AS v, toTypeName(v) FROM numbers(3);
SELECT groupArray(toInt128(number)), uniqExact(toUInt256(number)), argMax(toInt128(number), number) FROM numbers(3);
SELECT sum(toUInt128(number)) OVER (ORDER BY number) FROM numbers(3);
SELECT reinterpretAsUInt128(toInt128(-1)), reinterpretAsInt128(toUInt128(1)), reinterpretAsInt256(toUInt256(-1)), reinterpretAsUInt256(toInt8(-1));
SET allow_deprecated_error_prone_window_functions = 1;
SELECT runningDifference(x) AS d, toTypeName(d) FROM (SELECT arrayJoin([0, 1, 5, 10]::Array(UInt128)) AS x);
SELECT runningDifference(toInt256(number * number)) FROM numbers(4);
-- has and indexOf compare an array and a value of different integer types in their common type.
SELECT has([toInt128(1)], 1), indexOf([toUInt256(3)], 3), has([1, NULL, 2, 3], toUInt64(1)), indexOf([1, 2, 3], toUInt64(3)), has([1, 2], toInt8(-1));
SELECT hasAll([1, 2], [toUInt64(1)]), hasAny([toInt128(1)], [1, 5]), hasAny([toUInt256(7)], [toUInt8(7)]);
-- A number literal cast to a big integer type is read from its text.
SELECT 170141183460469231731687303715884105727::Int128 AS a, -5::Int256, 340282366920938463463374607431768211455::UInt128, toTypeName(a);
SELECT [0, 1, 170141183460469231731687303715884105727]::Array(UInt128) AS a, toTypeName(a);
SELECT toInt128(10) / 2.5, toFloat64(1) / toInt256(4);
