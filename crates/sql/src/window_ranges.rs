//! A RANGE frame's numeric offset counts the ORDER BY key's own unit, as in
//! ClickHouse: days over a Date, seconds over a DateTime
//! (`RANGE BETWEEN 1 PRECEDING AND CURRENT ROW`). DataFusion would read the
//! bare number as an interval text, which means months.

use datafusion::arrow::datatypes::{DataType, IntervalMonthDayNano, TimeUnit};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::{
    Expr, ExprSchemable, LogicalPlan, WindowFrame, WindowFrameBound, WindowFrameUnits,
};

const NANOSECONDS_PER_SECOND: i64 = 1_000_000_000;

/// `node`'s windows with their RANGE offsets over dates and times made intervals.
pub fn offsets_in_key_units(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Window(_) = &node else {
        return Ok(Transformed::no(node));
    };
    let input = std::sync::Arc::clone(node.inputs()[0].schema());
    node.map_expressions(|expr| {
        // The window's output column keeps the name it was planned with.
        let name = expr.schema_name().to_string();
        let rewritten = expr.transform_up(|e| match e {
            Expr::WindowFunction(mut function) => {
                let frame = &mut function.params.window_frame;
                let order = &function.params.order_by;
                let unit = match order.as_slice() {
                    [key] if frame.units == WindowFrameUnits::Range => key_unit(&key.expr, &input)?,
                    _ => None,
                };
                match unit {
                    Some(unit) if retype(frame, unit) => {
                        Ok(Transformed::yes(Expr::WindowFunction(function)))
                    }
                    _ => Ok(Transformed::no(Expr::WindowFunction(function))),
                }
            }
            e => Ok(Transformed::no(e)),
        })?;
        rewritten.map_data(|e| e.alias_if_changed(name))
    })
}

/// One step of the ORDER BY key, as an interval, for Date and DateTime keys.
fn key_unit(key: &Expr, input: &DFSchema) -> Result<Option<IntervalMonthDayNano>> {
    Ok(match key.get_type(input)? {
        DataType::Date32 | DataType::Date64 => Some(IntervalMonthDayNano::new(0, 1, 0)),
        DataType::Timestamp(TimeUnit::Second, _) => {
            Some(IntervalMonthDayNano::new(0, 0, NANOSECONDS_PER_SECOND))
        }
        _ => None,
    })
}

/// Makes `frame`'s numeric offsets multiples of `unit`; whether any was.
fn retype(frame: &mut WindowFrame, unit: IntervalMonthDayNano) -> bool {
    let start = retype_bound(&mut frame.start_bound, unit);
    let end = retype_bound(&mut frame.end_bound, unit);
    start || end
}

fn retype_bound(bound: &mut WindowFrameBound, unit: IntervalMonthDayNano) -> bool {
    let (WindowFrameBound::Preceding(value) | WindowFrameBound::Following(value)) = bound else {
        return false;
    };
    let ScalarValue::Utf8(Some(text)) = value else {
        return false;
    };
    let Ok(count) = text.trim().parse::<i32>() else {
        return false;
    };
    let interval =
        IntervalMonthDayNano::new(0, unit.days * count, unit.nanoseconds * i64::from(count));
    *value = ScalarValue::IntervalMonthDayNano(Some(interval));
    true
}
