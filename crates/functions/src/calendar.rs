//! ClickHouse's calendar functions on Date and DateTime: the fields of a
//! moment (`toYear`, `toMonth`, `toHour`, `toYYYYMM`, ...) and the start of
//! its period (`toStartOfMonth`, `toMonday`, `toStartOfHour`, ...), the
//! usual partition keys and GROUP BY keys of time series.
//!
//! A DateTime is read in its own time zone, UTC when it has none, as
//! ClickHouse reads it in the column's zone or the server's. Results have
//! ClickHouse's types: fields are the narrowest unsigned integers, starts
//! of days and longer periods are Date, shorter ones DateTime in the
//! argument's zone. An optional constant time zone argument reads the
//! moment on that zone's clock instead (`toHour(t, 'Asia/Tokyo')`); the
//! week functions take a constant week mode before it (see
//! `dates::weeks`). Dates and DateTimes past ClickHouse's ranges
//! (1970-01-01 to 2149-06-06, and to 2106-02-07 06:28:15) stop at their ends.

use std::str::FromStr;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, PrimitiveArray, TimestampSecondArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Date64Type, Field, FieldRef, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

use crate::dates::{args, moments, weeks};

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
    IsoYear,
    IsoWeek,
    Week,
    YearWeek,
    DaysInMonth,
    StartOfYear,
    StartOfIsoYear,
    StartOfQuarter,
    StartOfMonth,
    LastDayOfMonth,
    Monday,
    StartOfWeek,
    LastDayOfWeek,
    StartOfDay,
    StartOfHour,
    StartOfFifteenMinutes,
    StartOfTenMinutes,
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
    pub const ALL: [CalendarFunction; 31] = [
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
        CalendarFunction::IsoYear,
        CalendarFunction::IsoWeek,
        CalendarFunction::Week,
        CalendarFunction::YearWeek,
        CalendarFunction::DaysInMonth,
        CalendarFunction::StartOfYear,
        CalendarFunction::StartOfIsoYear,
        CalendarFunction::StartOfQuarter,
        CalendarFunction::StartOfMonth,
        CalendarFunction::LastDayOfMonth,
        CalendarFunction::Monday,
        CalendarFunction::StartOfWeek,
        CalendarFunction::LastDayOfWeek,
        CalendarFunction::StartOfDay,
        CalendarFunction::StartOfHour,
        CalendarFunction::StartOfFifteenMinutes,
        CalendarFunction::StartOfTenMinutes,
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
            CalendarFunction::IsoYear => "toISOYear",
            CalendarFunction::IsoWeek => "toISOWeek",
            CalendarFunction::Week => "toWeek",
            CalendarFunction::YearWeek => "toYearWeek",
            CalendarFunction::DaysInMonth => "toDaysInMonth",
            CalendarFunction::StartOfYear => "toStartOfYear",
            CalendarFunction::StartOfIsoYear => "toStartOfISOYear",
            CalendarFunction::StartOfQuarter => "toStartOfQuarter",
            CalendarFunction::StartOfMonth => "toStartOfMonth",
            CalendarFunction::LastDayOfMonth => "toLastDayOfMonth",
            CalendarFunction::Monday => "toMonday",
            CalendarFunction::StartOfWeek => "toStartOfWeek",
            CalendarFunction::LastDayOfWeek => "toLastDayOfWeek",
            CalendarFunction::StartOfDay => "toStartOfDay",
            CalendarFunction::StartOfHour => "toStartOfHour",
            CalendarFunction::StartOfFifteenMinutes => "toStartOfFifteenMinutes",
            CalendarFunction::StartOfTenMinutes => "toStartOfTenMinutes",
            CalendarFunction::StartOfFiveMinutes => "toStartOfFiveMinutes",
            CalendarFunction::StartOfMinute => "toStartOfMinute",
        }
    }

    /// ClickHouse's other names for the function (MySQL's among them).
    fn aliases(self) -> &'static [&'static str] {
        use CalendarFunction::*;
        match self {
            Year => &["YEAR"],
            Quarter => &["QUARTER"],
            Month => &["MONTH"],
            DayOfMonth => &["DAY", "DAYOFMONTH"],
            DayOfWeek => &["DAYOFWEEK"],
            DayOfYear => &["DAYOFYEAR"],
            Hour => &["HOUR"],
            Minute => &["MINUTE"],
            Second => &["SECOND"],
            Week => &["week"],
            YearWeek => &["yearweek"],
            LastDayOfMonth => &["LAST_DAY"],
            StartOfFiveMinutes => &["toStartOfFiveMinute"],
            _ => &[],
        }
    }

    fn output(self) -> Output {
        use CalendarFunction::*;
        match self {
            Year | DayOfYear | IsoYear => Output::Field(DataType::UInt16),
            Quarter | Month | DayOfMonth | DayOfWeek | Hour | Minute | Second | IsoWeek | Week
            | DaysInMonth => Output::Field(DataType::UInt8),
            YearMonth | YearMonthDay | YearWeek => Output::Field(DataType::UInt32),
            YearMonthDayTime => Output::Field(DataType::UInt64),
            StartOfYear | StartOfIsoYear | StartOfQuarter | StartOfMonth | LastDayOfMonth
            | Monday | StartOfWeek | LastDayOfWeek => Output::Day,
            StartOfDay
            | StartOfHour
            | StartOfFifteenMinutes
            | StartOfTenMinutes
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
                | StartOfTenMinutes
                | StartOfFiveMinutes
                | StartOfMinute
        )
    }

    /// Whether text is read as a DateTime, as ClickHouse reads it for these.
    fn takes_text(self) -> bool {
        use CalendarFunction::*;
        matches!(self, DayOfWeek | Week | YearWeek)
    }

    /// Whether a week mode comes between the moment and the time zone.
    fn takes_mode(self) -> bool {
        use CalendarFunction::*;
        matches!(
            self,
            DayOfWeek | Week | YearWeek | StartOfWeek | LastDayOfWeek
        )
    }

    fn field(self, at: NaiveDateTime, mode: u8) -> u64 {
        use CalendarFunction::*;
        let (year, month, day) = (at.year() as u64, at.month() as u64, at.day() as u64);
        let date = at.date();
        match self {
            Year => year,
            Quarter => (month - 1) / 3 + 1,
            Month => month,
            DayOfMonth => day,
            DayOfWeek => weeks::day_of_week(date, mode) as u64,
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
            IsoYear => at.iso_week().year() as u64,
            IsoWeek => at.iso_week().week() as u64,
            Week => weeks::week_number(date, mode) as u64,
            YearWeek => weeks::year_week(date, mode) as u64,
            DaysInMonth => (last_of_month(date) - first_of_month(date)).num_days() as u64 + 1,
            _ => unreachable!("{} is not a field", self.name()),
        }
    }

    fn first_day(self, date: NaiveDate, mode: u8) -> NaiveDate {
        use CalendarFunction::*;
        match self {
            StartOfYear => NaiveDate::from_ymd_opt(date.year(), 1, 1).unwrap_or(date),
            StartOfIsoYear => {
                NaiveDate::from_isoywd_opt(date.iso_week().year(), 1, chrono::Weekday::Mon)
                    .unwrap_or(date)
            }
            StartOfQuarter => {
                let month = (date.month() - 1) / 3 * 3 + 1;
                NaiveDate::from_ymd_opt(date.year(), month, 1).unwrap_or(date)
            }
            StartOfMonth => first_of_month(date),
            LastDayOfMonth => last_of_month(date),
            Monday => weeks::start_of_week(date, 1),
            StartOfWeek => weeks::start_of_week(date, mode),
            LastDayOfWeek => weeks::last_day_of_week(date, mode),
            _ => unreachable!("{} is not a start of days", self.name()),
        }
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
            StartOfTenMinutes => minutes(10),
            StartOfFiveMinutes => minutes(5),
            StartOfMinute => minutes(1),
            _ => unreachable!("{} is not a start of moments", self.name()),
        }
    }

    /// The accepted argument counts, as ClickHouse's error states them.
    fn argument_counts(self) -> (usize, &'static str) {
        if self.takes_mode() {
            (3, "1, 2 or 3")
        } else {
            (2, "1 or 2")
        }
    }
}

fn first_of_month(date: NaiveDate) -> NaiveDate {
    date.with_day(1).unwrap_or(date)
}

fn last_of_month(date: NaiveDate) -> NaiveDate {
    let first = first_of_month(date);
    (first + Duration::days(31)).with_day(1).unwrap_or(first) - Duration::days(1)
}

/// The constant arguments after the moment: the week mode and the time
/// zone that overrides the moment's own; a NULL one makes the result NULL.
struct Options {
    mode: u8,
    zone: Option<Arc<str>>,
    null: bool,
}

impl Options {
    fn read(
        function: CalendarFunction,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
    ) -> Result<Options> {
        let name = function.name();
        let (most, counts) = function.argument_counts();
        if types.is_empty() || types.len() > most {
            return Err(args::arity(name, types.len(), counts));
        }
        let mut options = Options {
            mode: 0,
            zone: None,
            null: types[0] == DataType::Null,
        };
        let zone_index = if function.takes_mode() { 2 } else { 1 };
        for index in 1..types.len() {
            let value = values.get(index).copied().flatten();
            if types[index] == DataType::Null || args::is_null_constant(value) {
                options.null = true;
            } else if index < zone_index {
                options.mode = args::mode_argument(name, value, &types[index])?;
            } else {
                options.zone = Some(args::zone_argument(name, value, &types[index])?);
            }
        }
        Ok(options)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Calendar {
    function: CalendarFunction,
    signature: Signature,
    aliases: Vec<String>,
}

impl Calendar {
    pub fn new(function: CalendarFunction) -> Self {
        Calendar {
            function,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases: function.aliases().iter().map(|a| a.to_string()).collect(),
        }
    }

    /// The result type for a moment of type `argument`, read in `zone`
    /// when a time zone argument names one.
    fn output_type(&self, argument: &DataType, zone: Option<Arc<str>>) -> Result<DataType> {
        let has_time = match argument {
            DataType::Null => return Ok(DataType::Null),
            DataType::Date32 | DataType::Date64 => false,
            DataType::Timestamp(..) => true,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                if self.function.takes_text() =>
            {
                true
            }
            other => return Err(args::illegal_type(self.name(), other)),
        };
        if self.function.needs_time() && !has_time {
            return Err(args::illegal_type(self.name(), argument));
        }
        Ok(match self.function.output() {
            Output::Field(data_type) => data_type,
            Output::Day => DataType::Date32,
            Output::Moment => {
                DataType::Timestamp(TimeUnit::Second, zone.or_else(|| time_zone(argument)))
            }
        })
    }
}

impl ScalarUDFImpl for Calendar {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let argument = arg_types
            .first()
            .ok_or_else(|| args::arity(self.name(), 0, self.function.argument_counts().1))?;
        self.output_type(argument, None)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let options = Options::read(self.function, &types, args.scalar_arguments)?;
        let data_type = if options.null {
            self.output_type(&types[0], options.zone.clone())
                .map(|_| DataType::Null)?
        } else {
            self.output_type(&types[0], options.zone)?
        };
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let types = crate::field_types(&args.arg_fields);
        let values: Vec<Option<&ScalarValue>> = args.args.iter().map(args::constant).collect();
        let options = Options::read(self.function, &types, &values)?;
        let output = args.return_field.data_type();
        if options.null || output == &DataType::Null {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from(output)?));
        }
        // A time zone argument reads the same instants on another clock.
        let mut argument = args.args[0].to_array(args.number_rows)?;
        if crate::hashing::is_text(argument.data_type()) {
            argument = crate::dates::to_moment::text_date_times(&argument, options.zone.clone())?;
        }
        let argument = moments::in_zone(argument, options.zone.as_ref())?;
        let moments = local_moments(&argument)?;
        let nulls = argument.nulls().cloned();
        let result = match self.function.output() {
            Output::Field(data_type) => self.fields(&moments, options.mode, &data_type, nulls),
            Output::Day => {
                let days = moments.iter().map(|at| {
                    let day = self.function.first_day(at.date(), options.mode);
                    date_in_range(days_since_epoch(day))
                });
                Arc::new(Date32Array::new(days.collect(), nulls)) as ArrayRef
            }
            Output::Moment => {
                let zone = time_zone(output);
                let parsed = parse_zone(zone.as_deref())?;
                let seconds = moments.iter().map(|at| {
                    let start = self.function.first_moment(*at);
                    date_time_in_range(utc_seconds(start, parsed.as_ref()))
                });
                Arc::new(
                    TimestampSecondArray::new(seconds.collect(), nulls).with_timezone_opt(zone),
                )
            }
        };
        Ok(ColumnarValue::Array(result))
    }
}

impl Calendar {
    /// A field of every moment, as the unsigned type `data_type`.
    fn fields(
        &self,
        moments: &[NaiveDateTime],
        mode: u8,
        data_type: &DataType,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        let values = moments.iter().map(|at| self.function.field(*at, mode));
        match data_type {
            DataType::UInt8 => Arc::new(UInt8Array::new(values.map(|v| v as u8).collect(), nulls)),
            DataType::UInt16 => {
                Arc::new(UInt16Array::new(values.map(|v| v as u16).collect(), nulls))
            }
            DataType::UInt32 => {
                Arc::new(UInt32Array::new(values.map(|v| v as u32).collect(), nulls))
            }
            _ => Arc::new(UInt64Array::new(values.collect(), nulls)),
        }
    }
}

/// The last day a ClickHouse Date holds, 2149-06-06: results past either
/// end of its range stop there, as ClickHouse's do.
pub(crate) const LAST_DATE: i32 = u16::MAX as i32;

pub(crate) fn date_in_range(days: i32) -> i32 {
    days.clamp(0, LAST_DATE)
}

/// A DateTime counts seconds from the epoch as a UInt32.
pub(crate) fn date_time_in_range(seconds: i64) -> i64 {
    seconds.clamp(0, u32::MAX as i64)
}

pub(crate) fn time_zone(data_type: &DataType) -> Option<Arc<str>> {
    match data_type {
        DataType::Timestamp(_, zone) => zone.clone(),
        _ => None,
    }
}

/// The zone a DateTime names, or None for UTC.
pub(crate) fn parse_zone(zone: Option<&str>) -> Result<Option<Tz>> {
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

pub(crate) const EPOCH: NaiveDate = NaiveDate::from_ymd_opt(1970, 1, 1).expect("the epoch exists");

pub(crate) fn days_since_epoch(date: NaiveDate) -> i32 {
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

pub(crate) fn local_time(seconds: i64, zone: Option<&Tz>) -> NaiveDateTime {
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
pub(crate) fn utc_seconds(local: NaiveDateTime, zone: Option<&Tz>) -> i64 {
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
        assert_eq!(CalendarFunction::Hour.field(local, 0), 1);
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
        assert_eq!(CalendarFunction::YearMonthDay.field(local, 0), 19691231);
        assert_eq!(
            CalendarFunction::Monday.first_day(local.date(), 0),
            NaiveDate::from_ymd_opt(1969, 12, 29).unwrap()
        );
    }
}
