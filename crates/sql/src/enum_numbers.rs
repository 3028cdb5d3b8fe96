//! Where ClickHouse uses an enum's numbers and Strata, which holds an enum's
//! values as their names ([`strata_common::types::EnumType`]), must ask for
//! them through `_enumNumber`:
//! - a sort key that is an enum orders by number;
//! - an enum compared with a number (`e = 2`, `e IN (1, 3)`) compares its
//!   number;
//! - an enum ordered against one of its names (`e < 'b'`) or another enum
//!   compares numbers.
//!
//! Equality with a name needs nothing: names are what the column holds.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::{InList, ScalarFunction, Sort as SortExpr};
use datafusion::logical_expr::{
    BinaryExpr, Expr, ExprSchemable, LogicalPlan, Operator, ScalarUDF, Sort, lit,
};
use strata_common::types::{EnumType, enum_type};

use crate::plan_rewrite::is_comparison;

/// `node` with its enum sort keys ordered by number, if it is a sort.
pub fn order_by_number(
    node: LogicalPlan,
    enum_number: &Arc<ScalarUDF>,
) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Sort(sort) = node else {
        return Ok(Transformed::no(node));
    };
    let schema = sort.input.schema();
    let mut changed = false;
    let mut keys = Vec::with_capacity(sort.expr.len());
    for key in sort.expr {
        if enum_of(&key.expr, schema).is_none() {
            keys.push(key);
            continue;
        }
        changed = true;
        keys.push(SortExpr {
            expr: number(enum_number, key.expr),
            ..key
        });
    }
    let node = LogicalPlan::Sort(Sort { expr: keys, ..sort });
    Ok(match changed {
        true => Transformed::yes(node),
        false => Transformed::no(node),
    })
}

/// `expr` comparing an enum's numbers where ClickHouse does.
pub fn compare_numbers(
    expr: Expr,
    schema: &DFSchema,
    enum_number: &Arc<ScalarUDF>,
) -> Result<Transformed<Expr>> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) if is_comparison(op) => {
            let ordering = !matches!(op, Operator::Eq | Operator::NotEq);
            if ordering && enum_of(&left, schema).is_some() && enum_of(&right, schema).is_some() {
                return Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(number(enum_number, *left)),
                    op,
                    Box::new(number(enum_number, *right)),
                ))));
            }
            if let Some(enum_type) = enum_of(&left, schema)
                && let Some(other) = as_number(&right, &enum_type, op, schema)
            {
                let left = Box::new(number(enum_number, *left));
                return Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    left,
                    op,
                    Box::new(other),
                ))));
            }
            if let Some(enum_type) = enum_of(&right, schema)
                && let Some(other) = as_number(&left, &enum_type, op, schema)
            {
                let right = Box::new(number(enum_number, *right));
                return Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(other),
                    op,
                    right,
                ))));
            }
            Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr {
                left,
                op,
                right,
            })))
        }
        Expr::InList(InList {
            expr,
            list,
            negated,
        }) if enum_of(&expr, schema).is_some() && all_numbers(&list, schema) => {
            let expr = Box::new(number(enum_number, *expr));
            Ok(Transformed::yes(Expr::InList(InList::new(
                expr, list, negated,
            ))))
        }
        other => Ok(Transformed::no(other)),
    }
}

fn number(enum_number: &Arc<ScalarUDF>, expr: Expr) -> Expr {
    Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(enum_number), vec![expr]))
}

/// The enum type of `expr`'s values. Typing may fail here for calls other
/// rewrites still have to mend; those are not enums.
fn enum_of(expr: &Expr, schema: &DFSchema) -> Option<EnumType> {
    match expr {
        Expr::Literal(..) => None,
        _ => expr
            .to_field(schema)
            .ok()
            .and_then(|(_, field)| enum_type(&field)),
    }
}

/// What the enum is compared with by `op`, as a number, when the comparison
/// is of numbers: a number, or one of its names under an order comparison.
fn as_number(other: &Expr, enum_type: &EnumType, op: Operator, schema: &DFSchema) -> Option<Expr> {
    if other.get_type(schema).is_ok_and(|t| t.is_numeric()) {
        return Some(other.clone());
    }
    let ordering = !matches!(op, Operator::Eq | Operator::NotEq);
    match other {
        Expr::Literal(ScalarValue::Utf8(Some(name)), _) if ordering => {
            enum_type.number_of(name).map(lit)
        }
        _ => None,
    }
}

fn all_numbers(list: &[Expr], schema: &DFSchema) -> bool {
    let numeric = |item: &Expr| item.get_type(schema).is_ok_and(|t| t.is_numeric());
    !list.is_empty() && list.iter().all(numeric)
}
