//! `changeYear`, `changeMonth`, `changeDay`, `changeHour`, `changeMinute`
//! and `changeSecond`: a moment with one wall-clock part replaced by an
//! integer.
//!
//! As ClickHouse does: a day past the month's end carries into the next
//! month (February 31st is March 2nd or 3rd); a month outside 1 to 12, a
//! day outside 1 to 31 or a time part outside its clock range gives the
//! type's zero (1970-01-01 for Date and DateTime, 0000-01-01 for Date32 and
//! DateTime64); results stop at the ends of the type's range. Changing a
//! time part of a Date gives a DateTime (DateTime64(3) for a Date32).

use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, Timelike};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Date32Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, TimeUnit};
use datafusion::common::Result;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::moments::{self, local_to_utc, ticks_per_second, timestamps};
use crate::calendar::{EPOCH, parse_zone, time_zone};
use crate::numeric::is_integer;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

impl Part {
    pub const ALL: [Part; 6] = [
        Part::Year,
        Part::Month,
        Part::Day,
        Part::Hour,
        Part::Minute,
        Part::Second,
    ];

    fn is_time(self) -> bool {
        matches!(self, Part::Hour | Part::Minute | Part::Second)
    }

    /// The wall-clock time with this part set to `value`, or None for the
    /// type's zero.
    fn apply(self, at: NaiveDateTime, value: i64) -> Option<NaiveDateTime> {
        let (year, month, day) = (at.year() as i64, at.month() as i64, at.day() as i64);
        let (mut date, time) = (at.date(), at.time());
        match self {
            Part::Year => date = carried_date(value, month, day)?,
            Part::Month => date = carried_date(year, value, day)?,
            Part::Day => date = carried_date(year, month, value)?,
            Part::Hour | Part::Minute | Part::Second => {
                let limit = if self == Part::Hour { 23 } else { 59 };
                if !(0..=limit).contains(&value) {
                    return None;
                }
                let value = value as u32;
                let time = match self {
                    Part::Hour => time.with_hour(value),
                    Part::Minute => time.with_minute(value),
                    _ => time.with_second(value),
                };
                return Some(date.and_time(time?));
            }
        }
        Some(date.and_time(time))
    }
}

/// Year, month and day, a day past the month's end carried over. Years
/// far outside every range saturate to one that is.
fn carried_date(year: i64, month: i64, day: i64) -> Option<NaiveDate> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let year = year.clamp(-1, 10_000) as i32;
    let first = NaiveDate::from_ymd_opt(year, month as u32, 1)?;
    Some(first + Duration::days(day - 1))
}

/// The first and last wall-clock times of a type, and its zero.
struct Range {
    first: NaiveDateTime,
    last: NaiveDateTime,
    zero: NaiveDateTime,
}

fn at(year: i32, month: u32, day: u32, seconds: u32) -> NaiveDateTime {
    let date = NaiveDate::from_ymd_opt(year, month, day).expect("a valid date");
    date.and_hms_opt(seconds / 3600, seconds / 60 % 60, seconds % 60)
        .expect("a valid time")
}

impl Kernel for Part {
    fn name(&self) -> &'static str {
        match self {
            Part::Year => "changeYear",
            Part::Month => "changeMonth",
            Part::Day => "changeDay",
            Part::Hour => "changeHour",
            Part::Minute => "changeMinute",
            Part::Second => "changeSecond",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let name = self.name();
        if args.types.len() != 2 {
            return Err(args::arity(name, args.types.len(), "2"));
        }
        let value = &args.types[1];
        if !(is_integer(value) || *value == DataType::Null) {
            return Err(args::illegal_type(name, value));
        }
        let shape = match &args.types[0] {
            DataType::Date32 if self.is_time() && args.date32[0] => {
                Shape::of(DataType::Timestamp(TimeUnit::Millisecond, None))
            }
            DataType::Date32 if self.is_time() => {
                Shape::of(DataType::Timestamp(TimeUnit::Second, None))
            }
            DataType::Date32 if args.date32[0] => Shape::date32(),
            t @ (DataType::Date32 | DataType::Timestamp(..)) => Shape::of(t.clone()),
            DataType::Null => Shape::null(),
            other => return Err(args::illegal_type(name, other)),
        };
        if *value == DataType::Null {
            return Ok(Shape::null());
        }
        Ok(shape)
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let source = &call.arrays[0];
        let values = cast(&call.arrays[1], &DataType::Int64).or_else(|_| {
            // UInt64 values past Int64's range are far past every range.
            let saturated = cast(&call.arrays[1], &DataType::Float64)?;
            cast(&saturated, &DataType::Int64)
        })?;
        let values = values.as_primitive::<Int64Type>();
        let nulls = NullBuffer::union(source.nulls(), values.nulls());
        let zone = parse_zone(time_zone(call.output).as_deref())?;
        let per_second = match call.output {
            DataType::Timestamp(unit, _) => ticks_per_second(*unit),
            _ => 1,
        };
        let range = self.range(call.output, call.date32[0] || per_second > 1);
        let moments = moments::moments(source, None)?;
        let fractions = fractions(source, per_second);
        let results = moments.iter().enumerate().map(|(row, moment)| {
            let changed = self.apply(moment.local, values.value(row));
            let local = changed.map_or(range.zero, |c| c.clamp(range.first, range.last));
            let fraction = if changed.is_some() { fractions[row] } else { 0 };
            (local, fraction)
        });
        Ok(match call.output {
            DataType::Timestamp(unit, output_zone) => {
                let ticks = results
                    .map(|(local, fraction)| {
                        let utc = local_to_utc(local, zone.as_ref());
                        if per_second == 1 {
                            utc.clamp(0, u32::MAX as i64)
                        } else {
                            utc * per_second + fraction
                        }
                    })
                    .collect();
                timestamps(*unit, ticks, nulls, output_zone.clone())
            }
            _ => {
                let days = results.map(|(local, _)| (local.date() - EPOCH).num_days() as i32);
                Arc::new(Date32Array::new(days.collect(), nulls))
            }
        })
    }
}

impl Part {
    /// The range and zero of the result type; `wide` for Date32 and
    /// DateTime64. A DateTime's range is its seconds', checked later.
    fn range(&self, output: &DataType, wide: bool) -> Range {
        let years = Range {
            first: at(0, 1, 1, 0),
            last: at(9999, 12, 31, 86_399),
            zero: at(0, 1, 1, 0),
        };
        match (output, wide) {
            (_, true) => years,
            (DataType::Timestamp(..), false) => Range {
                zero: at(1970, 1, 1, 0),
                ..years
            },
            _ => Range {
                first: at(1970, 1, 1, 0),
                last: at(2149, 6, 6, 0),
                zero: at(1970, 1, 1, 0),
            },
        }
    }
}

/// The ticks of each value's second below the whole second, in the
/// result's unit (none for Dates and DateTimes).
fn fractions(source: &ArrayRef, per_second: i64) -> Vec<i64> {
    match (moments::ticks(source), source.data_type()) {
        (Some(ticks), DataType::Timestamp(unit, _)) if per_second > 1 => {
            let per_source = ticks_per_second(*unit);
            ticks
                .iter()
                .map(|t| t.rem_euclid(per_source) * per_second / per_source)
                .collect()
        }
        _ => vec![0; source.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_carry_and_bad_parts_give_zero() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        assert_eq!(carried_date(2024, 2, 31), day(2024, 3, 2));
        assert_eq!(carried_date(2023, 2, 29), day(2023, 3, 1));
        assert_eq!(carried_date(2024, 13, 1), None);
        assert_eq!(carried_date(2024, 1, 0), None);
        let noon = at(2024, 1, 31, 43_200);
        assert_eq!(Part::Month.apply(noon, 4), Some(at(2024, 5, 1, 43_200)));
        assert_eq!(Part::Hour.apply(noon, 24), None);
        assert_eq!(Part::Second.apply(noon, 59), Some(at(2024, 1, 31, 43_259)));
    }
}
