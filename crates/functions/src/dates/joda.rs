//! Joda-Time patterns (`yyyy-MM-dd HH:mm:ss`), as ClickHouse writes them:
//! `formatDateTimeInJodaSyntax(moment, format[, zone])`; the pattern
//! reader and writer here serve `fromUnixTimestampInJodaSyntax` too.
//!
//! A letter repeated n times is one field: numbers are padded with zeros
//! to n digits (`yy` is the year's last two digits), texts are short for
//! n up to 3 and full beyond (`MMM` is `Mar`, `MMMM` `March`), `S...` is
//! the second's fraction to n digits. Text between single quotes is
//! literal (`''` is a quote); other letters are refused, as are the
//! short zone names and offsets ClickHouse does not write either.

use std::fmt::Write;
use std::sync::Arc;

use chrono::{Datelike, NaiveDateTime, Timelike};
use datafusion::arrow::array::{Array, ArrayRef, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::moments::{self, ticks_per_second};
use crate::calendar::{local_moments, time_zone};

/// One piece of a parsed pattern.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Field(char, usize),
}

const LETTERS: &str = "GCYxwweEyDMdaKhHkmsSz";

pub(crate) fn parse_pattern(pattern: &str) -> Result<Vec<Piece>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            let (text, next) = quoted(&chars, i)?;
            push_text(&mut pieces, &text);
            i = next;
        } else if c.is_ascii_alphabetic() {
            if !LETTERS.contains(c) {
                return Err(args::error(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("format is not supported for {c}"),
                ));
            }
            let count = chars[i..].iter().take_while(|&&d| d == c).count();
            pieces.push(Piece::Field(c, count));
            i += count;
        } else {
            push_text(&mut pieces, &c.to_string());
            i += 1;
        }
    }
    Ok(pieces)
}

fn push_text(pieces: &mut Vec<Piece>, text: &str) {
    match pieces.last_mut() {
        Some(Piece::Text(last)) => last.push_str(text),
        _ => pieces.push(Piece::Text(text.to_string())),
    }
}

/// The literal starting with the quote at `start`, and where it ends.
fn quoted(chars: &[char], start: usize) -> Result<(String, usize)> {
    if chars.get(start + 1) == Some(&'\'') {
        return Ok(("'".to_string(), start + 2));
    }
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match (chars.get(i), chars.get(i + 1)) {
            (None, _) => {
                return Err(args::error(
                    ErrorCode::BAD_ARGUMENTS,
                    "No closing single quote for literal",
                ));
            }
            (Some('\''), Some('\'')) => {
                text.push('\'');
                i += 2;
            }
            (Some('\''), _) => return Ok((text, i + 1)),
            (Some(&c), _) => {
                text.push(c);
                i += 1;
            }
        }
    }
}

/// What a field needs beyond the wall-clock time.
pub(crate) struct Context<'a> {
    /// The fraction of the second, in nanoseconds.
    pub nanos: u32,
    pub zone: &'a str,
}

fn padded(out: &mut String, value: i64, width: usize) {
    let _ = write!(out, "{value:0width$}");
}

pub(crate) fn write_field(
    out: &mut String,
    letter: char,
    count: usize,
    at: &NaiveDateTime,
    context: &Context,
) -> Result<()> {
    let text = |short: String, long: String| if count <= 3 { short } else { long };
    let hour12 = |h: u32| if h % 12 == 0 { 12 } else { h % 12 };
    match letter {
        'G' => out.push_str(&text("AD".into(), "Anno Domini".into())),
        'C' => padded(out, at.year() as i64 / 100, count),
        'Y' | 'y' if count == 2 => padded(out, at.year().rem_euclid(100) as i64, 2),
        'Y' | 'y' => padded(out, at.year() as i64, count),
        'x' => padded(out, at.iso_week().year() as i64, count),
        'w' => padded(out, at.iso_week().week() as i64, count),
        'e' => padded(out, at.weekday().number_from_monday() as i64, count),
        'E' => out.push_str(&text(
            at.format("%a").to_string(),
            at.format("%A").to_string(),
        )),
        'D' => padded(out, at.ordinal() as i64, count),
        'M' if count <= 2 => padded(out, at.month() as i64, count),
        'M' => out.push_str(&text(
            at.format("%b").to_string(),
            at.format("%B").to_string(),
        )),
        'd' => padded(out, at.day() as i64, count),
        'a' => out.push_str(if at.hour() < 12 { "AM" } else { "PM" }),
        'K' => padded(out, (at.hour() % 12) as i64, count),
        'h' => padded(out, hour12(at.hour()) as i64, count),
        'H' => padded(out, at.hour() as i64, count),
        'k' => padded(
            out,
            if at.hour() == 0 { 24 } else { at.hour() as i64 },
            count,
        ),
        'm' => padded(out, at.minute() as i64, count),
        's' => padded(out, at.second() as i64, count),
        'S' => {
            let digits = format!("{:09}", context.nanos);
            out.push_str(&digits[..count.min(9)]);
            out.extend(std::iter::repeat_n('0', count.saturating_sub(9)));
        }
        'z' if count >= 4 => out.push_str(context.zone),
        _ => {
            return Err(args::error(
                ErrorCode::NOT_IMPLEMENTED,
                "Short name time zone is not yet supported",
            ));
        }
    }
    Ok(())
}

/// Every moment of a Date or DateTime column as text in the Joda
/// `pattern`, on the column's own clock.
pub(crate) fn format_moments(array: &ArrayRef, pattern: &str) -> Result<ArrayRef> {
    let pieces = parse_pattern(pattern)?;
    let moments = local_moments(array)?;
    let zone = time_zone(array.data_type()).unwrap_or_else(|| Arc::from("UTC"));
    let nanos: Vec<u32> = match (moments::ticks(array), array.data_type()) {
        (Some(ticks), DataType::Timestamp(unit, _)) => {
            let per_second = ticks_per_second(*unit);
            let scale = 1_000_000_000 / per_second;
            ticks
                .iter()
                .map(|t| (t.rem_euclid(per_second) * scale) as u32)
                .collect()
        }
        _ => vec![0; array.len()],
    };
    let mut out = StringBuilder::with_capacity(array.len(), array.len() * pattern.len());
    let mut text = String::new();
    for (row, at) in moments.iter().enumerate() {
        if array.is_null(row) {
            out.append_null();
            continue;
        }
        text.clear();
        let context = Context {
            nanos: nanos[row],
            zone: &zone,
        };
        for piece in &pieces {
            match piece {
                Piece::Text(literal) => text.push_str(literal),
                Piece::Field(letter, count) => {
                    write_field(&mut text, *letter, *count, at, &context)?
                }
            }
        }
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

/// `formatDateTimeInJodaSyntax(moment, pattern[, zone])`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FormatJoda;

impl Kernel for FormatJoda {
    fn name(&self) -> &'static str {
        "formatDateTimeInJodaSyntax"
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let name = self.name();
        let (_, zone_null) = args::trailing_zone(name, args.types, args.values, 2)?;
        match &args.types[0] {
            DataType::Date32 | DataType::Timestamp(..) => {}
            DataType::Null => return Ok(Shape::null()),
            other => return Err(args::illegal_type(name, other)),
        }
        if args::text_constant(args.values[1]).is_none() {
            return Err(args::error(
                ErrorCode::ILLEGAL_COLUMN,
                format!("Argument at index 1 for function {name} must be constant"),
            ));
        }
        Ok(if zone_null {
            Shape::null()
        } else {
            Shape::of(DataType::Utf8)
        })
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let zone = args::text_constant(call.values.get(2).copied().flatten()).map(Arc::from);
        let moments = moments::in_zone(Arc::clone(&call.arrays[0]), zone.as_ref())?;
        format_moments(
            &moments,
            args::text_constant(call.values[1]).unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(pattern: &str) -> String {
        let at = chrono::NaiveDate::from_ymd_opt(2024, 3, 5)
            .unwrap()
            .and_hms_opt(7, 8, 9)
            .unwrap();
        let context = Context {
            nanos: 123_456_000,
            zone: "UTC",
        };
        let mut out = String::new();
        for piece in parse_pattern(pattern).unwrap() {
            match piece {
                Piece::Text(t) => out.push_str(&t),
                Piece::Field(letter, count) => {
                    write_field(&mut out, letter, count, &at, &context).unwrap()
                }
            }
        }
        out
    }

    #[test]
    fn joda_patterns_pad_and_name() {
        assert_eq!(format("yyyy-MM-dd HH:mm:ss.SSS"), "2024-03-05 07:08:09.123");
        assert_eq!(
            format("yy MMM MMMM E EEEE D DDD h a"),
            "24 Mar March Tue Tuesday 65 065 7 AM"
        );
        assert_eq!(format("'at' HH'h' ''"), "at 07h '");
        assert!(parse_pattern("yyyy 'open").is_err());
        assert!(parse_pattern("Q").is_err());
    }
}
