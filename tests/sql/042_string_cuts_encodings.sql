-- substring and its forms, left/right, base64/base32/base58, bin/unbin, char, CRC checksums.
SELECT substring('añbcd', 2, 2), substring('abcde', -2), substring('abcde', -3, 2), substring('abcde', 0), substring('abc', 2, -1), substring('abcde', -10, 7);
SELECT substr('abc', 2), mid('abc', 2, 1), byteSlice('abc', 3), SUBSTRING('abcdef' FROM 2 FOR 3), substring('abc', 10), toTypeName(substring('abc', 1));
SELECT substring(toFixedString('abc', 5), 2, 2), substring(NULL, 1), substring('abc', toUInt8(2), toUInt8(1));
SELECT substringUTF8('añbcd', -2), substringUTF8('añbcd', 2, -1), substringUTF8('abc', 0), substringUTF8('añbcde', -10, 7), substringUTF8('añb', 2, 1);
SELECT left('abcde', 2), left('abcde', 0), left('abcde', -4), left('abcde', -10), right('abcde', 2), right('abcde', -10), right('abcde', 0), right('abcde', 7);
SELECT leftUTF8('añbc', 2), leftUTF8('añbc', -1), rightUTF8('añbc', 3), rightUTF8('añbc', -3), toTypeName(leftUTF8('a', 1));
SELECT number, substring('abcdef', number, 2), left('abcdef', number), rightUTF8('añbñc', number) FROM numbers(4);
SELECT substring('abc', '1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT substring([1, 2], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT base64Encode('abc'), base64Encode(''), base64Decode('YWJj'), tryBase64Decode('!!'), TO_BASE64('a'), FROM_BASE64('YQ==');
SELECT base64Decode('YWJj\n'), base64Decode(' YWJj'), tryBase64Decode('YQ'), base64URLDecode('YQ'), tryBase64URLDecode('YQ=='), tryBase64URLDecode('x');
SELECT base64URLEncode(unhex('FBFF3F')), base64Encode(unhex('FBFF3F')), hex(base64URLDecode('-_8_')), base64URLEncode('a'), hex(base64Decode('/w=='));
SELECT base64Encode(toFixedString('a', 3)), base64Encode(NULL), toTypeName(base64Encode('a'));
SELECT base64Decode('YWJ'); -- { serverError INCORRECT_DATA }
SELECT base64Decode('YQ='); -- { serverError INCORRECT_DATA }
SELECT base32Encode('abc'), base32Decode('MFRGG==='), tryBase32Decode('1'), base32Encode('');
SELECT base32Decode('MFRGG'); -- { serverError INCORRECT_DATA }
SELECT base58Encode('abc'), base58Decode('ZiCa'), tryBase58Decode('0'), base58Encode(''), base58Encode(unhex('000061')), base58Decode('');
SELECT base58Decode('0OIl'); -- { serverError INCORRECT_DATA }
SELECT s, base64Decode(base64Encode(s)) = s, base58Decode(base58Encode(s)) = s, base32Decode(base32Encode(s)) = s FROM (SELECT arrayJoin(['', 'a', 'hello world', 'ñ']) AS s) ORDER BY s;
SELECT bin('ab'), bin(5), bin(256), bin(toUInt16(5)), bin(-1), bin(1.5), bin(toFloat32(1.5)), bin('');
SELECT unbin('0110000101100010'), hex(unbin('1')), hex(unbin('101')), unbin(''), toTypeName(unbin('1')), unbin(bin('hello'));
SELECT number, bin(number), char(number + 65) FROM numbers(3);
SELECT char(104, 105), hex(char(300)), hex(char(-1)), char(65.7), toTypeName(char(65));
SELECT CRC32('abc'), CRC32IEEE('abc'), CRC64('abc'), CRC32(''), CRC64(''), toTypeName(CRC32('a')), toTypeName(CRC32IEEE('a')), toTypeName(CRC64('a'));
SELECT crc32('The quick brown fox'), CRC32(NULL);
SELECT CRC32(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
