-- monthName: the English name of a moment's month on its own clock.
SELECT monthName(toDate('2020-02-03')), toTypeName(monthName(toDate('2020-02-03'))), monthName(toDateTime('2020-12-31 23:00:00')), monthName(toDateTime64('2020-05-01 00:00:00', 3));
SELECT monthName(toDateTime('2020-12-31 23:00:00', 'Asia/Tokyo')), monthName(toDateTime64('2020-04-30 20:00:00', 3, 'UTC')), monthName(toDateTime64('2020-04-30 20:00:00', 3, 'Asia/Tokyo'));
SELECT monthName(NULL), monthName(toNullable(toDate('2020-01-01'))) AS x, toTypeName(x);
SELECT number, monthName(toDate('1970-01-01') + number * 31) FROM numbers(12);
SELECT monthName(toDate32('1950-09-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT monthName('2020-03-01'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT monthName(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT monthName(toDateTime('2020-01-01 10:47:13'), 'UTC'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- timeSlot: the start of the half hour, counted in UTC, as a DateTime.
SELECT timeSlot(toDateTime('2020-01-01 10:47:13')) AS x, toTypeName(x), timeSlot(toDateTime('2020-01-01 10:17:13', 'Asia/Kolkata')) AS y, toTypeName(y);
SELECT timeSlot(toDateTime('2020-01-01 10:47:13', 'Asia/Kathmandu')), timeSlot(toDateTime('2020-01-01 10:17:13', 'Asia/Kathmandu')), timeSlot(toDateTime('2020-01-01 10:30:00')), timeSlot(toDateTime('2020-01-01 10:29:59'));
SELECT timeSlot(toDateTime64('2020-01-01 10:47:13.456', 3)) AS x, toTypeName(x), timeSlot(toDateTime64('2020-01-01 10:47:13.456', 3, 'Asia/Kathmandu')) AS y, toTypeName(y);
SELECT timeSlot(toDateTime('2020-01-01 10:47:13'), 'Asia/Kolkata') AS x, toTypeName(x), timeSlot(toDateTime64('2020-01-01 10:47:13.456', 6), 'Asia/Tokyo') AS y, toTypeName(y);
SELECT timeSlot(toDateTime64('2200-01-01 10:47:13.456', 3, 'UTC')), timeSlot(toDateTime64('1969-12-31 23:59:59.999', 3, 'UTC')), timeSlot(toDateTime64('1970-01-01 00:31:00', 3, 'UTC')), timeSlot(toDateTime('2106-02-07 06:28:15', 'UTC'));
SELECT timeSlot(NULL), timeSlot(toNullable(toDateTime('2020-01-01 10:47:13'))), timeSlot(toDateTime('2020-01-01 10:47:13'), NULL);
SELECT timeSlot(toDateTime('2020-01-01 00:00:00') + number * 1000) FROM numbers(5);
SELECT timeSlot(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlot(toDate32('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlot('2020-01-01 10:47:13'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlot(toDateTime('2020-01-01 10:47:13'), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlot(toDateTime('2020-01-01 10:47:13'), 'Bad/Zone'); -- { serverError BAD_ARGUMENTS }
SELECT timeSlot(toDateTime('2020-01-01 10:47:13'), 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- log1p and lgamma are Float64.
SELECT log1p(0), log1p(1), log1p(-1), log1p(-2), log1p(1e-20), toTypeName(log1p(1)), log1p(toFloat32(1)), log1p(inf), log1p(nan);
SELECT log1p(toDecimal32(1.5, 2)), log1p(18446744073709551615), log1p(-9223372036854775808), log1p(NULL), log1p(toUInt8(number)) FROM numbers(2);
SELECT lgamma(1), lgamma(2.5), lgamma(3), lgamma(0.5), lgamma(100), lgamma(-1.5), toTypeName(lgamma(1)), lgamma(toFloat32(2.5));
SELECT lgamma(0), lgamma(-1), lgamma(-2), lgamma(-1e300), lgamma(1e306), lgamma(inf), lgamma(-inf), lgamma(nan), lgamma(NULL);
SELECT log1p('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT lgamma(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- OCTET_LENGTH is length: bytes of a string, elements of an array.
SELECT OCTET_LENGTH('abc'), OCTET_LENGTH('ДА'), toTypeName(OCTET_LENGTH('a')), octet_length('x'), Octet_Length(''), OCTET_LENGTH([1, 2]), OCTET_LENGTH(NULL);
