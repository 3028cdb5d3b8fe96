//! `toDate(x[, zone])`, `toDateTime(x[, zone])` and
//! `toDateTime64(x, precision[, zone])`, as ClickHouse converts:
//!
//! - text is a wall-clock time of the zone argument (UTC without one)
//!   unless it names an offset (see `text`); `toDate` reads dates only;
//! - a number is seconds since the epoch; for `toDate`, one up to 65535 is
//!   a day number instead; DateTimes stop at the ends of their range;
//! - a Date is its midnight on the zone's clock;
//! - a DateTime is the same instant, shown in the zone argument's clock
//!   (its own without one); `toDate` takes its day on that clock.
//!
//! Dates and DateTimes from wider types keep the low bits of their day or
//! second count, as ClickHouse's do.

use std::sync::Arc;

use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, PrimitiveArray, new_null_array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Date32Type, Float64Type, TimeUnit};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::moments::{self, local_to_utc, ticks_per_second};
use super::text;
use crate::calendar::{EPOCH, local_time, parse_zone, time_zone};
use crate::hashing::is_text;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Date,
    DateTime,
    DateTime64,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Date, Target::DateTime, Target::DateTime64];

    /// What a call converts to: `toDateTime(x, scale[, zone])` is
    /// `toDateTime64`.
    fn effective(self, types: &[DataType]) -> Target {
        match types.get(1) {
            Some(scale) if self == Target::DateTime && scale.is_integer() => Target::DateTime64,
            _ => self,
        }
    }

    /// Arguments before the optional zone.
    fn fixed(self) -> usize {
        match self {
            Target::DateTime64 => 2,
            _ => 1,
        }
    }
}

impl Kernel for Target {
    fn name(&self) -> &'static str {
        match self {
            Target::Date => "toDate",
            Target::DateTime => "toDateTime",
            Target::DateTime64 => "toDateTime64",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (types, values) = (args.types, args.values);
        let name = self.name();
        let target = self.effective(types);
        let (zone, null) = args::trailing_zone(name, types, values, target.fixed())?;
        let source = &types[0];
        if !(is_text(source)
            || source.is_numeric()
            || matches!(
                source,
                DataType::Null | DataType::Date32 | DataType::Timestamp(..)
            ))
        {
            return Err(args::illegal_type(name, source));
        }
        let zone = zone.or_else(|| time_zone(source));
        let shape = match target {
            Target::Date => Shape::of(DataType::Date32),
            Target::DateTime => Shape::of(DataType::Timestamp(TimeUnit::Second, zone)),
            Target::DateTime64 => {
                Shape::datetime64(args::precision(name, values[1], &types[1])?, zone)
            }
        };
        // A NULL zone is a NULL result; a NULL value one of the type.
        if null && *source != DataType::Null {
            return Ok(Shape::null());
        }
        Ok(shape)
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let array = &call.arrays[0];
        let target = self.effective(&call.types);
        let zone_argument = args::text_constant(call.values.get(target.fixed()).copied().flatten())
            .map(str::to_string);
        // The clock a date or text is read on: the result's, or for a Date
        // the zone argument's or the moment's own.
        let reading = match target {
            Target::Date => {
                zone_argument.or_else(|| time_zone(array.data_type()).map(|z| z.to_string()))
            }
            _ => time_zone(call.output).map(|z| z.to_string()),
        };
        let reading = parse_zone(reading.as_deref())?;
        // ClickHouse reads a Nullable(String) leniently for Date and
        // DateTime, not for DateTime64.
        let lenient = is_text(array.data_type())
            && call.nullable.first() == Some(&true)
            && target != Target::DateTime64;
        match (target, call.output) {
            (_, _) if array.data_type() == &DataType::Null => {
                Ok(new_null_array(call.output, array.len()))
            }
            (Target::Date, _) if lenient => {
                let days =
                    crate::conversion::convert_strings_or_null(array.as_ref(), &DataType::Date32)?;
                Ok(clamped_days(&days))
            }
            (Target::Date, _) => to_days(array, reading.as_ref()),
            (_, DataType::Timestamp(unit, output_zone)) => {
                let ticks = match lenient {
                    true => parse_texts(
                        array,
                        ticks_per_second(*unit),
                        reading.as_ref(),
                        target,
                        true,
                    )?,
                    false => to_ticks(array, *unit, reading.as_ref(), target)?,
                };
                let nulls = match lenient {
                    true => Some(NullBuffer::from(
                        ticks.iter().map(Option::is_some).collect::<Vec<bool>>(),
                    )),
                    false => array.nulls().cloned(),
                };
                let ticks = ticks.into_iter().map(|t| t.unwrap_or(0)).collect();
                Ok(moments::timestamps(
                    *unit,
                    ticks,
                    nulls,
                    output_zone.clone(),
                ))
            }
            _ => Err(args::illegal_type(self.name(), call.output)),
        }
    }
}

/// Text dates outside a Date's range stop at its ends.
fn clamped_days(days: &ArrayRef) -> ArrayRef {
    let days: Date32Array = days
        .as_primitive::<Date32Type>()
        .unary(|day| day.clamp(0, u16::MAX as i32));
    Arc::new(days)
}

/// Days of a Date: from text as `toDate` always read it; numbers up to
/// 65535 as days, larger ones as seconds; moments on `zone`'s clock.
fn to_days(array: &ArrayRef, zone: Option<&Tz>) -> Result<ArrayRef> {
    let source = array.data_type();
    if is_text(source) {
        let days = crate::conversion::convert(array, &DataType::Date32)?;
        return Ok(clamped_days(&days));
    }
    let day_of = |second: i64| {
        let local = local_time(second, zone);
        (local.date() - EPOCH).num_days()
    };
    let days: Vec<i64> = match source {
        DataType::Date32 => array
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|&d| d as i64)
            .collect(),
        DataType::Timestamp(unit, _) => {
            let per_second = ticks_per_second(*unit);
            moments::ticks(array)
                .unwrap_or_default()
                .iter()
                .map(|t| day_of(t.div_euclid(per_second)))
                .collect()
        }
        _ => numbers(array)?
            .iter()
            .map(|&v| match v {
                v if v <= 65_535.0 => v.max(0.0) as i64,
                v => day_of(v.min(u32::MAX as f64) as i64),
            })
            .collect(),
    };
    // A day count keeps its low 16 bits, as a Date's does.
    let days = days.into_iter().map(|d| d as u16 as i32);
    Ok(Arc::new(Date32Array::new(
        days.collect(),
        array.nulls().cloned(),
    )))
}

/// Numbers as floats (integers past 2^53 lose bits they would lose to
/// the DateTime range anyway); NaN is an error.
fn numbers(array: &ArrayRef) -> Result<Vec<f64>> {
    let floats = cast(array, &DataType::Float64)?;
    let floats: &PrimitiveArray<Float64Type> = floats.as_primitive();
    if let Some(row) =
        (0..floats.len()).find(|&r| floats.is_valid(r) && !floats.value(r).is_finite())
    {
        return Err(args::error(
            ErrorCode::CANNOT_CONVERT_TYPE,
            format!(
                "Unexpected inf or nan to integer conversion: {}",
                floats.value(row)
            ),
        ));
    }
    Ok(floats.values().to_vec())
}

/// Ticks of `unit` since the epoch (None where a row is NULL).
pub(super) fn to_ticks(
    array: &ArrayRef,
    unit: TimeUnit,
    zone: Option<&Tz>,
    target: Target,
) -> Result<Vec<Option<i64>>> {
    let per_second = ticks_per_second(unit);
    let source = array.data_type();
    let date_time = target == Target::DateTime;
    // A DateTime counts its seconds in 32 bits.
    let wrap = |seconds: i64| {
        if date_time {
            seconds as u32 as i64
        } else {
            seconds
        }
    };
    let ticks: Vec<Option<i64>> = match source {
        _ if is_text(source) => return parse_texts(array, per_second, zone, target, false),
        DataType::Date32 => array
            .as_primitive::<Date32Type>()
            .iter()
            .map(|d| {
                let midnight = EPOCH.and_hms_opt(0, 0, 0)? + chrono::Duration::days(d? as i64);
                Some(wrap(local_to_utc(midnight, zone)) * per_second)
            })
            .collect(),
        DataType::Timestamp(from, _) => {
            let per_source = ticks_per_second(*from);
            let converted = moments::ticks(array).unwrap_or_default().iter().map(|&t| {
                if date_time {
                    wrap(t.div_euclid(per_source))
                } else if per_source >= per_second {
                    t.div_euclid(per_source / per_second)
                } else {
                    t.saturating_mul(per_second / per_source)
                }
            });
            converted.map(Some).collect()
        }
        _ => numbers(array)?
            .into_iter()
            .map(|v| match target {
                Target::DateTime => Some(v.clamp(0.0, u32::MAX as f64) as i64),
                _ => Some((v * per_second as f64) as i64),
            })
            .collect(),
    };
    Ok(ticks)
}

/// Text read as `toDateTime(text, zone)` reads it: a DateTime column in
/// `zone` (CANNOT_PARSE_DATETIME for text that is not one).
pub(crate) fn text_date_times(array: &ArrayRef, zone: Option<Arc<str>>) -> Result<ArrayRef> {
    text_moments(array, TimeUnit::Second, zone)
}

/// Text read as `toDateTime64(text, precision, zone)` reads it, in ticks
/// of `unit` (a DateTime's for seconds).
pub(crate) fn text_moments(
    array: &ArrayRef,
    unit: TimeUnit,
    zone: Option<Arc<str>>,
) -> Result<ArrayRef> {
    let parsed = parse_zone(zone.as_deref())?;
    let target = match unit {
        TimeUnit::Second => Target::DateTime,
        _ => Target::DateTime64,
    };
    let ticks = parse_texts(
        array,
        ticks_per_second(unit),
        parsed.as_ref(),
        target,
        false,
    )?;
    let ticks: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from(ticks));
    Ok(cast(&ticks, &DataType::Timestamp(unit, zone))?)
}

/// Each text's ticks; one that does not parse fails, or is None when
/// `lenient`.
fn parse_texts(
    array: &ArrayRef,
    per_second: i64,
    zone: Option<&Tz>,
    target: Target,
    lenient: bool,
) -> Result<Vec<Option<i64>>> {
    let texts = cast(array, &DataType::Utf8)?;
    let texts = texts.as_string::<i32>();
    let mut out = Vec::with_capacity(texts.len());
    for text in texts.iter() {
        let Some(text) = text else {
            out.push(None);
            continue;
        };
        let Some((seconds, nanos)) = text::parse(text).map(|t| t.instant(zone)) else {
            if lenient {
                out.push(None);
                continue;
            }
            let type_name = match target {
                Target::DateTime => "DateTime",
                _ => "DateTime64",
            };
            return Err(args::error(
                ErrorCode::CANNOT_PARSE_DATETIME,
                format!("Cannot parse string '{text}' as {type_name}"),
            ));
        };
        out.push(Some(match target {
            Target::DateTime => crate::calendar::date_time_in_range(seconds),
            _ => seconds * per_second + nanos as i64 / (1_000_000_000 / per_second),
        }));
    }
    Ok(out)
}
