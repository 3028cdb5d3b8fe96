-- Case, padding, concatenation, format, replaceOne, substringIndex, normalization, soundex, XML, byte statistics and string distances.
SELECT lower('ÄBC'), upper('äbc'), lcase('ABC'), UCASE('abc'), ucase('q'), lowerUTF8('ÄBC'), upperUTF8('äbc'), lower(''), upper(NULL);
SELECT initcap('hello wORLD foo-bar a1b añb'), initcapUTF8('hello wORLD añb ñandu élan'), initcap('');
SELECT leftPad('abc', 7, 'xy'), leftPad('abc', 2), leftPad('ñ', 4, '*'), rightPad('ñ', 4, '*'), leftPadUTF8('ñ', 4, '*'), rightPadUTF8('ñb', 5, 'éx');
SELECT concat('[', leftPad('a', 3, ''), ']'), leftPadUTF8('abc', 1), toTypeName(leftPad('a', 2)), lpad('a', 3, '0'), rpad('a', 2), leftPadUTF8('', 2, 'ab');
SELECT number, leftPad(toString(number), 3, '0'), rightPad(toString(number), 3, '.') FROM numbers(3);
SELECT leftPad('a', -1); -- { serverError INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE }
SELECT leftPad('a', 100000000000); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT concat('[', space(3), ']'), length(space(0)), toTypeName(space(2));
SELECT concat('a', NULL), concat('a', 1, 2.5, toDate('2020-01-01')), concatAssumeInjective('a', 'b'), concat('a'), concat(toFixedString('a', 3), 'b') = 'a\0\0b';
SELECT concat(1.0, 'x', 1e20, toDateTime('2020-01-01 00:00:00'), [1, 2]);
SELECT concatWithSeparator('-', 'a', NULL), concatWithSeparator('-', 'a', 1), concatWithSeparator('-'), concat_ws(',', 'a', 'b'), concatWithSeparatorAssumeInjective('-', 'a', 'b');
SELECT number, concat('n', toString(number)), concatWithSeparator('/', 'x', toString(number)) FROM numbers(3);
SELECT format('{} and {}', 'a', 'b'), format('{0}{1}{0}', 'a', 'b'), format('x{{y}}z', 'q'), format('{}', NULL), format('{} {}', 1, 2.5), format('{}', 'a', 'b');
SELECT format('{0} {}', 'a', 'b'); -- { serverError BAD_ARGUMENTS }
SELECT format('{', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT format('}', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT format('{} {}', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT replaceOne('aaa', 'a', 'b'), replaceOne('abc', '', 'x'), replaceOne('abc', 'z', 'x'), replaceOne('', 'a', 'b');
SELECT appendTrailingCharIfAbsent('ab', '/'), appendTrailingCharIfAbsent('ab/', '/'), appendTrailingCharIfAbsent('', '/');
SELECT appendTrailingCharIfAbsent('a', 'bc'); -- { serverError BAD_ARGUMENTS }
SELECT substringIndex('www.clickhouse.com', '.', 2), substringIndex('www.clickhouse.com', '.', -2), substringIndex('a.b', '.', 0), substringIndex('a.b', '.', 5), SUBSTRING_INDEX('a.b.c', '.', -1);
SELECT substringIndexUTF8('añbñc', 'ñ', 2), substringIndexUTF8('añbñc', 'ñ', -1), toTypeName(substringIndex('a', '.', 1));
SELECT substringIndex('a.b', '', 1); -- { serverError BAD_ARGUMENTS }
SELECT isValidUTF8(unhex('61FF')), isValidUTF8('añ'), isValidASCII('añ'), isASCII('a'), hex(toValidUTF8(unhex('61FF62C3'))), toTypeName(isValidUTF8('a'));
SELECT normalizeUTF8NFC('é') = 'é', length(normalizeUTF8NFD('é')), normalizeUTF8NFKC('ﬁ'), normalizeUTF8NFKD('ﬁ'), removeDiacriticsUTF8('Crème Brûlée ñ'), removeAccentsUTF8('é');
SELECT ascii(''), ascii('é'), ascii('abc'), toTypeName(ascii('a'));
SELECT firstLine('a\nb'), firstLine('a\r\nb'), firstLine(''), basename('/a/b/c.txt'), basename('a\\b'), basename('/a/'), basename('abc');
SELECT soundex('Robert'), soundex('Rupert'), soundex(''), soundex('123'), soundex('Tymczak'), soundex('Pfister'), soundex('Ashcraft'), soundex('Lloyd'), soundex('a-b'), soundex('WHW');
SELECT encodeXMLComponent('<a href="x">&\'</a>'), decodeXMLComponent('&lt;a&gt; &amp;amp; &quot;&apos; &#65;&#x42; &nbsp; &foo;'), decodeXMLComponent('&#1234567;&#65');
SELECT stringBytesUniq('aabbc'), stringBytesEntropy('aabbc'), stringBytesEntropy(''), stringBytesUniq(''), toTypeName(stringBytesUniq('a')), toTypeName(stringBytesEntropy('a'));
SELECT editDistance('kitten', 'sitting'), levenshteinDistance('a', ''), editDistanceUTF8('añb', 'anb'), levenshteinDistanceUTF8('ñ', 'n'), editDistance('añb', 'anb'), toTypeName(editDistance('a', 'b'));
SELECT damerauLevenshteinDistance('ca', 'abc'), damerauLevenshteinDistance('abcd', 'acbd'), damerauLevenshteinDistance('', 'ab');
SELECT jaroSimilarity('martha', 'marhta'), jaroSimilarity('', ''), jaroSimilarity('a', ''), jaroSimilarity('abc', 'xyz'), jaroSimilarity('añb', 'ab'), jaroSimilarity('ab', 'ba'), jaroSimilarity('crate', 'trace');
SELECT jaroWinklerSimilarity('martha', 'marhta'), jaroWinklerSimilarity('dixon', 'dicksonx'), jaroWinklerSimilarity('abcdefg', 'abcdxyz'), jaroWinklerSimilarity('abxxxx', 'abyyyy'), jaroWinklerSimilarity('dwayne', 'duane');
SELECT byteHammingDistance('karolin', 'kathrin'), mismatches('ab', 'abc'), byteHammingDistance('', ''), toTypeName(byteHammingDistance('a', 'b'));
SELECT stringJaccardIndex('clickhouse', 'mouse'), stringJaccardIndexUTF8('añb', 'ab'), stringJaccardIndex('', ''), toTypeName(stringJaccardIndex('a', 'b'));
SELECT editDistance(repeat('a', 70000), 'b'); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT overlay('abcdef', 'XY', 2), overlay('abcdef', 'XY', 2, 3), overlay('abcdef', 'XY', 0), overlay('abcdef', 'XY', -2, 1), overlay('abc', '', 2), overlay('abcdef' PLACING 'XY' FROM 2 FOR 3);
SELECT overlayUTF8('añbcd', 'XY', 2), overlayUTF8('añbcd', 'XY', 2, 3), overlayUTF8('añb', 'X', 0), overlayUTF8('añb', 'X', -1), overlayUTF8('añb', 'X', 10), overlayUTF8('añb', 'X', -10, 1), overlayUTF8('abc', 'X', 2, -1);
SELECT translateUTF8('añbñ', 'ñb', 'xy'), translateUTF8('abc', 'abc', 'x'), translateUTF8('', 'a', 'b'), translateUTF8('aaa', 'aa', 'xy'), translateUTF8('abc', 'ba', 'y');
SELECT translateUTF8('abc', 'a', 'xyz'); -- { serverError BAD_ARGUMENTS }
SELECT CHAR_LENGTH('añ'), CHARACTER_LENGTH('añ'), char_length('ab');
