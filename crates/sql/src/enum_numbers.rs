//! Where ClickHouse uses an enum's numbers and Strata, which holds an enum's
//! values as their names ([`strata_common::types::EnumType`]), must ask for
//! them through `_enumNumber`:
//! - a sort key that is an enum orders by number;
//! - an enum compared with a number (`e = 2`, `e IN (1, 3)`) compares its
//!   number;
//! - an enum ordered against one of its names (`e < 'b'`) or another enum
//!   compares numbers;
//! - `min` and `max` of an enum take the name of the least or greatest
//!   number (as `argMin(e, number)`).
//!
//! Equality with a name needs nothing: names are what the column holds.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::{InList, ScalarFunction, Sort as SortExpr};
use datafusion::logical_expr::{
    Aggregate, AggregateUDF, BinaryExpr, Expr, ExprSchemable, LogicalPlan, Operator, ScalarUDF,
    Sort, Window, WindowFunctionDefinition, lit,
};
use strata_common::types::{EnumType, enum_type};
use strata_functions::aggregate::arg_min_max::ArgMinMax;

use crate::plan_rewrite::{is_comparison, unalias};

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

/// `node` with `min(e)` and `max(e)` of enums, as aggregates or over
/// windows, as `argMin(e, _enumNumber(e))` and `argMax`, under their own
/// names.
pub fn extremes_by_number(
    node: LogicalPlan,
    enum_number: &Arc<ScalarUDF>,
) -> Result<Transformed<LogicalPlan>> {
    let (exprs, schema) = match &node {
        LogicalPlan::Aggregate(aggregate) => (&aggregate.aggr_expr, aggregate.input.schema()),
        LogicalPlan::Window(window) => (&window.window_expr, window.input.schema()),
        _ => return Ok(Transformed::no(node)),
    };
    let mut changed = false;
    let mut rewritten = Vec::with_capacity(exprs.len());
    for expr in exprs {
        let by_number = match unalias(expr) {
            Expr::AggregateFunction(call) => {
                by_number(call.func.name(), &call.params.args, schema, enum_number).map(
                    |(func, args)| {
                        let mut call = call.clone();
                        (call.func, call.params.args) = (func, args);
                        Expr::AggregateFunction(call)
                    },
                )
            }
            Expr::WindowFunction(call) => {
                let WindowFunctionDefinition::AggregateUDF(func) = &call.fun else {
                    rewritten.push(expr.clone());
                    continue;
                };
                by_number(func.name(), &call.params.args, schema, enum_number).map(
                    |(func, args)| {
                        let mut call = call.as_ref().clone();
                        call.fun = WindowFunctionDefinition::AggregateUDF(func);
                        call.params.args = args;
                        Expr::WindowFunction(Box::new(call))
                    },
                )
            }
            _ => None,
        };
        match by_number {
            Some(call) => {
                rewritten.push(call.alias(expr.schema_name().to_string()));
                changed = true;
            }
            None => rewritten.push(expr.clone()),
        }
    }
    if !changed {
        return Ok(Transformed::no(node));
    }
    Ok(Transformed::yes(match node {
        LogicalPlan::Aggregate(aggregate) => LogicalPlan::Aggregate(Aggregate::try_new(
            aggregate.input,
            aggregate.group_expr,
            rewritten,
        )?),
        LogicalPlan::Window(window) => {
            LogicalPlan::Window(Window::try_new(rewritten, window.input)?)
        }
        _ => unreachable!("matched above"),
    }))
}

/// `argMin` or `argMax` and its arguments for `min` or `max` of one enum.
fn by_number(
    function: &str,
    args: &[Expr],
    schema: &DFSchema,
    enum_number: &Arc<ScalarUDF>,
) -> Option<(Arc<AggregateUDF>, Vec<Expr>)> {
    let max = match function {
        "min" => false,
        "max" => true,
        _ => return None,
    };
    let [value] = args else {
        return None;
    };
    enum_of(value, schema)?;
    let arg_extreme = Arc::new(AggregateUDF::new_from_impl(ArgMinMax::new(max)));
    Some((
        arg_extreme,
        vec![value.clone(), number(enum_number, value.clone())],
    ))
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
