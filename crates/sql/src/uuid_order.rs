//! ClickHouse orders UUIDs by their low 64 bits first, then their high
//! ones (`10000000-0000-0000-0000-000000000000` sorts before
//! `00000000-0000-0000-0000-000000000001`), where their bytes in text order
//! would sort the other way. Where order matters, a UUID is read through
//! `_uuidOrder`, its bytes with the halves swapped:
//! - a sort key that is a UUID;
//! - a UUID ordered (`<`, `>=`, ...) against another UUID.
//!
//! Equality needs nothing.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::{ScalarFunction, Sort as SortExpr};
use datafusion::logical_expr::{
    BinaryExpr, Expr, ExprSchemable, LogicalPlan, Operator, ScalarUDF, Sort,
};
use strata_common::types::is_uuid;

use crate::plan_rewrite::is_comparison;

/// `node` with its UUID sort keys in ClickHouse's order, if it is a sort.
pub fn order_by_halves(
    node: LogicalPlan,
    uuid_order: &Arc<ScalarUDF>,
) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Sort(sort) = node else {
        return Ok(Transformed::no(node));
    };
    let schema = sort.input.schema();
    if !sort.expr.iter().any(|key| is_uuid_expr(&key.expr, schema)) {
        return Ok(Transformed::no(LogicalPlan::Sort(sort)));
    }
    let keys = sort
        .expr
        .into_iter()
        .map(|key| match is_uuid_expr(&key.expr, schema) {
            true => SortExpr {
                expr: ordered(uuid_order, key.expr),
                ..key
            },
            false => key,
        })
        .collect();
    Ok(Transformed::yes(LogicalPlan::Sort(Sort {
        expr: keys,
        ..sort
    })))
}

/// `expr` ordering two UUIDs in ClickHouse's order.
pub fn compare_halves(
    expr: Expr,
    schema: &DFSchema,
    uuid_order: &Arc<ScalarUDF>,
) -> Transformed<Expr> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if is_comparison(op)
                && !matches!(op, Operator::Eq | Operator::NotEq)
                && is_uuid_expr(&left, schema)
                && is_uuid_expr(&right, schema) =>
        {
            Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                Box::new(ordered(uuid_order, *left)),
                op,
                Box::new(ordered(uuid_order, *right)),
            )))
        }
        other => Transformed::no(other),
    }
}

fn ordered(uuid_order: &Arc<ScalarUDF>, expr: Expr) -> Expr {
    Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(uuid_order), vec![expr]))
}

/// Whether `expr`'s values are UUIDs. Typing may fail for calls other
/// rewrites still have to mend; those are not UUIDs.
fn is_uuid_expr(expr: &Expr, schema: &DFSchema) -> bool {
    expr.to_field(schema)
        .is_ok_and(|(_, field)| is_uuid(&field))
}
