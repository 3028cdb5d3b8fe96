-- Type conversions: wrapping for numbers, parsing for strings.
SELECT toUInt8(300), toInt8(200), toUInt8(-1), toUInt64(1.9), toInt32(-1.9);
SELECT toUInt8('12'), toInt64('-42'), toFloat64('1.5'), toFloat32('0.1');
SELECT toString(42), toString(1.5), toString(toDate('2024-01-02')), toString(-7);
SELECT toDate('2024-01-02'), toDateTime('2024-01-02 03:04:05'), toDate(toDateTime('2024-03-04 05:06:07'));
SELECT toTypeName(toDate('2024-01-02')), toTypeName(toDateTime('2024-01-02 00:00:00'));
SELECT toDate('2024-01-02') + 1, toDateTime('2024-01-02 00:00:00') + 60;
SELECT toUInt8('abc'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toUInt8('300'), toInt8('200');
