//! Days counted from other origins: `toDaysSinceYearZero` (`TO_DAYS`) and
//! `fromDaysSinceYearZero` (`FROM_DAYS`) / `fromDaysSinceYearZero32`,
//! MySQL's count from 0000-01-01 of the proleptic Gregorian calendar; and
//! `toModifiedJulianDay` / `fromModifiedJulianDay` (`OrNull` too), the
//! days from 1858-11-17, between text `YYYY-MM-DD` and Int32.
//!
//! As ClickHouse does: a Date made from a day count keeps its low 16 bits
//! (so counts past its range wrap), a Date32 stops at its range's ends, a
//! negative count is an error; Modified Julian Days outside years 0 to
//! 9999 are errors, or NULL for the `OrNull` forms.

use std::sync::Arc;

use chrono::NaiveDate;
use datafusion::arrow::array::{
    Array, ArrayRef, Date32Array, Int32Array, StringBuilder, UInt32Array,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{self, Args, Call, Kernel, Shape};
use super::moments;
use crate::calendar::EPOCH;
use crate::hashing::is_text;
use crate::numeric::is_integer;

/// Days from 0000-01-01 to the epoch.
const YEAR_ZERO_TO_EPOCH: i128 = 719_528;
/// Days from 1858-11-17 to the epoch.
const MJD_TO_EPOCH: i64 = 40_587;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DayNumber {
    ToYearZero,
    FromYearZero,
    FromYearZero32,
    ToJulian,
    ToJulianOrNull,
    FromJulian,
    FromJulianOrNull,
}

impl DayNumber {
    pub const ALL: [DayNumber; 7] = [
        DayNumber::ToYearZero,
        DayNumber::FromYearZero,
        DayNumber::FromYearZero32,
        DayNumber::ToJulian,
        DayNumber::ToJulianOrNull,
        DayNumber::FromJulian,
        DayNumber::FromJulianOrNull,
    ];

    fn or_null(self) -> bool {
        matches!(
            self,
            DayNumber::ToJulianOrNull | DayNumber::FromJulianOrNull
        )
    }
}

/// Days from the epoch to the first and last days of years 0 to 9999.
fn year_range() -> (i64, i64) {
    let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).map_or(0, |d| (d - EPOCH).num_days());
    (day(0, 1, 1), day(9999, 12, 31))
}

impl Kernel for DayNumber {
    fn name(&self) -> &'static str {
        match self {
            DayNumber::ToYearZero => "toDaysSinceYearZero",
            DayNumber::FromYearZero => "fromDaysSinceYearZero",
            DayNumber::FromYearZero32 => "fromDaysSinceYearZero32",
            DayNumber::ToJulian => "toModifiedJulianDay",
            DayNumber::ToJulianOrNull => "toModifiedJulianDayOrNull",
            DayNumber::FromJulian => "fromModifiedJulianDay",
            DayNumber::FromJulianOrNull => "fromModifiedJulianDayOrNull",
        }
    }

    fn aliases(&self) -> &'static [&'static str] {
        match self {
            DayNumber::ToYearZero => &["TO_DAYS"],
            DayNumber::FromYearZero => &["FROM_DAYS"],
            _ => &[],
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let name = self.name();
        let (_, null) = match self {
            DayNumber::ToYearZero => args::trailing_zone(name, args.types, args.values, 1)?,
            _ if args.types.len() != 1 => return Err(args::arity(name, args.types.len(), "1")),
            _ => (None, false),
        };
        let source = &args.types[0];
        let accepted = match self {
            DayNumber::ToYearZero => matches!(source, DataType::Date32 | DataType::Timestamp(..)),
            DayNumber::ToJulian | DayNumber::ToJulianOrNull => is_text(source),
            _ => is_integer(source),
        };
        if *source == DataType::Null || null {
            return Ok(Shape::null());
        }
        if !accepted {
            return Err(args::illegal_type(name, source));
        }
        let shape = match self {
            DayNumber::ToYearZero => Shape::of(DataType::UInt32),
            DayNumber::FromYearZero => Shape::of(DataType::Date32),
            DayNumber::FromYearZero32 => Shape::date32(),
            DayNumber::ToJulian | DayNumber::ToJulianOrNull => Shape::of(DataType::Int32),
            DayNumber::FromJulian | DayNumber::FromJulianOrNull => Shape::of(DataType::Utf8),
        };
        Ok(if self.or_null() {
            shape.or_null()
        } else {
            shape
        })
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        match self {
            DayNumber::ToYearZero => {
                let zone = args::text_constant(call.values.get(1).copied().flatten());
                let zone = zone.map(Arc::from);
                let array = moments::in_zone(Arc::clone(array), zone.as_ref())?;
                let days = moments::moments(&array, None)?
                    .into_iter()
                    .map(|m| (moments::day_number(m.local) + YEAR_ZERO_TO_EPOCH as i64) as u32);
                Ok(Arc::new(UInt32Array::new(
                    days.collect(),
                    array.nulls().cloned(),
                )))
            }
            DayNumber::FromYearZero | DayNumber::FromYearZero32 => self.from_year_zero(array),
            DayNumber::ToJulian | DayNumber::ToJulianOrNull => self.to_julian(array),
            DayNumber::FromJulian | DayNumber::FromJulianOrNull => self.from_julian(array),
        }
    }
}

impl DayNumber {
    fn from_year_zero(&self, array: &ArrayRef) -> Result<ArrayRef> {
        let counts = frame::integers(array)?;
        let (first, last) = year_range();
        let mut days = Vec::with_capacity(counts.len());
        for (row, count) in counts.into_iter().enumerate() {
            if count < 0 && array.is_valid(row) {
                return Err(args::error(
                    ErrorCode::ARGUMENT_OUT_OF_BOUND,
                    format!("Expected a non-negative integer, got: {count}"),
                ));
            }
            let since_epoch = count - YEAR_ZERO_TO_EPOCH;
            days.push(match self {
                // A Date's day count is 16 bits wide.
                DayNumber::FromYearZero => since_epoch.rem_euclid(1 << 16) as i32,
                _ => since_epoch.clamp(first as i128, last as i128) as i32,
            });
        }
        Ok(Arc::new(Date32Array::new(
            days.into(),
            array.nulls().cloned(),
        )))
    }

    fn to_julian(&self, array: &ArrayRef) -> Result<ArrayRef> {
        let texts = frame::texts(array)?;
        let mut out = Vec::with_capacity(texts.len());
        for text in texts.iter() {
            let day = match text.map(parse_iso_date) {
                None => None,
                Some(Ok(date)) => Some(((date - EPOCH).num_days() + MJD_TO_EPOCH) as i32),
                Some(Err(_)) if self.or_null() => None,
                Some(Err(e)) => return Err(e),
            };
            out.push(day);
        }
        Ok(Arc::new(Int32Array::from(out)))
    }

    fn from_julian(&self, array: &ArrayRef) -> Result<ArrayRef> {
        let days = frame::integers(array)?;
        let (first, last) = year_range();
        let mut out = StringBuilder::with_capacity(days.len(), days.len() * 10);
        for (row, day) in days.into_iter().enumerate() {
            let since_epoch = day - MJD_TO_EPOCH as i128;
            let inside = (first as i128..=last as i128).contains(&since_epoch);
            match (array.is_valid(row), inside) {
                (false, _) => out.append_null(),
                (true, true) => {
                    let date = EPOCH + chrono::Duration::days(since_epoch as i64);
                    out.append_value(date.format("%Y-%m-%d").to_string());
                }
                (true, false) if self.or_null() => out.append_null(),
                (true, false) => {
                    return Err(args::error(
                        ErrorCode::CANNOT_FORMAT_DATETIME,
                        "Value cannot be represented as date because it's out of range",
                    ));
                }
            }
        }
        Ok(Arc::new(out.finish()))
    }
}

/// Text exactly `YYYY-MM-DD`: a malformed one is code 27, an impossible
/// date code 38, as ClickHouse reports them.
fn parse_iso_date(text: &str) -> Result<NaiveDate> {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .map(|d| d.iter().fold(0u32, |n, b| n * 10 + (b - b'0') as u32))
    };
    let parts = (digits(0..4), digits(5..7), digits(8..10));
    let (Some(year), Some(month), Some(day)) = parts else {
        return Err(args::error(
            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
            format!("Cannot parse input: expected a date YYYY-MM-DD, got '{text}'"),
        ));
    };
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return Err(args::error(
            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
            format!("Cannot parse input: expected a date YYYY-MM-DD, got '{text}'"),
        ));
    }
    NaiveDate::from_ymd_opt(year as i32, month, day).ok_or_else(|| {
        args::error(
            ErrorCode::CANNOT_PARSE_DATE,
            format!(
                "Invalid date, out of range (year: {year}, month: {month}, day_of_month: {day})"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_julian_days_need_iso_dates() {
        let day = parse_iso_date("1858-11-17").unwrap();
        assert_eq!((day - EPOCH).num_days() + MJD_TO_EPOCH, 0);
        assert!(parse_iso_date("2024-1-01").is_err());
        assert!(parse_iso_date("2024-02-30").is_err());
        assert!(parse_iso_date("2024-01-01 ").is_err());
        assert_eq!(year_range().0, -719_528);
    }
}
