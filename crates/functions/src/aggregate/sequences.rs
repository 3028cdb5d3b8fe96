//! `sequenceMatch(pattern)(timestamp, c1, c2, ...)`, `sequenceCount` and
//! `sequenceMatchEvents`: a regular-expression-like pattern over a group's
//! events, the rows where some condition holds, in timestamp order.
//!
//! A pattern is a sequence of steps: `(?N)` an event where condition N
//! holds, `.` any one event, `.*` any events, and `(?t op T)` (op one of
//! `<`, `<=`, `>`, `>=`, `==`) any events until one whose time differs from
//! the last matched event's by `op T`. The pattern may match anywhere;
//! `sequenceCount` counts matches that do not overlap, and
//! `sequenceMatchEvents` returns the times of the events the `(?N)` steps of
//! the first match took.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use strata_common::ErrorCode;

use super::frame::{
    Aggregate, AggregateSpec, Call, Collect, error, expect_params, list_of, list_scalar,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    Match,
    Count,
    Events,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Sequence {
    output: Output,
}

pub fn functions() -> Vec<AggregateUDF> {
    [Output::Match, Output::Count, Output::Events]
        .into_iter()
        .map(|output| Aggregate::udaf(Sequence { output }, &[]))
        .collect()
}

/// The most conditions a pattern may name.
const MAX_CONDITIONS: usize = 32;
/// The most steps the matcher takes for one group before it gives up, as
/// ClickHouse's `sequence_match_max_iterations` default.
const MAX_ITERATIONS: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Event(usize),
    Any,
    AnyRun,
    Time(Comparison, i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    Equal,
}

impl Comparison {
    fn holds(self, elapsed: i64, limit: i64) -> bool {
        match self {
            Comparison::Less => elapsed < limit,
            Comparison::LessOrEqual => elapsed <= limit,
            Comparison::Greater => elapsed > limit,
            Comparison::GreaterOrEqual => elapsed >= limit,
            Comparison::Equal => elapsed == limit,
        }
    }
}

fn syntax(message: String) -> datafusion::error::DataFusionError {
    error(ErrorCode::SYNTAX_ERROR, message)
}

/// The steps of `pattern`, whose events must be among `conditions`.
fn parse_pattern(pattern: &str, conditions: usize) -> Result<Vec<Step>> {
    let bytes = pattern.as_bytes();
    let mut steps = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if pattern[at..].starts_with(".*") {
            steps.push(Step::AnyRun);
            at += 2;
        } else if bytes[at] == b'.' {
            steps.push(Step::Any);
            at += 1;
        } else if pattern[at..].starts_with("(?") {
            let close = pattern[at..].find(')').ok_or_else(|| {
                syntax(format!(
                    "Expected closing parenthesis, found '' at position {}",
                    pattern.len()
                ))
            })?;
            steps.push(parse_group(&pattern[at + 2..at + close], conditions)?);
            at += close + 1;
        } else {
            return Err(syntax(format!(
                "Could not parse pattern, unexpected starting symbol at position {at}"
            )));
        }
    }
    Ok(steps)
}

/// `N` of `(?N)` or `t op T` of `(?t op T)`.
fn parse_group(inside: &str, conditions: usize) -> Result<Step> {
    if let Some(time) = inside.strip_prefix('t') {
        let (comparison, rest) = [
            ("<=", Comparison::LessOrEqual),
            (">=", Comparison::GreaterOrEqual),
            ("==", Comparison::Equal),
            ("<", Comparison::Less),
            (">", Comparison::Greater),
        ]
        .into_iter()
        .find_map(|(op, c)| time.strip_prefix(op).map(|rest| (c, rest)))
        .ok_or_else(|| syntax(format!("Unknown time condition in pattern: (?{inside})")))?;
        let limit = rest
            .trim()
            .parse::<i64>()
            .map_err(|_| syntax(format!("Could not parse number in pattern: (?{inside})")))?;
        return Ok(Step::Time(comparison, limit));
    }
    let event = inside
        .parse::<usize>()
        .map_err(|_| syntax(format!("Could not parse number in pattern: (?{inside})")))?;
    if event == 0 || event > conditions {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Event number {event} is out of range"),
        ));
    }
    Ok(Step::Event(event - 1))
}

/// A group's events in time order: each time with its conditions' bits.
struct Events {
    times: Vec<i64>,
    masks: Vec<u32>,
}

/// The matcher's walk over the events, bounded in steps.
struct Matcher<'a> {
    steps: &'a [Step],
    events: &'a Events,
    iterations: u64,
}

impl Matcher<'_> {
    /// Where a match of `steps[step..]` from event `at` ends (one past its
    /// last event), with the events its `(?N)` steps took, if it matches.
    fn matches(
        &mut self,
        step: usize,
        at: usize,
        last_time: Option<i64>,
        taken: &mut Vec<usize>,
    ) -> Result<Option<usize>> {
        self.iterations += 1;
        if self.iterations > MAX_ITERATIONS {
            return Err(error(
                ErrorCode::TOO_SLOW,
                format!(
                    "Pattern application proves too difficult, exceeding max iterations ({MAX_ITERATIONS})"
                ),
            ));
        }
        let Some(&current) = self.steps.get(step) else {
            return Ok(Some(at));
        };
        let n = self.events.times.len();
        match current {
            Step::Event(condition) => {
                if at < n && self.events.masks[at] & (1 << condition) != 0 {
                    taken.push(at);
                    if let Some(end) =
                        self.matches(step + 1, at + 1, Some(self.events.times[at]), taken)?
                    {
                        return Ok(Some(end));
                    }
                    taken.pop();
                }
                Ok(None)
            }
            Step::Any if at < n => {
                self.matches(step + 1, at + 1, Some(self.events.times[at]), taken)
            }
            Step::Any => Ok(None),
            Step::AnyRun => {
                for skip_to in at..=n {
                    let time = skip_to
                        .checked_sub(1)
                        .map(|i| self.events.times[i])
                        .or(last_time);
                    if let Some(end) = self.matches(step + 1, skip_to, time, taken)? {
                        return Ok(Some(end));
                    }
                }
                Ok(None)
            }
            Step::Time(comparison, limit) => {
                // The time is measured from the last event matched.
                let Some(base) = last_time else {
                    return self.matches(step + 1, at, last_time, taken);
                };
                for next in at..n {
                    if comparison.holds(self.events.times[next] - base, limit)
                        && let Some(end) = self.matches(step + 1, next, last_time, taken)?
                    {
                        return Ok(Some(end));
                    }
                }
                Ok(None)
            }
        }
    }

    /// The first match starting at or after event `from`: its end and events.
    fn first_match(&mut self, from: usize) -> Result<Option<(usize, Vec<usize>)>> {
        for start in from..self.events.times.len() {
            let mut taken = Vec::new();
            if let Some(end) = self.matches(0, start, None, &mut taken)? {
                return Ok(Some((end, taken)));
            }
        }
        Ok(None)
    }
}

impl AggregateSpec for Sequence {
    fn name(&self) -> &str {
        match self.output {
            Output::Match => "sequenceMatch",
            Output::Count => "sequenceCount",
            Output::Events => "sequenceMatchEvents",
        }
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        expect_params(name, params.len(), 1..=1)?;
        if args.len() < 3 {
            return Err(error(
                ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                format!("Aggregate function {name} requires at least 3 arguments."),
            ));
        }
        if args.len() - 1 > MAX_CONDITIONS {
            return Err(error(
                ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION,
                format!(
                    "Aggregate function {name} supports up to {MAX_CONDITIONS} event arguments."
                ),
            ));
        }
        let time = &args[0];
        let is_time = time.is_integer()
            || matches!(
                time,
                DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
            );
        if !is_time {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of aggregate function {name}, must be DateTime",
                    strata_common::types::clickhouse_type_name(time, false)
                ),
            ));
        }
        super::funnels::check_conditions(name, &args[1..])?;
        Ok(match self.output {
            Output::Match => DataType::UInt8,
            Output::Count => DataType::UInt64,
            Output::Events => list_of(time.clone()),
        })
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        Collect::state_types(&call.args)
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let pattern = match call.params.first() {
            Some(ScalarValue::Utf8(Some(p))) => p.clone(),
            _ => {
                return Err(error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!(
                        "Pattern of aggregate function {} must be a string",
                        self.name()
                    ),
                ));
            }
        };
        let steps = parse_pattern(&pattern, call.args.len() - 1)?;
        let output = self.output;
        let time_type = call.args[0].clone();
        Ok(Box::new(Collect::new(call.args.clone(), move |columns| {
            let events = events(&columns[0], &columns[1..])?;
            let mut matcher = Matcher {
                steps: &steps,
                events: &events,
                iterations: 0,
            };
            match output {
                Output::Match => {
                    let found = matcher.first_match(0)?.is_some();
                    Ok(ScalarValue::UInt8(Some(u8::from(found))))
                }
                Output::Count => {
                    let (mut count, mut from) = (0u64, 0);
                    while let Some((end, _)) = matcher.first_match(from)? {
                        count += 1;
                        // A match that took no event would be found again.
                        from = end.max(from + 1);
                    }
                    Ok(ScalarValue::UInt64(Some(count)))
                }
                Output::Events => {
                    let taken = matcher.first_match(0)?.map(|(_, t)| t).unwrap_or_default();
                    let times: Vec<i64> = taken.iter().map(|&i| events.times[i]).collect();
                    let times: ArrayRef =
                        Arc::new(datafusion::arrow::array::Int64Array::from(times));
                    Ok(list_scalar(crate::conversion::convert(&times, &time_type)?))
                }
            }
        })))
    }
}

/// The rows where some condition holds, stably sorted by time.
fn events(timestamps: &ArrayRef, conditions: &[ArrayRef]) -> Result<Events> {
    let times = match timestamps.data_type() {
        DataType::Date32 => cast(&cast(timestamps, &DataType::Int32)?, &DataType::Int64)?,
        _ => cast(timestamps, &DataType::Int64)?,
    };
    let times = times.as_primitive::<Int64Type>();
    let masks = super::funnels::masks(conditions)?;
    let mut rows: Vec<(i64, u32)> = masks
        .into_iter()
        .enumerate()
        .filter(|&(row, mask)| mask != 0 && times.is_valid(row))
        .map(|(row, mask)| (times.value(row), mask))
        .collect();
    rows.sort_by_key(|&(time, _)| time);
    Ok(Events {
        times: rows.iter().map(|r| r.0).collect(),
        masks: rows.iter().map(|r| r.1).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pattern: &str, events: &[(i64, u32)]) -> (bool, u64) {
        let steps = parse_pattern(pattern, 2).unwrap();
        let events = Events {
            times: events.iter().map(|e| e.0).collect(),
            masks: events.iter().map(|e| e.1).collect(),
        };
        let mut m = Matcher {
            steps: &steps,
            events: &events,
            iterations: 0,
        };
        let found = m.first_match(0).unwrap().is_some();
        let (mut count, mut from) = (0, 0);
        while let Some((end, _)) = m.first_match(from).unwrap() {
            count += 1;
            from = end.max(from + 1);
        }
        (found, count)
    }

    #[test]
    fn steps_follow_one_another() {
        assert_eq!(run("(?1)(?2)", &[(1, 1), (3, 2)]), (true, 1));
        assert_eq!(run("(?1).(?2)", &[(1, 1), (3, 2)]), (false, 0));
        assert_eq!(run("(?2)(?1)", &[(1, 1), (3, 2)]), (false, 0));
        assert_eq!(
            run("(?1).*(?2)", &[(0, 1), (1, 1), (3, 2), (4, 1), (7, 2)]),
            (true, 2)
        );
        // One event does not take two steps.
        assert_eq!(run("(?1)(?2)", &[(1, 3)]), (false, 0));
    }

    #[test]
    fn time_conditions_skip_events() {
        let events = [(1, 1), (2, 2), (3, 2), (9, 2)];
        assert_eq!(run("(?1)(?t>=3)(?2)", &events), (true, 1));
        assert_eq!(run("(?1)(?t<=1)(?2)", &events), (true, 1));
        assert_eq!(run("(?1)(?t>9)(?2)", &events), (false, 0));
    }

    #[test]
    fn patterns_are_checked() {
        assert!(parse_pattern("(?1", 2).is_err());
        assert!(parse_pattern("(?3)", 2).is_err());
        assert!(parse_pattern("x", 2).is_err());
        assert_eq!(
            parse_pattern("(?t<5).*", 2).unwrap(),
            vec![Step::Time(Comparison::Less, 5), Step::AnyRun]
        );
    }
}
