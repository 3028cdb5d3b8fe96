//! Unix timestamps: `fromUnixTimestamp` (`FROM_UNIXTIME`), a DateTime from
//! seconds, or with a format (and zone) the text `formatDateTime` writes;
//! `fromUnixTimestampInJodaSyntax`, the same with a Joda format;
//! `toUnixTimestamp64Second/Milli/Micro/Nano`, a DateTime64's ticks in that
//! unit (truncated toward zero), and `fromUnixTimestamp64Second/Milli/Micro/Nano`,
//! the DateTime64 of such ticks; `toUnixTimestamp64Second` also takes a
//! DateTime.
//!
//! As ClickHouse reads seconds: alone they stop at the ends of DateTime's
//! range; to be formatted, a 64-bit count is read as is and a narrower
//! signed one as the DateTime its bits make.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Int64Array, TimestampSecondArray};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::Result;
use strata_common::types::unit_digits;

use super::args;
use super::frame::{self, Args, Call, Kernel, Shape};
use super::moments::{self, ticks_per_second, timestamps};
use crate::numeric::is_integer;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unix {
    FromTimestamp,
    FromTimestampJoda,
    To64(TimeUnit),
    From64(TimeUnit),
}

impl Unix {
    pub const ALL: [Unix; 10] = [
        Unix::FromTimestamp,
        Unix::FromTimestampJoda,
        Unix::To64(TimeUnit::Second),
        Unix::To64(TimeUnit::Millisecond),
        Unix::To64(TimeUnit::Microsecond),
        Unix::To64(TimeUnit::Nanosecond),
        Unix::From64(TimeUnit::Second),
        Unix::From64(TimeUnit::Millisecond),
        Unix::From64(TimeUnit::Microsecond),
        Unix::From64(TimeUnit::Nanosecond),
    ];

    /// The shape of `fromUnixTimestamp` and its Joda form.
    fn from_timestamp(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        let joda = *self == Unix::FromTimestampJoda;
        let counts = if joda { 2..=3 } else { 1..=3 };
        if !counts.contains(&types.len()) {
            let expected = if joda { "2 or 3" } else { "1, 2 or 3" };
            return Err(args::arity(name, types.len(), expected));
        }
        let moment = matches!(types[0], DataType::Date32 | DataType::Timestamp(..));
        if !(is_integer(&types[0]) || types[0] == DataType::Null || moment && types.len() > 1) {
            return Err(args::illegal_type(name, &types[0]));
        }
        if types.len() == 1 {
            return Ok(Shape::of(DataType::Timestamp(TimeUnit::Second, None)));
        }
        if args::text_constant(args.values[1]).is_none() {
            return Err(args::error(
                strata_common::ErrorCode::ILLEGAL_COLUMN,
                format!("Argument at index 1 for function {name} must be constant"),
            ));
        }
        let (_, null) = args::trailing_zone(name, types, args.values, 2)?;
        Ok(if null {
            Shape::null()
        } else {
            Shape::of(DataType::Utf8)
        })
    }
}

impl Kernel for Unix {
    fn name(&self) -> &'static str {
        use TimeUnit::*;
        match self {
            Unix::FromTimestamp => "fromUnixTimestamp",
            Unix::FromTimestampJoda => "fromUnixTimestampInJodaSyntax",
            Unix::To64(Second) => "toUnixTimestamp64Second",
            Unix::To64(Millisecond) => "toUnixTimestamp64Milli",
            Unix::To64(Microsecond) => "toUnixTimestamp64Micro",
            Unix::To64(_) => "toUnixTimestamp64Nano",
            Unix::From64(Second) => "fromUnixTimestamp64Second",
            Unix::From64(Millisecond) => "fromUnixTimestamp64Milli",
            Unix::From64(Microsecond) => "fromUnixTimestamp64Micro",
            Unix::From64(_) => "fromUnixTimestamp64Nano",
        }
    }

    fn aliases(&self) -> &'static [&'static str] {
        match self {
            Unix::FromTimestamp => &["FROM_UNIXTIME"],
            _ => &[],
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        let shape = match self {
            Unix::FromTimestamp | Unix::FromTimestampJoda => return self.from_timestamp(args),
            Unix::To64(_) => {
                if types.len() != 1 {
                    return Err(args::arity(name, types.len(), "1"));
                }
                let seconds = *self == Unix::To64(TimeUnit::Second);
                match types[0] {
                    DataType::Timestamp(unit, _)
                        if seconds || unit != TimeUnit::Second || args.precisions[0].is_some() =>
                    {
                        Shape::of(DataType::Int64)
                    }
                    DataType::Null => Shape::null(),
                    ref other => return Err(args::illegal_type(name, other)),
                }
            }
            Unix::From64(unit) => {
                let (zone, null) = args::trailing_zone(name, types, args.values, 1)?;
                if !is_integer(&types[0]) {
                    if types[0] == DataType::Null {
                        return Ok(Shape::null());
                    }
                    return Err(args::illegal_type(name, &types[0]));
                }
                if null {
                    return Ok(Shape::null());
                }
                Shape::datetime64(unit_digits(*unit), zone)
            }
        };
        Ok(shape)
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        match (self, call.output) {
            (Unix::FromTimestamp | Unix::FromTimestampJoda, DataType::Utf8) => self.formatted(call),
            (Unix::FromTimestamp, _) => {
                let seconds = frame::integers(array)?
                    .into_iter()
                    .map(|s| s.clamp(0, u32::MAX as i128) as i64);
                Ok(Arc::new(TimestampSecondArray::new(
                    seconds.collect(),
                    array.nulls().cloned(),
                )))
            }
            (Unix::To64(unit), _) => {
                let DataType::Timestamp(from, _) = array.data_type() else {
                    return Err(args::illegal_type(self.name(), array.data_type()));
                };
                let (per_source, per_result) = (ticks_per_second(*from), ticks_per_second(*unit));
                let ticks = moments::ticks(array).unwrap_or_default().iter().map(|&t| {
                    if per_source >= per_result {
                        t / (per_source / per_result)
                    } else {
                        t.saturating_mul(per_result / per_source)
                    }
                });
                Ok(Arc::new(Int64Array::new(
                    ticks.collect(),
                    array.nulls().cloned(),
                )))
            }
            (Unix::From64(_), DataType::Timestamp(unit, zone)) => {
                let ticks = frame::integers(array)?.into_iter().map(|t| t as i64);
                Ok(timestamps(
                    *unit,
                    ticks.collect(),
                    array.nulls().cloned(),
                    zone.clone(),
                ))
            }
            _ => Err(args::illegal_type(self.name(), call.output)),
        }
    }
}

impl Unix {
    /// The moments as text in the constant format, on the zone's clock.
    fn formatted(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        let moments = match array.data_type() {
            DataType::Date32 | DataType::Timestamp(..) => Arc::clone(array),
            source => {
                // Narrow signed counts are the DateTime of their bits.
                let narrow = matches!(source, DataType::Int8 | DataType::Int16 | DataType::Int32);
                let seconds = frame::integers(array)?.into_iter().map(|s| match narrow {
                    true => s as u32 as i64,
                    false => s as i64,
                });
                timestamps(
                    TimeUnit::Second,
                    seconds.collect(),
                    array.nulls().cloned(),
                    None,
                )
            }
        };
        let zone = args::text_constant(call.values.get(2).copied().flatten()).map(Arc::from);
        let moments = moments::in_zone(moments, zone.as_ref())?;
        let format = args::text_constant(call.values[1]).unwrap_or_default();
        match self {
            Unix::FromTimestampJoda => super::joda::format_moments(&moments, format),
            _ => crate::date_format::format_moments(&moments, format),
        }
    }
}
