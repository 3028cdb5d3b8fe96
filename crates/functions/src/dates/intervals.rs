//! `toIntervalDay(n)` and the other units: an amount of one calendar unit
//! as an Arrow MonthDayNano interval, so DataFusion's date arithmetic adds
//! it. `INTERVAL n DAY` with a computed `n`, `addDays(d, n)` and
//! `date_add(DAY, n, d)` are this function under the `+` and `-` operators,
//! so a column moves a date as a constant does.
//!
//! As ClickHouse does: a fractional amount is truncated toward zero; a week
//! is seven days and a quarter three months.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, IntervalMonthDayNanoArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, IntervalMonthDayNano, IntervalUnit};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use crate::numeric::{is_float, is_integer};

/// One unit an interval counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalKind {
    Nanosecond,
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

const NANOS_PER_SECOND: i64 = 1_000_000_000;

impl IntervalKind {
    pub const ALL: [IntervalKind; 11] = {
        use IntervalKind::*;
        [
            Nanosecond,
            Microsecond,
            Millisecond,
            Second,
            Minute,
            Hour,
            Day,
            Week,
            Month,
            Quarter,
            Year,
        ]
    };

    /// The unit a unit keyword (`DAY`, `day`, `days`, ClickHouse's short
    /// forms `dd`, `d`, ...) names, as `INTERVAL n unit` and
    /// `date_add(unit, n, d)` read it.
    pub fn from_keyword(word: &str) -> Option<IntervalKind> {
        use IntervalKind::*;
        let word = word.to_ascii_lowercase();
        let word = word.strip_prefix("sql_tsi_").unwrap_or(&word);
        Some(match word {
            "nanosecond" | "nanoseconds" | "ns" => Nanosecond,
            "microsecond" | "microseconds" | "us" | "mcs" => Microsecond,
            "millisecond" | "milliseconds" | "ms" => Millisecond,
            "second" | "seconds" | "ss" | "s" => Second,
            "minute" | "minutes" | "mi" | "n" => Minute,
            "hour" | "hours" | "hh" | "h" => Hour,
            "day" | "days" | "dd" | "d" => Day,
            "week" | "weeks" | "wk" | "ww" => Week,
            "month" | "months" | "mm" | "m" => Month,
            "quarter" | "quarters" | "qq" | "q" => Quarter,
            "year" | "years" | "yyyy" | "yy" => Year,
            _ => return None,
        })
    }

    /// The function that makes an interval of this unit.
    pub fn function_name(self) -> &'static str {
        use IntervalKind::*;
        match self {
            Nanosecond => "toIntervalNanosecond",
            Microsecond => "toIntervalMicrosecond",
            Millisecond => "toIntervalMillisecond",
            Second => "toIntervalSecond",
            Minute => "toIntervalMinute",
            Hour => "toIntervalHour",
            Day => "toIntervalDay",
            Week => "toIntervalWeek",
            Month => "toIntervalMonth",
            Quarter => "toIntervalQuarter",
            Year => "toIntervalYear",
        }
    }

    /// `amount` of this unit, or None past the interval's range.
    fn interval(self, amount: i64) -> Option<IntervalMonthDayNano> {
        use IntervalKind::*;
        let nanos = |per_unit: i64| {
            let nanos = amount.checked_mul(per_unit)?;
            Some(IntervalMonthDayNano::new(0, 0, nanos))
        };
        let days = |per_unit: i64| {
            let days = i32::try_from(amount.checked_mul(per_unit)?).ok()?;
            Some(IntervalMonthDayNano::new(0, days, 0))
        };
        let months = |per_unit: i64| {
            let months = i32::try_from(amount.checked_mul(per_unit)?).ok()?;
            Some(IntervalMonthDayNano::new(months, 0, 0))
        };
        match self {
            Nanosecond => nanos(1),
            Microsecond => nanos(1_000),
            Millisecond => nanos(1_000_000),
            Second => nanos(NANOS_PER_SECOND),
            Minute => nanos(60 * NANOS_PER_SECOND),
            Hour => nanos(3600 * NANOS_PER_SECOND),
            Day => days(1),
            Week => days(7),
            Month => months(1),
            Quarter => months(3),
            Year => months(12),
        }
    }
}

impl Kernel for IntervalKind {
    fn name(&self) -> &'static str {
        self.function_name()
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let name = self.name();
        if args.types.len() != 1 {
            return Err(args::arity(name, args.types.len(), "1"));
        }
        match &args.types[0] {
            DataType::Null => Ok(Shape::null()),
            t if is_integer(t) || is_float(t) || matches!(t, DataType::Decimal128(..)) => {
                Ok(Shape {
                    // `toIntervalDay` makes an `IntervalDay`.
                    interval: name.strip_prefix("to"),
                    ..Shape::of(DataType::Interval(IntervalUnit::MonthDayNano))
                })
            }
            t => Err(args::illegal_type(name, t)),
        }
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        // Casting to Int64 truncates fractions toward zero, as ClickHouse does.
        let amounts = cast(&call.arrays[0], &DataType::Int64)?;
        let amounts = amounts
            .as_any()
            .downcast_ref::<datafusion::arrow::array::Int64Array>()
            .expect("cast to Int64 gives Int64");
        let values = (0..amounts.len())
            .map(|row| {
                // The value under a NULL slot is arbitrary: never an error.
                let amount = if amounts.is_valid(row) {
                    amounts.value(row)
                } else {
                    0
                };
                self.interval(amount).ok_or_else(|| {
                    args::error(
                        ErrorCode::ARGUMENT_OUT_OF_BOUND,
                        format!("{} of {amount} is out of the interval's range", self.name()),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(IntervalMonthDayNanoArray::new(
            values.into(),
            amounts.nulls().cloned(),
        )))
    }
}
