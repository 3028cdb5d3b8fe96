-- materialize and identity, NULL helpers, trims, sign.
SELECT materialize(1), identity('a'), materialize(number) FROM numbers(2);
SELECT number, nullIf(number, 1), ifNull(nullIf(number, 1), 42), isZeroOrNull(nullIf(number, 1)) FROM numbers(3);
SELECT ifNull(NULL, 5), ifNull(3, 5), nullIf(2, 2), nullIf('a', 'b');
SELECT isZeroOrNull(0), isZeroOrNull(7), isZeroOrNull(NULL);
SELECT count() FROM numbers(10) WHERE isZeroOrNull(number % 3);
SELECT concat('|', trimLeft('  a b  '), '|'), concat('|', trimRight('  a b  '), '|'), concat('|', trimBoth('  a b  '), '|');
SELECT trimLeft(''), trimBoth('   ');
SELECT sign(-5), sign(0), sign(3.5), sign(-0.25), toTypeName(sign(-5));
SELECT toInt64(number) - 1 AS v, sign(v) FROM numbers(3);
SELECT ifNull(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
