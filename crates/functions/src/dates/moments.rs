//! Reading Date and DateTime columns as moments: the UTC second and the
//! wall-clock time in the value's zone (or a zone argument's), and the
//! sub-second ticks of a DateTime64.

use std::sync::Arc;

use chrono::NaiveDateTime;
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{
    DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use datafusion::common::Result;

use crate::calendar::{EPOCH, local_moments, local_time, parse_zone, time_zone, utc_seconds};

/// One value: its wall-clock time and the UTC second it falls in (a Date
/// is its midnight on the zone's clock).
#[derive(Debug, Clone, Copy)]
pub struct Moment {
    pub local: NaiveDateTime,
    pub utc: i64,
}

/// How many ticks of `unit` make a second.
pub fn ticks_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// The raw ticks of a timestamp column (null slots hold some value).
pub fn ticks(array: &ArrayRef) -> Option<&[i64]> {
    Some(match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => {
            array.as_primitive::<TimestampSecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            array.as_primitive::<TimestampMillisecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            array.as_primitive::<TimestampMicrosecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            array.as_primitive::<TimestampNanosecondType>().values()
        }
        _ => return None,
    })
}

/// A DateTime column read on the clock of `zone` instead of its own (the
/// same instants; Arrow's cast would move zone-less values); other columns
/// as they are.
pub fn in_zone(array: ArrayRef, zone: Option<&Arc<str>>) -> Result<ArrayRef> {
    let Some(zone) = zone else {
        return Ok(array);
    };
    let zone = Arc::clone(zone);
    Ok(match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => Arc::new(
            array
                .as_primitive::<TimestampSecondType>()
                .clone()
                .with_timezone(zone),
        ),
        DataType::Timestamp(TimeUnit::Millisecond, _) => Arc::new(
            array
                .as_primitive::<TimestampMillisecondType>()
                .clone()
                .with_timezone(zone),
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => Arc::new(
            array
                .as_primitive::<TimestampMicrosecondType>()
                .clone()
                .with_timezone(zone),
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => Arc::new(
            array
                .as_primitive::<TimestampNanosecondType>()
                .clone()
                .with_timezone(zone),
        ),
        _ => array,
    })
}

/// Every value of a Date or DateTime column as a moment; Dates are read
/// on the clock of `zone` (UTC when None), DateTimes on their own.
pub fn moments(array: &ArrayRef, zone: Option<&str>) -> Result<Vec<Moment>> {
    if let (Some(values), DataType::Timestamp(unit, own)) = (ticks(array), array.data_type()) {
        let per_second = ticks_per_second(*unit);
        let own = parse_zone(own.as_deref())?;
        return Ok(values
            .iter()
            .map(|v| {
                let utc = v.div_euclid(per_second);
                Moment {
                    local: local_time(utc, own.as_ref()),
                    utc,
                }
            })
            .collect());
    }
    let zone = parse_zone(zone)?;
    Ok(local_moments(array)?
        .into_iter()
        .map(|local| Moment {
            local,
            utc: utc_seconds(local, zone.as_ref()),
        })
        .collect())
}

/// The zone a column's values are read in: a DateTime's own, else `zone`.
pub fn reading_zone(data_type: &DataType, zone: Option<&Arc<str>>) -> Option<Arc<str>> {
    time_zone(data_type).or_else(|| zone.cloned())
}

/// Days from the epoch to a wall-clock time's date.
pub fn day_number(local: NaiveDateTime) -> i64 {
    (local.date() - EPOCH).num_days()
}

/// A timestamp column with every tick mapped by `f` (nulls kept), of the
/// same unit and tagged with `zone`.
pub fn map_ticks(array: &ArrayRef, zone: Option<Arc<str>>, f: impl Fn(i64) -> i64) -> ArrayRef {
    let values: Vec<i64> = ticks(array)
        .unwrap_or_default()
        .iter()
        .map(|v| f(*v))
        .collect();
    let unit = match array.data_type() {
        DataType::Timestamp(unit, _) => *unit,
        _ => TimeUnit::Second,
    };
    timestamps(unit, values, array.nulls().cloned(), zone)
}

/// A timestamp column of `unit` ticks.
pub fn timestamps(
    unit: TimeUnit,
    values: Vec<i64>,
    nulls: Option<NullBuffer>,
    zone: Option<Arc<str>>,
) -> ArrayRef {
    let values = values.into();
    match unit {
        TimeUnit::Second => {
            Arc::new(TimestampSecondArray::new(values, nulls).with_timezone_opt(zone))
        }
        TimeUnit::Millisecond => {
            Arc::new(TimestampMillisecondArray::new(values, nulls).with_timezone_opt(zone))
        }
        TimeUnit::Microsecond => {
            Arc::new(TimestampMicrosecondArray::new(values, nulls).with_timezone_opt(zone))
        }
        TimeUnit::Nanosecond => {
            Arc::new(TimestampNanosecondArray::new(values, nulls).with_timezone_opt(zone))
        }
    }
}

/// The UTC second of a wall-clock time in `zone`, as ClickHouse builds
/// one from its parts: a time the clocks skipped is read with the offset
/// in force after the jump, a repeated one with the earlier offset.
pub fn local_to_utc(local: NaiveDateTime, zone: Option<&Tz>) -> i64 {
    use chrono::{Offset, TimeZone};
    let Some(zone) = zone else {
        return local.and_utc().timestamp();
    };
    if let Some(at) = zone.from_local_datetime(&local).earliest() {
        return at.timestamp();
    }
    // Inside a gap: the first valid time after it tells the new offset.
    let after = (1..=96)
        .map(|step| local + chrono::Duration::minutes(15 * step))
        .find_map(|later| zone.from_local_datetime(&later).earliest());
    let offset = after.map_or(0, |at| at.offset().fix().local_minus_utc() as i64);
    local.and_utc().timestamp() - offset
}
