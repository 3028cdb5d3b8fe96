//! `toIntervalDay(n)` and the other units: an amount of one calendar unit
//! as an Arrow MonthDayNano interval, so DataFusion's date arithmetic adds
//! it. `INTERVAL n DAY` with a computed `n`, `addDays(d, n)` and
//! `date_add(DAY, n, d)` are this function under the `+` and `-` operators,
//! so a column moves a date as a constant does.
//!
//! As ClickHouse does: a fractional amount is truncated toward zero; a week
//! is seven days and a quarter three months.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, IntervalMonthDayNanoArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Int64Type, IntervalMonthDayNano, IntervalMonthDayNanoType, IntervalUnit,
};
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
        strata_common::types::interval_of_count(self.type_name(), amount)
    }

    /// ClickHouse's type of an interval of this unit.
    fn type_name(self) -> &'static str {
        &self.function_name()["to".len()..]
    }

    /// The unit's full keyword (`Hour`), the one every SQL parser knows.
    pub fn keyword(self) -> &'static str {
        &self.function_name()["toInterval".len()..]
    }
}

impl IntervalKind {
    /// The unit of a ClickHouse interval type (`IntervalDay`).
    pub fn of_type_name(name: &str) -> Option<IntervalKind> {
        Self::from_keyword(name.strip_prefix("Interval")?)
    }

    /// Nanoseconds in one unit, a month being 28 days as ClickHouse counts
    /// it when it converts between units.
    fn nanos(self) -> i128 {
        use IntervalKind::*;
        const DAY: i128 = 86_400 * NANOS_PER_SECOND as i128;
        match self {
            Nanosecond => 1,
            Microsecond => 1_000,
            Millisecond => 1_000_000,
            Second => NANOS_PER_SECOND as i128,
            Minute => 60 * NANOS_PER_SECOND as i128,
            Hour => 3_600 * NANOS_PER_SECOND as i128,
            Day => DAY,
            Week => 7 * DAY,
            Month => 28 * DAY,
            Quarter => 3 * 28 * DAY,
            Year => 12 * 28 * DAY,
        }
    }

    /// How many of this unit `interval` holds, truncated toward zero.
    fn count(self, interval: IntervalMonthDayNano) -> i64 {
        let total = i128::from(interval.months) * IntervalKind::Month.nanos()
            + i128::from(interval.days) * IntervalKind::Day.nanos()
            + i128::from(interval.nanoseconds);
        (total / self.nanos()) as i64
    }
}

/// `values` as ClickHouse's CAST makes intervals of `kind`: a number (its
/// fraction truncated) or the text of an integer counts the unit; an
/// interval of another unit converts through its length (90 minutes is 1
/// hour, a year 336 days).
pub fn cast_to_interval(values: &ArrayRef, kind: IntervalKind) -> Result<ArrayRef> {
    let counts: ArrayRef = match values.data_type() {
        DataType::Interval(IntervalUnit::MonthDayNano) => interval_counts(values, kind),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let texts = cast(values, &DataType::Utf8)?;
            let texts = texts.as_string::<i32>();
            let counts = texts
                .iter()
                .map(|text| match text {
                    None => Ok(None),
                    Some(text) => text.parse::<i64>().map(Some).map_err(|_| {
                        args::error(
                            ErrorCode::CANNOT_PARSE_TEXT,
                            format!("Cannot parse string '{text}' as {}", kind.type_name()),
                        )
                    }),
                })
                .collect::<Result<Int64Array>>()?;
            Arc::new(counts)
        }
        _ => Arc::clone(values),
    };
    kind.intervals(&counts)
}

/// How many units of `kind` each interval of `values` holds: what CAST of
/// an interval to a number gives.
pub fn interval_counts(values: &ArrayRef, kind: IntervalKind) -> ArrayRef {
    Arc::new(
        values
            .as_primitive::<IntervalMonthDayNanoType>()
            .unary::<_, Int64Type>(|interval| kind.count(interval)),
    )
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
                    interval: Some(self.type_name()),
                    ..Shape::of(DataType::Interval(IntervalUnit::MonthDayNano))
                })
            }
            t => Err(args::illegal_type(name, t)),
        }
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        self.intervals(&call.arrays[0])
    }
}

impl IntervalKind {
    /// Each amount (a number) as an interval of this unit.
    fn intervals(self, amounts: &ArrayRef) -> Result<ArrayRef> {
        // Casting to Int64 truncates fractions toward zero, as ClickHouse does.
        let amounts = cast(amounts, &DataType::Int64)?;
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
