//! Window view functions outside a window view: the bounds of the window a
//! moment falls in, as `toStartOfInterval` bins and date arithmetic.
//!
//! - `tumble(t, i [, zone])`: the bin of `i` holding `t`, as a tuple of
//!   start and end; `tumbleStart` and `tumbleEnd` are its two bounds.
//! - `hop(t, h, w [, zone])`: windows of length `w` start every `h`; of
//!   those holding `t` the one ending first after it (ClickHouse's choice:
//!   its end is the end of `t`'s bin of `h`). `hopStart`, `hopEnd` likewise.
//! - Each bound function of one argument reads a window tuple.
//!
//! Bins of weeks and longer are Dates, shorter ones DateTimes, as
//! `toStartOfInterval`'s are.

use datafusion::sql::sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::dates::intervals::IntervalKind;

use crate::ast_rewrite::{call, interval_function};

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "tumble",
    "tumbleStart",
    "tumbleEnd",
    "hop",
    "hopStart",
    "hopEnd",
];

/// Which bound of a window a function returns.
#[derive(Clone, Copy)]
enum Bound {
    Both,
    Start,
    End,
}

pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let (hop, bound) = match name {
        "tumble" => (false, Bound::Both),
        "tumbleStart" => (false, Bound::Start),
        "tumbleEnd" => (false, Bound::End),
        "hop" => (true, Bound::Both),
        "hopStart" => (true, Bound::Start),
        "hopEnd" => (true, Bound::End),
        _ => return Ok(None),
    };
    if let ([window], Bound::Start | Bound::End) = (args, bound) {
        let element = if matches!(bound, Bound::Start) { 1 } else { 2 };
        return Ok(Some(call(
            "tupleElement",
            vec![(*window).clone(), super::number(element)],
        )));
    }
    let intervals = if hop { 2 } else { 1 };
    if !(args.len() == 1 + intervals || args.len() == 2 + intervals) {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {name} doesn't match: passed {}, should be {} or {}",
                args.len(),
                1 + intervals,
                2 + intervals
            ),
        ));
    }
    let moment = match args.get(1 + intervals) {
        Some(zone) => call("toTimeZone", vec![args[0].clone(), (*zone).clone()]),
        None => args[0].clone(),
    };
    let step = Interval::of(name, args[1])?;
    let (start, end) = if hop {
        let window = Interval::of(name, args[2])?;
        window.check_hop(name, &step)?;
        let end = call(
            "plus",
            vec![super::start_of_interval(&moment, args[1]), step.function],
        );
        (call("minus", vec![end.clone(), window.function]), end)
    } else {
        let start = super::start_of_interval(&moment, args[1]);
        (start.clone(), call("plus", vec![start, step.function]))
    };
    Ok(Some(match bound {
        // `struct` is what `tuple(...)` is planned as.
        Bound::Both => call("struct", vec![start, end]),
        Bound::Start => start,
        Bound::End => end,
    }))
}

/// An interval argument: its unit, its `toInterval<Unit>(n)` form and, when
/// written as a number, its amount.
struct Interval {
    kind: IntervalKind,
    function: Expr,
    amount: Option<i64>,
}

impl Interval {
    fn of(name: &str, expr: &Expr) -> Result<Interval> {
        let function = match expr {
            Expr::Interval(interval) => interval_function(interval),
            Expr::Function(_) => Some(expr.clone()),
            _ => None,
        };
        let parts = function.and_then(|function| {
            let Expr::Function(f) = &function else {
                return None;
            };
            let unit = f.name.to_string();
            let kind = IntervalKind::ALL
                .into_iter()
                .find(|kind| unit.trim_matches('"') == kind.function_name())?;
            let amount = match &f.args {
                FunctionArguments::List(list) => match list.args.as_slice() {
                    [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => {
                        v.value.to_string().trim_matches('\'').trim().parse().ok()
                    }
                    _ => None,
                },
                _ => None,
            };
            Some(Interval {
                kind,
                function,
                amount,
            })
        });
        let interval = parts.ok_or_else(|| {
            StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Function {name} takes an interval (INTERVAL n UNIT), not {expr}"),
            )
        })?;
        if interval.amount.is_some_and(|n| n <= 0) {
            return Err(StrataError::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("Value for column {expr} of function {name} must be positive"),
            ));
        }
        Ok(interval)
    }

    /// A hop and its window share a unit, and the hop is not the longer.
    fn check_hop(&self, name: &str, hop: &Interval) -> Result<()> {
        if self.kind != hop.kind {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_COLUMN,
                format!("Illegal type of window and hop column of function {name}, must be same"),
            ));
        }
        if let (Some(window), Some(step)) = (self.amount, hop.amount)
            && step > window
        {
            return Err(StrataError::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!(
                    "Value for hop interval of function {name} must not larger than window interval"
                ),
            ));
        }
        Ok(())
    }
}
