//! ClickHouse's calendar functions on Date and DateTime: the fields of a
//! moment (`toYear`, `toMonth`, `toHour`, `toYYYYMM`, ...) and the start of
//! its period (`toStartOfMonth`, `toMonday`, `toStartOfHour`, ...), the
//! usual partition keys and GROUP BY keys of time series.
//!
//! A DateTime is read in its own time zone, UTC when it has none, as
//! ClickHouse reads it in the column's zone or the server's. Results have
//! ClickHouse's types: fields are the narrowest unsigned integers, starts
//! of days and longer periods are Date, shorter ones DateTime in the
//! argument's zone.

use std::str::FromStr;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, PrimitiveArray, TimestampSecondArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Date64Type, Field, FieldRef, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CalendarFunction {
    Year,
    Quarter,
    Month,
    DayOfMonth,
    DayOfWeek,
    DayOfYear,
    Hour,
    Minute,
    Second,
    YearMonth,
    YearMonthDay,
    YearMonthDayTime,
    StartOfYear,
    StartOfQuarter,
    StartOfMonth,
    Monday,
    StartOfDay,
    StartOfHour,
    StartOfFifteenMinutes,
    StartOfFiveMinutes,
    StartOfMinute,
}

/// What a function makes of a moment.
enum Output {
    /// A field, as an unsigned integer of this type.
    Field(DataType),
    /// The first day of a period, a Date.
    Day,
    /// The first second of a period, a DateTime in the argument's zone.
    Moment,
}

impl CalendarFunction {
    pub const ALL: [CalendarFunction; 21] = [
        CalendarFunction::Year,
        CalendarFunction::Quarter,
        CalendarFunction::Month,
        CalendarFunction::DayOfMonth,
        CalendarFunction::DayOfWeek,
        CalendarFunction::DayOfYear,
        CalendarFunction::Hour,
        CalendarFunction::Minute,
        CalendarFunction::Second,
        CalendarFunction::YearMonth,
        CalendarFunction::YearMonthDay,
        CalendarFunction::YearMonthDayTime,
        CalendarFunction::StartOfYear,
        CalendarFunction::StartOfQuarter,
        CalendarFunction::StartOfMonth,
        CalendarFunction::Monday,
        CalendarFunction::StartOfDay,
        CalendarFunction::StartOfHour,
        CalendarFunction::StartOfFifteenMinutes,
        CalendarFunction::StartOfFiveMinutes,
        CalendarFunction::StartOfMinute,
    ];

    fn name(self) -> &'static str {
        match self {
            CalendarFunction::Year => "toYear",
            CalendarFunction::Quarter => "toQuarter",
            CalendarFunction::Month => "toMonth",
            CalendarFunction::DayOfMonth => "toDayOfMonth",
            CalendarFunction::DayOfWeek => "toDayOfWeek",
            CalendarFunction::DayOfYear => "toDayOfYear",
            CalendarFunction::Hour => "toHour",
            CalendarFunction::Minute => "toMinute",
            CalendarFunction::Second => "toSecond",
            CalendarFunction::YearMonth => "toYYYYMM",
            CalendarFunction::YearMonthDay => "toYYYYMMDD",
            CalendarFunction::YearMonthDayTime => "toYYYYMMDDhhmmss",
            CalendarFunction::StartOfYear => "toStartOfYear",
            CalendarFunction::StartOfQuarter => "toStartOfQuarter",
            CalendarFunction::StartOfMonth => "toStartOfMonth",
            CalendarFunction::Monday => "toMonday",
            CalendarFunction::StartOfDay => "toStartOfDay",
            CalendarFunction::StartOfHour => "toStartOfHour",
            CalendarFunction::StartOfFifteenMinutes => "toStartOfFifteenMinutes",
            CalendarFunction::StartOfFiveMinutes => "toStartOfFiveMinutes",
            CalendarFunction::StartOfMinute => "toStartOfMinute",
        }
    }

    fn output(self) -> Output {
        use CalendarFunction::*;
        match self {
            Year | DayOfYear => Output::Field(DataType::UInt16),
            Quarter | Month | DayOfMonth | DayOfWeek | Hour | Minute | Second => {
                Output::Field(DataType::UInt8)
            }
            YearMonth | YearMonthDay => Output::Field(DataType::UInt32),
            YearMonthDayTime => Output::Field(DataType::UInt64),
            StartOfYear | StartOfQuarter | StartOfMonth | Monday => Output::Day,
            StartOfDay
            | StartOfHour
            | StartOfFifteenMinutes
            | StartOfFiveMinutes
            | StartOfMinute => Output::Moment,
        }
    }

    /// Whether the function needs a time of day, which a Date lacks.
    fn needs_time(self) -> bool {
        use CalendarFunction::*;
        matches!(
            self,
            Hour | Minute
                | Second
                | StartOfHour
                | StartOfFifteenMinutes
                | StartOfFiveMinutes
                | StartOfMinute
        )
    }

    fn field(self, at: NaiveDateTime) -> u64 {
        use CalendarFunction::*;
        let (year, month, day) = (at.year() as u64, at.month() as u64, at.day() as u64);
        match self {
            Year => year,
            Quarter => (month - 1) / 3 + 1,
            Month => month,
            DayOfMonth => day,
            DayOfWeek => at.weekday().number_from_monday() as u64,
            DayOfYear => at.ordinal() as u64,
            Hour => at.hour() as u64,
            Minute => at.minute() as u64,
            Second => at.second() as u64,
            YearMonth => year * 100 + month,
            YearMonthDay => (year * 100 + month) * 100 + day,
            YearMonthDayTime => {
                let date = (year * 100 + month) * 100 + day;
                let time = (at.hour() as u64 * 100 + at.minute() as u64) * 100 + at.second() as u64;
                date * 1_000_000 + time
            }
            _ => unreachable!("{} is not a field", self.name()),
        }
    }

    fn first_day(self, date: NaiveDate) -> NaiveDate {
        use CalendarFunction::*;
        let month = match self {
            StartOfYear => 1,
            StartOfQuarter => (date.month() - 1) / 3 * 3 + 1,
            StartOfMonth => date.month(),
            Monday => {
                let back = date.weekday().num_days_from_monday() as i64;
                return date - Duration::days(back);
            }
            _ => unreachable!("{} is not a start of days", self.name()),
        };
        NaiveDate::from_ymd_opt(date.year(), month, 1).expect("the first of a month exists")
    }

    fn first_moment(self, at: NaiveDateTime) -> NaiveDateTime {
        use CalendarFunction::*;
        let minutes = |step: u32| {
            let minute = at.minute() / step * step;
            at.date()
                .and_hms_opt(at.hour(), minute, 0)
                .expect("a whole minute exists")
        };
        match self {
            StartOfDay => at.date().and_hms_opt(0, 0, 0).expect("midnight exists"),
            StartOfHour => minutes(60),
            StartOfFifteenMinutes => minutes(15),
            StartOfFiveMinutes => minutes(5),
            StartOfMinute => minutes(1),
            _ => unreachable!("{} is not a start of moments", self.name()),
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Calendar {
    function: CalendarFunction,
    signature: Signature,
}

impl Calendar {
    pub fn new(function: CalendarFunction) -> Self {
        Calendar {
            function,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

fn illegal_argument(function: CalendarFunction, data_type: &DataType) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument of function {}",
            strata_common::types::clickhouse_type_name(data_type, false),
            function.name()
        ),
    )
}

impl ScalarUDFImpl for Calendar {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let argument = &arg_types[0];
        let has_time = match argument {
            DataType::Date32 | DataType::Date64 => false,
            DataType::Timestamp(..) => true,
            other => return Err(illegal_argument(self.function, other).into_datafusion()),
        };
        if self.function.needs_time() && !has_time {
            return Err(illegal_argument(self.function, argument).into_datafusion());
        }
        Ok(match self.function.output() {
            Output::Field(data_type) => data_type,
            Output::Day => DataType::Date32,
            Output::Moment => DataType::Timestamp(TimeUnit::Second, time_zone(argument)),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let argument = &args.arg_fields[0];
        Ok(Arc::new(Field::new(
            self.name(),
            self.return_type(&[argument.data_type().clone()])?,
            argument.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let argument = args.args[0].to_array(rows)?;
        let moments = local_moments(&argument)?;
        let nulls = argument.nulls().cloned();
        let function = self.function;
        let result: ArrayRef = match function.output() {
            Output::Field(data_type) => {
                let values = moments.iter().map(|at| function.field(*at));
                match data_type {
                    DataType::UInt8 => {
                        Arc::new(UInt8Array::new(values.map(|v| v as u8).collect(), nulls))
                    }
                    DataType::UInt16 => {
                        Arc::new(UInt16Array::new(values.map(|v| v as u16).collect(), nulls))
                    }
                    DataType::UInt32 => {
                        Arc::new(UInt32Array::new(values.map(|v| v as u32).collect(), nulls))
                    }
                    _ => Arc::new(UInt64Array::new(values.collect(), nulls)),
                }
            }
            Output::Day => {
                let days = moments
                    .iter()
                    .map(|at| days_since_epoch(function.first_day(at.date())));
                Arc::new(Date32Array::new(days.collect(), nulls))
            }
            Output::Moment => {
                let zone = time_zone(argument.data_type());
                let parsed = parse_zone(zone.as_deref())?;
                let seconds = moments
                    .iter()
                    .map(|at| utc_seconds(function.first_moment(*at), parsed.as_ref()));
                Arc::new(
                    TimestampSecondArray::new(seconds.collect(), nulls).with_timezone_opt(zone),
                )
            }
        };
        Ok(ColumnarValue::Array(result))
    }
}

fn time_zone(data_type: &DataType) -> Option<Arc<str>> {
    match data_type {
        DataType::Timestamp(_, zone) => zone.clone(),
        _ => None,
    }
}

/// The zone a DateTime names, or None for UTC.
fn parse_zone(zone: Option<&str>) -> Result<Option<Tz>> {
    zone.map(|name| {
        Tz::from_str(name).map_err(|_| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Unknown time zone {name}"),
            )
            .into_datafusion()
        })
    })
    .transpose()
}

const EPOCH: NaiveDate = NaiveDate::from_ymd_opt(1970, 1, 1).expect("the epoch exists");

fn days_since_epoch(date: NaiveDate) -> i32 {
    (date - EPOCH).num_days() as i32
}

/// The wall-clock time of every value (null slots read as the epoch; the
/// result keeps the argument's nulls).
pub(crate) fn local_moments(array: &ArrayRef) -> Result<Vec<NaiveDateTime>> {
    let midnight = |days: i64| (EPOCH + Duration::days(days)).and_hms_opt(0, 0, 0);
    let at_midnight = |days: i64| midnight(days).unwrap_or(NaiveDateTime::MIN);
    match array.data_type() {
        DataType::Date32 => Ok(array
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|&d| at_midnight(d as i64))
            .collect()),
        DataType::Date64 => Ok(array
            .as_primitive::<Date64Type>()
            .values()
            .iter()
            .map(|&ms| at_midnight(ms.div_euclid(86_400_000)))
            .collect()),
        DataType::Timestamp(unit, zone) => {
            let zone = parse_zone(zone.as_deref())?;
            let per_second: i64 = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let zone = zone.as_ref();
            Ok(match unit {
                TimeUnit::Second => wall_clock::<TimestampSecondType>(array, per_second, zone),
                TimeUnit::Millisecond => {
                    wall_clock::<TimestampMillisecondType>(array, per_second, zone)
                }
                TimeUnit::Microsecond => {
                    wall_clock::<TimestampMicrosecondType>(array, per_second, zone)
                }
                TimeUnit::Nanosecond => {
                    wall_clock::<TimestampNanosecondType>(array, per_second, zone)
                }
            })
        }
        other => Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal type {other} of a calendar function's argument"),
        )
        .into_datafusion()),
    }
}

/// The wall-clock times of timestamps counted in `1 / per_second` seconds.
fn wall_clock<T: ArrowPrimitiveType<Native = i64>>(
    array: &ArrayRef,
    per_second: i64,
    zone: Option<&Tz>,
) -> Vec<NaiveDateTime> {
    let array: &PrimitiveArray<T> = array.as_primitive::<T>();
    array
        .values()
        .iter()
        .map(|v| local_time(v.div_euclid(per_second), zone))
        .collect()
}

fn local_time(seconds: i64, zone: Option<&Tz>) -> NaiveDateTime {
    let Some(utc) = DateTime::<Utc>::from_timestamp(seconds, 0) else {
        return NaiveDateTime::MIN;
    };
    match zone {
        Some(zone) => utc.with_timezone(zone).naive_local(),
        None => utc.naive_utc(),
    }
}

/// The UTC second of a wall-clock time; one in the gap a clock moving
/// forward leaves (a midnight in some zones) reads an hour later.
fn utc_seconds(local: NaiveDateTime, zone: Option<&Tz>) -> i64 {
    match zone {
        None => local.and_utc().timestamp(),
        Some(zone) => match zone.from_local_datetime(&local).earliest() {
            Some(at) => at.timestamp(),
            None => zone
                .from_local_datetime(&(local + Duration::hours(1)))
                .earliest()
                .map_or(local.and_utc().timestamp(), |at| at.timestamp()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn a_zoned_moment_is_read_and_rounded_on_its_own_wall_clock() {
        let berlin = parse_zone(Some("Europe/Berlin")).unwrap();
        // 2024-03-31 00:30 UTC is 01:30 in Berlin, half an hour before the
        // clocks jump from 02:00 to 03:00.
        let utc = at("2024-03-31 00:30:00").and_utc().timestamp();
        let local = local_time(utc, berlin.as_ref());
        assert_eq!(local, at("2024-03-31 01:30:00"));
        assert_eq!(CalendarFunction::Hour.field(local), 1);
        let day = CalendarFunction::StartOfDay.first_moment(local);
        assert_eq!(
            utc_seconds(day, berlin.as_ref()),
            at("2024-03-30 23:00:00").and_utc().timestamp()
        );
        // 02:30 does not exist that day: it reads as 03:30.
        assert_eq!(
            utc_seconds(at("2024-03-31 02:30:00"), berlin.as_ref()),
            at("2024-03-31 01:30:00").and_utc().timestamp()
        );
        assert!(parse_zone(Some("Mars/Olympus")).is_err());
    }

    #[test]
    fn moments_before_the_epoch_round_down() {
        let local = local_time(-1, None);
        assert_eq!(local, at("1969-12-31 23:59:59"));
        assert_eq!(CalendarFunction::YearMonthDay.field(local), 19691231);
        assert_eq!(
            CalendarFunction::Monday.first_day(local.date()),
            NaiveDate::from_ymd_opt(1969, 12, 29).unwrap()
        );
    }
}
