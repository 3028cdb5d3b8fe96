-- Substring search: position, locate, countSubstrings, multiSearch*, hasSubsequence, hasToken, startsWith/endsWith forms.
SELECT position('abcabc', 'bc'), position('abcabc', 'bc', 3), position('abc', '', 2), position('abc', '', 5), position('abc', '', 0), position('', '');
SELECT position('añb', 'b'), positionUTF8('añbñ', 'ñ', 3), positionUTF8('añb', '', 4), positionUTF8('añb', '', 5);
SELECT positionCaseInsensitive('ABC', 'b'), positionCaseInsensitive('ÄB', 'ä'), positionCaseInsensitiveUTF8('АБВ', 'б'), positionCaseInsensitiveUTF8('aÑb', 'ñ', 3);
SELECT locate('b', 'abc'), locate('b', 'abcb', 3), instr('aBc', 'b'), LOCATE('c', 'abc'), POSITION('b' IN 'abc');
SELECT toTypeName(position('abc', 'b')), toTypeName(locate('a', 'a')), position(NULL, 'a'), position(toFixedString('abc', 5), 'c');
SELECT number, position('abcabc', 'c', number) FROM numbers(5);
SELECT s, position(s, 'o'), positionUTF8(s, 'ö') FROM (SELECT arrayJoin(['foo', 'föö', '', 'bar']) AS s) ORDER BY s;
SELECT position(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT position('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT countSubstrings('a'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT countSubstrings('aaaa', 'aa'), countSubstrings('abc', ''), countSubstrings('abcabc', 'abc', 2), countSubstrings('aaa', 'a', 0), countSubstrings('abab', 'ab', 10);
SELECT countSubstringsCaseInsensitive('AbAB', 'ab'), countSubstringsCaseInsensitiveUTF8('ÄäÄ', 'ä'), countSubstringsCaseInsensitiveUTF8('aÄä', 'ä', 2), toTypeName(countSubstrings('a', 'a'));
SELECT multiSearchAllPositions('abcab', ['ab', 'c', '', 'z']), multiSearchAllPositions('', ['', 'a']), toTypeName(multiSearchAllPositions('a', ['a']));
SELECT multiSearchAllPositionsCaseInsensitive('aBc', ['b', 'C']), multiSearchAllPositionsUTF8('ñabc', ['a', 'ñ']), multiSearchAllPositionsCaseInsensitiveUTF8('ÑAB', ['ñ', 'b']);
SELECT multiSearchFirstPosition('abcab', ['c', 'b']), multiSearchFirstPosition('abc', ['c', '']), multiSearchFirstPosition('', ['']), multiSearchFirstPositionCaseInsensitive('xAB', ['b']);
SELECT multiSearchFirstPositionUTF8('añb', ['b', 'ñ']), multiSearchFirstPositionCaseInsensitiveUTF8('ÑABC', ['ñ']);
SELECT multiSearchFirstIndex('abcab', ['z', 'c', 'b']), multiSearchFirstIndex('abc', ['c', 'a']), multiSearchFirstIndex('abc', ['', 'a']), multiSearchFirstIndexCaseInsensitive('ABC', ['x', 'b']);
SELECT multiSearchFirstIndexUTF8('ñb', ['b', 'ñ']), multiSearchFirstIndexCaseInsensitiveUTF8('Ñ', ['x', 'ñ']), toTypeName(multiSearchFirstIndex('a', ['a']));
SELECT multiSearchAny('abc', ['z', 'c']), multiSearchAny('', ['']), multiSearchAny('a', ['']), multiSearchAnyCaseInsensitive('ABC', ['b']), multiSearchAnyUTF8('ñ', ['ñ']), multiSearchAnyCaseInsensitiveUTF8('Ñ', ['ñ']);
SELECT s, multiSearchAny(s, ['ab', 'cd']), multiSearchFirstIndex(s, ['ab', 'cd']) FROM (SELECT arrayJoin(['xab', 'cdab', 'zz', '']) AS s) ORDER BY s;
SELECT hasSubsequence('garbage', 'arg'), hasSubsequence('abc', ''), hasSubsequence('', ''), hasSubsequence('abc', 'cb');
SELECT hasSubsequenceCaseInsensitive('ABC', 'ac'), hasSubsequenceUTF8('añb', 'ñb'), hasSubsequenceCaseInsensitiveUTF8('AÑB', 'ñ'), toTypeName(hasSubsequence('a', 'a'));
SELECT hasToken('abc def', 'abc'), hasToken('abc_def', 'abc'), hasToken('añb c', 'añb'), hasToken('a.b', 'a'), hasToken('abc', ''), hasToken('a1b,c', 'a1b'), hasToken('abcd', 'bc');
SELECT hasTokenCaseInsensitive('ABC x', 'abc'), hasTokenCaseInsensitive('xABCx', 'abc');
SELECT hasToken('abc', 'a b'); -- { serverError BAD_ARGUMENTS }
SELECT startsWithUTF8('añb', 'añ'), startsWithUTF8('a', ''), endsWithUTF8('añ', 'ñ'), startsWithCaseInsensitive('ABc', 'ab'), endsWithCaseInsensitive('abC', 'BC');
SELECT startsWithCaseInsensitiveUTF8('ÑAB', 'ña'), endsWithCaseInsensitiveUTF8('aÑ', 'ñ'), toTypeName(startsWithUTF8('a', 'a'));
SELECT count() FROM numbers(100) WHERE position(toString(number), '7') > 0;
SELECT hasTokenOrNull('abc', 'a b'), hasTokenOrNull('abc', 'abc'), hasTokenCaseInsensitiveOrNull('x', 'a,'), hasTokenCaseInsensitiveOrNull('X y', 'x');
SELECT s, hasTokenOrNull(s, 'a'), toTypeName(hasTokenOrNull(s, 'a')) FROM (SELECT arrayJoin(['a b', 'b']) AS s) ORDER BY s;
