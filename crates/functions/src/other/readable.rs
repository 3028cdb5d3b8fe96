//! Sizes and durations as people write them: `formatReadableSize` (powers
//! of 1024), `formatReadableDecimalSize` (of 1000) and `formatReadableQuantity`
//! (English names), with two decimals or as many as a second argument says; `parseReadableSize` and its
//! `OrNull`/`OrZero` forms (a non-negative number and a unit, decimal or
//! binary, rounded up to whole bytes), `parseTimeDelta` (a sum of
//! numbers with units, `1h 30m`, in seconds as Float64) and its inverse
//! `formatReadableTimeDelta` (`1 hour, 1 minute and 1 second`).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, StringArray, UInt64Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::readable::{
    readable_decimal_size_with, readable_quantity_with, readable_size_with,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, StrataError};

use super::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "formatReadableSize",
        aliases: &[],
        args: (1, 2),
        volatility: Volatility::Immutable,
        typing: readable_typing,
        eval: |call| format_readable(call, readable_size_with),
    },
    Spec {
        name: "formatReadableDecimalSize",
        aliases: &[],
        args: (1, 2),
        volatility: Volatility::Immutable,
        typing: readable_typing,
        eval: |call| format_readable(call, readable_decimal_size_with),
    },
    Spec {
        name: "formatReadableQuantity",
        aliases: &[],
        args: (1, 2),
        volatility: Volatility::Immutable,
        typing: readable_typing,
        eval: |call| format_readable(call, readable_quantity_with),
    },
    Spec {
        name: "parseReadableSize",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| size_typing(t, false),
        eval: |call| parse_sizes(call, Unparsed::Fail),
    },
    Spec {
        name: "parseReadableSizeOrNull",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| size_typing(t, true),
        eval: |call| parse_sizes(call, Unparsed::Null),
    },
    Spec {
        name: "parseReadableSizeOrZero",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| size_typing(t, false),
        eval: |call| parse_sizes(call, Unparsed::Zero),
    },
    Spec {
        name: "parseTimeDelta",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            expect_string(t, 0, "timestr")?;
            Ok(t.propagating(DataType::Float64))
        },
        eval: parse_time_deltas,
    },
    Spec {
        name: "formatReadableTimeDelta",
        aliases: &[],
        args: (1, 3),
        volatility: Volatility::Immutable,
        typing: |t| {
            expect_number(t, "column")?;
            for (i, param) in [(1, "maximum_unit"), (2, "minimum_unit")] {
                if i < t.fields.len() {
                    expect_string(t, i, param)?;
                }
            }
            Ok(t.propagating(DataType::Utf8))
        },
        eval: format_time_deltas,
    },
];

/// The units of `formatReadableTimeDelta`, largest first: name and length
/// in nanoseconds (a year is 365 days, a month 30.5).
const TIME_UNITS: [(&str, u128); 9] = [
    ("year", 365 * 86_400 * NANOS_PER_SECOND),
    (
        "month",
        30 * 86_400 * NANOS_PER_SECOND + 43_200 * NANOS_PER_SECOND,
    ),
    ("day", 86_400 * NANOS_PER_SECOND),
    ("hour", 3_600 * NANOS_PER_SECOND),
    ("minute", 60 * NANOS_PER_SECOND),
    ("second", NANOS_PER_SECOND),
    ("millisecond", 1_000_000),
    ("microsecond", 1_000),
    ("nanosecond", 1),
];
const NANOS_PER_SECOND: u128 = 1_000_000_000;
const SECOND_UNIT: usize = 5;
/// Seconds whose nanoseconds a u128 holds with room to spare.
const MAX_EXACT_SECONDS: f64 = 1e28;

/// The unit a constant argument names (`'hours'`), as an index of [`TIME_UNITS`].
fn time_unit(call: &Call, i: usize, default: usize, which: &str) -> Result<usize> {
    if i >= call.args.len() {
        return Ok(default);
    }
    let name = match call.constant(i) {
        Some(ScalarValue::Utf8(Some(name))) => name.clone(),
        _ => {
            return Err(failure(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "The {which} unit of function {} must be a constant string",
                    call.name
                ),
            ));
        }
    };
    TIME_UNITS
        .iter()
        .position(|(unit, _)| format!("{unit}s") == name)
        .ok_or_else(|| {
            failure(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Unexpected value of {which} unit argument ({name}) for function {}, the only allowed values are: 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'minutes', 'hours', 'days', 'months', 'years'",
                    call.name
                ),
            )
        })
}

/// `seconds` in the units from `largest` to `smallest` (indices of
/// [`TIME_UNITS`]), each unit that is not zero, joined by commas and a last
/// "and"; "0 seconds" where the seconds are shown and no unit above them.
fn time_delta(seconds: f64, largest: usize, smallest: usize) -> String {
    if !seconds.is_finite() {
        return format!("{seconds} seconds");
    }
    let sign = if seconds < 0.0 { "-" } else { "" };
    let whole = seconds.abs().trunc();
    if whole >= MAX_EXACT_SECONDS {
        // Past what the nanosecond count holds: the largest unit alone.
        let (unit, nanos) = TIME_UNITS[largest];
        let count = (whole / (nanos as f64 / 1e9)).floor();
        return match count >= 1e21 {
            true => format!("{sign}{count:e} {unit}s"),
            false => format!("{sign}{count} {unit}s"),
        };
    }
    // Whole seconds as such (they may pass f64's exact integers); the
    // fraction in nanoseconds, rounded once so that 0.001234 is 1234 µs.
    let mut rest =
        whole as u128 * NANOS_PER_SECOND + ((seconds.abs() - whole) * 1e9).round() as u128;
    let mut parts = Vec::new();
    for (index, &(unit, nanos)) in TIME_UNITS
        .iter()
        .enumerate()
        .take(smallest + 1)
        .skip(largest)
    {
        let count = rest / nanos;
        rest %= nanos;
        if count > 0 || (index == SECOND_UNIT && parts.is_empty()) {
            let plural = if count == 1 { "" } else { "s" };
            parts.push(format!("{count} {unit}{plural}"));
        }
    }
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => format!("{sign}{last}"),
        Some((last, others)) => format!("{sign}{} and {last}", others.join(", ")),
    }
}

fn format_time_deltas(call: &Call) -> Result<ColumnarValue> {
    let largest = time_unit(call, 1, 0, "maximum")?;
    let smallest = time_unit(call, 2, SECOND_UNIT, "minimum")?;
    if smallest < largest {
        return Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Explicitly specified value of minimum unit argument ({}s) for function {} must not be greater than maximum unit value ({}s)",
                TIME_UNITS[smallest].0, call.name, TIME_UNITS[largest].0
            ),
        ));
    }
    let values = cast::cast(&call.column(0)?, &DataType::Float64)?;
    let out: StringArray = values
        .as_primitive::<Float64Type>()
        .iter()
        .map(|v| v.map(|v| time_delta(v, largest, smallest)))
        .collect();
    call.output(Arc::new(out))
}

/// ILLEGAL_TYPE_OF_ARGUMENT in ClickHouse's words for checked arguments.
pub(crate) fn unexpected(t: &Typing, i: usize, param: &str, expected: &str) -> DataFusionError {
    let ordinal = ["1st", "2nd", "3rd"].get(i).copied().unwrap_or("next");
    failure(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "A value of illegal type was provided as {ordinal} argument '{param}' to function \
             '{}'. Expected: {expected}, got: {}",
            t.name,
            field_type_name(&t.fields[i])
        ),
    )
}

/// A number: an integer, a float, a decimal or a Bool (NULL passes).
fn expect_number(t: &Typing, param: &str) -> Result<()> {
    match t.fields[0].data_type() {
        d if d.is_numeric() => Ok(()),
        DataType::Boolean | DataType::Null => Ok(()),
        _ => Err(unexpected(t, 0, param, "Number")),
    }
}

/// A String (NULL passes).
pub(crate) fn expect_string(t: &Typing, i: usize, param: &str) -> Result<()> {
    match t.fields[i].data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => Ok(()),
        _ => Err(unexpected(t, i, param, "String")),
    }
}

/// Argument `i` as a Utf8 column.
pub(crate) fn strings(call: &Call, i: usize) -> Result<StringArray> {
    let column = call.column(i)?;
    Ok(cast::cast(&column, &DataType::Utf8)?
        .as_string::<i32>()
        .clone())
}

/// Digits after the point when a call does not say.
const DEFAULT_DECIMALS: usize = 2;

/// A number, and digits after the point as a constant UInt8.
fn readable_typing(t: &Typing) -> Result<Field> {
    expect_number(t, "value")?;
    if t.fields.len() == 2 && (t.field(1).data_type() != &DataType::UInt8 || t.scalar(1).is_none())
    {
        return Err(unexpected(t, 1, "precision", "const UInt8"));
    }
    Ok(t.propagating(DataType::Utf8))
}

fn format_readable(call: &Call, format: fn(f64, usize) -> String) -> Result<ColumnarValue> {
    let precision = (call.args.len() == 2).then(|| call.constant(1)).flatten();
    let decimals = match precision {
        Some(precision) => precision.to_string().parse().unwrap_or(DEFAULT_DECIMALS),
        None => DEFAULT_DECIMALS,
    };
    let values = cast::cast(&call.column(0)?, &DataType::Float64)?;
    let out: StringArray = values
        .as_primitive::<Float64Type>()
        .iter()
        .map(|v| v.map(|v| format(v, decimals)))
        .collect();
    call.output(Arc::new(out))
}

/// What a size that does not parse becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unparsed {
    Fail,
    Null,
    Zero,
}

fn size_typing(t: &Typing, or_null: bool) -> Result<Field> {
    expect_string(t, 0, "readable_size")?;
    let field = t.propagating(DataType::UInt64);
    Ok(field.with_nullable(or_null || t.fields[0].is_nullable()))
}

fn parse_sizes(call: &Call, unparsed: Unparsed) -> Result<ColumnarValue> {
    let texts = strings(call, 0)?;
    let mut out = Vec::with_capacity(texts.len());
    for text in texts.iter() {
        out.push(match text.map(parse_size) {
            None => None,
            Some(Ok(bytes)) => Some(bytes),
            Some(Err(e)) => match unparsed {
                Unparsed::Fail => return Err(e.into_datafusion()),
                Unparsed::Null => None,
                Unparsed::Zero => Some(0),
            },
        });
    }
    let out: ArrayRef = Arc::new(UInt64Array::from(out));
    call.output(out)
}

fn size_error(code: ErrorCode, detail: String) -> StrataError {
    StrataError::new(
        code,
        format!("Invalid expression for function parseReadableSize - {detail}"),
    )
}

/// `1.5 KiB`: a number, optional blanks, a unit in any case; whole bytes,
/// rounded up.
pub(crate) fn parse_size(text: &str) -> std::result::Result<u64, StrataError> {
    if text.starts_with(|c: char| c.is_ascii_whitespace()) {
        return Err(size_error(
            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
            format!("Leading whitespace is not allowed (\"{text}\")"),
        ));
    }
    let (number, rest) = split_float(text).ok_or_else(|| {
        size_error(
            ErrorCode::CANNOT_PARSE_NUMBER,
            format!("Unable to parse readable size numeric component (\"{text}\")"),
        )
    })?;
    if !number.is_finite() {
        return Err(size_error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Invalid numeric component: {}", shown_float(number)),
        ));
    }
    if number < 0.0 {
        return Err(size_error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Negative sizes are not allowed ({})", shown_float(number)),
        ));
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    let end = rest.find([' ', '\t', '\n', '\r']).unwrap_or(rest.len());
    let unit = rest[..end].to_lowercase();
    let scale = size_unit(&unit).ok_or_else(|| {
        size_error(
            ErrorCode::CANNOT_PARSE_TEXT,
            format!("Unknown readable size unit (\"{unit}\")"),
        )
    })?;
    if end < rest.len() {
        return Err(size_error(
            ErrorCode::UNEXPECTED_DATA_AFTER_PARSED_VALUE,
            format!("Found trailing characters after readable size string (\"{text}\")"),
        ));
    }
    let bytes = (number * scale).ceil();
    if bytes >= u64::MAX as f64 {
        return Err(size_error(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Result is too big for output type (\"{}\")",
                shown_float(bytes)
            ),
        ));
    }
    Ok(bytes as u64)
}

fn size_unit(unit: &str) -> Option<f64> {
    let (power, base) = match unit {
        "b" => return Some(1.0),
        "kb" => (1, 1000.0),
        "mb" => (2, 1000.0),
        "gb" => (3, 1000.0),
        "tb" => (4, 1000.0),
        "pb" => (5, 1000.0),
        "eb" => (6, 1000.0),
        "kib" => (1, 1024.0),
        "mib" => (2, 1024.0),
        "gib" => (3, 1024.0),
        "tib" => (4, 1024.0),
        "pib" => (5, 1024.0),
        "eib" => (6, 1024.0),
        _ => return None,
    };
    Some(f64::powi(base, power))
}

/// A float as ClickHouse writes one in messages: shortest form, `e+19`.
fn shown_float(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let plain = format!("{value}");
    if value.abs() < 1e16 {
        return plain;
    }
    let exponent = format!("{value:e}");
    match exponent.split_once('e') {
        Some((mantissa, power)) if !power.starts_with('-') => format!("{mantissa}e+{power}"),
        _ => exponent,
    }
}

/// The longest float at the start of `text` (sign, digits, point, exponent,
/// or `nan`/`inf`) and what follows it.
fn split_float(text: &str) -> Option<(f64, &str)> {
    let bytes = text.as_bytes();
    let mut end = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        end += 1;
    }
    for word in ["nan", "inf"] {
        if text[end..].len() >= 3 && text[end..end + 3].eq_ignore_ascii_case(word) {
            let value: f64 = text[..end + 3].to_ascii_lowercase().parse().ok()?;
            return Some((value, &text[end + 3..]));
        }
    }
    let digits = |from: usize| {
        from + bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let whole_end = digits(end);
    let mut number_end = whole_end;
    if bytes.get(number_end) == Some(&b'.') {
        number_end = digits(number_end + 1);
    }
    if number_end == end || number_end == end + 1 && whole_end == end {
        return None;
    }
    if matches!(bytes.get(number_end), Some(b'e' | b'E')) {
        let mut exponent = number_end + 1;
        if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
            exponent += 1;
        }
        let exponent_end = digits(exponent);
        if exponent_end > exponent {
            number_end = exponent_end;
        }
    }
    let value: f64 = text[..number_end].parse().ok()?;
    Some((value, &text[number_end..]))
}

fn parse_time_deltas(call: &Call) -> Result<ColumnarValue> {
    let texts = strings(call, 0)?;
    let out = texts
        .iter()
        .map(|t| t.map(parse_time_delta).transpose())
        .collect::<std::result::Result<Float64Array, StrataError>>()
        .map_err(StrataError::into_datafusion)?;
    call.output(Arc::new(out))
}

fn delta_error(detail: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Invalid argument of function parseTimeDelta, {detail}"),
    )
}

/// Seconds in one of a time delta's units.
fn delta_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "years" | "year" | "yr" | "y" => 31_536_000.0,
        "months" | "month" | "mo" => 2_635_200.0,
        "weeks" | "week" | "w" => 604_800.0,
        "days" | "day" | "d" => 86_400.0,
        "hours" | "hour" | "hr" | "h" => 3_600.0,
        "minutes" | "minute" | "min" | "m" => 60.0,
        "seconds" | "second" | "sec" | "s" => 1.0,
        "milliseconds" | "millisecond" | "millisec" | "ms" => 0.001,
        "microseconds" | "microsecond" | "microsec" | "us" | "\u{3bc}s" | "\u{b5}s" => 0.000_001,
        "nanoseconds" | "nanosecond" | "nanosec" | "ns" => 1e-9,
        _ => return None,
    })
}

const DELTA_SEPARATORS: [char; 4] = [',', ';', '-', '+'];

/// `1h 30m`, `2 days, 3 hours`: numbers (digits, maybe a fraction) each
/// with a unit, apart by blanks and at most one of `, ; - +`.
fn parse_time_delta(text: &str) -> std::result::Result<f64, StrataError> {
    let whole = |detail: &str| delta_error(&format!("{detail}str: \"{text}\""));
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Err(whole("no valid characters, "));
    }
    let mut seconds = 0.0;
    loop {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(whole("number not found, "));
        }
        let mut number_end = digits;
        if rest[digits..].starts_with('.') {
            let fraction = rest[digits + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len() - digits - 1);
            if fraction == 0 {
                return Err(whole("number not found after '.', "));
            }
            number_end = digits + 1 + fraction;
        }
        let number: f64 = rest[..number_end].parse().map_err(|_| whole(""))?;
        rest = rest[number_end..].trim_start();
        let unit_end = rest
            .find(|c: char| {
                c.is_ascii_digit() || c.is_whitespace() || DELTA_SEPARATORS.contains(&c)
            })
            .unwrap_or(rest.len());
        if unit_end == 0 {
            return Err(whole(""));
        }
        let unit = &rest[..unit_end];
        let scale = delta_unit(unit)
            .ok_or_else(|| delta_error(&format!("can't parse the unit: \"{unit}\"")))?;
        seconds += number * scale;
        rest = rest[unit_end..].trim_start();
        if rest.is_empty() {
            return Ok(seconds);
        }
        if let Some(after) = rest.strip_prefix(DELTA_SEPARATORS) {
            rest = after.trim_start();
            if rest.is_empty() {
                return Err(whole(""));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_deltas_read_as_clickhouse_writes_them() {
        assert_eq!(
            time_delta(3661.0, 0, SECOND_UNIT),
            "1 hour, 1 minute and 1 second"
        );
        assert_eq!(time_delta(-61.0, 0, SECOND_UNIT), "-1 minute and 1 second");
        assert_eq!(time_delta(0.25, 0, SECOND_UNIT), "0 seconds");
        assert_eq!(time_delta(86_400.0, 3, SECOND_UNIT), "24 hours");
        assert_eq!(
            time_delta(0.001234, 5, 8),
            "0 seconds, 1 millisecond and 234 microseconds"
        );
        assert_eq!(time_delta(1.5, 0, 6), "1 second and 500 milliseconds");
        assert_eq!(time_delta(2_592_000.0, 0, SECOND_UNIT), "30 days");
        assert_eq!(time_delta(30.0, 4, 4), "");
    }

    #[test]
    fn sizes_parse_as_clickhouse_does() {
        assert_eq!(parse_size("1 KiB").unwrap(), 1024);
        assert_eq!(parse_size("1.5MB").unwrap(), 1_500_000);
        assert_eq!(parse_size("0.0001 B").unwrap(), 1);
        assert_eq!(parse_size(".5 kib").unwrap(), 512);
        assert_eq!(parse_size("15.99 EiB").unwrap(), 18_435_214_858_663_483_392);
        assert_eq!(
            parse_size("1").unwrap_err().code,
            ErrorCode::CANNOT_PARSE_TEXT
        );
        assert_eq!(parse_size(" 1 B").unwrap_err().code.code, 27);
        assert_eq!(parse_size("1 B ").unwrap_err().code.code, 632);
        assert_eq!(
            parse_size("16 EiB").unwrap_err().code,
            ErrorCode::BAD_ARGUMENTS
        );
        assert_eq!(
            shown_float(18446744073709551616.0),
            "1.8446744073709552e+19"
        );
    }

    #[test]
    fn time_deltas_add_up() {
        assert_eq!(parse_time_delta("1h 2m 3s").unwrap(), 3723.0);
        assert_eq!(parse_time_delta("11s+22min").unwrap(), 1331.0);
        assert_eq!(parse_time_delta("1 day, 2 hours").unwrap(), 93600.0);
        assert_eq!(parse_time_delta(" 1s ").unwrap(), 1.0);
        assert!(parse_time_delta("1s,").is_err());
        assert!(parse_time_delta("1s,,2s").is_err());
        assert!(parse_time_delta("1.s").is_err());
        assert!(parse_time_delta("5").is_err());
    }
}
