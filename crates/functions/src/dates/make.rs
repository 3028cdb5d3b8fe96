//! `makeDate`, `makeDate32`, `makeDateTime` and `makeDateTime64`: a date or
//! moment from its numeric parts (fractions truncated).
//!
//! As ClickHouse builds them: a month outside 1 to 12, a day outside 1 to
//! 31, a day of the year outside 1 to 365, or an hour, minute or second
//! outside 0 to 99 gives the type's zero (1970-01-01, or 1900-01-01 for a
//! DateTime64); days and times past their unit's end carry over (February
//! 30th is March 1st, hour 25 is 1 a.m. the next day). A Date outside
//! 1970-01-01 to 2149-06-06 and a Date32 outside years 0 to 9999 are zero
//! too, while a DateTime stops at its range's ends and a DateTime64 at
//! years 1900 and 2299. Times are wall-clock times of the time zone
//! argument, UTC without one.

use std::sync::Arc;

use chrono::{Duration, NaiveDate, NaiveDateTime};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Date32Array, Float64Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use strata_common::types::{cut_to_precision, datetime64_metadata, datetime64_unit, shown_digits};

use super::args;
use super::moments::{local_to_utc, ticks_per_second, timestamps};
use crate::calendar::{EPOCH, LAST_DATE, date_time_in_range, parse_zone};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Made {
    Date,
    Date32,
    DateTime,
    DateTime64,
}

impl Made {
    pub const ALL: [Made; 4] = [Made::Date, Made::Date32, Made::DateTime, Made::DateTime64];

    fn name(self) -> &'static str {
        match self {
            Made::Date => "makeDate",
            Made::Date32 => "makeDate32",
            Made::DateTime => "makeDateTime",
            Made::DateTime64 => "makeDateTime64",
        }
    }

    /// How many leading numeric parts, and how many arguments in all.
    fn arguments(self) -> (usize, std::ops::RangeInclusive<usize>) {
        match self {
            Made::Date | Made::Date32 => (3, 2..=3),
            Made::DateTime => (6, 6..=7),
            Made::DateTime64 => (7, 6..=9),
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MakeFunction {
    made: Made,
    signature: Signature,
}

impl MakeFunction {
    pub fn new(made: Made) -> Self {
        MakeFunction {
            made,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }

    /// The result type; Null when some argument is a NULL constant.
    fn output(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<DataType> {
        let name = self.name();
        let (parts, counts) = self.made.arguments();
        if !counts.contains(&types.len()) {
            let expected = format!("{} to {}", counts.start(), counts.end());
            return Err(args::arity(name, types.len(), &expected));
        }
        let numeric = types.len().min(parts);
        if let Some(bad) = types[..numeric]
            .iter()
            .find(|t| !t.is_numeric() && !matches!(t, DataType::Null | DataType::Boolean))
        {
            return Err(args::illegal_type(name, bad));
        }
        if types[..numeric].contains(&DataType::Null) {
            return Ok(DataType::Null);
        }
        let zone_at = |index: usize| -> Result<Option<Arc<str>>> {
            match types.get(index) {
                Some(data_type) => Ok(Some(args::zone_argument(name, values[index], data_type)?)),
                None => Ok(None),
            }
        };
        Ok(match self.made {
            Made::Date | Made::Date32 => DataType::Date32,
            Made::DateTime => DataType::Timestamp(TimeUnit::Second, zone_at(6)?),
            Made::DateTime64 => {
                let precision = self.precision(types, values)?.unwrap_or(3);
                DataType::Timestamp(datetime64_unit(precision), zone_at(8)?)
            }
        })
    }
}

impl MakeFunction {
    /// The precision `makeDateTime64`'s eighth argument gives, if any.
    fn precision(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<Option<u8>> {
        match (self.made, types.get(7)) {
            (Made::DateTime64, Some(data_type)) => {
                Ok(Some(args::precision(self.name(), values[7], data_type)?))
            }
            _ => Ok(None),
        }
    }
}

impl ScalarUDFImpl for MakeFunction {
    fn name(&self) -> &str {
        self.made.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.output(arg_types, &vec![None; arg_types.len()])
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let data_type = self.output(&types, args.scalar_arguments)?;
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        let field = match (self.made, &data_type) {
            (Made::Date32, DataType::Date32) => {
                strata_common::types::parse_clickhouse_type("Date32")
                    .map_err(|e| e.into_datafusion())?
                    .field(self.name())
            }
            (Made::DateTime64, DataType::Timestamp(..)) => {
                let precision = self.precision(&types, args.scalar_arguments)?;
                Field::new(self.name(), data_type, nullable)
                    .with_metadata(datetime64_metadata(precision.unwrap_or(3)))
            }
            _ => Field::new(self.name(), data_type, nullable),
        };
        Ok(Arc::new(field.with_nullable(nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let output = args.return_field.data_type().clone();
        if output == DataType::Null {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let parts = self.made.arguments().0.min(args.args.len());
        let mut columns = Vec::with_capacity(parts);
        for value in &args.args[..parts] {
            let array = cast(
                &value.to_array(crate::rows_to_evaluate(&args))?,
                &DataType::Float64,
            )?;
            columns.push(array.as_primitive::<Float64Type>().clone());
        }
        let nulls = columns
            .iter()
            .fold(None, |acc, c| NullBuffer::union(acc.as_ref(), c.nulls()));
        let result = match output {
            DataType::Timestamp(unit, zone) => cut_to_precision(
                self.moments(
                    &columns,
                    (unit, shown_digits(&args.return_field).unwrap_or(0)),
                    zone,
                    nulls,
                )?,
                &args.return_field,
            ),
            _ => {
                let days = (0..args.number_rows).map(|row| {
                    let parts: Vec<i64> = columns.iter().map(|c| c.value(row) as i64).collect();
                    made_day(self.made, &parts)
                });
                Arc::new(Date32Array::new(days.collect(), nulls)) as ArrayRef
            }
        };
        crate::columnar(result, scalar)
    }
}

/// Days from the epoch to the date of `parts` (year and day of the year,
/// or year, month and day), or the zero date, as `makeDate` or
/// `makeDate32` builds it.
pub(crate) fn made_day(made: Made, parts: &[i64]) -> i32 {
    let date = match parts {
        [year, day_of_year] => ordinal_date(*year, *day_of_year),
        [year, month, day, ..] => calendar_date(*year, *month, *day),
        _ => None,
    };
    let years = match made {
        Made::Date => 1970..=2149,
        _ => 0..=9999,
    };
    let days = date
        .filter(|_| years.contains(&parts[0]))
        .map_or(0, |d| (d - EPOCH).num_days());
    match made {
        Made::Date if days > LAST_DATE as i64 => 0,
        _ => days as i32,
    }
}

impl MakeFunction {
    fn moments(
        &self,
        columns: &[Float64Array],
        (unit, digits): (TimeUnit, u8),
        zone: Option<Arc<str>>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef> {
        let parsed = parse_zone(zone.as_deref())?;
        // The fraction counts 10^-digits seconds, the unit may count finer.
        let per_second = 10_i64.pow(u32::from(digits));
        let step = ticks_per_second(unit) / per_second;
        let ticks = (0..columns[0].len()).map(|row| {
            let parts: Vec<f64> = columns.iter().map(|c| c.value(row)).collect();
            match self.made {
                Made::DateTime => date_time(&parts, parsed.as_ref()),
                _ => date_time64(&parts, per_second, parsed.as_ref()) * step,
            }
        });
        Ok(timestamps(unit, ticks.collect(), nulls, zone))
    }
}

fn calendar_date(year: i64, month: i64, day: i64) -> Option<NaiveDate> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let first = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month as u32, 1)?;
    first.checked_add_signed(Duration::days(day - 1))
}

/// ClickHouse counts days of the year from 1 to 365, in leap years too.
fn ordinal_date(year: i64, day_of_year: i64) -> Option<NaiveDate> {
    if !(1..=365).contains(&day_of_year) {
        return None;
    }
    let first = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, 1, 1)?;
    first.checked_add_signed(Duration::days(day_of_year - 1))
}

/// The wall-clock time of year, month, day, hour, minute and second.
fn wall_clock(parts: &[i64]) -> Option<NaiveDateTime> {
    let date = calendar_date(parts[0], parts[1], parts[2])?;
    if parts[3..6].iter().any(|p| !(0..=99).contains(p)) {
        return None;
    }
    let seconds = parts[3] * 3600 + parts[4] * 60 + parts[5];
    date.and_hms_opt(0, 0, 0)?
        .checked_add_signed(Duration::seconds(seconds))
}

pub(crate) fn date_time(parts: &[f64], zone: Option<&Tz>) -> i64 {
    let parts: Vec<i64> = parts.iter().map(|p| *p as i64).collect();
    wall_clock(&parts).map_or(0, |local| date_time_in_range(local_to_utc(local, zone)))
}

pub(crate) fn date_time64(parts: &[f64], per_second: i64, zone: Option<&Tz>) -> i64 {
    let mut whole: Vec<i64> = parts[..6].iter().map(|p| *p as i64).collect();
    let first = NaiveDate::from_ymd_opt(1900, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0));
    let last = NaiveDate::from_ymd_opt(2299, 12, 31).and_then(|d| d.and_hms_opt(23, 59, 59));
    let (Some(first), Some(last)) = (first, last) else {
        return 0;
    };
    let mut fraction = parts
        .get(6)
        .map_or(0, |f| *f as i64)
        .clamp(0, per_second - 1);
    let local = match whole[0] {
        ..1900 => first,
        2300.. => {
            fraction = per_second - 1;
            last
        }
        _ => {
            whole[0] = whole[0].clamp(1900, 2299);
            wall_clock(&whole).unwrap_or_else(|| {
                fraction = 0;
                first
            })
        }
    };
    local_to_utc(local, zone) * per_second + fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_carry_over_or_give_zero() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        assert_eq!(calendar_date(2023, 2, 29), day(2023, 3, 1));
        assert_eq!(calendar_date(2024, 13, 1), None);
        // Day 365 of a leap year is December 30th, as in ClickHouse.
        assert_eq!(ordinal_date(2024, 365), day(2024, 12, 30));
        assert_eq!(ordinal_date(2024, 366), None);
        assert_eq!(wall_clock(&[2024, 1, 1, 0, 0, 100]), None);
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        // 02:30 is skipped on 2024-03-31: read with summer time's offset.
        assert_eq!(
            date_time(&[2024.0, 3.0, 31.0, 2.0, 30.0, 0.0], Some(&berlin)),
            1_711_845_000
        );
        assert_eq!(
            date_time(&[2024.0, 10.0, 27.0, 2.0, 30.0, 0.0], Some(&berlin)),
            1_729_989_000
        );
    }
}
