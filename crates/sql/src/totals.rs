//! `GROUP BY ... WITH TOTALS`: the result, then one more row computed over
//! every row the groups took, with each key at its type's default, as
//! ClickHouse writes it after the rows (a blank line in TSV, `"totals"` in
//! JSON, `Totals:` in Pretty).
//!
//! The totals row is its own query: the same SELECT without GROUP BY,
//! ORDER BY and LIMIT, where each key expression in the select list reads
//! `any(defaultValueOfArgumentType(key))` (the default taken per row, where the
//! key's type still says what it is: an Enum's is its first name). With HAVING, the totals are over
//! the groups HAVING keeps (ClickHouse's default `totals_mode`,
//! `after_having_exclusive`): the totals query reads only rows whose keys
//! are among those the grouped query keeps.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, GroupByWithModifier, Ident, Query, SelectItem, SetExpr,
    Statement, Value, VisitMut, VisitorMut,
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
    modifiers.remove(at);
    // `WITH TOTALS` without GROUP BY (read as `GROUP BY ()`): one row over
    // every row, then the same row as the totals.
    if matches!(keys.as_slice(), [Expr::Tuple(elements)] if elements.is_empty()) {
        keys.clear();
    }
    // ClickHouse's own limits, kept so a query means the same in both.
    if keys.iter().any(|k| matches!(k, Expr::GroupingSets(_))) {
        return Err(not_implemented(
            "WITH TOTALS and GROUPING SETS are not supported together",
        ));
    }
    let rolls_up = !modifiers.is_empty() || keys.iter().any(is_rollup_or_cube);
    if rolls_up && select.having.is_some() {
        return Err(not_implemented(
            "WITH TOTALS and WITH ROLLUP or CUBE are not supported together in presence of HAVING",
        ));
    }
    let keys = key_expressions(&flat_keys(keys), &select.projection);
    let kept = match select.having.is_some() {
        true => Some(kept_groups(query, &keys)?),
        false => None,
    };
    let mut totals = unordered(query);
    let SetExpr::Select(totals_select) = totals.body.as_mut() else {
        unreachable!("cloned from a select");
    };
    totals_select.group_by = GroupByExpr::Expressions(vec![], vec![]);
    totals_select.having = None;
    if let Some(kept) = kept {
        totals_select.selection = Some(match totals_select.selection.take() {
            Some(filter) => Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(filter))),
                op: BinaryOperator::And,
                right: Box::new(kept),
            },
            None => kept,
        });
    }
    let mut defaults = KeyDefaults {
        keys: keys.iter().map(Expr::to_string).collect(),
    };
    for item in &mut totals_select.projection {
        let _ = item.visit(&mut defaults);
    }
    Ok(Some(totals))
}

/// `query` without ORDER BY, LIMIT and FETCH: the rows, not their order.
fn unordered(query: &Query) -> Query {
    let mut rows = query.clone();
    rows.order_by = None;
    rows.limit_clause = None;
    rows.fetch = None;
    rows
}

/// `(key1, key2, ...) IN (the keys of the groups `query` keeps)`; without
/// keys, whether `query` keeps its one row.
fn kept_groups(query: &Query, keys: &[Expr]) -> Result<Expr> {
    let mut grouped = unordered(query);
    if keys.is_empty() {
        return Ok(Expr::Exists {
            subquery: Box::new(grouped),
            negated: false,
        });
    }
    let SetExpr::Select(select) = grouped.body.as_mut() else {
        unreachable!("a select groups");
    };
    let names: Vec<String> = (0..keys.len())
        .map(|i| format!("__totals_key_{i}"))
        .collect();
    for (key, name) in keys.iter().zip(&names) {
        select.projection.push(SelectItem::ExprWithAlias {
            expr: key.clone(),
            alias: Ident::new(name),
        });
    }
    let sql = format!(
        "SELECT {} FROM ({grouped}) AS __kept_groups",
        names.join(", ")
    );
    let Statement::Query(subquery) = crate::parser::parse_statement(&sql)?.statement else {
        unreachable!("a SELECT parses as a query");
    };
    let tuple = match keys {
        [key] => key.clone(),
        _ => Expr::Tuple(keys.to_vec()),
    };
    Ok(Expr::InSubquery {
        expr: Box::new(tuple),
        subquery,
        negated: false,
    })
}

fn is_rollup_or_cube(key: &Expr) -> bool {
    matches!(key, Expr::Rollup(_) | Expr::Cube(_))
}

fn not_implemented(message: &str) -> StrataError {
    StrataError::new(ErrorCode::NOT_IMPLEMENTED, message)
}

/// Every expression the keys group by, ROLLUP and CUBE opened (ROLLUP's grand
/// total is the totals row, so the totals read each key's default).
fn flat_keys(keys: &[Expr]) -> Vec<Expr> {
    let mut flat: Vec<Expr> = Vec::new();
    for key in keys {
        let sets = match key {
            Expr::Rollup(sets) | Expr::Cube(sets) => sets.clone(),
            key => vec![vec![key.clone()]],
        };
        for expr in sets.into_iter().flatten() {
            if !flat.contains(&expr) {
                flat.push(expr);
            }
        }
    }
    flat
}

/// The keys. A key naming a select item by its alias or position
/// (`GROUP BY 1`) stands for that item's expression: the item is replaced,
/// and the alias, wherever else it is used, then reads the default.
fn key_expressions(keys: &[Expr], projection: &[SelectItem]) -> Vec<Expr> {
    let mut exprs = Vec::new();
    for key in keys {
        let named = projection.iter().enumerate().find_map(|(i, item)| {
            let SelectItem::ExprWithAlias { expr, alias } = item else {
                return match (item, key) {
                    (SelectItem::UnnamedExpr(expr), Expr::Value(v)) if is_position(&v.value, i) => {
                        Some(expr.clone())
                    }
                    _ => None,
                };
            };
            let by_alias = matches!(key, Expr::Identifier(id) if id.value == alias.value);
            let by_position = matches!(key, Expr::Value(v) if is_position(&v.value, i));
            (by_alias || by_position).then(|| expr.clone())
        });
        exprs.push(named.unwrap_or_else(|| key.clone()));
    }
    exprs
}

fn is_position(value: &Value, index: usize) -> bool {
    matches!(value, Value::Number(n, _) if n.parse::<usize>() == Ok(index + 1))
}

/// Puts `any(defaultValueOfArgumentType(key))` in place of each key.
struct KeyDefaults {
    keys: Vec<String>,
}

impl VisitorMut for KeyDefaults {
    type Break = ();

    /// After the children, so the new call is not visited again.
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.keys.contains(&expr.to_string()) {
            let default = call("defaultValueOfArgumentType", vec![expr.clone()]);
            *expr = call("any", vec![default]);
        }
        ControlFlow::Continue(())
    }
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
            "SELECT any(\"defaultValueOfArgumentType\"(number % 2)) AS k, k + 1, count() FROM t"
        );
    }

    #[test]
    fn having_keeps_the_totals_to_the_groups_it_keeps() {
        let (main, totals) =
            totals_of("SELECT a, count() AS c FROM t GROUP BY a WITH TOTALS HAVING c > 1");
        assert_eq!(
            main,
            "SELECT a, count() AS c FROM t GROUP BY a HAVING c > 1"
        );
        assert_eq!(
            totals,
            "SELECT any(\"defaultValueOfArgumentType\"(a)), count() AS c FROM t WHERE a IN \
             (SELECT __totals_key_0 FROM (SELECT a, count() AS c, a AS __totals_key_0 FROM t \
             GROUP BY a HAVING c > 1) AS __kept_groups)"
        );
    }

    #[test]
    fn without_keys_the_totals_are_the_same_aggregates() {
        let (main, totals) = totals_of("SELECT count() FROM t WITH TOTALS");
        assert_eq!(main, "SELECT count() FROM t");
        assert_eq!(totals, "SELECT count() FROM t");
        let (main, totals) = totals_of("SELECT count() AS c FROM t WITH TOTALS HAVING c > 1");
        assert_eq!(main, "SELECT count() AS c FROM t HAVING c > 1");
        assert_eq!(
            totals,
            "SELECT count() AS c FROM t WHERE EXISTS (SELECT count() AS c FROM t HAVING c > 1)"
        );
    }

    #[test]
    fn rollup_keys_read_their_defaults_and_refuse_having() {
        let (main, totals) =
            totals_of("SELECT a, b, count() FROM t GROUP BY ROLLUP(a, b) WITH TOTALS");
        assert_eq!(main, "SELECT a, b, count() FROM t GROUP BY ROLLUP (a, b)");
        assert_eq!(
            totals,
            "SELECT any(\"defaultValueOfArgumentType\"(a)), \
             any(\"defaultValueOfArgumentType\"(b)), count() FROM t"
        );
        let sql = "SELECT a, count() AS c FROM t GROUP BY a WITH ROLLUP WITH TOTALS HAVING c > 1";
        let Statement::Query(mut query) = crate::parser::parse_statement(sql).unwrap().statement
        else {
            panic!("a query");
        };
        let error = take_totals(&mut query).unwrap_err();
        assert_eq!(error.code, ErrorCode::NOT_IMPLEMENTED);
    }
}
