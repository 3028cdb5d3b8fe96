//! `age('unit', start, end[, zone])`: how many whole units have passed
//! from start to end, where `dateDiff` counts the unit boundaries crossed
//! (from January 31st to March 1st is one month of age, two of dateDiff).
//!
//! As ClickHouse does: the values are read on the zone argument's clock
//! (each DateTime's own without one, a Date at its midnight); a month has
//! passed when the end's day and time of day reach the start's; weeks are
//! whole seven days, quarters three months, years twelve; an end before
//! the start gives the negated age of the reverse.

use chrono::{Datelike, NaiveDateTime, Timelike};
use datafusion::arrow::array::{Array, ArrayRef, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::intervals::IntervalKind;
use super::moments::{self, ticks_per_second};
use crate::calendar::{local_moments, local_time, parse_zone};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Age;

/// The unit named by the constant first argument.
fn unit(value: Option<&datafusion::common::ScalarValue>) -> Result<IntervalKind> {
    let text = args::text_constant(value).ok_or_else(|| {
        args::error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "First argument for function age (unit) must be a constant String",
        )
    })?;
    IntervalKind::from_keyword(text).ok_or_else(|| {
        args::error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Function age does not support '{text}' unit"),
        )
    })
}

impl Kernel for Age {
    fn name(&self) -> &'static str {
        "age"
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let types = args.types;
        let (_, null) = args::trailing_zone(self.name(), types, args.values, 3)?;
        if !args::is_null_constant(args.values[0]) {
            unit(args.values[0])?;
        }
        for moment in &types[1..3] {
            if !matches!(
                moment,
                DataType::Date32 | DataType::Timestamp(..) | DataType::Null
            ) {
                return Err(args::illegal_type(self.name(), moment));
            }
        }
        if null || args::is_null_constant(args.values[0]) {
            return Ok(Shape::null());
        }
        Ok(Shape::of(DataType::Int64))
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let unit = unit(call.values[0])?;
        let zone = args::text_constant(call.values.get(3).copied().flatten());
        let start = wall_clock(&call.arrays[1], zone)?;
        let end = wall_clock(&call.arrays[2], zone)?;
        let ages: Vec<i64> = start
            .iter()
            .zip(&end)
            .map(|(&start, &end)| age(unit, start, end))
            .collect();
        let nulls = datafusion::arrow::buffer::NullBuffer::union(
            call.arrays[1].nulls(),
            call.arrays[2].nulls(),
        );
        Ok(std::sync::Arc::new(Int64Array::new(ages.into(), nulls)))
    }
}

/// Every value's wall-clock time to the nanosecond, on `zone`'s clock
/// when given (null slots read as the epoch).
fn wall_clock(array: &ArrayRef, zone: Option<&str>) -> Result<Vec<NaiveDateTime>> {
    let DataType::Timestamp(unit, own_zone) = array.data_type() else {
        return local_moments(array);
    };
    let zone = parse_zone(zone.or(own_zone.as_deref()))?;
    let per_second = ticks_per_second(*unit);
    let ticks = moments::ticks(array).unwrap_or_default();
    let nanos_per_tick = 1_000_000_000 / per_second;
    let at = |tick: i64| {
        let moment = local_time(tick.div_euclid(per_second), zone.as_ref());
        let nanos = (tick.rem_euclid(per_second) * nanos_per_tick) as u32;
        moment.with_nanosecond(nanos).unwrap_or(moment)
    };
    Ok(ticks.iter().map(|&tick| at(tick)).collect())
}

/// Whole `unit`s from `start` to `end`.
fn age(unit: IntervalKind, start: NaiveDateTime, end: NaiveDateTime) -> i64 {
    use IntervalKind::*;
    if end < start {
        return -age(unit, end, start);
    }
    let nanos = || {
        let elapsed = end - start;
        elapsed.num_nanoseconds().map_or(i128::MAX, i128::from)
    };
    let whole = |per_unit: i128| (nanos() / per_unit) as i64;
    match unit {
        Nanosecond => whole(1),
        Microsecond => whole(1_000),
        Millisecond => whole(1_000_000),
        Second => whole(1_000_000_000),
        Minute => whole(60_000_000_000),
        Hour => whole(3_600_000_000_000),
        Day => days(start, end),
        Week => days(start, end) / 7,
        Month => months(start, end),
        Quarter => months(start, end) / 3,
        Year => months(start, end) / 12,
    }
}

/// Whole days from `start` to a later `end`.
fn days(start: NaiveDateTime, end: NaiveDateTime) -> i64 {
    let dates = (end.date() - start.date()).num_days();
    dates - i64::from(end.time() < start.time())
}

/// Whole months from `start` to a later `end`.
fn months(start: NaiveDateTime, end: NaiveDateTime) -> i64 {
    let month_number = |m: NaiveDateTime| m.year() as i64 * 12 + m.month0() as i64;
    let within = |m: NaiveDateTime| (m.day(), m.time());
    month_number(end) - month_number(start) - i64::from(within(end) < within(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").unwrap()
    }

    #[test]
    fn counts_whole_units() {
        use IntervalKind::*;
        let cases = [
            (Day, "2024-01-31 00:00:00", "2024-03-01 00:00:00", 30),
            (Month, "2024-01-31 00:00:00", "2024-02-29 00:00:00", 0),
            (Month, "2024-01-31 00:00:00", "2024-03-01 00:00:00", 1),
            (Month, "2024-03-01 00:00:00", "2024-01-31 00:00:00", -1),
            (Year, "2020-02-29 00:00:00", "2021-02-28 00:00:00", 0),
            (Hour, "2024-01-01 00:30:00", "2024-01-01 02:29:00", 1),
            (Week, "2024-01-01 00:00:00", "2024-01-14 00:00:00", 1),
            (Quarter, "2024-01-15 00:00:00", "2024-04-14 00:00:00", 0),
            (Second, "2024-01-01 00:00:00.9", "2024-01-01 00:00:01.1", 0),
            (
                Millisecond,
                "2024-01-01 00:00:00.9",
                "2024-01-01 00:00:01.1",
                200,
            ),
            (Day, "2024-01-01 10:00:00", "2024-01-02 09:59:59", 0),
        ];
        for (unit, start, end, expected) in cases {
            assert_eq!(
                age(unit, at(start), at(end)),
                expected,
                "{unit:?} {start} {end}"
            );
        }
    }
}
