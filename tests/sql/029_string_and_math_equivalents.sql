-- UTF-8 string forms, concatWithSeparator, exp2 and exp10.
SELECT lowerUTF8('ÄbÇ'), upperUTF8('äbç'), reverseUTF8('añb'), substringUTF8('añbcd', 2, 3), substringUTF8('añbcd', 3);
SELECT concatWithSeparator('-', 'a', 'b', 'c'), concatWithSeparator(', ', toString(number), 'x') FROM numbers(2);
SELECT exp2(3), exp2(0.5) > 1.41, exp10(2), exp10(-1);
SELECT exp2(number) FROM numbers(4);
