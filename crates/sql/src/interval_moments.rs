//! A moment moved by an interval finer than its type holds takes the finer
//! type, as in ClickHouse: `Date + INTERVAL 1 HOUR` is a DateTime,
//! `Date32 + INTERVAL 1 HOUR` a DateTime64(3), and `DateTime + INTERVAL 1
//! MILLISECOND` a DateTime64(3). DataFusion keeps the moment's type and so
//! drops the finer part (`2024-01-01 + 1 hour` stayed `2024-01-01`).
//!
//! A Date moved by a fraction of a second is refused, as in ClickHouse.
//!
//! The operand is converted with `toDateTime`/`toDateTime64` before the
//! arithmetic, so a Date becomes its midnight on the session's clock and a
//! DateTime keeps its zone.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{BinaryExpr, Expr, ExprSchemable, Operator, lit};
use strata_common::{ErrorCode, StrataError, types};

/// The fractional-second digits the finest unit of an interval expression
/// needs: None for days and coarser, 0 for hours to seconds.
fn digits_needed(interval: &Expr, schema: &DFSchema) -> Result<Option<u8>> {
    let (_, field) = interval.to_field(schema)?;
    if !matches!(field.data_type(), DataType::Interval(_)) {
        return Ok(None);
    }
    Ok(match types::interval_type(&field) {
        Some("IntervalHour" | "IntervalMinute" | "IntervalSecond") => Some(0),
        Some("IntervalMillisecond") => Some(3),
        Some("IntervalMicrosecond") => Some(6),
        Some("IntervalNanosecond") => Some(9),
        Some(_) => None,
        // A sum of intervals (`INTERVAL 1 DAY + INTERVAL 2 HOUR`) is
        // unmarked: its finest part decides.
        None => match additive_operands(interval) {
            Some((left, right, _)) => {
                digits_needed(left, schema)?.max(digits_needed(right, schema)?)
            }
            None => None,
        },
    })
}

/// The conversion a moment needs before an interval needing `needed`
/// fractional digits moves it, if any.
fn widening(moment: &Expr, needed: u8, schema: &DFSchema) -> Result<Option<Widening>> {
    let (_, field) = moment.to_field(schema)?;
    // The fractional-second digits the moment holds: None for a Date.
    let target = match (field.data_type(), types::shown_digits(&field)) {
        (DataType::Date32, _) if types::field_type_name(&field) == "Date32" => needed.max(3),
        (DataType::Date32, _) if needed == 0 => return Ok(Some(Widening::DateTime)),
        (DataType::Date32, _) => needed,
        (_, Some(held)) if needed > held => needed,
        _ => return Ok(None),
    };
    Ok(Some(Widening::DateTime64(target)))
}

/// A Date or Date32 has no clock to move by a fraction of a second:
/// ClickHouse refuses `date + INTERVAL 1 MILLISECOND`.
fn refuse_fraction_of_date(
    moment: &Expr,
    interval: &Expr,
    plus: bool,
    schema: &DFSchema,
) -> Result<()> {
    let (_, moment) = moment.to_field(schema)?;
    let (_, interval) = interval.to_field(schema)?;
    let unit = match types::interval_type(&interval) {
        Some("IntervalMillisecond") => "Milliseconds",
        Some("IntervalMicrosecond") => "Microseconds",
        Some("IntervalNanosecond") => "Nanoseconds",
        _ => return Ok(()),
    };
    if moment.data_type() != &DataType::Date32 {
        return Ok(());
    }
    let function = if plus { "add" } else { "subtract" };
    let date = types::field_type_name(&moment.as_ref().clone().with_nullable(false));
    Err(StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("{function}{unit} cannot be used with {date}"),
    )
    .into_datafusion())
}

enum Widening {
    DateTime,
    DateTime64(u8),
}

/// `moment ± interval` (or `interval + moment`), as an operator or as
/// ClickHouse's `plus`/`minus`, with the moment widened where the interval
/// is finer than it; `convert` builds a call of `toDateTime` or
/// `toDateTime64` by name.
pub fn widen_moment(
    expr: Expr,
    schema: &DFSchema,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<Transformed<Expr>> {
    let Some((mut left, mut right, plus)) = additive_operands(&expr) else {
        return Ok(Transformed::no(expr));
    };
    let Some(needed) = digits_needed(left, schema)?.or(digits_needed(right, schema)?) else {
        return keep_precision(expr, schema, convert);
    };
    let moment_is_left = digits_needed(right, schema)?.is_some();
    if !moment_is_left {
        if !plus {
            return Ok(Transformed::no(expr));
        }
        std::mem::swap(&mut left, &mut right);
    }
    let (moment, interval) = (left, right);
    refuse_fraction_of_date(moment, interval, plus, schema)?;
    let Some(widening) = widening(moment, needed, schema)? else {
        return keep_precision(expr, schema, convert);
    };
    let widened = match widening {
        Widening::DateTime => convert("toDateTime", vec![moment.clone()]),
        Widening::DateTime64(digits) => {
            convert("toDateTime64", vec![moment.clone(), lit(i64::from(digits))])
        }
    };
    let interval = interval.clone();
    let (left, right) = if moment_is_left {
        (widened, interval)
    } else {
        (interval, widened)
    };
    Ok(Transformed::yes(match expr {
        Expr::BinaryExpr(BinaryExpr { op, .. }) => {
            Expr::BinaryExpr(BinaryExpr::new(Box::new(left), op, Box::new(right)))
        }
        Expr::ScalarFunction(ScalarFunction { func, .. }) => {
            Expr::ScalarFunction(ScalarFunction::new_udf(func, vec![left, right]))
        }
        _ => unreachable!("matched above"),
    }))
}

/// `moment ± interval` where the moment is a DateTime64 whose unit shows
/// more digits than its precision (`DateTime64(2)`, held in milliseconds):
/// DataFusion's result forgets the precision, ClickHouse's keeps the
/// moment's type, so the result is converted back to it.
fn keep_precision(
    expr: Expr,
    schema: &DFSchema,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<Transformed<Expr>> {
    let Some((left, right, _)) = additive_operands(&expr) else {
        return Ok(Transformed::no(expr));
    };
    let mut precision = None;
    let mut interval = false;
    for side in [left, right] {
        let (_, field) = side.to_field(schema)?;
        precision = precision.or(types::declared_precision(&field));
        interval |= matches!(field.data_type(), DataType::Interval(_));
    }
    match precision {
        Some(precision) if interval => Ok(Transformed::yes(convert(
            "toDateTime64",
            vec![expr, lit(i64::from(precision))],
        ))),
        _ => Ok(Transformed::no(expr)),
    }
}

/// The operands of `a + b` or `a - b`, written as operators or as calls of
/// ClickHouse's `plus` and `minus`, and whether it adds.
fn additive_operands(expr: &Expr) -> Option<(&Expr, &Expr, bool)> {
    match expr {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: op @ (Operator::Plus | Operator::Minus),
            right,
        }) => Some((left, right, *op == Operator::Plus)),
        Expr::ScalarFunction(ScalarFunction { func, args })
            if args.len() == 2 && matches!(func.name(), "plus" | "minus") =>
        {
            Some((&args[0], &args[1], func.name() == "plus"))
        }
        _ => None,
    }
}
