//! `parseDateTimeBestEffort(text[, zone])`,
//! `parseDateTime64BestEffort(text[, precision[, zone]])`, their `US`
//! forms (`MM/DD/YYYY` first) and `OrNull` / `OrZero` forms: a DateTime or
//! DateTime64 from text in any common shape (see `best_effort_text`).
//!
//! As ClickHouse does: a wall-clock time without an offset is read on the
//! zone argument's clock (UTC without one); a DateTime drops the fraction
//! and stops at the ends of its range; text that is not a moment is
//! CANNOT_PARSE_DATETIME, NULL or the epoch by the form.

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::args;
use super::best_effort_text::{Reading, current_year, parse};
use super::frame::{Args, Call, Kernel, Shape, texts};
use super::moments::{self, ticks_per_second};
use crate::calendar::{date_time_in_range, parse_zone, time_zone};
use crate::hashing::is_text;

/// What a form gives for text that is not a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Failure {
    Error,
    Null,
    Zero,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BestEffort {
    /// A DateTime64 rather than a DateTime.
    sub_second: bool,
    /// `MM/DD/YYYY` rather than `DD/MM/YYYY`.
    us: bool,
    failure: Failure,
}

impl BestEffort {
    pub const ALL: [BestEffort; 12] = {
        use Failure::*;
        [
            BestEffort::form(false, false, Error),
            BestEffort::form(false, false, Null),
            BestEffort::form(false, false, Zero),
            BestEffort::form(false, true, Error),
            BestEffort::form(false, true, Null),
            BestEffort::form(false, true, Zero),
            BestEffort::form(true, false, Error),
            BestEffort::form(true, false, Null),
            BestEffort::form(true, false, Zero),
            BestEffort::form(true, true, Error),
            BestEffort::form(true, true, Null),
            BestEffort::form(true, true, Zero),
        ]
    };

    const fn form(sub_second: bool, us: bool, failure: Failure) -> BestEffort {
        BestEffort {
            sub_second,
            us,
            failure,
        }
    }

    /// Arguments before the optional zone: a DateTime64's precision comes
    /// second when it is a number.
    fn fixed(self, types: &[DataType]) -> usize {
        match types.get(1) {
            Some(t) if self.sub_second && t.is_integer() => 2,
            _ => 1,
        }
    }
}

impl Kernel for BestEffort {
    fn name(&self) -> &'static str {
        use Failure::*;
        match (self.sub_second, self.us, self.failure) {
            (false, false, Error) => "parseDateTimeBestEffort",
            (false, false, Null) => "parseDateTimeBestEffortOrNull",
            (false, false, Zero) => "parseDateTimeBestEffortOrZero",
            (false, true, Error) => "parseDateTimeBestEffortUS",
            (false, true, Null) => "parseDateTimeBestEffortUSOrNull",
            (false, true, Zero) => "parseDateTimeBestEffortUSOrZero",
            (true, false, Error) => "parseDateTime64BestEffort",
            (true, false, Null) => "parseDateTime64BestEffortOrNull",
            (true, false, Zero) => "parseDateTime64BestEffortOrZero",
            (true, true, Error) => "parseDateTime64BestEffortUS",
            (true, true, Null) => "parseDateTime64BestEffortUSOrNull",
            (true, true, Zero) => "parseDateTime64BestEffortUSOrZero",
        }
    }

    fn aliases(&self) -> &'static [&'static str] {
        use Failure::*;
        match (self.sub_second, self.us, self.failure) {
            (false, false, Error) => &["parseDateTime32BestEffort"],
            (false, false, Null) => &["parseDateTime32BestEffortOrNull"],
            (false, false, Zero) => &["parseDateTime32BestEffortOrZero"],
            _ => &[],
        }
    }

    fn shape(&self, args: &Args) -> Result<Shape> {
        let (name, types) = (self.name(), args.types);
        let fixed = self.fixed(types);
        let (zone, null) = args::trailing_zone(name, types, args.values, fixed)?;
        if !(is_text(&types[0]) || types[0] == DataType::Null) {
            return Err(args::illegal_type(name, &types[0]));
        }
        let shape = match (self.sub_second, fixed) {
            (false, _) => Shape::of(DataType::Timestamp(TimeUnit::Second, zone)),
            (true, 1) => Shape::datetime64(3, zone),
            (true, _) => Shape::datetime64(args::precision(name, args.values[1], &types[1])?, zone),
        };
        if null {
            return Ok(Shape::null());
        }
        Ok(match self.failure {
            Failure::Null => shape.or_null(),
            _ => shape,
        })
    }

    fn run(&self, call: &Call) -> Result<ArrayRef> {
        let DataType::Timestamp(unit, output_zone) = call.output else {
            return Err(args::illegal_type(self.name(), call.output));
        };
        let zone = parse_zone(time_zone(call.output).as_deref())?;
        let per_second = ticks_per_second(*unit);
        let texts = texts(&call.arrays[0])?;
        let reading = Reading {
            us: self.us,
            sub_second: self.sub_second,
            current_year: current_year(),
        };
        let mut ticks = Vec::with_capacity(texts.len());
        let mut valid = Vec::with_capacity(texts.len());
        for text in texts.iter() {
            let Some(text) = text else {
                ticks.push(0);
                valid.push(false);
                continue;
            };
            let read = parse(text, reading).map(|t| t.instant(zone.as_ref()));
            let (seconds, nanos) = match (read, self.failure) {
                (Some(instant), _) => instant,
                (None, Failure::Error) => return Err(self.unreadable(text)),
                (None, Failure::Null) => {
                    ticks.push(0);
                    valid.push(false);
                    continue;
                }
                (None, Failure::Zero) => (0, 0),
            };
            let tick = match self.sub_second {
                false => Some(date_time_in_range(seconds)),
                true => seconds
                    .checked_mul(per_second)
                    .and_then(|t| t.checked_add(nanos as i64 / (1_000_000_000 / per_second))),
            };
            match (tick, self.failure) {
                (Some(tick), _) => ticks.push(tick),
                (None, Failure::Error) => return Err(overflow(self.name())),
                (None, Failure::Null | Failure::Zero) => ticks.push(0),
            }
            valid.push(tick.is_some() || self.failure != Failure::Null);
        }
        let nulls = Some(NullBuffer::from(valid)).filter(|n| n.null_count() > 0);
        Ok(moments::timestamps(
            *unit,
            ticks,
            nulls,
            output_zone.clone(),
        ))
    }
}

/// A DateTime64 whose ticks do not fit 64 bits.
fn overflow(function: &str) -> datafusion::error::DataFusionError {
    args::error(
        ErrorCode::DECIMAL_OVERFLOW,
        format!("Decimal math overflow in function {function}"),
    )
}

impl BestEffort {
    fn unreadable(&self, text: &str) -> datafusion::error::DataFusionError {
        let type_name = if self.sub_second {
            "DateTime64"
        } else {
            "DateTime"
        };
        args::error(
            ErrorCode::CANNOT_PARSE_DATETIME,
            format!(
                "Cannot read {type_name} from '{text}' in function {}",
                self.name()
            ),
        )
    }
}
