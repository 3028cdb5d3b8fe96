//! `addMilliseconds`, `addMicroseconds`, `addNanoseconds` and their
//! `subtract` forms: a moment moved by a number of sub-second units, as a
//! DateTime64 at least as precise as the unit (a DateTime64(3) moved by
//! microseconds is a DateTime64(6)), in the zone argument's clock if one
//! follows.
//!
//! As ClickHouse does: a DateTime counts as a DateTime64 of whole seconds
//! and text as a DateTime64(3); a float amount is truncated toward zero;
//! Dates are refused; a result past Int64's ticks is DECIMAL_OVERFLOW.

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, TimeUnit};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::moments::{self, ticks_per_second, timestamps};
use super::to_moment::{Target, to_ticks};
use crate::calendar::time_zone;
use crate::hashing::is_text;
use crate::numeric::{is_float, is_integer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shift {
    unit: TimeUnit,
    subtract: bool,
}

impl Shift {
    pub const ALL: [Shift; 6] = {
        use TimeUnit::*;
        [
            Shift::new(Millisecond, false),
            Shift::new(Microsecond, false),
            Shift::new(Nanosecond, false),
            Shift::new(Millisecond, true),
            Shift::new(Microsecond, true),
            Shift::new(Nanosecond, true),
        ]
    };

    const fn new(unit: TimeUnit, subtract: bool) -> Shift {
        Shift { unit, subtract }
    }

    /// The unit of the moment as it is moved: text reads as milliseconds.
    fn source_unit(data_type: &DataType) -> Option<TimeUnit> {
        match data_type {
            DataType::Timestamp(unit, _) => Some(*unit),
            t if is_text(t) => Some(TimeUnit::Millisecond),
            _ => None,
        }
    }
}

fn overflow() -> datafusion::error::DataFusionError {
    args::error(ErrorCode::DECIMAL_OVERFLOW, "Decimal math overflow")
}

/// The amounts as whole units, floats truncated toward zero; NULL where
/// the amount is NULL.
fn amounts(array: &ArrayRef) -> Result<Vec<Option<i64>>> {
    if is_float(array.data_type()) {
        let floats = cast(array, &DataType::Float64)?;
        return floats
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| {
                let Some(whole) = v.map(f64::trunc) else {
                    return Ok(None);
                };
                // i64::MAX as f64 rounds up to 2^63, itself out of range.
                if whole.is_finite() && whole >= i64::MIN as f64 && whole < i64::MAX as f64 {
                    Ok(Some(whole as i64))
                } else {
                    Err(overflow())
                }
            })
            .collect();
    }
    let integers = super::frame::integers(array)?;
    (0..array.len())
        .map(|row| match array.is_valid(row) {
            true => i64::try_from(integers[row])
                .map(Some)
                .map_err(|_| overflow()),
            false => Ok(None),
        })
        .collect()
}

impl Kernel for Shift {
    fn name(&self) -> &'static str {
        use TimeUnit::*;
        match (self.unit, self.subtract) {
            (Millisecond, false) => "addMilliseconds",
            (Microsecond, false) => "addMicroseconds",
            (_, false) => "addNanoseconds",
            (Millisecond, true) => "subtractMilliseconds",
            (Microsecond, true) => "subtractMicroseconds",
            (_, true) => "subtractNanoseconds",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        let (zone, null) = args::trailing_zone(name, types, args.values, 2)?;
        let amount = &types[1];
        if !(is_integer(amount) || is_float(amount) || *amount == DataType::Boolean || null) {
            return Err(args::error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Second argument for function {name} must be a number"),
            ));
        }
        if null {
            return Ok(Shape::null());
        }
        let Some(source) = Self::source_unit(&types[0]) else {
            return Err(args::error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of function {name}: it must be a date with time or a String",
                    strata_common::types::clickhouse_type_name(&types[0], false)
                ),
            ));
        };
        let unit = if ticks_per_second(source) > ticks_per_second(self.unit) {
            source
        } else {
            self.unit
        };
        Ok(Shape::of(DataType::Timestamp(
            unit,
            zone.or_else(|| time_zone(&types[0])),
        )))
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let DataType::Timestamp(unit, zone) = call.output else {
            return Err(args::illegal_type(self.name(), call.output));
        };
        let array = &call.arrays[0];
        let source = Self::source_unit(array.data_type())
            .ok_or_else(|| args::illegal_type(self.name(), array.data_type()))?;
        let ticks: Vec<Option<i64>> = match array.data_type() {
            DataType::Timestamp(..) => {
                let values = moments::ticks(array).unwrap_or_default();
                (0..array.len())
                    .map(|row| array.is_valid(row).then(|| values[row]))
                    .collect()
            }
            _ => to_ticks(array, source, None, Target::DateTime64)?,
        };
        let per_result = ticks_per_second(*unit);
        let (scale, step) = (
            per_result / ticks_per_second(source),
            per_result / ticks_per_second(self.unit),
        );
        let amounts = amounts(&call.arrays[1])?;
        let moved = ticks
            .iter()
            .zip(&amounts)
            .map(|(&t, &n)| {
                let (Some(t), Some(n)) = (t, n) else {
                    return Ok(None);
                };
                let by = n.checked_mul(step);
                let by = if self.subtract {
                    by.and_then(i64::checked_neg)
                } else {
                    by
                };
                t.checked_mul(scale)
                    .zip(by)
                    .and_then(|(t, by)| t.checked_add(by))
                    .map(Some)
                    .ok_or_else(overflow)
            })
            .collect::<Result<Vec<Option<i64>>>>()?;
        let nulls = NullBuffer::from_iter(moved.iter().map(Option::is_some));
        let values = moved.into_iter().map(Option::unwrap_or_default).collect();
        Ok(timestamps(*unit, values, Some(nulls), zone.clone()))
    }
}
