//! ClickHouse query clauses DataFusion does not plan, rewritten in the AST:
//!
//! - `LIMIT n [OFFSET m] BY keys`: the first n rows (after m) of each key,
//!   in the query's order, become a `row_number()` window over the query,
//!   filtered and ordered again outside it;
//! - `GROUP BY ... WITH ROLLUP | CUBE | TOTALS` are refused: DataFusion
//!   reads the modifiers and ignores them, which would answer without the
//!   extra rows the user asked for.

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, Ident, LimitClause, OrderByExpr, OrderByKind, Query, Select, SelectItem,
    SetExpr, Statement, TableFactor, WindowSpec, WindowType,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

const ROW: &str = "__limit_by_row";
const ORDER: &str = "__limit_by_order_";

/// Rewrites `query`'s LIMIT BY, if it has one.
pub fn rewrite_limit_by(query: &mut Query) -> Result<()> {
    let Some(LimitClause::LimitOffset {
        limit,
        offset,
        limit_by,
    }) = &query.limit_clause
    else {
        return Ok(());
    };
    if limit_by.is_empty() {
        return Ok(());
    }
    let keys = limit_by.clone();
    let per_key = limit
        .clone()
        .ok_or_else(|| not_supported("LIMIT BY without a row count"))?;
    let skip = offset
        .as_ref()
        .map_or_else(|| "0".to_string(), |o| o.value.to_string());
    let order: Vec<OrderByExpr> = match query.order_by.take().map(|o| o.kind) {
        None => Vec::new(),
        Some(OrderByKind::Expressions(exprs)) => exprs,
        Some(OrderByKind::All(_)) => return Err(not_supported("ORDER BY ALL with LIMIT BY")),
    };
    query.limit_clause = None;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(not_supported("LIMIT BY after UNION, EXCEPT or INTERSECT"));
    };
    if select.distinct.is_some() {
        return Err(not_supported("LIMIT BY with DISTINCT"));
    }
    number_rows(select, keys, &order);
    let mut outer = wrapper(&order, &skip, &per_key.to_string())?;
    outer.with = query.with.take();
    let inner = std::mem::replace(query, outer);
    place_inner(query, inner);
    Ok(())
}

/// Adds the row's number within its key, and the ordering values, to the
/// select list.
fn number_rows(select: &mut Select, keys: Vec<Expr>, order: &[OrderByExpr]) {
    let mut row_number = call("row_number", vec![]);
    if let Expr::Function(f) = &mut row_number {
        f.over = Some(WindowType::WindowSpec(WindowSpec {
            window_name: None,
            partition_by: keys,
            order_by: order.to_vec(),
            window_frame: None,
        }));
    }
    select.projection.push(SelectItem::ExprWithAlias {
        expr: row_number,
        alias: Ident::new(ROW),
    });
    for (i, o) in order.iter().enumerate() {
        select.projection.push(SelectItem::ExprWithAlias {
            expr: o.expr.clone(),
            alias: Ident::new(format!("{ORDER}{i}")),
        });
    }
}

/// The outer query, over a placeholder subquery: our own names only, so
/// its text parses back as written.
fn wrapper(order: &[OrderByExpr], skip: &str, per_key: &str) -> Result<Query> {
    let hidden: Vec<String> = std::iter::once(ROW.to_string())
        .chain((0..order.len()).map(|i| format!("{ORDER}{i}")))
        .collect();
    let order_by: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{ORDER}{i}{}", o.options))
        .collect();
    let mut text = format!(
        "SELECT * EXCEPT ({}) FROM (SELECT 1) AS __limit_by \
         WHERE {ROW} > ({skip}) AND {ROW} <= ({skip}) + ({per_key})",
        hidden.join(", "),
    );
    if !order_by.is_empty() {
        text.push_str(&format!(" ORDER BY {}", order_by.join(", ")));
    }
    match crate::parser::parse_statement(&text)?.statement {
        Statement::Query(query) => Ok(*query),
        _ => unreachable!("the wrapper is a query"),
    }
}

fn place_inner(outer: &mut Query, inner: Query) {
    if let SetExpr::Select(select) = outer.body.as_mut()
        && let Some(from) = select.from.first_mut()
        && let TableFactor::Derived { subquery, .. } = &mut from.relation
    {
        *subquery = Box::new(inner);
    }
}

/// Refuses `WITH ROLLUP | CUBE | TOTALS` on `select`'s GROUP BY.
pub fn check_group_by_modifiers(select: &Select) -> Result<()> {
    let GroupByExpr::Expressions(_, modifiers) = &select.group_by else {
        return Ok(());
    };
    match modifiers.first() {
        None => Ok(()),
        Some(modifier) => Err(not_supported(&format!("GROUP BY ... {modifier}"))),
    }
}

fn not_supported(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!("{what} is not supported yet"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(sql: &str) -> Select {
        let Statement::Query(query) = crate::parser::parse_statement(sql).unwrap().statement else {
            panic!("a query");
        };
        match *query.body {
            SetExpr::Select(select) => *select,
            _ => panic!("a select"),
        }
    }

    #[test]
    fn group_by_modifiers_are_refused_not_dropped() {
        for modifier in ["WITH TOTALS", "WITH ROLLUP", "WITH CUBE"] {
            let sql = format!("SELECT a, count() FROM t GROUP BY a {modifier}");
            let err = check_group_by_modifiers(&select(&sql)).unwrap_err();
            assert_eq!(err.code, ErrorCode::NOT_IMPLEMENTED, "{modifier}");
        }
        assert!(check_group_by_modifiers(&select("SELECT a FROM t GROUP BY a")).is_ok());
    }
}
