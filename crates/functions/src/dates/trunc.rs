//! `dateTrunc('unit', moment[, zone])` (also `DATE_TRUNC`): the start of
//! the unit holding the moment, as the `toStartOf...` function of that
//! unit gives it.
//!
//! A year, quarter, month or week (from Monday) start is a Date, a Date32
//! for a DateTime64; a day, hour, minute or second start is a DateTime (a
//! Date's day too); millisecond, microsecond and nanosecond starts are
//! a DateTime64's, counted in that unit. A DateTime64 rounded to a day,
//! hour, minute or second is a DateTime64(0).

use std::sync::Arc;

use chrono::Datelike;
use datafusion::arrow::array::{Array, ArrayRef, Date32Array};
use datafusion::arrow::datatypes::{DataType, FieldRef, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::datetime64_metadata;

use super::args;
use super::moments;
use super::weeks;
use crate::calendar::{Calendar, CalendarFunction, days_since_epoch, local_moments, time_zone};

/// What truncation to a unit comes down to for a moment's type.
enum Plan {
    /// A calendar function (`toStartOfMonth`, ...).
    Calendar(Calendar),
    /// A DateTime64 rounded down to a sub-second unit, in that unit.
    Fraction(TimeUnit),
    /// A DateTime64's year, quarter, month or week start, as a Date32.
    Days(CalendarFunction),
    /// A DateTime's second: itself.
    Itself,
    /// A DateTime64's day, hour or minute start (by the calendar function)
    /// or second (`None`), as a DateTime64(0).
    WholeSeconds(Option<Calendar>),
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DateTrunc {
    signature: Signature,
    aliases: Vec<String>,
}

impl Default for DateTrunc {
    fn default() -> Self {
        DateTrunc {
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases: vec!["DATE_TRUNC".to_string(), "date_trunc".to_string()],
        }
    }
}

fn unit_name(value: Option<&ScalarValue>) -> Result<String> {
    match value {
        Some(ScalarValue::Utf8(Some(unit)) | ScalarValue::Utf8View(Some(unit))) => {
            Ok(unit.to_ascii_lowercase())
        }
        _ => Err(args::error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "First argument for function dateTrunc must be constant string: name of datepart",
        )),
    }
}

impl DateTrunc {
    fn plan(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<Plan> {
        if !(2..=3).contains(&types.len()) {
            return Err(args::arity(self.name(), types.len(), "2 or 3"));
        }
        let unit = unit_name(values[0])?;
        let (has_time, wide) = match &types[1] {
            DataType::Date32 => (false, false),
            DataType::Timestamp(TimeUnit::Second, _) => (true, false),
            DataType::Timestamp(..) => (true, true),
            other => return Err(args::illegal_type(self.name(), other)),
        };
        let calendar = |function| Ok(Plan::Calendar(Calendar::new(function)));
        let days = |function| match wide {
            true => Ok(Plan::Days(function)),
            false => calendar(function),
        };
        match unit.as_str() {
            "year" => days(CalendarFunction::StartOfYear),
            "quarter" => days(CalendarFunction::StartOfQuarter),
            "month" => days(CalendarFunction::StartOfMonth),
            "week" => days(CalendarFunction::Monday),
            "day" if wide => Ok(Plan::WholeSeconds(Some(Calendar::new(
                CalendarFunction::StartOfDay,
            )))),
            "hour" if wide => Ok(Plan::WholeSeconds(Some(Calendar::new(
                CalendarFunction::StartOfHour,
            )))),
            "minute" if wide => Ok(Plan::WholeSeconds(Some(Calendar::new(
                CalendarFunction::StartOfMinute,
            )))),
            "second" if wide => Ok(Plan::WholeSeconds(None)),
            "day" => calendar(CalendarFunction::StartOfDay),
            "hour" | "minute" | "second" if !has_time => {
                Err(args::illegal_type(self.name(), &types[1]))
            }
            "hour" => calendar(CalendarFunction::StartOfHour),
            "minute" => calendar(CalendarFunction::StartOfMinute),
            "second" => Ok(Plan::Itself),
            "millisecond" | "microsecond" | "nanosecond" if !wide => {
                Err(args::illegal_type(self.name(), &types[1]))
            }
            "millisecond" => Ok(Plan::Fraction(TimeUnit::Millisecond)),
            "microsecond" => Ok(Plan::Fraction(TimeUnit::Microsecond)),
            "nanosecond" => Ok(Plan::Fraction(TimeUnit::Nanosecond)),
            _ => Err(args::error(
                ErrorCode::BAD_ARGUMENTS,
                format!("{unit} doesn't look like datepart name in dateTrunc"),
            )),
        }
    }

    /// The zone argument, checked.
    fn zone(
        &self,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
    ) -> Result<Option<Arc<str>>> {
        match types.get(2) {
            Some(data_type) => Ok(Some(args::zone_argument(
                self.name(),
                values[2],
                data_type,
            )?)),
            None => Ok(None),
        }
    }
}

impl ScalarUDFImpl for DateTrunc {
    fn name(&self) -> &str {
        "dateTrunc"
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Err(args::illegal_type(
            self.name(),
            arg_types.first().unwrap_or(&DataType::Null),
        ))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let plan = self.plan(&types, args.scalar_arguments)?;
        let rest = ReturnFieldArgs {
            arg_fields: &args.arg_fields[1..],
            scalar_arguments: &args.scalar_arguments[1..],
        };
        let nullable = args.arg_fields[1].is_nullable();
        let zone = self.zone(&types, args.scalar_arguments)?;
        let data_type = match plan {
            Plan::Calendar(calendar) => return calendar.return_field_from_args(rest),
            Plan::Fraction(unit) => {
                DataType::Timestamp(unit, zone.or_else(|| time_zone(&types[1])))
            }
            Plan::Days(_) => {
                let field = strata_common::types::parse_clickhouse_type("Date32")
                    .map_err(|e| e.into_datafusion())?
                    .field(self.name());
                return Ok(Arc::new(field.with_nullable(nullable)));
            }
            Plan::Itself => {
                DataType::Timestamp(TimeUnit::Second, zone.or_else(|| time_zone(&types[1])))
            }
            Plan::WholeSeconds(_) => {
                let data_type =
                    DataType::Timestamp(TimeUnit::Second, zone.or_else(|| time_zone(&types[1])));
                let field =
                    datafusion::arrow::datatypes::Field::new(self.name(), data_type, nullable)
                        .with_metadata(datetime64_metadata(0));
                return Ok(Arc::new(field));
            }
        };
        Ok(Arc::new(datafusion::arrow::datatypes::Field::new(
            self.name(),
            data_type,
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let types = crate::field_types(&args.arg_fields);
        let values: Vec<Option<&ScalarValue>> = args.args.iter().map(args::constant).collect();
        let plan = self.plan(&types, &values)?;
        let zone = self.zone(&types, &values)?;
        let rest = ScalarFunctionArgs {
            args: args.args[1..].to_vec(),
            arg_fields: args.arg_fields[1..].to_vec(),
            number_rows: args.number_rows,
            return_field: Arc::clone(&args.return_field),
            config_options: Arc::clone(&args.config_options),
        };
        let array = args.args[1].to_array(args.number_rows)?;
        let result: ArrayRef = match plan {
            Plan::Calendar(calendar) => return calendar.invoke_with_args(rest),
            Plan::Itself => moments::in_zone(array, zone.as_ref())?,
            Plan::WholeSeconds(calendar) => {
                let seconds = DataType::Timestamp(TimeUnit::Second, time_zone(&types[1]));
                let seconds = Arc::new(datafusion::arrow::datatypes::Field::new("", seconds, true));
                let whole = fraction(&array, TimeUnit::Second, seconds.data_type());
                let Some(calendar) = calendar else {
                    return Ok(ColumnarValue::Array(moments::in_zone(
                        whole,
                        zone.as_ref(),
                    )?));
                };
                let rest = ScalarFunctionArgs {
                    args: std::iter::once(ColumnarValue::Array(whole))
                        .chain(rest.args.into_iter().skip(1))
                        .collect(),
                    arg_fields: std::iter::once(seconds)
                        .chain(rest.arg_fields.into_iter().skip(1))
                        .collect(),
                    ..rest
                };
                return calendar.invoke_with_args(rest);
            }
            Plan::Fraction(unit) => fraction(&array, unit, args.return_field.data_type()),
            Plan::Days(function) => {
                let local = local_moments(&moments::in_zone(Arc::clone(&array), zone.as_ref())?)?;
                let days = local
                    .iter()
                    .map(|at| days_since_epoch(period_start(function, at.date())));
                Arc::new(Date32Array::new(days.collect(), array.nulls().cloned()))
            }
        };
        Ok(ColumnarValue::Array(result))
    }
}

/// The first day of a DateTime64's year, quarter, month or week, where
/// Date32's range leaves it as it is.
fn period_start(function: CalendarFunction, date: chrono::NaiveDate) -> chrono::NaiveDate {
    let month = match function {
        CalendarFunction::StartOfYear => 1,
        CalendarFunction::StartOfQuarter => (date.month() - 1) / 3 * 3 + 1,
        CalendarFunction::StartOfMonth => date.month(),
        _ => return weeks::start_of_week(date, 1),
    };
    chrono::NaiveDate::from_ymd_opt(date.year(), month, 1).unwrap_or(date)
}

/// A DateTime64 rounded down to `unit` and counted in it.
fn fraction(array: &ArrayRef, unit: TimeUnit, output: &DataType) -> ArrayRef {
    let from = match array.data_type() {
        DataType::Timestamp(unit, _) => moments::ticks_per_second(*unit),
        _ => 1,
    };
    let to = moments::ticks_per_second(unit);
    let ticks = moments::ticks(array)
        .unwrap_or_default()
        .iter()
        .map(|v| match from >= to {
            true => v.div_euclid(from / to),
            false => v * (to / from),
        });
    moments::timestamps(
        unit,
        ticks.collect(),
        array.nulls().cloned(),
        time_zone(output),
    )
}
