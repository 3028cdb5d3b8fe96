//! `x NOT IN (subquery)` with ClickHouse's NULLs.
//!
//! ClickHouse leaves NULLs out of the set an `IN` builds, so
//! `3 NOT IN (SELECT b FROM v)` is true when `v` holds 1 and NULL. In SQL's
//! logic (DataFusion's null-aware anti join) a NULL in the set makes every
//! non-matching row unknown, and the query returns nothing. The subquery is
//! wrapped to drop its NULLs first. A NULL value is never in or out of a
//! ClickHouse set, an empty one included, so it is tested first.

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Query, SetExpr, Statement, TableFactor,
};
use strata_common::Result;

use crate::parser::parse_statement;

/// The set's column in the wrapper; the wrapped subquery takes its place.
const WRAPPER: &str =
    "SELECT __in_value FROM (SELECT 1) AS __in_set(__in_value) WHERE __in_value IS NOT NULL";

/// `expr` with its subquery's NULLs left out, for a one-column `NOT IN`.
pub fn without_nulls(expr: &Expr) -> Result<Option<Expr>> {
    let Expr::InSubquery {
        expr: value,
        subquery,
        negated: true,
    } = expr
    else {
        return Ok(None);
    };
    if matches!(value.as_ref(), Expr::Tuple(_)) || is_wrapper(subquery) {
        return Ok(None);
    }
    let Statement::Query(mut wrapper) = parse_statement(WRAPPER)?.statement else {
        unreachable!("the wrapper is a SELECT");
    };
    let SetExpr::Select(select) = wrapper.body.as_mut() else {
        unreachable!("the wrapper is a SELECT");
    };
    let TableFactor::Derived { subquery: set, .. } = &mut select.from[0].relation else {
        unreachable!("the wrapper reads a derived table");
    };
    *set = subquery.clone();
    let not_in = Expr::InSubquery {
        expr: value.clone(),
        subquery: wrapper,
        negated: true,
    };
    Ok(Some(Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(Expr::IsNotNull(value.clone())),
        op: BinaryOperator::And,
        right: Box::new(not_in),
    }))))
}

/// Whether `query` is already a wrapper, so a second visit leaves it.
fn is_wrapper(query: &Query) -> bool {
    matches!(query.body.as_ref(), SetExpr::Select(select)
        if matches!(&select.from.first().map(|t| &t.relation),
            Some(TableFactor::Derived { alias: Some(alias), .. }) if alias.name.value == "__in_set"))
}
