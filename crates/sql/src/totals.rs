//! `GROUP BY ... WITH TOTALS`: the result, then one more row computed over
//! every row the groups took, with each key at its type's default, as
//! ClickHouse writes it after the rows (a blank line in TSV, `"totals"` in
//! JSON, `Totals:` in Pretty).
//!
//! The totals row is its own query: the same SELECT without GROUP BY,
//! ORDER BY and LIMIT, where each key expression in the select list reads
//! `defaultValueOfArgumentType(any(key))`. Totals over the groups HAVING
//! keeps (ClickHouse's `totals_mode`) are not computed yet: with HAVING,
//! WITH TOTALS is refused.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, GroupByWithModifier, Query, SelectItem, SetExpr, Value, VisitMut, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// If `query` groups WITH TOTALS, takes the modifier off it and returns the
/// query of its totals row.
pub fn take_totals(query: &mut Query) -> Result<Option<Query>> {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(None);
    };
    let GroupByExpr::Expressions(keys, modifiers) = &mut select.group_by else {
        return Ok(None);
    };
    let Some(at) = modifiers
        .iter()
        .position(|m| matches!(m, GroupByWithModifier::Totals))
    else {
        return Ok(None);
    };
    if modifiers.len() > 1 {
        return Err(not_supported("WITH TOTALS together with ROLLUP or CUBE"));
    }
    if select.having.is_some() {
        return Err(not_supported("WITH TOTALS together with HAVING"));
    }
    modifiers.remove(at);
    let key_texts = key_expressions(keys, &select.projection);
    let mut totals = query.clone();
    totals.order_by = None;
    totals.limit_clause = None;
    totals.fetch = None;
    let SetExpr::Select(totals_select) = totals.body.as_mut() else {
        unreachable!("cloned from a select");
    };
    totals_select.group_by = GroupByExpr::Expressions(vec![], vec![]);
    let mut defaults = KeyDefaults { keys: key_texts };
    for item in &mut totals_select.projection {
        let _ = item.visit(&mut defaults);
    }
    Ok(Some(totals))
}

/// The keys as text. A key naming a select item by its alias or position
/// (`GROUP BY 1`) stands for that item's expression: the item is replaced,
/// and the alias, wherever else it is used, then reads the default.
fn key_expressions(keys: &[Expr], projection: &[SelectItem]) -> Vec<String> {
    let mut texts = Vec::new();
    for key in keys {
        let named = projection.iter().enumerate().find_map(|(i, item)| {
            let SelectItem::ExprWithAlias { expr, alias } = item else {
                return match (item, key) {
                    (SelectItem::UnnamedExpr(expr), Expr::Value(v)) if is_position(&v.value, i) => {
                        Some(expr.to_string())
                    }
                    _ => None,
                };
            };
            let by_alias = matches!(key, Expr::Identifier(id) if id.value == alias.value);
            let by_position = matches!(key, Expr::Value(v) if is_position(&v.value, i));
            (by_alias || by_position).then(|| expr.to_string())
        });
        texts.push(named.unwrap_or_else(|| key.to_string()));
    }
    texts
}

fn is_position(value: &Value, index: usize) -> bool {
    matches!(value, Value::Number(n, _) if n.parse::<usize>() == Ok(index + 1))
}

/// Puts `defaultValueOfArgumentType(any(key))` in place of each key.
struct KeyDefaults {
    keys: Vec<String>,
}

impl VisitorMut for KeyDefaults {
    type Break = ();

    /// After the children, so the new call is not visited again.
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.keys.contains(&expr.to_string()) {
            let any = call("any", vec![expr.clone()]);
            *expr = call("defaultValueOfArgumentType", vec![any]);
        }
        ControlFlow::Continue(())
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
    use datafusion::sql::sqlparser::ast::Statement;

    use super::*;

    fn totals_of(sql: &str) -> (String, String) {
        let Statement::Query(mut query) = crate::parser::parse_statement(sql).unwrap().statement
        else {
            panic!("a query");
        };
        let totals = take_totals(&mut query).unwrap().expect("WITH TOTALS");
        (query.to_string(), totals.to_string())
    }

    #[test]
    fn keys_read_their_defaults_in_the_totals_query() {
        let (main, totals) = totals_of(
            "SELECT number % 2 AS k, k + 1, count() FROM t GROUP BY k WITH TOTALS ORDER BY k LIMIT 1",
        );
        assert_eq!(
            main,
            "SELECT number % 2 AS k, k + 1, count() FROM t GROUP BY k ORDER BY k LIMIT 1"
        );
        assert_eq!(
            totals,
            "SELECT \"defaultValueOfArgumentType\"(any(number % 2)) AS k, k + 1, count() FROM t"
        );
    }

    #[test]
    fn having_is_refused() {
        let Statement::Query(mut query) = crate::parser::parse_statement(
            "SELECT a, count() FROM t GROUP BY a WITH TOTALS HAVING count() > 1",
        )
        .unwrap()
        .statement
        else {
            panic!("a query");
        };
        assert_eq!(
            take_totals(&mut query).unwrap_err().code,
            ErrorCode::NOT_IMPLEMENTED
        );
    }
}
