//! Coarse labels of a moment for reports: `monthName(d)`, the English name
//! of its month on its own clock (of a Date, DateTime or DateTime64), and
//! `timeSlot(t[, zone])`, the start of its half hour as a DateTime.
//!
//! As ClickHouse does: half hours are counted from the epoch in UTC (so in
//! a zone 45 minutes off UTC a slot starts at :15 and :45), and a
//! DateTime64's slot stops at the ends of DateTime's range; `monthName`
//! refuses a Date32 and `timeSlot` any date.

use std::sync::Arc;

use chrono::Datelike;
use datafusion::arrow::array::{Array, ArrayRef, StringArray, TimestampSecondArray};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::Result;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::moments::{self, ticks_per_second};
use crate::calendar::{date_time_in_range, local_moments, time_zone};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Seconds in a time slot.
const HALF_HOUR: i64 = 1800;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    MonthName,
    TimeSlot,
}

impl Slot {
    pub const ALL: [Slot; 2] = [Slot::MonthName, Slot::TimeSlot];
}

impl Kernel for Slot {
    fn name(&self) -> &'static str {
        match self {
            Slot::MonthName => "monthName",
            Slot::TimeSlot => "timeSlot",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        let illegal = || args::illegal_type(name, &types[0]);
        match self {
            Slot::MonthName => {
                if types.len() != 1 {
                    return Err(args::arity(name, types.len(), "1"));
                }
                match types[0] {
                    DataType::Null => Ok(Shape::null()),
                    DataType::Date32 if args.date32[0] => Err(illegal()),
                    DataType::Date32 | DataType::Timestamp(..) => Ok(Shape::of(DataType::Utf8)),
                    _ => Err(illegal()),
                }
            }
            Slot::TimeSlot => {
                let (zone, null) = args::trailing_zone(name, types, args.values, 1)?;
                if !matches!(types[0], DataType::Timestamp(..) | DataType::Null) {
                    return Err(illegal());
                }
                if null {
                    return Ok(Shape::null());
                }
                let zone = zone.or_else(|| time_zone(&types[0]));
                Ok(Shape::of(DataType::Timestamp(TimeUnit::Second, zone)))
            }
        }
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        match (self, call.output) {
            (Slot::MonthName, _) => {
                let moments = local_moments(array)?;
                let names: StringArray = (0..array.len())
                    .map(|row| {
                        array
                            .is_valid(row)
                            .then(|| MONTHS[moments[row].month0() as usize])
                    })
                    .collect();
                Ok(Arc::new(names))
            }
            (Slot::TimeSlot, DataType::Timestamp(_, zone)) => {
                let DataType::Timestamp(unit, _) = array.data_type() else {
                    return Err(args::illegal_type(self.name(), array.data_type()));
                };
                let per_second = ticks_per_second(*unit);
                let slots = moments::ticks(array).unwrap_or_default().iter().map(|&t| {
                    let second = t.div_euclid(per_second);
                    date_time_in_range(second - second.rem_euclid(HALF_HOUR))
                });
                Ok(Arc::new(
                    TimestampSecondArray::new(slots.collect(), array.nulls().cloned())
                        .with_timezone_opt(zone.clone()),
                ))
            }
            _ => Err(args::illegal_type(self.name(), call.output)),
        }
    }
}
