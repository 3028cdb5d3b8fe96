//! A subquery's ORDER BY orders what an outer aggregate reads, as in
//! ClickHouse: `groupArray`, `any`, `anyLast`, `groupConcat` over
//! `(SELECT ... ORDER BY k)` see the rows in k's order. DataFusion drops a
//! sort its parent does not require, so those calls take the sort as their
//! own ORDER BY, which makes the aggregate require it.

use datafusion::common::tree_node::Transformed;
use datafusion::common::{Column, Result};
use datafusion::logical_expr::expr::Sort as SortExpr;
use datafusion::logical_expr::{Aggregate, Expr, LogicalPlan};

use crate::plan_rewrite::unalias;

/// Aggregates whose result depends on the order of their input rows.
const ORDER_SENSITIVE: &[&str] = &[
    "groupArray",
    "groupArrayLast",
    "groupConcat",
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
    let Some(order) = input_order(aggregate) else {
        return Ok(Transformed::no(node));
    };
    let aggr_expr = aggregate
        .aggr_expr
        .iter()
        .map(|expr| {
            let (Expr::AggregateFunction(call), true) = (unalias(expr), sensitive(expr)) else {
                return expr.clone();
            };
            let mut call = call.clone();
            call.params.order_by = order.clone();
            Expr::AggregateFunction(call).alias(expr.schema_name().to_string())
        })
        .collect();
    let LogicalPlan::Aggregate(aggregate) = node else {
        unreachable!("matched above");
    };
    let rebuilt = Aggregate::try_new(aggregate.input, aggregate.group_expr, aggr_expr)?;
    Ok(Transformed::yes(LogicalPlan::Aggregate(rebuilt)))
}

/// The order of the aggregate's input, as columns of it: a sort without a
/// limit under subquery aliases and projections that keep its columns.
fn input_order(aggregate: &Aggregate) -> Option<Vec<SortExpr>> {
    let mut projections = Vec::new();
    let mut plan = aggregate.input.as_ref();
    let sort = loop {
        match plan {
            LogicalPlan::SubqueryAlias(alias) => plan = alias.input.as_ref(),
            LogicalPlan::Projection(projection) => {
                projections.push(projection);
                plan = projection.input.as_ref();
            }
            LogicalPlan::Sort(sort) if sort.fetch.is_none() => break sort,
            _ => return None,
        }
    };
    let outer = aggregate.input.schema();
    sort.expr
        .iter()
        .map(|key| {
            let Expr::Column(column) = &key.expr else {
                return None;
            };
            // The column's name in each projection above the sort.
            let mut name = column.name.clone();
            let mut inner = column.clone();
            for projection in projections.iter().rev() {
                let expr = projection
                    .expr
                    .iter()
                    .find(|e| matches!(unalias(e), Expr::Column(c) if *c == inner))?;
                name = expr.schema_name().to_string();
                inner = Column::new(
                    projection
                        .schema
                        .qualified_field_with_unqualified_name(&name)
                        .ok()?
                        .0
                        .cloned(),
                    &name,
                );
            }
            let (qualifier, field) = outer.qualified_field_with_unqualified_name(&name).ok()?;
            Some(SortExpr::new(
                Expr::Column(Column::from((qualifier, field))),
                key.asc,
                key.nulls_first,
            ))
        })
        .collect()
}
