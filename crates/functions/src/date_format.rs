//! `formatDateTime(moment, 'format')`: a Date or DateTime as text, by
//! ClickHouse's MySQL-style specifiers (`%Y-%m-%d %H:%i:%S`), which differ
//! from strftime's (`%i` is the minute, `%M` the month's name), so chrono's
//! formatter cannot be used as is.

use std::fmt::Write;
use std::sync::Arc;

use chrono::{Datelike, NaiveDateTime, Timelike};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Int64Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

use crate::calendar::local_moments;

/// One piece of a parsed format.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Field(char),
}

const SPECIFIERS: &str = "abcCdDefFgGhHiIjklmMpQrRsSTuVwWyYz";

fn parse_format(format: &str) -> Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => text.push('%'),
            Some('n') => text.push('\n'),
            Some('t') => text.push('\t'),
            Some(spec) if SPECIFIERS.contains(spec) => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Field(spec));
            }
            other => {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!(
                        "Incorrect syntax '%{}' in the format of function formatDateTime",
                        other.map(String::from).unwrap_or_default()
                    ),
                )
                .into_datafusion());
            }
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// Writes one specifier's value; `micros` is the fraction of the second,
/// `offset` the clock's distance from UTC in seconds.
fn write_field(spec: char, at: &NaiveDateTime, micros: u32, offset: i64, out: &mut String) {
    let hour12 = match at.hour() % 12 {
        0 => 12,
        h => h,
    };
    // Writing to a String cannot fail.
    let _ = match spec {
        'Y' => write!(out, "{:04}", at.year()),
        'y' => write!(out, "{:02}", at.year().rem_euclid(100)),
        'C' => write!(out, "{:02}", at.year().div_euclid(100)),
        'G' => write!(out, "{:04}", at.iso_week().year()),
        'g' => write!(out, "{:02}", at.iso_week().year().rem_euclid(100)),
        'm' => write!(out, "{:02}", at.month()),
        'c' => write!(out, "{:02}", at.month()),
        'M' => write!(out, "{}", at.format("%B")),
        'b' => write!(out, "{}", at.format("%b")),
        'd' => write!(out, "{:02}", at.day()),
        'e' => write!(out, "{}", at.day()),
        'j' => write!(out, "{:03}", at.ordinal()),
        'H' | 'k' => write!(out, "{:02}", at.hour()),
        'I' | 'h' | 'l' => write!(out, "{hour12:02}"),
        'i' => write!(out, "{:02}", at.minute()),
        'S' | 's' => write!(out, "{:02}", at.second()),
        'f' => write!(out, "{micros:06}"),
        'p' => write!(out, "{}", if at.hour() < 12 { "AM" } else { "PM" }),
        'a' => write!(out, "{}", at.format("%a")),
        'W' => write!(out, "{}", at.format("%A")),
        'u' => write!(out, "{}", at.weekday().number_from_monday()),
        'w' => write!(out, "{}", at.weekday().num_days_from_sunday()),
        'V' => write!(out, "{:02}", at.iso_week().week()),
        'Q' => write!(out, "{}", (at.month() - 1) / 3 + 1),
        'F' => write!(out, "{}", at.format("%Y-%m-%d")),
        'D' => write!(out, "{}", at.format("%m/%d/%y")),
        'T' => write!(out, "{}", at.format("%H:%M:%S")),
        'R' => write!(out, "{}", at.format("%H:%M")),
        'z' => write!(
            out,
            "{}{:02}{:02}",
            if offset < 0 { '-' } else { '+' },
            offset.abs() / 3600,
            offset.abs() % 3600 / 60
        ),
        'r' => write!(
            out,
            "{hour12:02}:{:02} {}",
            at.minute(),
            if at.hour() < 12 { "AM" } else { "PM" }
        ),
        other => unreachable!("'{other}' is not among the parsed specifiers"),
    };
}

/// How far each moment's clock (`local`) is from UTC, in seconds.
fn utc_offsets(array: &ArrayRef, local: &[NaiveDateTime]) -> Result<Vec<i64>> {
    let seconds = match array.data_type() {
        DataType::Date32 => {
            let days = array.as_primitive::<datafusion::arrow::datatypes::Date32Type>();
            days.values()
                .iter()
                .map(|d| i64::from(*d) * 86_400)
                .collect()
        }
        _ => {
            let instants = cast(array, &DataType::Timestamp(TimeUnit::Second, None))?;
            let instants = cast(&instants, &DataType::Int64)?;
            instants.as_primitive::<Int64Type>().values().to_vec()
        }
    };
    Ok(local
        .iter()
        .zip(seconds)
        .map(|(at, utc)| at.and_utc().timestamp() - utc)
        .collect())
}

/// The fraction of each value's second, in microseconds.
fn fractions(array: &ArrayRef) -> Vec<u32> {
    let micros = |values: &[i64], per_second: i64| -> Vec<u32> {
        values
            .iter()
            .map(|v| (v.rem_euclid(per_second) * 1_000_000 / per_second) as u32)
            .collect()
    };
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, _) => micros(
            array.as_primitive::<TimestampMillisecondType>().values(),
            1_000,
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => micros(
            array.as_primitive::<TimestampMicrosecondType>().values(),
            1_000_000,
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => micros(
            array.as_primitive::<TimestampNanosecondType>().values(),
            1_000_000_000,
        ),
        _ => vec![0; array.len()],
    }
}

/// Every moment of a Date or DateTime column as text in `format`, on
/// the column's own clock.
pub(crate) fn format_moments(array: &ArrayRef, format: &str) -> Result<ArrayRef> {
    let pieces = parse_format(format)?;
    let moments = local_moments(array)?;
    let fractions = fractions(array);
    let offsets = match pieces.contains(&Piece::Field('z')) {
        true => utc_offsets(array, &moments)?,
        false => vec![0; moments.len()],
    };
    let mut out = StringBuilder::with_capacity(moments.len(), moments.len() * format.len());
    let mut text = String::new();
    for (row, at) in moments.iter().enumerate() {
        if array.is_null(row) {
            out.append_null();
            continue;
        }
        text.clear();
        for piece in &pieces {
            match piece {
                Piece::Text(t) => text.push_str(t),
                Piece::Field(spec) => {
                    write_field(*spec, at, fractions[row], offsets[row], &mut text)
                }
            }
        }
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

/// The constant format argument at `index`.
pub(crate) fn format_argument<'a>(name: &str, value: &'a ColumnarValue) -> Result<&'a str> {
    match value {
        ColumnarValue::Scalar(
            ScalarValue::Utf8(Some(f))
            | ScalarValue::LargeUtf8(Some(f))
            | ScalarValue::Utf8View(Some(f)),
        ) => Ok(f),
        _ => Err(StrataError::new(
            ErrorCode::ILLEGAL_COLUMN,
            format!("The format of function {name} must be a constant string"),
        )
        .into_datafusion()),
    }
}

/// `formatDateTime(moment, format[, zone])`; the zone shows a DateTime on
/// another clock.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FormatDateTime {
    signature: Signature,
}

impl Default for FormatDateTime {
    fn default() -> Self {
        FormatDateTime {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for FormatDateTime {
    fn name(&self) -> &str {
        "formatDateTime"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if !(2..=3).contains(&arg_types.len()) {
            return Err(crate::dates::args::arity(
                self.name(),
                arg_types.len(),
                "2 or 3",
            ));
        }
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let format = format_argument(self.name(), &args.args[1])?;
        let zone = match args.args.get(2) {
            Some(zone) => Some(crate::dates::args::zone_argument(
                self.name(),
                crate::dates::args::constant(zone),
                &zone.data_type(),
            )?),
            None => None,
        };
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let moments = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let moments = crate::dates::moments::in_zone(moments, zone.as_ref())?;
        crate::columnar(format_moments(&moments, format)?, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_take_clickhouse_specifiers() {
        let at = chrono::NaiveDate::from_ymd_opt(2024, 3, 5)
            .unwrap()
            .and_hms_opt(7, 8, 9)
            .unwrap();
        let mut out = String::new();
        for piece in parse_format("%Y-%m-%d %H:%i:%S %M %p %j %u%%").unwrap() {
            match piece {
                Piece::Text(t) => out.push_str(&t),
                Piece::Field(spec) => write_field(spec, &at, 0, 0, &mut out),
            }
        }
        assert_eq!(out, "2024-03-05 07:08:09 March AM 065 2%");
        assert!(parse_format("%L").is_err());
    }
}
