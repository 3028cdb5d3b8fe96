//! A subquery's ORDER BY orders what an outer aggregate reads, as in
//! ClickHouse: `groupArray`, `any`, `anyLast`, `groupConcat`, `argMax` over
//! `(SELECT ... ORDER BY k)` see the rows in k's order. DataFusion drops a
//! sort its parent does not require, so those calls take the sort as their
//! own ORDER BY, which makes the aggregate require it; so does `row_number()`
//! without an ORDER BY of its own (LIMIT BY's numbering).

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, Result};
use datafusion::logical_expr::expr::Sort as SortExpr;
use datafusion::logical_expr::{
    Aggregate, Expr, Filter, LogicalPlan, Projection, SubqueryAlias, Window,
};

use crate::plan_rewrite::unalias;

/// Aggregates whose result depends on the order of their input rows.
const ORDER_SENSITIVE: &[&str] = &[
    "groupArray",
    "groupArrayLast",
    "groupConcat",
    "argMin",
    "argMax",
    "first_value",
    "last_value",
];

/// `node` with its order-sensitive calls ordered by the sort of the
/// subquery it reads, when there is one.
pub fn order_by_subquery_sort(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Aggregate(aggregate) = &node else {
        return Ok(Transformed::no(node));
    };
    let sensitive = |expr: &Expr| match unalias(expr) {
        Expr::AggregateFunction(call) => {
            ORDER_SENSITIVE.contains(&call.func.name())
                && call.params.order_by.is_empty()
                && !call.params.distinct
        }
        _ => false,
    };
    if !aggregate.aggr_expr.iter().any(sensitive) {
        return Ok(Transformed::no(node));
    }
    let Some((input, order)) = ordered_input(&aggregate.input)? else {
        return Ok(Transformed::no(node));
    };
    let aggr_expr = ordered_calls(&aggregate.aggr_expr, sensitive, &order);
    let LogicalPlan::Aggregate(aggregate) = node else {
        unreachable!("matched above");
    };
    let rebuilt = Aggregate::try_new(Arc::new(input), aggregate.group_expr, aggr_expr)?;
    Ok(Transformed::yes(LogicalPlan::Aggregate(rebuilt)))
}

/// `row_number()` without an ORDER BY over a sorted subquery numbers its rows
/// in the subquery's order, as they come in ClickHouse: `LIMIT n BY k` over
/// `(SELECT ... ORDER BY t DESC)` keeps each key's latest rows.
pub fn number_rows_by_subquery_sort(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Window(window) = &node else {
        return Ok(Transformed::no(node));
    };
    let unordered = |expr: &Expr| match unalias(expr) {
        Expr::WindowFunction(call) => {
            call.fun.name() == "row_number" && call.params.order_by.is_empty()
        }
        _ => false,
    };
    if !window.window_expr.iter().any(unordered) {
        return Ok(Transformed::no(node));
    }
    let Some((input, order)) = ordered_input(&window.input)? else {
        return Ok(Transformed::no(node));
    };
    let window_expr = ordered_calls(&window.window_expr, unordered, &order);
    let rebuilt = Window::try_new(window_expr, Arc::new(input))?;
    Ok(Transformed::yes(LogicalPlan::Window(rebuilt)))
}

/// `exprs` with each aggregate or window call that `picked` takes ordered
/// by `order`, under its name as it was.
fn ordered_calls(exprs: &[Expr], picked: impl Fn(&Expr) -> bool, order: &[SortExpr]) -> Vec<Expr> {
    exprs
        .iter()
        .map(|expr| {
            if !picked(expr) {
                return expr.clone();
            }
            let ordered = match unalias(expr).clone() {
                Expr::AggregateFunction(mut call) => {
                    call.params.order_by = order.to_vec();
                    Expr::AggregateFunction(call)
                }
                Expr::WindowFunction(mut call) => {
                    call.params.order_by = order.to_vec();
                    Expr::WindowFunction(call)
                }
                other => other,
            };
            ordered.alias(expr.schema_name().to_string())
        })
        .collect()
}

/// The aggregate's input with its sort carried up to it, and the sort as
/// columns of that input: a sort without a limit under subquery aliases,
/// filters and projections. A sort key a projection drops (`SELECT toString(n)
/// AS s ... ORDER BY n`) is kept as one more, hidden output column.
fn ordered_input(plan: &LogicalPlan) -> Result<Option<(LogicalPlan, Vec<SortExpr>)>> {
    let (input, keys) = match plan {
        LogicalPlan::Sort(sort) if sort.fetch.is_none() => {
            return Ok(Some((plan.clone(), sort.expr.clone())));
        }
        LogicalPlan::SubqueryAlias(alias) => {
            let Some((input, keys)) = ordered_input(&alias.input)? else {
                return Ok(None);
            };
            let rebuilt = SubqueryAlias::try_new(Arc::new(input), alias.alias.clone())?;
            let keys = keys
                .into_iter()
                .map(|key| requalify(key, &rebuilt.schema))
                .collect::<Option<_>>();
            return Ok(keys.map(|keys| (LogicalPlan::SubqueryAlias(rebuilt), keys)));
        }
        LogicalPlan::Filter(filter) => {
            let Some((input, keys)) = ordered_input(&filter.input)? else {
                return Ok(None);
            };
            let rebuilt = Filter::try_new(filter.predicate.clone(), Arc::new(input))?;
            return Ok(Some((LogicalPlan::Filter(rebuilt), keys)));
        }
        LogicalPlan::Projection(projection) => match ordered_input(&projection.input)? {
            Some(ordered) => ordered,
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let LogicalPlan::Projection(projection) = plan else {
        unreachable!("the other nodes returned above");
    };
    let mut exprs = projection.expr.clone();
    let names: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let kept = exprs.iter().find(|e| *unalias(e) == key.expr);
            match kept {
                Some(expr) => expr.schema_name().to_string(),
                None => {
                    let name = format!("__subquery_order_{i}");
                    exprs.push(key.expr.clone().alias(&name));
                    name
                }
            }
        })
        .collect();
    let rebuilt = Projection::try_new(exprs, Arc::new(input))?;
    let keys = keys
        .into_iter()
        .zip(names)
        .map(|(key, name)| {
            let column = column_named(&rebuilt.schema, &name)?;
            Some(SortExpr::new(
                Expr::Column(column),
                key.asc,
                key.nulls_first,
            ))
        })
        .collect::<Option<_>>();
    Ok(keys.map(|keys| (LogicalPlan::Projection(rebuilt), keys)))
}

/// `key` with its columns named as `schema` (a subquery alias's) qualifies
/// them; an enum's key is an expression (`_enumNumber(e)`).
fn requalify(key: SortExpr, schema: &DFSchema) -> Option<SortExpr> {
    let mut missing = false;
    let expr = key
        .expr
        .transform(|e| match e {
            Expr::Column(column) => match column_named(schema, &column.name) {
                Some(named) => Ok(Transformed::yes(Expr::Column(named))),
                None => {
                    missing = true;
                    Ok(Transformed::no(Expr::Column(column)))
                }
            },
            e => Ok(Transformed::no(e)),
        })
        .ok()?
        .data;
    (!missing).then(|| SortExpr::new(expr, key.asc, key.nulls_first))
}

fn column_named(schema: &DFSchema, name: &str) -> Option<Column> {
    let (qualifier, field) = schema.qualified_field_with_unqualified_name(name).ok()?;
    Some(Column::from((qualifier, field)))
}
