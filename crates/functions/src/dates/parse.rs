//! `parseDateTime(text, format[, zone])` and its `OrNull`/`OrZero` forms
//! (and `parseDateTime64...`, a DateTime64(6), or as many digits as a Joda
//! format's `S` run, for years 1900 to 2299)
//! (`str_to_date` is `parseDateTimeOrNull`, as in ClickHouse): the DateTime
//! a string shows in a MySQL-style format, the inverse of `formatDateTime`;
//! `parseDateTimeInJodaSyntax` and its forms read a Joda-style format
//! (`yyyy-MM-dd HH:mm:ss`), the inverse of `formatDateTimeInJodaSyntax`.
//!
//! Fields the format leaves out take the epoch's (1970-01-01 00:00:00); the
//! time is a wall-clock time of the zone argument (UTC without one). The
//! whole string must match, and the result must lie in DateTime's years
//! (1970 to 2106); otherwise `parseDateTime` fails with
//! CANNOT_PARSE_DATETIME, `OrNull` gives NULL and `OrZero` the epoch.

use std::sync::Arc;

use chrono::format::{Item, Parsed, StrftimeItems};
use chrono::{Datelike, NaiveDateTime, Timelike};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::{
    MAX_DATETIME64_PRECISION, cut_to_precision, datetime64_metadata, datetime64_unit, unit_digits,
};
use strata_common::{ErrorCode, StrataError};

use super::args;
use super::moments::local_to_utc;
use crate::date_format::format_argument;

/// What a string that does not parse gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unparsed {
    Fail,
    Null,
    Zero,
}

impl Unparsed {
    pub const ALL: [Unparsed; 3] = [Unparsed::Fail, Unparsed::Null, Unparsed::Zero];
}

/// DateTime's years.
const YEARS: std::ops::RangeInclusive<i32> = 1970..=2106;
/// DateTime64's years.
const WIDE_YEARS: std::ops::RangeInclusive<i32> = 1900..=2299;

/// How the format is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// `%Y-%m-%d`, as `formatDateTime` writes.
    MySql,
    /// `yyyy-MM-dd`, as `formatDateTimeInJodaSyntax` writes.
    Joda,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ParseDateTime {
    unparsed: Unparsed,
    syntax: Syntax,
    /// `parseDateTime64...`: a DateTime64 with the fraction of a second.
    wide: bool,
    name: String,
    signature: Signature,
    aliases: Vec<String>,
}

impl ParseDateTime {
    pub fn new(unparsed: Unparsed, syntax: Syntax, wide: bool) -> Self {
        let aliases = match (unparsed, syntax, wide) {
            (Unparsed::Null, Syntax::MySql, false) => vec!["str_to_date".to_string()],
            _ => Vec::new(),
        };
        let name = format!(
            "parseDateTime{}{}{}",
            if wide { "64" } else { "" },
            match syntax {
                Syntax::MySql => "",
                Syntax::Joda => "InJodaSyntax",
            },
            match unparsed {
                Unparsed::Fail => "",
                Unparsed::Null => "OrNull",
                Unparsed::Zero => "OrZero",
            }
        );
        ParseDateTime {
            unparsed,
            syntax,
            wide,
            name,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases,
        }
    }

    /// The result's digits of a second: none for a DateTime, 6 for
    /// `parseDateTime64`, as many as the Joda format's `S` run.
    fn precision(&self, format: Option<&str>) -> u8 {
        match (self.wide, self.syntax) {
            (false, _) => 0,
            (true, Syntax::MySql) => 6,
            (true, Syntax::Joda) => {
                let format = format.unwrap_or_default();
                let run = |start: usize| format[start..].chars().take_while(|&c| c == 'S').count();
                let longest = format.match_indices('S').map(|(i, _)| run(i)).max();
                longest
                    .unwrap_or(0)
                    .min(usize::from(MAX_DATETIME64_PRECISION)) as u8
            }
        }
    }

    /// The years the result holds.
    fn years(&self) -> std::ops::RangeInclusive<i32> {
        match self.wide {
            true => WIDE_YEARS,
            false => YEARS,
        }
    }
}

impl ScalarUDFImpl for ParseDateTime {
    fn name(&self) -> &str {
        &self.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if !(2..=3).contains(&arg_types.len()) {
            return Err(args::arity(self.name(), arg_types.len(), "2 or 3"));
        }
        Ok(DataType::Timestamp(TimeUnit::Second, None))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::numeric::argument_types(&args);
        self.return_type(&types)?;
        let zone = match types.get(2) {
            Some(data_type) => Some(args::zone_argument(
                self.name(),
                args.scalar_arguments[2],
                data_type,
            )?),
            None => None,
        };
        let nullable =
            self.unparsed == Unparsed::Null || args.arg_fields.iter().any(|f| f.is_nullable());
        let field = match self.wide {
            false => Field::new(
                self.name(),
                DataType::Timestamp(TimeUnit::Second, zone),
                nullable,
            ),
            true => {
                let format = match args.scalar_arguments.get(1) {
                    Some(Some(ScalarValue::Utf8(format))) => format.as_deref(),
                    _ => None,
                };
                let precision = self.precision(format);
                let data_type = DataType::Timestamp(datetime64_unit(precision), zone);
                Field::new(self.name(), data_type, nullable)
                    .with_metadata(datetime64_metadata(precision))
            }
        };
        Ok(Arc::new(field))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let format = format_argument(self.name(), &args.args[1])?;
        let items = match self.syntax {
            Syntax::MySql => format_items(format, self.wide)?,
            Syntax::Joda => chrono_items(&joda_format(format)?),
        };
        let (unit, zone_name) = match args.return_field.data_type() {
            DataType::Timestamp(unit, zone) => (*unit, zone.clone()),
            _ => (TimeUnit::Second, None),
        };
        let per_second = 10_i64.pow(u32::from(unit_digits(unit)));
        let zone = zone_name.as_deref().map(args::parse_zone).transpose()?;
        let texts = cast(
            &args.args[0].to_array(crate::rows_to_evaluate(&args))?,
            &DataType::Utf8,
        )?;
        let texts = texts.as_string::<i32>();
        let mut out = Vec::with_capacity(texts.len());
        for text in texts.iter() {
            let Some(text) = text else {
                out.push(None);
                continue;
            };
            let parsed = parse(text, &items, zone.as_ref(), self.years());
            out.push(match (parsed, self.unparsed) {
                (Ok((seconds, nanos)), _) => {
                    Some(seconds * per_second + i64::from(nanos) / (1_000_000_000 / per_second))
                }
                (Err(e), Unparsed::Fail) => return Err(e.into_datafusion()),
                (Err(_), Unparsed::Null) => None,
                (Err(_), Unparsed::Zero) => Some(0),
            });
        }
        let ticks: ArrayRef = Arc::new(Int64Array::from(out));
        let moments = cast(&ticks, args.return_field.data_type())?;
        let moments = cut_to_precision(moments, &args.return_field);
        crate::columnar(moments, scalar)
    }
}

/// ClickHouse's MySQL-style format as chrono's parsing items; for a
/// DateTime64 (`wide`), `.%f` reads a fraction of any length to nine digits.
fn format_items(format: &str, wide: bool) -> Result<Vec<Item<'static>>> {
    let mut chrono_format = String::with_capacity(format.len() * 2);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            chrono_format.push(c);
            continue;
        }
        let spec = chars.next().unwrap_or('%');
        if wide && spec == 'f' && chrono_format.ends_with('.') {
            chrono_format.pop();
            chrono_format.push_str("%.f");
            continue;
        }
        chrono_format.push_str(match spec {
            'Y' => "%Y",
            'y' => "%y",
            'm' | 'c' => "%m",
            'd' | 'e' => "%d",
            'j' => "%j",
            'M' | 'B' => "%B",
            'b' => "%b",
            'a' => "%a",
            'W' => "%A",
            'u' => "%u",
            'w' => "%w",
            'H' | 'k' => "%H",
            'I' | 'h' | 'l' => "%I",
            'p' => "%p",
            'i' => "%M",
            'S' | 's' => "%S",
            'f' => "%6f",
            'F' => "%Y-%m-%d",
            'D' => "%m/%d/%y",
            'T' => "%H:%M:%S",
            'R' => "%H:%M",
            'r' => "%I:%M %p",
            'n' => "\n",
            't' => "\t",
            '%' => "%%",
            other => {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Unknown or not supported format specifier %{other} in parseDateTime"),
                )
                .into_datafusion());
            }
        });
    }
    Ok(chrono_items(&chrono_format))
}

fn chrono_items(chrono_format: &str) -> Vec<Item<'static>> {
    StrftimeItems::new(chrono_format)
        .map(|item| item.to_owned())
        .collect()
}

/// A Joda-style format as chrono's: each run of one pattern letter is a
/// field whose run length picks its form (`MMM` a month's short name, `MM`
/// its number), text in single quotes and every other character is itself.
fn joda_format(format: &str) -> Result<String> {
    let chars: Vec<char> = format.chars().collect();
    let mut out = String::with_capacity(format.len() * 2);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        if c == '\'' {
            // `''` is a quote; otherwise text up to the closing quote.
            if run >= 2 {
                out.push('\'');
                i += 2;
                continue;
            }
            let end = chars[i + 1..]
                .iter()
                .position(|&x| x == '\'')
                .map(|p| i + 1 + p);
            let Some(end) = end else {
                return Err(joda_error(format, "an unclosed quote"));
            };
            chars[i + 1..end]
                .iter()
                .for_each(|&x| push_literal(&mut out, x));
            i = end + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            push_literal(&mut out, c);
            i += 1;
            continue;
        }
        out.push_str(match (c, run) {
            ('y' | 'Y' | 'x', 2) => "%y",
            ('y' | 'Y' | 'x', _) => "%Y",
            ('M', 1 | 2) => "%m",
            ('M', 3) => "%b",
            ('M', _) => "%B",
            ('d', _) => "%d",
            ('D', _) => "%j",
            ('H' | 'k', _) => "%H",
            ('h' | 'K', _) => "%I",
            ('m', _) => "%M",
            ('s', _) => "%S",
            ('S', 3) => "%3f",
            ('S', 6) => "%6f",
            ('S', 9) => "%9f",
            ('a', _) => "%p",
            ('E', 1..=3) => "%a",
            ('E', _) => "%A",
            ('e', _) => "%u",
            ('Z', _) => "%z",
            _ => {
                let pattern: String = chars[i..i + run].iter().collect();
                return Err(joda_error(format, &format!("the pattern {pattern}")));
            }
        });
        i += run;
    }
    Ok(out)
}

fn push_literal(out: &mut String, c: char) {
    if c == '%' {
        out.push('%');
    }
    out.push(c);
}

fn joda_error(format: &str, what: &str) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!(
            "Unsupported format {format:?} in parseDateTimeInJodaSyntax: {what} is not supported"
        ),
    )
    .into_datafusion()
}

/// Seconds from the epoch of the moment `text` shows, and its nanoseconds.
fn parse(
    text: &str,
    items: &[Item],
    zone: Option<&Tz>,
    years: std::ops::RangeInclusive<i32>,
) -> strata_common::Result<(i64, u32)> {
    let cannot = |why: String| {
        StrataError::new(
            ErrorCode::CANNOT_PARSE_DATETIME,
            format!("Cannot parse {text:?} as DateTime: {why}"),
        )
    };
    let mut parsed = Parsed::new();
    chrono::format::parse(&mut parsed, text, items.iter()).map_err(|e| cannot(e.to_string()))?;
    let local = with_defaults(parsed).map_err(|e| cannot(e.to_string()))?;
    if !years.contains(&local.year()) {
        return Err(cannot(format!(
            "the year {} is outside the type's range",
            local.year()
        )));
    }
    Ok((local_to_utc(local, zone), local.nanosecond()))
}

/// The moment parsed, the epoch's fields standing in for those missing.
fn with_defaults(mut parsed: Parsed) -> chrono::format::ParseResult<NaiveDateTime> {
    if parsed.year().is_none() && parsed.year_mod_100().is_none() {
        parsed.set_year(1970)?;
    }
    if parsed.ordinal().is_none() {
        if parsed.month().is_none() {
            parsed.set_month(1)?;
        }
        if parsed.day().is_none() {
            parsed.set_day(1)?;
        }
    }
    match (parsed.hour_div_12(), parsed.hour_mod_12()) {
        (None, None) => parsed.set_hour(0)?,
        (None, Some(_)) => parsed.set_ampm(false)?,
        _ => {}
    }
    if parsed.minute().is_none() {
        parsed.set_minute(0)?;
    }
    if parsed.second().is_none() {
        parsed.set_second(0)?;
    }
    parsed.to_naive_datetime_with_offset(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str, format: &str) -> Option<i64> {
        let (seconds, _) = parse(text, &format_items(format, false).unwrap(), None, YEARS).ok()?;
        Some(seconds)
    }

    #[test]
    fn formats_read_what_format_date_time_writes() {
        assert_eq!(
            parsed("2024-03-05 07:08:09", "%Y-%m-%d %H:%i:%s"),
            Some(1709622489)
        );
        assert_eq!(parsed("2024-03-05", "%Y-%m-%d"), Some(1709596800));
        assert_eq!(parsed("07:08", "%H:%i"), Some(7 * 3600 + 8 * 60));
        assert_eq!(parsed("2024-065", "%Y-%j"), Some(1709596800));
        assert_eq!(
            parsed("March 5 2024 7PM", "%M %e %Y %l%p"),
            Some(1709665200)
        );
        assert_eq!(parsed("20241231", "%Y%m%d"), Some(1735603200));
    }

    #[test]
    fn what_does_not_match_is_an_error() {
        assert_eq!(parsed("x", "%Y"), None);
        assert_eq!(parsed("2024-03-05 07:08", "%Y-%m-%d"), None);
        assert_eq!(parsed("2024-02-30", "%Y-%m-%d"), None);
        assert_eq!(parsed("1969-12-31", "%Y-%m-%d"), None);
        assert!(format_items("%Q", false).is_err());
    }
}
