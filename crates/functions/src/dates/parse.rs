//! `parseDateTime(text, format[, zone])` and its `OrNull`/`OrZero` forms
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
use chrono::{Datelike, NaiveDateTime};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, TimestampSecondArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
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
    signature: Signature,
    aliases: Vec<String>,
}

impl ParseDateTime {
    pub fn new(unparsed: Unparsed, syntax: Syntax) -> Self {
        let aliases = match (unparsed, syntax) {
            (Unparsed::Null, Syntax::MySql) => vec!["str_to_date".to_string()],
            _ => Vec::new(),
        };
        ParseDateTime {
            unparsed,
            syntax,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases,
        }
    }
}

impl ScalarUDFImpl for ParseDateTime {
    fn name(&self) -> &str {
        match (self.syntax, self.unparsed) {
            (Syntax::MySql, Unparsed::Fail) => "parseDateTime",
            (Syntax::MySql, Unparsed::Null) => "parseDateTimeOrNull",
            (Syntax::MySql, Unparsed::Zero) => "parseDateTimeOrZero",
            (Syntax::Joda, Unparsed::Fail) => "parseDateTimeInJodaSyntax",
            (Syntax::Joda, Unparsed::Null) => "parseDateTimeInJodaSyntaxOrNull",
            (Syntax::Joda, Unparsed::Zero) => "parseDateTimeInJodaSyntaxOrZero",
        }
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
        let data_type = DataType::Timestamp(TimeUnit::Second, zone);
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let format = format_argument(self.name(), &args.args[1])?;
        let items = match self.syntax {
            Syntax::MySql => format_items(format)?,
            Syntax::Joda => chrono_items(&joda_format(format)?),
        };
        let zone_name = match args.return_field.data_type() {
            DataType::Timestamp(_, zone) => zone.clone(),
            _ => None,
        };
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
            out.push(match (parse(text, &items, zone.as_ref()), self.unparsed) {
                (Ok(seconds), _) => Some(seconds),
                (Err(e), Unparsed::Fail) => return Err(e.into_datafusion()),
                (Err(_), Unparsed::Null) => None,
                (Err(_), Unparsed::Zero) => Some(0),
            });
        }
        let array = TimestampSecondArray::from(out).with_timezone_opt(zone_name);
        crate::columnar(Arc::new(array) as ArrayRef, scalar)
    }
}

/// ClickHouse's MySQL-style format as chrono's parsing items.
fn format_items(format: &str) -> Result<Vec<Item<'static>>> {
    let mut chrono_format = String::with_capacity(format.len() * 2);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            chrono_format.push(c);
            continue;
        }
        let spec = chars.next().unwrap_or('%');
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

/// Seconds from the epoch of the moment `text` shows.
fn parse(text: &str, items: &[Item], zone: Option<&Tz>) -> strata_common::Result<i64> {
    let cannot = |why: String| {
        StrataError::new(
            ErrorCode::CANNOT_PARSE_DATETIME,
            format!("Cannot parse {text:?} as DateTime: {why}"),
        )
    };
    let mut parsed = Parsed::new();
    chrono::format::parse(&mut parsed, text, items.iter()).map_err(|e| cannot(e.to_string()))?;
    let local = with_defaults(parsed).map_err(|e| cannot(e.to_string()))?;
    if !YEARS.contains(&local.year()) {
        return Err(cannot(format!(
            "the year {} is outside DateTime's range",
            local.year()
        )));
    }
    Ok(local_to_utc(local, zone))
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
        parse(text, &format_items(format).unwrap(), None).ok()
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
        assert!(format_items("%Q").is_err());
    }
}
