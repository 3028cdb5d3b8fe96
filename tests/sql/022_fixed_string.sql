-- FixedString(N): N bytes, zero-padded; text is read into it wherever it meets one.
SELECT toFixedString('ab', 3) AS x, length(x), toTypeName(x), toString(x) = 'ab', length(toString(x));
SELECT toFixedString('ab', 3) = 'ab', toFixedString('ab', 3) = 'abc', toFixedString('abc', 3) < 'abd';
SELECT CAST('z' AS FixedString(2)) AS z, toTypeName(z);
SELECT toFixedString('abcd', 3); -- { serverError TOO_LARGE_STRING_SIZE }
DROP TABLE IF EXISTS fixed;
CREATE TABLE fixed (k UInt32, b FixedString(3), n Nullable(FixedString(2))) ENGINE = MergeTree ORDER BY b;
INSERT INTO fixed VALUES (1, 'abc', NULL), (2, 'a', 'xy');
INSERT INTO fixed SELECT number, toString(number), NULL FROM numbers(3);
SELECT * FROM fixed ORDER BY k, b;
SELECT k FROM fixed WHERE b = 'a';
SELECT k FROM fixed WHERE b IN ('abc', '1') ORDER BY k;
SELECT k, length(b), toTypeName(b) FROM fixed WHERE b BETWEEN 'a' AND 'b' ORDER BY k;
SELECT count(), max(b) FROM fixed;
INSERT INTO fixed VALUES (9, 'abcd', NULL); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT count() FROM fixed;
DROP TABLE fixed;
