//! `YYYYMMDDToDate`, `YYYYMMDDToDate32`, `YYYYMMDDhhmmssToDateTime` and
//! `YYYYMMDDhhmmssToDateTime64`: a date or moment from a number whose
//! decimal digits spell it (`20240131`, `20240131235959`), the inverse of
//! `toYYYYMMDD` and `toYYYYMMDDhhmmss`.
//!
//! The parts are built as `makeDate` / `makeDateTime` / `makeDateTime64`
//! build them (days and times carry over, impossible months give the zero
//! date; see `make`). A float's date is rounded to the nearest whole
//! number; a DateTime64 takes the float's fraction, rounded to its
//! precision.

use std::sync::Arc;

use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Date32Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, TimeUnit};
use datafusion::common::Result;

use super::args;
use super::frame::{Args, Call, Kernel, Shape};
use super::make::{Made, date_time, date_time64, made_day};
use super::moments::{ticks_per_second, timestamps};
use crate::calendar::{parse_zone, time_zone};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Packed {
    Date,
    Date32,
    DateTime,
    DateTime64,
}

impl Packed {
    pub const ALL: [Packed; 4] = [
        Packed::Date,
        Packed::Date32,
        Packed::DateTime,
        Packed::DateTime64,
    ];
}

/// The parts of a whole number `YYYYMMDDhhmmss`, most significant first.
fn split(mut number: i64, count: usize) -> Vec<i64> {
    let mut parts = vec![0; count];
    for part in parts.iter_mut().skip(1).rev() {
        *part = number % 100;
        number /= 100;
    }
    parts[0] = number;
    parts
}

impl Kernel for Packed {
    fn name(&self) -> &'static str {
        match self {
            Packed::Date => "YYYYMMDDToDate",
            Packed::Date32 => "YYYYMMDDToDate32",
            Packed::DateTime => "YYYYMMDDhhmmssToDateTime",
            Packed::DateTime64 => "YYYYMMDDhhmmssToDateTime64",
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let name = self.name();
        let types = args.types;
        let (zone, null) = match self {
            Packed::Date | Packed::Date32 if types.len() != 1 => {
                return Err(args::arity(name, types.len(), "1"));
            }
            Packed::Date | Packed::Date32 => (None, false),
            Packed::DateTime => args::trailing_zone(name, types, args.values, 1)?,
            Packed::DateTime64 if types.len() == 1 => (None, false),
            Packed::DateTime64 => args::trailing_zone(name, types, args.values, 2)?,
        };
        if let Some(bad) = types[..1]
            .iter()
            .find(|t| !(t.is_numeric() || **t == DataType::Null))
        {
            return Err(args::illegal_type(name, bad));
        }
        if null || types[0] == DataType::Null {
            return Ok(Shape::null());
        }
        Ok(match self {
            Packed::Date => Shape::of(DataType::Date32),
            Packed::Date32 => Shape::date32(),
            Packed::DateTime => Shape::of(DataType::Timestamp(TimeUnit::Second, zone)),
            Packed::DateTime64 => {
                let precision = match types.get(1) {
                    Some(t) => args::precision(name, args.values[1], t)?,
                    None => 3,
                };
                Shape::datetime64(precision, zone)
            }
        })
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let numbers = cast(&call.arrays[0], &DataType::Float64)?;
        let numbers = numbers.as_primitive::<Float64Type>();
        let nulls = numbers.nulls().cloned();
        let values = numbers.values().iter();
        let result: ArrayRef = match (self, call.output) {
            (Packed::Date | Packed::Date32, _) => {
                let made = if *self == Packed::Date {
                    Made::Date
                } else {
                    Made::Date32
                };
                let days = values.map(|v| made_day(made, &split(v.round() as i64, 3)));
                Arc::new(Date32Array::new(days.collect(), nulls))
            }
            (_, DataType::Timestamp(unit, zone)) => {
                let parsed = parse_zone(time_zone(call.output).as_deref())?;
                let per_second = ticks_per_second(*unit);
                let ticks = values.map(|&v| {
                    if *self == Packed::DateTime {
                        let parts: Vec<f64> = split(v.round() as i64, 6)
                            .into_iter()
                            .map(|p| p as f64)
                            .collect();
                        return date_time(&parts, parsed.as_ref());
                    }
                    with_fraction(v, per_second, parsed.as_ref())
                });
                timestamps(*unit, ticks.collect(), nulls, zone.clone())
            }
            _ => return Err(args::illegal_type(self.name(), call.output)),
        };
        Ok(result)
    }
}

/// A DateTime64's ticks from `YYYYMMDDhhmmss.fraction`.
fn with_fraction(value: f64, per_second: i64, zone: Option<&Tz>) -> i64 {
    let whole = value.floor();
    let mut fraction = ((value - whole) * per_second as f64).round() as i64;
    let mut parts: Vec<f64> = split(whole as i64, 6)
        .into_iter()
        .map(|p| p as f64)
        .collect();
    // A fraction rounded up to a whole second carries into the seconds.
    if fraction >= per_second {
        fraction -= per_second;
        parts[5] += 1.0;
    }
    parts.push(fraction as f64);
    let ticks = date_time64(&parts, per_second, zone);
    // Past the last year, the last second with no fraction.
    if parts[0] >= 2300.0 {
        ticks - (per_second - 1)
    } else {
        ticks
    }
}
