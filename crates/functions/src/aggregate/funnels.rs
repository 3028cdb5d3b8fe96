//! Product-analytics aggregates: `retention(c1, c2, ...)` (whether `c1`
//! held, then for each later condition whether it held too where `c1` did,
//! as an array of UInt8) and `windowFunnel(window[, mode, ...])(timestamp,
//! c1, c2, ...)` (the longest chain `c1, c2, ...` of events in timestamp
//! order whose events fall within `window` of the chain's first; events of
//! one timestamp in condition order, a row may take several steps). Modes,
//! as ClickHouse's: `strict_deduplication` (a step met again ends the
//! chain), `strict_order` (a step out of order or a row of no step ends
//! it), `strict_increase` (each step strictly later than the one before).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, TimeUnit, UInt32Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use strata_common::ErrorCode;

use super::frame::{
    Aggregate, AggregateSpec, Call, Collect, count_parameter, error, expect_params, list_of,
    list_scalar,
};

/// The most conditions either function takes.
const MAX_CONDITIONS: usize = 32;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Retention;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct WindowFunnel;

pub fn functions() -> Vec<AggregateUDF> {
    vec![
        Aggregate::udaf(Retention, &[]),
        Aggregate::udaf(WindowFunnel, &[]),
    ]
}

pub(super) fn check_conditions(name: &str, conditions: &[DataType]) -> Result<()> {
    if conditions.len() > MAX_CONDITIONS {
        return Err(error(
            ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION,
            format!("Too many event arguments for aggregate function {name}"),
        ));
    }
    for t in conditions {
        if !matches!(t, DataType::UInt8 | DataType::Boolean) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of event argument of aggregate function {name}, must be UInt8",
                    strata_common::types::clickhouse_type_name(t, false)
                ),
            ));
        }
    }
    Ok(())
}

/// Which rows hold each condition: bit `i` of a row's mask for condition `i`.
pub(super) fn masks(conditions: &[ArrayRef]) -> Result<Vec<u32>> {
    let rows = conditions.first().map_or(0, |c| c.len());
    let mut out = vec![0u32; rows];
    for (i, condition) in conditions.iter().enumerate() {
        let flags = cast(condition, &DataType::Boolean)?;
        let flags = flags.as_boolean();
        for (row, mask) in out.iter_mut().enumerate() {
            if flags.is_valid(row) && flags.value(row) {
                *mask |= 1 << i;
            }
        }
    }
    Ok(out)
}

impl AggregateSpec for Retention {
    fn name(&self) -> &str {
        "retention"
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        expect_params(self.name(), params.len(), 0..=0)?;
        if args.len() < 2 {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Not enough event arguments for aggregate function retention",
            ));
        }
        check_conditions(self.name(), args)?;
        Ok(list_of(DataType::UInt8))
    }

    fn state_types(&self, _call: &Call) -> Vec<DataType> {
        vec![DataType::UInt32]
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(RetentionAccumulator {
            conditions: call.args.len(),
            seen: 0,
        }))
    }
}

/// The conditions that held on some row, as a bit mask.
#[derive(Debug)]
struct RetentionAccumulator {
    conditions: usize,
    seen: u32,
}

impl Accumulator for RetentionAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.seen |= masks(&values[..self.conditions])?
            .into_iter()
            .fold(0, |a, b| a | b);
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let first = self.seen & 1 == 1;
        let flags: UInt8Array = (0..self.conditions)
            .map(|i| Some(u8::from(first && self.seen & (1 << i) != 0)))
            .collect();
        Ok(list_scalar(Arc::new(flags)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::UInt32(Some(self.seen))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.seen |= states[0]
            .as_primitive::<UInt32Type>()
            .iter()
            .flatten()
            .fold(0, |a, b| a | b);
        Ok(())
    }
}

/// ClickHouse asks for an unsigned number; signed ones are let through as
/// Strata plans some non-negative literals (tuple elements) as Int64.
fn is_timestamp(t: &DataType) -> bool {
    t.is_integer()
        || matches!(
            t,
            DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
        )
}

impl AggregateSpec for WindowFunnel {
    fn name(&self) -> &str {
        "windowFunnel"
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        expect_params(name, params.len(), 1..=4)?;
        let Some((timestamp, conditions)) = args.split_first().filter(|(_, c)| !c.is_empty())
        else {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Aggregate function {name} requires one timestamp argument and at least one event condition."
                ),
            ));
        };
        if !is_timestamp(timestamp) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of aggregate function {name}, must be Unsigned Number, Date, DateTime",
                    strata_common::types::clickhouse_type_name(timestamp, false)
                ),
            ));
        }
        check_conditions(name, conditions)?;
        Ok(DataType::UInt8)
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        Collect::state_types(&call.args)
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let window = count_parameter(self.name(), &call.params[0])? as i64;
        let modes = FunnelModes::of(&call.params[1..])?;
        let steps = call.args.len() - 1;
        Ok(Box::new(Collect::new(call.args.clone(), move |columns| {
            let level = funnel(&columns[0], &columns[1..], steps, window, modes)?;
            Ok(ScalarValue::UInt8(Some(level as u8)))
        })))
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct FunnelModes {
    strict_deduplication: bool,
    strict_order: bool,
    strict_increase: bool,
}

impl FunnelModes {
    fn of(params: &[ScalarValue]) -> Result<Self> {
        let mut modes = FunnelModes::default();
        for param in params {
            match param {
                ScalarValue::Utf8(Some(mode)) if mode == "strict_deduplication" => {
                    modes.strict_deduplication = true
                }
                ScalarValue::Utf8(Some(mode)) if mode == "strict_order" => {
                    modes.strict_order = true
                }
                ScalarValue::Utf8(Some(mode)) if mode == "strict_increase" => {
                    modes.strict_increase = true
                }
                other => {
                    return Err(error(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("Unsupported option {other} for aggregate function windowFunnel"),
                    ));
                }
            }
        }
        Ok(modes)
    }
}

/// A row's event: its time and its step, `None` for a row of no step
/// (kept only under `strict_order`, where it breaks a chain).
type Event = (i64, Option<usize>);

/// The events of the rows in time order; one time's in step order, a row
/// of no step first.
fn events(
    timestamps: &ArrayRef,
    conditions: &[ArrayRef],
    steps: usize,
    modes: FunnelModes,
) -> Result<Vec<Event>> {
    let times = cast(timestamps, &DataType::Int64)?;
    let times = times.as_primitive::<Int64Type>();
    let masks = masks(conditions)?;
    let mut events = Vec::new();
    for (row, mask) in masks.iter().enumerate() {
        if !times.is_valid(row) {
            continue;
        }
        let time = times.value(row);
        if *mask == 0 && modes.strict_order {
            events.push((time, None));
        }
        for step in 0..steps {
            if mask & (1 << step) != 0 {
                events.push((time, Some(step)));
            }
        }
    }
    events.sort_unstable();
    Ok(events)
}

/// The funnel's level: for each step, the first and last times of the
/// chain that reached it, advanced event by event.
fn funnel(
    timestamps: &ArrayRef,
    conditions: &[ArrayRef],
    steps: usize,
    window: i64,
    modes: FunnelModes,
) -> Result<usize> {
    let events = events(timestamps, conditions, steps, modes)?;
    let mut reached: Vec<Option<(i64, i64)>> = vec![None; steps];
    let mut started = false;
    for (i, &(time, step)) in events.iter().enumerate() {
        let Some(step) = step else {
            if started {
                break;
            }
            continue;
        };
        if step == 0 {
            reached[0] = Some((time, time));
            started = true;
        } else if modes.strict_deduplication && reached[step].is_some() {
            // The level of the event before the repeat.
            return Ok(events[i - 1].1.map_or(0, |s| s + 1));
        } else if modes.strict_order && started && reached[step - 1].is_none() {
            return Ok(reached.iter().position(Option::is_none).unwrap_or(steps));
        } else if let Some((first, last)) = reached[step - 1] {
            let in_window = time <= first + window;
            if in_window && (!modes.strict_increase || last < time) {
                reached[step] = Some((first, time));
                if step + 1 == steps {
                    return Ok(steps);
                }
            }
        }
    }
    Ok(reached
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |i| i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{BooleanArray, UInt64Array};

    #[test]
    fn funnel_restarts_its_chain() {
        let times: ArrayRef = Arc::new(UInt64Array::from(vec![1, 12, 15, 30, 21]));
        let step = |flags: Vec<bool>| Arc::new(BooleanArray::from(flags)) as ArrayRef;
        let conditions = vec![
            step(vec![true, true, false, false, false]),
            step(vec![false, false, true, false, false]),
            step(vec![false, false, false, true, true]),
        ];
        let modes = FunnelModes::default();
        assert_eq!(funnel(&times, &conditions, 3, 10, modes).unwrap(), 3);
        assert_eq!(funnel(&times, &conditions, 3, 5, modes).unwrap(), 2);
    }
}
