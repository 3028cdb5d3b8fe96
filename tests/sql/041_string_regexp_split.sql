-- Regular expressions (RE2 reading: ASCII classes, dot matches newline) and splitting.
SELECT extract('abc123def456', '\\d+'), extract('abc', '(\\d+)'), extract('key=val', 'key=(\\w+)'), extract('ab', '(a)(b)'), extract('', 'x'), extract('abc', 'a(x)?bc');
SELECT extract('añb', 'a(.)b'), match('a\nb', 'a.b'), match('x١', '\\d'), extract('2024-01-02', '(\\d+)-(\\d+)');
SELECT extractAll('a1b22c333', '\\d+'), extractAll('k1=v1, k2=v2', '(\\w+)=(\\w+)'), extractAll('abc', ''), extractAll('abc', '(x)?b'), extractAll('baaa', 'a*');
SELECT extractGroups('k1=v1, k2=v2', '(\\w+)=(\\w+)'), extractGroups('x', '(a)');
SELECT extractAllGroupsHorizontal('k1=v1, k2=v2', '(\\w+)=(\\w+)'), extractAllGroupsVertical('k1=v1, k2=v2', '(\\w+)=(\\w+)'), extractAllGroups('k1=v1', '(\\w+)=(\\w+)');
SELECT extractAllGroupsHorizontal('abc', '(x)'), extractAllGroupsVertical('', '(a)');
SELECT extractGroups('abc', 'b'); -- { serverError BAD_ARGUMENTS }
SELECT extractAllGroupsVertical('abc', 'x'); -- { serverError BAD_ARGUMENTS }
SELECT extract('abc', '('); -- { serverError CANNOT_COMPILE_REGEXP }
SELECT regexpExtract('100-200', '(\\d+)-(\\d+)', 1), regexpExtract('100-200', '(\\d+)-(\\d+)'), regexpExtract('100-200', '(\\d+)-(\\d+)', 0), regexpExtract('x', '(\\d+)', 1);
SELECT regexpExtract('a1', '\\d'), REGEXP_EXTRACT('k=v', '(\\w)=(\\w)', 2), REGEXP_SUBSTR('a1b2', '\\d');
SELECT regexpExtract('100-200', '(\\d+)-(\\d+)', 3); -- { serverError INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE }
SELECT regexpExtract('a1', '\\d', 1); -- { serverError INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE }
SELECT countMatches('aaa', 'a'), countMatches('abcabc', 'b.'), countMatches('abc', ''), countMatches('baaa', 'a*'), countMatches('abc', 'x*'), countMatchesCaseInsensitive('AaA', 'a'), toTypeName(countMatches('a', 'a'));
SELECT match('ABC', '(?i)abc'), match('abc', '^b'), REGEXP_MATCHES('ab', 'b'), matchCaseInsensitive('ABC', 'b'), notMatch('abc', 'b'), notMatchCaseInsensitive('ABC', 'b'), toTypeName(notMatch('a', 'a'));
SELECT s, match(s, '^\\d+$'), extract(s, '[a-z]+') FROM (SELECT arrayJoin(['123', 'ab12', '', 'x']) AS s) ORDER BY s;
SELECT count() FROM numbers(20) WHERE match(toString(number), '^1\\d$');
SELECT multiMatchAny('abc', ['x', 'b+']), multiMatchAny('abc', ['x', 'y']), multiMatchAnyIndex('abc', ['x', 'b+']), multiMatchAnyIndex('abc', ['x']), multiMatchAllIndices('abc', ['x', 'c']), multiMatchAny('', ['^$']);
SELECT toTypeName(multiMatchAnyIndex('a', ['a'])), toTypeName(multiMatchAllIndices('a', ['a']));
SELECT regexpQuoteMeta('a.b*c\\d[]'), regexpQuoteMeta('\\|()^$.[]?*+{}-:'), regexpQuoteMeta('plain text_1');
SELECT REGEXP_REPLACE('aXbX', 'X', '-'), regexp_replace('aXbX', 'X', '-');
SELECT splitByRegexp('\\d+', 'a12bc23de345f'), splitByRegexp('', 'abc'), splitByRegexp('\\d+', 'a12bc23de345f', 2), splitByRegexp('x', ''), splitByRegexp('\\d', '1a2');
SELECT splitByChar(',', 'a,b,c'), splitByChar(',', 'a,b,c', 2), splitByChar(',', ''), splitByChar(',', ',a,'), splitByChar(',', 'a,b,c', 0);
SELECT splitByString(', ', 'a, b, c'), splitByString(', ', 'a, b, c', 2), splitByString('', 'abc'), splitByString('ab', 'xabyab'), splitByString(', ', '');
SELECT splitByChar(',,', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT splitByWhitespace('  a  b\tc\nd  '), splitByWhitespace(''), splitByWhitespace('a b c', 2), splitByWhitespace('a b c', -1), splitByWhitespace('añ b');
SELECT splitByNonAlpha('  1.  2, a_b-c añb '), splitByNonAlpha('a,b,c', 2), splitByNonAlpha('');
SELECT alphaTokens('abc1def 2 gh'), splitByAlpha('añb c'), alphaTokens('a b c', 2), alphaTokens('123');
SELECT ngrams('abcd', 2), ngrams('añb', 2), ngrams('a', 3), ngrams('', 1), ngrams('abc', 1);
SELECT ngrams('abc', 0); -- { serverError BAD_ARGUMENTS }
SELECT reverseBySeparator('a.b.c', '.'), reverseBySeparator('www.clickhouse.com'), reverseBySeparator('a--b', '--'), reverseBySeparator('');
SELECT trimLeft('xxaxx', 'x'), trimRight('xxaxx', 'x'), trimBoth('xyaxy', 'xy'), trimBoth('  a ');
SELECT number, splitByChar('-', concat('a-', toString(number))) FROM numbers(3);
