-- Bit functions (bitNot, rotations, bit tests, Hamming distance, bitSlice) and random numbers and strings: their types, ranges and argument checks, never their values.
SELECT bitNot(1), toTypeName(bitNot(1)), bitNot(toInt8(5)), bitNot(toUInt64(0)), bitNot(NULL), bitNot(1.5), toTypeName(bitNot(1.5)), toTypeName(bitNot(toFloat32(1.5))), bitNot(toFloat32(-1.5)), bitNot(true);
SELECT hex(bitNot('abc')), toTypeName(bitNot('abc')), hex(bitNot('')), hex(bitNot('é'));
SELECT bitNot(toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitRotateLeft(1, 2), bitRotateLeft(toUInt8(129), 1), toTypeName(bitRotateLeft(toUInt8(129), 1)), bitRotateRight(toUInt8(1), 1), bitRotateLeft(toInt8(-128), 1), bitRotateLeft(toUInt8(1), 9), bitRotateLeft(toUInt8(1), -1), toTypeName(bitRotateLeft(toUInt16(1), toUInt64(3))), bitRotateRight(toUInt32(1), 1);
SELECT toTypeName(bitRotateLeft(toUInt8(1), -1)), bitRotateLeft(toUInt8(128), toUInt16(1)), bitRotateLeft(toUInt8(1), 7), bitRotateLeft(1, 200), bitRotateRight(toInt64(1), 1), bitRotateLeft(NULL, 1), bitRotateLeft(1, NULL), bitRotateLeft(toNullable(toUInt8(1)), 1);
SELECT number, bitRotateLeft(toUInt8(number + 1), number), bitRotateRight(toUInt16(number + 1), number) FROM numbers(4) ORDER BY number;
SELECT bitRotateLeft(1.5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitRotateLeft(1, 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTest(5, 0), bitTest(5, 1), toTypeName(bitTest(5, 0)), bitTest(toUInt8(128), 7), bitTest(toInt8(-1), 7), bitTest(toUInt64(1), 63), bitTest(toUInt16(1), 15), bitTest(NULL, 1), bitTest(1, NULL), bitTest(5, materialize(2));
SELECT bitTest(toUInt8(128), 8); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT bitTest(1, -1); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT bitTest(1.5, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTest('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTestAll(5, 0, 2), bitTestAll(5, 0, 1), bitTestAny(5, 1, 2), bitTestAny(5, 1, 3), toTypeName(bitTestAny(5, 1)), bitTestAll(5, 0), bitTestAll(toUInt8(5), 0, 2), bitTestAny(toUInt8(5), toUInt16(1), 2), bitTestAny(toInt8(-1), 7), bitTestAll(5, 0, NULL);
SELECT number, bitTestAll(number, 0, 1), bitTestAny(number, 0, 1) FROM numbers(4) ORDER BY number;
SELECT bitTestAll(5); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT bitTestAll(5, 0, 8); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT bitTestAll(1, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTestAll(1.5, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitHammingDistance(111, 121), toTypeName(bitHammingDistance(111, 121)), bitHammingDistance(toInt8(-1), toUInt64(0)), bitHammingDistance('abc', 'abd'), bitHammingDistance(1.5, 1), bitHammingDistance(-1.5, 1), bitHammingDistance('abc', 'ab');
SELECT bitHammingDistance(toUInt64(18446744073709551615), toInt8(-1)), bitHammingDistance(toUInt8(255), toInt8(-1)), bitHammingDistance(NULL, 1), bitHammingDistance('', ''), toTypeName(bitHammingDistance('a', 'b')), bitHammingDistance('ä', 'a');
SELECT bitHammingDistance(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hex(bitSlice('Hello', 1, 8)), hex(bitSlice('Hello', 1, 9)), hex(bitSlice('Hello', -4)), hex(bitSlice('Hello', 0)), toTypeName(bitSlice('Hello', 1, 8)), hex(bitSlice('Hello', 3, 5)), hex(bitSlice('Hello', -10, 4)), hex(bitSlice('', 1, 4)), hex(bitSlice('Hello', 2, -3)), hex(bitSlice('Hello', -3, -1));
SELECT hex(bitSlice('Hello', -50, 4)), hex(bitSlice('Hello', -42, 4)), hex(bitSlice('Hello', -41, 4)), hex(bitSlice('Hello', 38, 10)), hex(bitSlice('Hello', 41, 1)), hex(bitSlice('Hello', 1, 0)), hex(bitSlice('Hello', 1, -40)), hex(bitSlice('Hello', 2)), hex(bitSlice('Hello', 2, 100)), bitSlice(NULL, 1, 2);
SELECT hex(bitSlice(toFixedString('ab', 3), 1, 12)), hex(bitSlice('Hello', -41, -30)), hex(bitSlice('Hello', -40, 8)), hex(bitSlice('привет', 3, 12));
SELECT number, hex(bitSlice('abc', number + 1, 5)) FROM numbers(4) ORDER BY number;
SELECT bitSlice(1, 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTypeName(rand()), toTypeName(rand32()), toTypeName(rand64()), toTypeName(randConstant()), toTypeName(rand(1)), toTypeName(rand64(NULL)), toTypeName(randCanonical());
SELECT toTypeName(randUniform(1, 2)), toTypeName(randNormal(0, 1)), toTypeName(randLogNormal(0, 1)), toTypeName(randExponential(1)), toTypeName(randChiSquared(2)), toTypeName(randStudentT(2)), toTypeName(randFisherF(2, 3));
SELECT toTypeName(randBernoulli(0.5)), toTypeName(randBinomial(10, 0.5)), toTypeName(randNegativeBinomial(10, 0.5)), toTypeName(randPoisson(3));
SELECT count(), count(DISTINCT randConstant()), count(DISTINCT rand()) > 900, count(DISTINCT rand64()) > 900, min(rand32()) >= 0, max(rand() < 4294967296) FROM numbers(1000);
SELECT min(randCanonical()) >= 0, max(randCanonical()) < 1, min(randUniform(5, 7)) >= 5, max(randUniform(5, 7)) <= 7, min(randUniform(-1.5, 2.5)) >= -1.5, max(randUniform(-1.5, 2.5)) <= 2.5 FROM numbers(1000);
SELECT abs(avg(randNormal(10, 1)) - 10) < 0.5, min(randLogNormal(0, 1)) > 0, min(randExponential(2)) >= 0, min(randChiSquared(3)) >= 0, min(randFisherF(2, 3)) >= 0, count(randStudentT(5)) FROM numbers(1000);
SELECT min(randBernoulli(0.5)), max(randBernoulli(0.5)), max(randBinomial(10, 0.5)) <= 10, min(randPoisson(3)) >= 0, min(randNegativeBinomial(10, 0.5)) >= 0 FROM numbers(1000);
SELECT randUniform(1, 1), randNormal(5, 0), randBernoulli(0), randBernoulli(1), randBinomial(0, 0.5), randBinomial(5, 1.0), randPoisson(0), randNegativeBinomial(0, 0.5), randNegativeBinomial(1, 1.0), randNegativeBinomial(1, 0.0), randUniform(0.5, 0.5), randUniform(NULL, 1);
SELECT randUniform(1, 2, 3) BETWEEN 1 AND 2, randNormal(1, 0, 3), toTypeName(randUniform(toFloat32(1), 2));
SELECT randUniform(5, 1); -- { serverError BAD_ARGUMENTS }
SELECT randBernoulli(2); -- { serverError BAD_ARGUMENTS }
SELECT randBinomial(10, 1.5); -- { serverError BAD_ARGUMENTS }
SELECT randNormal(0, -1.0); -- { serverError BAD_ARGUMENTS }
SELECT randLogNormal(0, -1.0); -- { serverError BAD_ARGUMENTS }
SELECT randExponential(-1.0); -- { serverError BAD_ARGUMENTS }
SELECT randChiSquared(-1.0); -- { serverError BAD_ARGUMENTS }
SELECT randStudentT(0.0); -- { serverError BAD_ARGUMENTS }
SELECT randFisherF(0.0, 1); -- { serverError BAD_ARGUMENTS }
SELECT randUniform('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT randUniform(-1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT rand(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toTypeName(randomString(3)), toTypeName(randomFixedString(3)), toTypeName(randomPrintableASCII(3)), toTypeName(randomStringUTF8(3)), toTypeName(fuzzBits('abc', 0.5)), toTypeName(fuzzBits(toFixedString('ab', 2), 0.5));
SELECT length(randomString(5)), length(randomPrintableASCII(7)), lengthUTF8(randomStringUTF8(4)), randomString(0) = '', randomPrintableASCII(0), randomStringUTF8(0), length(randomFixedString(4)), randomString(NULL), randomString(toUInt64(2)) != randomString(toUInt64(2), 1);
SELECT min(length(randomString(number))) = 0, max(length(randomString(number))) = 9, countIf(match(randomPrintableASCII(20), '^[ -~]{20}$')), countIf(isValidUTF8(randomStringUTF8(number))) FROM numbers(10);
SELECT fuzzBits('abc', 0.0), fuzzBits('', 0.5), fuzzBits(toFixedString('ab', 2), 0.), fuzzBits(NULL, 0.5), hex(fuzzBits('abc', 1.0)), length(fuzzBits('abcdef', 0.5));
SELECT randomString(-1); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT randomString('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT randomString(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT randomFixedString(0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT fuzzBits('abc', 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
