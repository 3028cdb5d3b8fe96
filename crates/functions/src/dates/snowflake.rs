//! Snowflake IDs: `dateTimeToSnowflakeID` / `dateTime64ToSnowflakeID`, a
//! moment's milliseconds since an epoch shifted above the 22 bits a
//! Snowflake ID keeps for machine and sequence, and `snowflakeIDToDateTime`
//! / `snowflakeIDToDateTime64`, the moment an ID holds. The epoch is an
//! optional constant in milliseconds since 1970 (0 by default, as in
//! ClickHouse; Twitter's is 1288834974657).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, UInt64Array};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::{Result, ScalarValue};

use super::args;
use super::frame::{self, Args, Call, Kernel, Shape};
use super::moments::{self, ticks_per_second, timestamps};
use crate::numeric::is_integer;

/// Bits below a Snowflake ID's milliseconds.
const TIME_SHIFT: u32 = 22;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Snowflake {
    /// From a DateTime, or with `true` a DateTime64.
    ToId(bool),
    /// To a DateTime, or with `true` a DateTime64(3).
    FromId(bool),
}

impl Snowflake {
    pub const ALL: [Snowflake; 4] = [
        Snowflake::ToId(false),
        Snowflake::ToId(true),
        Snowflake::FromId(false),
        Snowflake::FromId(true),
    ];

    /// The epoch argument at `index`: a constant integer, 0 when absent.
    fn epoch(
        &self,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
        index: usize,
    ) -> Result<i64> {
        let Some(data_type) = types.get(index) else {
            return Ok(0);
        };
        if !is_integer(data_type) {
            return Err(args::illegal_type(self.name(), data_type));
        }
        match values
            .get(index)
            .copied()
            .flatten()
            .map(|v| v.cast_to(&DataType::Int64))
        {
            Some(Ok(ScalarValue::Int64(Some(epoch)))) => Ok(epoch),
            _ => Err(args::error(
                strata_common::ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "The epoch argument of function {} must be constant",
                    self.name()
                ),
            )),
        }
    }
}

impl Kernel for Snowflake {
    fn name(&self) -> &'static str {
        match self {
            Snowflake::ToId(false) => "dateTimeToSnowflakeID",
            Snowflake::ToId(true) => "dateTime64ToSnowflakeID",
            Snowflake::FromId(false) => "snowflakeIDToDateTime",
            Snowflake::FromId(true) => "snowflakeIDToDateTime64",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        if types.first() == Some(&DataType::Null) {
            return Ok(Shape::null());
        }
        match self {
            Snowflake::ToId(wide) => {
                if !(1..=2).contains(&types.len()) {
                    return Err(args::arity(name, types.len(), "1 or 2"));
                }
                let fits = match types[0] {
                    DataType::Timestamp(TimeUnit::Second, _) => !wide,
                    DataType::Timestamp(..) => *wide,
                    _ => false,
                };
                if !fits {
                    return Err(args::illegal_type(name, &types[0]));
                }
                self.epoch(types, args.values, 1)?;
                Ok(Shape::of(DataType::UInt64))
            }
            Snowflake::FromId(wide) => {
                if types.is_empty() || types.len() > 3 {
                    return Err(args::arity(name, types.len(), "1, 2 or 3"));
                }
                if types[0] != DataType::UInt64 {
                    return Err(args::illegal_type(name, &types[0]));
                }
                self.epoch(types, args.values, 1)?;
                let zone = match types.len() {
                    3 => args::trailing_zone(name, types, args.values, 2)?.0,
                    _ => None,
                };
                let unit = if *wide {
                    TimeUnit::Millisecond
                } else {
                    TimeUnit::Second
                };
                Ok(Shape::of(DataType::Timestamp(unit, zone)))
            }
        }
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        let epoch = self.epoch(&call.types, &call.values, 1)?;
        match (self, call.output) {
            (Snowflake::ToId(_), _) => {
                let DataType::Timestamp(unit, _) = array.data_type() else {
                    return Err(args::illegal_type(self.name(), array.data_type()));
                };
                let per_milli = ticks_per_second(*unit) as f64 / 1000.0;
                let ids = moments::ticks(array).unwrap_or_default().iter().map(|&t| {
                    // Below a millisecond truncates; above, ticks scale up.
                    let millis = if per_milli >= 1.0 {
                        t / per_milli as i64
                    } else {
                        t.saturating_mul((1.0 / per_milli) as i64)
                    };
                    (millis.wrapping_sub(epoch) as u64) << TIME_SHIFT
                });
                Ok(Arc::new(UInt64Array::new(
                    ids.collect(),
                    array.nulls().cloned(),
                )))
            }
            (Snowflake::FromId(_), DataType::Timestamp(unit, zone)) => {
                let per_second = ticks_per_second(*unit);
                let moments = frame::integers(array)?.into_iter().map(|id| {
                    let millis = ((id as u64) >> TIME_SHIFT) as i64 + epoch;
                    match per_second {
                        1 => millis / 1000,
                        _ => millis,
                    }
                });
                Ok(timestamps(
                    *unit,
                    moments.collect(),
                    array.nulls().cloned(),
                    zone.clone(),
                ))
            }
            _ => Err(args::illegal_type(self.name(), call.output)),
        }
    }
}
