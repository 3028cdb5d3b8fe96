//! `x IN (subquery)` where DataFusion plans it only as one of a filter's
//! conjuncts (a semi join). Anywhere else (the select list, under `OR` or
//! `NOT`, inside a function) it is read as
//! `arrayExists(v -> v = x, (SELECT groupArray(v) FROM (subquery)))`: the
//! set as an array, computed once as ClickHouse computes the set once, but
//! searched row by row (a hash set would be faster for large sets).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Query, Select, SelectItem, UnaryOperator, VisitMut, VisitorMut,
};

use crate::parse_expr_text;

/// Rewrites the IN subqueries of `select` that DataFusion cannot plan where
/// they are.
pub fn rewrite_in_subqueries(select: &mut Select) {
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
            let _ = expr.visit(&mut AsArrays::default());
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
            let _ = expr.visit(&mut AsArrays::default());
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } if matches!(**expr, Expr::InSubquery { .. }) => {}
        other => {
            let _ = other.visit(&mut AsArrays::default());
        }
    }
}

/// Replaces IN subqueries of one column by a search of the set's array,
/// outside nested queries.
#[derive(Default)]
struct AsArrays {
    depth: usize,
}

impl VisitorMut for AsArrays {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let Expr::InSubquery {
            expr: value,
            subquery,
            negated,
        } = expr
        else {
            return ControlFlow::Continue(());
        };
        // A tuple compared with a row of several columns stays as written.
        if matches!(**value, Expr::Tuple(_)) {
            return ControlFlow::Continue(());
        }
        // `has` would refuse an array of another integer type than the
        // value's; `=` compares them as numbers.
        let text = format!(
            "{}assumeNotNull(arrayExists(_in_value -> _in_value = {value}, \
             (SELECT groupArray(_in) FROM ({subquery}) AS _in_set(_in))))",
            if *negated { "NOT " } else { "" }
        );
        if let Ok(rewritten) = parse_expr_text(&text) {
            *expr = Expr::Nested(Box::new(rewritten));
        }
        ControlFlow::Continue(())
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
            "SELECT (assumeNotNull(arrayExists(_in_value -> _in_value = x, \
             (SELECT groupArray(_in) FROM (SELECT 1) AS _in_set (_in))))) FROM t"
        );
        assert_eq!(
            rewritten("SELECT 1 FROM t WHERE a = 1 OR x NOT IN (SELECT 1)"),
            "SELECT 1 FROM t WHERE a = 1 OR (NOT assumeNotNull(arrayExists(_in_value -> \
             _in_value = x, (SELECT groupArray(_in) FROM (SELECT 1) AS _in_set (_in)))))"
        );
    }

    #[test]
    fn conjuncts_stay_semi_joins() {
        let sql = "SELECT 1 FROM t WHERE a = 1 AND x IN (SELECT 1) AND NOT y IN (SELECT 2)";
        assert_eq!(rewritten(sql), sql);
    }
}
