//! A DateTime compares with a number as seconds since the epoch, as in
//! ClickHouse: `toDateTime('2025-09-03 06:58:00', 'UTC') = 1756882680` is
//! true. DataFusion finds no common type for a timestamp and a number.
//!
//! Integers become DateTimes in the moment's zone (a whole second, exact at
//! any precision); where a float takes part, every moment becomes its seconds
//! as a Float64, fraction included.

use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::{Between, InList};
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{BinaryExpr, Cast, Expr, ExprSchemable, Operator};
use strata_functions::dates::ticks_per_second;

/// Plans a comparison of a DateTime with a number: DataFusion refuses the
/// pair while planning, before any rewrite of the plan sees it.
#[derive(Debug)]
pub struct MomentNumbers;

impl ExprPlanner for MomentNumbers {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        let RawBinaryExpr { op, left, right } = expr;
        if !crate::ast_rewrite::is_comparison(&op) {
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        }
        let mut operands = match seconds(vec![left, right], schema) {
            Ok(operands) | Err(operands) => operands,
        };
        let right = operands.pop().expect("two operands");
        let left = operands.pop().expect("two operands");
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}

/// `expr` with its DateTime and number operands made comparable, where
/// `BETWEEN` or `IN` mixes the two (their types are checked after planning).
pub fn compare_seconds(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    match expr {
        Expr::Between(between) => {
            let operands = vec![*between.expr, *between.low, *between.high];
            let (mut operands, changed) = match seconds(operands, schema) {
                Ok(operands) => (operands, true),
                Err(operands) => (operands, false),
            };
            let high = Box::new(operands.pop().expect("three operands"));
            let low = Box::new(operands.pop().expect("three operands"));
            let value = Box::new(operands.pop().expect("three operands"));
            let between = Expr::Between(Between::new(value, between.negated, low, high));
            if changed {
                Transformed::yes(between)
            } else {
                Transformed::no(between)
            }
        }
        Expr::InList(in_list) => {
            let mut operands = vec![*in_list.expr];
            operands.extend(in_list.list);
            let (mut operands, changed) = match seconds(operands, schema) {
                Ok(operands) => (operands, true),
                Err(operands) => (operands, false),
            };
            let value = Box::new(operands.remove(0));
            let in_list = Expr::InList(InList::new(value, operands, in_list.negated));
            if changed {
                Transformed::yes(in_list)
            } else {
                Transformed::no(in_list)
            }
        }
        other => Transformed::no(other),
    }
}

/// The operands made comparable (Ok), or as they were (Err) when they do not
/// mix DateTimes with numbers alone.
fn seconds(operands: Vec<Expr>, schema: &DFSchema) -> std::result::Result<Vec<Expr>, Vec<Expr>> {
    // An operand whose type is not known yet (an outer column) is left to
    // DataFusion.
    let Ok(types) = operands
        .iter()
        .map(|e| e.get_type(schema))
        .collect::<Result<Vec<_>>>()
    else {
        return Err(operands);
    };
    let zone = types.iter().find_map(|t| match t {
        DataType::Timestamp(_, zone) => Some(zone.clone()),
        _ => None,
    });
    let numbers = types.iter().filter(|t| t.is_numeric()).count();
    let moments = types
        .iter()
        .filter(|t| matches!(t, DataType::Timestamp(..)))
        .count();
    let others = types
        .iter()
        .filter(|t| !t.is_numeric() && !matches!(t, DataType::Timestamp(..) | DataType::Null))
        .count();
    let (Some(zone), true, 0) = (zone, numbers > 0, others) else {
        return Err(operands);
    };
    debug_assert!(moments > 0);
    let fractional = types.iter().any(|t| t.is_numeric() && !t.is_integer());
    let cast = |e: Expr, t: DataType| Expr::Cast(Cast::new(Box::new(e), t));
    let rewritten = operands.into_iter().zip(&types).map(|(e, t)| match t {
        DataType::Timestamp(unit, _) if fractional => {
            let ticks = cast(cast(e, DataType::Int64), DataType::Float64);
            let per_second = ScalarValue::Float64(Some(ticks_per_second(*unit) as f64));
            Expr::BinaryExpr(BinaryExpr::new(
                Box::new(ticks),
                Operator::Divide,
                Box::new(Expr::Literal(per_second, None)),
            ))
        }
        t if t.is_integer() && !fractional => cast(
            cast(e, DataType::Int64),
            DataType::Timestamp(TimeUnit::Second, zone.clone()),
        ),
        t if t.is_numeric() => cast(e, DataType::Float64),
        _ => e,
    });
    Ok(rewritten.collect())
}
