-- Hash functions: cryptographic digests as FixedString, hashes over any arguments (SipHash, Murmur, farm, metro, wy, xxh3), Java-style string hashes and jumpConsistentHash.
SELECT hex(MD4('')), hex(MD4('abc')), hex(MD5('')), hex(MD5('abc')), toTypeName(MD5('abc')), length(MD5('x'));
SELECT hex(SHA1('abc')), hex(SHA224('abc')), hex(SHA256('abc')), toTypeName(SHA256('')), toTypeName(SHA1('')), toTypeName(SHA224(''));
SELECT hex(SHA384('abc')), hex(SHA512('abc')), hex(SHA512_256('abc')), toTypeName(SHA512('')), toTypeName(SHA384('')), toTypeName(SHA512_256(''));
SELECT hex(RIPEMD160('')), hex(RIPEMD160('The quick brown fox jumps over the lazy dog')), hex(keccak256('')), hex(keccak256('abc')), toTypeName(RIPEMD160('a')), toTypeName(keccak256('a'));
SELECT hex(MD5(NULL)), MD5(NULL), hex(MD5(toNullable('a'))), hex(SHA256(toFixedString('ab', 2))), hex(MD5(materialize('abc')));
SELECT number, hex(MD5(toString(number))), hex(SHA1(repeat('x', number))) FROM numbers(3) ORDER BY number;
SELECT hex(MD5(unhex('00ff'))), hex(SHA256(repeat('a', 1000)));
SELECT MD5(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT SHA256(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT SHA1('a', 'b'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT keccak256([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT halfMD5(''), halfMD5('abc'), halfMD5(1), halfMD5('a', 'b'), halfMD5(1, 2, 3), toTypeName(halfMD5('a')), halfMD5(NULL), halfMD5(toNullable('abc'));
SELECT hex(sipHash128('')), hex(sipHash128('abc')), toTypeName(sipHash128('abc')), hex(sipHash128(1, 'a')), hex(sipHash128Reference('abc')), hex(sipHash128Reference('')), toTypeName(sipHash128Reference('a'));
SELECT sipHash64Keyed(tuple(toUInt64(0), toUInt64(0)), 'abc') = sipHash64('abc'), sipHash64Keyed(tuple(toUInt64(1), toUInt64(2)), 'abc'), sipHash64Keyed(tuple(toUInt64(1), toUInt64(2)), 1, 'x'), toTypeName(sipHash64Keyed(tuple(toUInt64(1), toUInt64(2)), 'a'));
SELECT hex(sipHash128Keyed(tuple(toUInt64(1), toUInt64(2)), 'abc')), hex(sipHash128ReferenceKeyed(tuple(toUInt64(1), toUInt64(2)), 'abc')), hex(sipHash128ReferenceKeyed(tuple(toUInt64(0), toUInt64(0)), '')), sipHash128Keyed(tuple(toUInt64(0), toUInt64(0)), 'abc') = sipHash128('abc');
SELECT sipHash64Keyed(tuple(toUInt64(1), toUInt64(2))), metroHash64(), sipHash64Keyed(), hex(sipHash128Keyed()), hex(sipHash128()), hex(sipHash128ReferenceKeyed()), murmurHash3_32(), toTypeName(xxh3());
SELECT sipHash64Keyed(1, 'abc'); -- { serverError BAD_ARGUMENTS }
SELECT sipHash64Keyed(('a', 'b'), 'abc'); -- { serverError BAD_ARGUMENTS }
SELECT sipHash64Keyed((1, 2), 'abc'); -- { serverError BAD_ARGUMENTS }
SELECT farmFingerprint64(''), farmFingerprint64('abc'), farmFingerprint64(repeat('z', 100)), farmFingerprint64(1, 'a'), toTypeName(farmFingerprint64('a'));
SELECT metroHash64(''), metroHash64('abc'), metroHash64(repeat('z', 100)), metroHash64(1), metroHash64('a', 'b'), toTypeName(metroHash64('a'));
SELECT murmurHash2_32(''), murmurHash2_32('abc'), murmurHash2_32(1), murmurHash2_32('a', 'b'), toTypeName(murmurHash2_32('a')), murmurHash2_64(''), murmurHash2_64('abc'), murmurHash2_64(1), toTypeName(murmurHash2_64('a'));
SELECT gccMurmurHash(''), gccMurmurHash('abc'), gccMurmurHash(1, 2), toTypeName(gccMurmurHash('a')), kafkaMurmurHash(''), kafkaMurmurHash('abc'), kafkaMurmurHash('hello world'), kafkaMurmurHash(['a', 'b']), toTypeName(kafkaMurmurHash('a'));
SELECT murmurHash3_32(''), murmurHash3_32('abc'), murmurHash3_32(1), toTypeName(murmurHash3_32('a')), murmurHash3_64(''), murmurHash3_64('abc'), murmurHash3_64(1, 'x'), toTypeName(murmurHash3_64('a'));
SELECT hex(murmurHash3_128('')), hex(murmurHash3_128('abc')), hex(murmurHash3_128('a', 'b')), toTypeName(murmurHash3_128('a'));
SELECT wyHash64(''), wyHash64('abc'), wyHash64(repeat('q', 70)), toTypeName(wyHash64('a')), xxh3(''), xxh3('abc'), xxh3(repeat('q', 300)), xxh3(1), toTypeName(xxh3('a'));
SELECT murmurHash2_32(NULL), murmurHash3_64(toNullable('abc')), metroHash64(NULL, 1), xxh3(toNullable(1));
CREATE TABLE hash_nullable (s Nullable(String), n Nullable(Int32)) ENGINE = Memory;
INSERT INTO hash_nullable VALUES ('abc', 1), (NULL, NULL), ('', -1);
SELECT s, hex(MD5(s)), toTypeName(SHA1(s)), xxh3(s, n), toTypeName(xxh3(s, n)), murmurHash3_128(n) IS NULL, javaHash(n), toTypeName(hiveHash(s)) FROM hash_nullable ORDER BY s;
DROP TABLE hash_nullable;
SELECT number, murmurHash3_32(number), murmurHash2_64(toString(number)), wyHash64(number), farmFingerprint64(number) FROM numbers(3) ORDER BY number;
SELECT murmurHash3_32(toUInt8(1)), murmurHash3_32(toInt64(1)), murmurHash3_32(1.5), murmurHash3_32(toDate('2020-01-01')), murmurHash3_32([1, 2]), murmurHash3_32((1, 'a'));
SELECT javaHash(''), javaHash('abc'), javaHash('Hello, world!'), toTypeName(javaHash('a')), javaHash(toInt8(-1)), javaHash(toInt32(123456)), javaHash(toInt64(-1)), javaHash(toInt16(-300));
SELECT javaHash(toUInt8(7)); -- { serverError NOT_IMPLEMENTED }
SELECT hiveHash(''), hiveHash('abc'), hiveHash('Hello, world!'), toTypeName(hiveHash('a')), javaHashUTF16LE(unhex('610062006300')), javaHashUTF16LE(''), toTypeName(javaHashUTF16LE('ab'));
SELECT javaHash(NULL), hiveHash(toNullable('abc')), javaHash(materialize('abc'));
SELECT javaHash(['a']); -- { serverError NOT_IMPLEMENTED }
SELECT hiveHash(toUInt8(1)), hiveHash(toDate('2020-01-01'));
SELECT javaHash('a', 'b'); -- { serverError NOT_IMPLEMENTED }
SELECT javaHashUTF16LE(1); -- { serverError BAD_ARGUMENTS }
SELECT javaHash(1.5), javaHash(toFloat32(-2.5)), hiveHash(1.5);
SELECT jumpConsistentHash(1, 1), jumpConsistentHash(42, 10), jumpConsistentHash(toUInt64(18446744073709551615), 1000), jumpConsistentHash(256, 1), toTypeName(jumpConsistentHash(1, 2));
SELECT number, jumpConsistentHash(number, 3), jumpConsistentHash(number * 1000, 100) FROM numbers(5) ORDER BY number;
SELECT jumpConsistentHash(1, 0); -- { serverError BAD_ARGUMENTS }
SELECT jumpConsistentHash('a', 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT jumpConsistentHash(1, number + 1) FROM numbers(2); -- { serverError ILLEGAL_COLUMN }
SELECT cityHash64(''), cityHash64('abc'), cityHash64(1, 'a'), sipHash64('abc'), xxHash32('abc'), xxHash64('abc'), intHash32(1), intHash64(1);
