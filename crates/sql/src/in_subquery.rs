//! `x IN (subquery)` where DataFusion plans it only as one of a filter's
//! conjuncts (a semi join). Anywhere else (the select list, under `OR` or
//! `NOT`, inside a function) it is read as
//! `arrayExists(v -> v = x, (SELECT groupArray(v) FROM (subquery)))`: the
//! set as an array, computed once as ClickHouse computes the set once, but
//! searched row by row (a hash set would be faster for large sets).
//!
//! `EXISTS (subquery)` there likewise (DataFusion plans it only as a
//! conjunct) is read as ClickHouse reads it, a count of at most one row of
//! the subquery compared with 0.
//!
//! `x op ANY | ALL (subquery)` is read first as an IN or a comparison
//! ([`crate::quantified_subqueries`]).
//!
//! `(a, b) IN (SELECT x, y ...)` compares tuples: the subquery's columns
//! become one `tuple(x, y)`, the single column DataFusion compares with
//! (`(a, b) IN t`, read as `SELECT * FROM t`, names the table's columns first).

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Select, SelectItem, SetExpr, UnaryOperator,
};

use crate::ast_rewrite::call;
use crate::outside_subqueries::rewrite_outside_subqueries;
use crate::parse_expr_text;

/// Rewrites the IN subqueries of `select` that DataFusion cannot plan where
/// they are.
pub fn rewrite_in_subqueries(select: &mut Select) {
    rewrite_outside_subqueries(select, &mut crate::quantified_subqueries::rewrite);
    rewrite_outside_subqueries(select, &mut tuple_rows);
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
            search_arrays(expr);
        }
    }
    for condition in [&mut select.selection, &mut select.having] {
        if let Some(condition) = condition {
            outside_conjuncts(condition);
        }
    }
}

/// Rewrites the IN subqueries of a condition, except those that are
/// conjuncts of it (or negated ones).
fn outside_conjuncts(condition: &mut Expr) {
    match condition {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            outside_conjuncts(left);
            outside_conjuncts(right);
        }
        Expr::Nested(inner) => outside_conjuncts(inner),
        Expr::InSubquery { expr, .. } => {
            search_arrays(expr);
        }
        Expr::Exists { .. } => {}
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } if matches!(**expr, Expr::InSubquery { .. }) => {}
        other => {
            search_arrays(other);
        }
    }
}

/// Replaces the IN subqueries of one column in `node` by a search of the
/// set's array, outside nested queries.
fn search_arrays(node: &mut Expr) {
    rewrite_outside_subqueries(node, &mut as_array_search);
}

/// Makes a subquery of several columns compared with a tuple of as many
/// values return one tuple column.
fn tuple_rows(expr: &mut Expr) -> bool {
    let Expr::InSubquery {
        expr: value,
        subquery,
        ..
    } = expr
    else {
        return false;
    };
    let Expr::Tuple(values) = &**value else {
        return false;
    };
    if is_star(subquery) && values.len() > 1 {
        // `(a, b) IN t`: the table's columns, however many, named here.
        let names: Vec<String> = (1..=values.len()).map(|i| format!("_in_{i}")).collect();
        let text = format!(
            "SELECT tuple({0}) FROM ({subquery}) AS _in_rows({0})",
            names.join(", ")
        );
        return match crate::parse_statement(&text).map(|parsed| parsed.statement) {
            Ok(datafusion::sql::sqlparser::ast::Statement::Query(query)) => {
                *subquery = query;
                true
            }
            _ => false,
        };
    }
    let SetExpr::Select(select) = &mut *subquery.body else {
        return false;
    };
    // The items' aliases go with them: uses of one are written out first.
    if let Ok(aliases) = crate::aliases::user_aliases(select) {
        crate::aliases::expand_aliases(select, &aliases);
    }
    let columns: Option<Vec<Expr>> = select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e.clone())
            }
            _ => None,
        })
        .collect();
    let Some(columns) = columns.filter(|c| c.len() > 1 && c.len() == values.len()) else {
        return false;
    };
    select.projection = vec![SelectItem::UnnamedExpr(call("tuple", columns))];
    true
}

/// Whether `query` is `SELECT * FROM ...`.
fn is_star(query: &datafusion::sql::sqlparser::ast::Query) -> bool {
    let SetExpr::Select(select) = &*query.body else {
        return false;
    };
    matches!(select.projection.as_slice(), [SelectItem::Wildcard(_)])
}

/// `x [NOT] IN (subquery)` as a search of the set's array, and `[NOT]
/// EXISTS (subquery)` as a count; false if `expr` is another expression.
pub(crate) fn as_array_search(expr: &mut Expr) -> bool {
    if let Expr::Exists { subquery, negated } = expr {
        let text = format!(
            "{}assumeNotNull((SELECT count() > 0 FROM (SELECT 1 FROM ({subquery}) AS _exists LIMIT 1)))",
            if *negated { "NOT " } else { "" }
        );
        return replace_parsed(expr, &text);
    }
    let Expr::InSubquery {
        expr: value,
        subquery,
        negated,
    } = expr
    else {
        return false;
    };
    // `has` would refuse an array of another integer type than the
    // value's; `=` compares them as numbers. A NULL value is in no set
    // and out of none: the answer is NULL.
    let text = format!(
        "{}{}({value}, assumeNotNull(arrayExists(_in_value -> _in_value = {value}, \
         (SELECT groupArray(_in) FROM ({subquery}) AS _in_set(_in)))))",
        if *negated { "NOT " } else { "" },
        strata_functions::misc::NULL_WHERE_NULL,
    );
    replace_parsed(expr, &text)
}

/// `expr` replaced by the parsed `text`, parenthesized; false if the text
/// does not parse.
fn replace_parsed(expr: &mut Expr, text: &str) -> bool {
    match parse_expr_text(text) {
        Ok(rewritten) => {
            *expr = Expr::Nested(Box::new(rewritten));
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;
    use datafusion::sql::sqlparser::ast::{SetExpr, Statement};

    fn rewritten(sql: &str) -> String {
        let Statement::Query(mut query) = parse_statement(sql).unwrap().statement else {
            unreachable!()
        };
        if let SetExpr::Select(select) = query.body.as_mut() {
            rewrite_in_subqueries(select);
        }
        query.to_string()
    }

    #[test]
    fn in_subqueries_outside_conjuncts_read_the_set_as_an_array() {
        assert_eq!(
            rewritten("SELECT x IN (SELECT 1) FROM t"),
            "SELECT (_nullWhereNull(x, assumeNotNull(arrayExists(_in_value -> _in_value = x, \
             (SELECT groupArray(_in) FROM (SELECT 1) AS _in_set (_in)))))) FROM t"
        );
        assert_eq!(
            rewritten("SELECT 1 FROM t WHERE a = 1 OR x NOT IN (SELECT 1)"),
            "SELECT 1 FROM t WHERE a = 1 OR (NOT _nullWhereNull(x, assumeNotNull(arrayExists(\
             _in_value -> _in_value = x, (SELECT groupArray(_in) FROM (SELECT 1) AS _in_set (_in))))))"
        );
    }

    #[test]
    fn conjuncts_stay_semi_joins() {
        let sql = "SELECT 1 FROM t WHERE a = 1 AND x IN (SELECT 1) AND NOT y IN (SELECT 2)";
        assert_eq!(rewritten(sql), sql);
    }
}
