-- Hashes, readable formatting, conditionals.
SELECT intHash32(1), intHash64(1), sipHash64('hello'), sipHash64(1);
SELECT intHash64(number) FROM numbers(3);
SELECT formatReadableSize(1234567890), formatReadableSize(0), formatReadableSize(100), formatReadableSize(1536);
SELECT formatReadableQuantity(1234567890), formatReadableQuantity(999), formatReadableQuantity(1000);
SELECT if(number > 1, 'big', 'small'), multiIf(number < 1, 'zero', number < 2, 'one', 'many') FROM numbers(3);
SELECT toTypeName(if(number > 5, 1, 1000)) FROM numbers(1);
SELECT if(number = 0, 0, 10 / number) FROM numbers(3);
SELECT currentDatabase();
SELECT SUM(number), COUNT(), Max(number) FROM numbers(4);
SELECT no_such_function(1); -- { serverError UNKNOWN_FUNCTION }
SELECT if(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT substr('hello world', 1, 5), substring('hello', 2), left('hello', 2), repeat('ab', 3);
SELECT substring(toString(number), 1, 1) AS d, count() FROM numbers(100) GROUP BY d ORDER BY d;
SELECT length('héllo'), lengthUTF8('héllo'), char_length('héllo'), length([1, 2, 3]), length(''), toTypeName(length('a'));
SELECT length(groupArray(number)) FROM numbers(7);
SELECT length(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
