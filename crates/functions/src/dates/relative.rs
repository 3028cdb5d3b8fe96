//! `toRelative{Year,Quarter,Month,Week,Day,Hour,Minute,Second}Num` and
//! `to{Month,Year}NumSinceEpoch`: a moment as a count of periods from a
//! fixed point, for differences between moments.
//!
//! As ClickHouse counts them: years, quarters and months from year 0 of
//! the wall clock (`year * 12 + month`), weeks from Monday 1969-12-29,
//! days on the wall clock, minutes and seconds of UTC. Hours are UTC hours
//! in zones whose offsets are whole hours since 1970, and otherwise (and
//! before the epoch) hours shifted by a day less the zone's offset at the
//! epoch. Counts stop at zero below; days stop at 65535 and seconds at
//! 2^32 - 1, the ends of Date and DateTime.

use std::sync::Arc;

use chrono::{Datelike, Offset, TimeZone};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, UInt16Array, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args;
use super::moments::{self, Moment};
use crate::calendar::parse_zone;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    MonthsSinceEpoch,
    YearsSinceEpoch,
}

impl Period {
    pub const ALL: [Period; 10] = [
        Period::Year,
        Period::Quarter,
        Period::Month,
        Period::Week,
        Period::Day,
        Period::Hour,
        Period::Minute,
        Period::Second,
        Period::MonthsSinceEpoch,
        Period::YearsSinceEpoch,
    ];

    fn name(self) -> &'static str {
        match self {
            Period::Year => "toRelativeYearNum",
            Period::Quarter => "toRelativeQuarterNum",
            Period::Month => "toRelativeMonthNum",
            Period::Week => "toRelativeWeekNum",
            Period::Day => "toRelativeDayNum",
            Period::Hour => "toRelativeHourNum",
            Period::Minute => "toRelativeMinuteNum",
            Period::Second => "toRelativeSecondNum",
            Period::MonthsSinceEpoch => "toMonthNumSinceEpoch",
            Period::YearsSinceEpoch => "toYearNumSinceEpoch",
        }
    }

    fn output(self) -> DataType {
        match self {
            Period::Year | Period::YearsSinceEpoch => DataType::UInt16,
            _ => DataType::UInt32,
        }
    }

    /// The count for one moment; `hours` counts hours in the moment's zone.
    fn count(self, at: Moment, hours: &HourCount) -> i64 {
        let (year, month) = (at.local.year() as i64, at.local.month() as i64);
        let day = moments::day_number(at.local);
        match self {
            Period::Year => year,
            Period::Quarter => year * 4 + (month - 1) / 3,
            Period::Month => year * 12 + month,
            Period::Week => ((day + 3).div_euclid(7)).max(0),
            Period::Day => day.clamp(0, crate::calendar::LAST_DATE as i64),
            Period::Hour => hours.of(at.utc).max(0),
            Period::Minute => at.utc.div_euclid(60).max(0),
            Period::Second => crate::calendar::date_time_in_range(at.utc),
            Period::MonthsSinceEpoch => ((year - 1970) * 12 + month - 1).max(0),
            Period::YearsSinceEpoch => (year - 1970).max(0),
        }
    }
}

/// How a zone counts hours: UTC hours, except before the epoch and in
/// zones with an offset since then that is not whole hours, where hours
/// are shifted by a day less the zone's offset at the epoch.
struct HourCount {
    whole_hours: bool,
    shift: i64,
}

impl HourCount {
    fn new(zone: Option<&Tz>) -> HourCount {
        let Some(zone) = zone else {
            return HourCount {
                whole_hours: true,
                shift: 86_400,
            };
        };
        let offset = |second: i64| zone.offset_from_utc_datetime(&utc(second)).fix();
        // Weekly samples from the epoch to the end of DateTime's range.
        let whole_hours = (0..u32::MAX as i64)
            .step_by(7 * 86_400)
            .all(|second| offset(second).local_minus_utc() % 3600 == 0);
        HourCount {
            whole_hours,
            shift: 86_400 - offset(0).local_minus_utc() as i64,
        }
    }

    fn of(&self, utc: i64) -> i64 {
        if utc >= 0 && self.whole_hours {
            utc.div_euclid(3600)
        } else {
            (utc + self.shift).div_euclid(3600)
        }
    }
}

fn utc(second: i64) -> chrono::NaiveDateTime {
    chrono::DateTime::from_timestamp(second, 0)
        .map(|at| at.naive_utc())
        .unwrap_or_default()
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Relative {
    period: Period,
    signature: Signature,
}

impl Relative {
    pub fn new(period: Period) -> Self {
        Relative {
            period,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }

    fn check(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<bool> {
        let (_, null) = args::trailing_zone(self.name(), types, values, 1)?;
        match types[0] {
            DataType::Date32 | DataType::Timestamp(..) | DataType::Null => Ok(null),
            ref other => Err(args::illegal_type(self.name(), other)),
        }
    }
}

impl ScalarUDFImpl for Relative {
    fn name(&self) -> &str {
        self.period.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.period.output())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let null = self.check(&types, args.scalar_arguments)?;
        let data_type = if null {
            DataType::Null
        } else {
            self.period.output()
        };
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let types = crate::field_types(&args.arg_fields);
        let values: Vec<Option<&ScalarValue>> = args.args.iter().map(args::constant).collect();
        let (zone, null) = args::trailing_zone(self.name(), &types, &values, 1)?;
        if null {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let argument = args.args[0].to_array(args.number_rows)?;
        let argument = moments::in_zone(argument, zone.as_ref())?;
        let reading = moments::reading_zone(argument.data_type(), zone.as_ref());
        let hours = HourCount::new(parse_zone(reading.as_deref())?.as_ref());
        let counts = moments::moments(&argument, zone.as_deref())?
            .into_iter()
            .map(|at| self.period.count(at, &hours));
        let nulls = argument.nulls().cloned();
        let result: ArrayRef = match self.period.output() {
            DataType::UInt16 => {
                Arc::new(UInt16Array::new(counts.map(|c| c as u16).collect(), nulls))
            }
            _ => Arc::new(UInt32Array::new(counts.map(|c| c as u32).collect(), nulls)),
        };
        Ok(ColumnarValue::Array(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_shift_in_zones_with_fractional_offsets() {
        let kolkata: Tz = "Asia/Kolkata".parse().unwrap();
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        // 2024-01-02 00:00 in Kolkata.
        assert_eq!(HourCount::new(Some(&kolkata)).of(1_704_133_800), 473_389);
        assert_eq!(HourCount::new(Some(&berlin)).of(1_704_133_800), 473_370);
        // Before the epoch, even UTC's hours are shifted by a day.
        assert_eq!(HourCount::new(None).of(-1), 23);
    }
}
