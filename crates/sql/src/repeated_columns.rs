//! A result may repeat a column in ClickHouse (`SELECT count(), count()`,
//! `SELECT number, * FROM t`); a DataFusion projection needs unique names.
//!
//! So the repeats in a query's outer select list are planned under marked
//! names (the name, [`MARK`], the item's position) and shown under their own
//! name once the result leaves the engine ([`shown_name`]). With a wildcard
//! in the list, whose columns are not known yet, every plain column beside
//! it is marked; aliases are never marked where they are not repeats, so
//! ORDER BY and HAVING still find them.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Query, Select, SelectItem, SetExpr, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::tokenizer::Span;

use crate::naming::column_name;

/// Separates a repeated column's name from what keeps it unique. A control
/// character, so no name a user writes ends in it.
pub const MARK: char = '\u{1F}';

/// Marks the repeated columns of `query`'s outer select list, and of every
/// SELECT joined by UNION, EXCEPT or INTERSECT anywhere in it (`SELECT x, x
/// FROM t UNION ALL ...`), whose repeats are never read by name.
pub fn mark_repeated_columns(query: &mut Query) {
    let _ = query.visit(&mut SetOperands);
    if let SetExpr::Select(select) = query.body.as_mut() {
        mark_select(select);
    }
}

struct SetOperands;

impl VisitorMut for SetOperands {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if matches!(query.body.as_ref(), SetExpr::SetOperation { .. }) {
            mark_operands(query.body.as_mut());
        }
        ControlFlow::Continue(())
    }
}

fn mark_operands(body: &mut SetExpr) {
    match body {
        SetExpr::SetOperation { left, right, .. } => {
            mark_operands(left);
            mark_operands(right);
        }
        SetExpr::Select(select) => mark_select(select),
        SetExpr::Query(query) => mark_operands(query.body.as_mut()),
        _ => {}
    }
}

fn mark_select(select: &mut Select) {
    let has_wildcard = has_wildcard(select);
    let mut seen: Vec<(String, Expr, bool, bool)> = Vec::new();
    for (position, item) in select.projection.iter_mut().enumerate() {
        let (name, expr, plain_column, aliased) = match &*item {
            SelectItem::ExprWithAlias { alias, expr } => (alias.value.clone(), expr, false, true),
            SelectItem::UnnamedExpr(expr) => match expr {
                Expr::Identifier(ident) => (ident.value.clone(), expr, true, false),
                Expr::CompoundIdentifier(parts) => {
                    let last = parts.last().map(|p| p.value.clone()).unwrap_or_default();
                    (last, expr, true, false)
                }
                _ => (column_name(expr), expr, false, false),
            },
            _ => continue,
        };
        let expr = expr.clone();
        // One alias for two expressions is an error the alias check reports;
        // two expressions ClickHouse names alike (`concat(a, b)`, `a || b`)
        // are two columns of one name. (Columns of joined tables are named
        // apart by `join_columns`.)
        // A bare name after the alias it reads (`number AS n, n`) repeats it.
        let named_alike = !aliased && !plain_column;
        let repeated = seen.iter().any(|(n, e, alike, alias)| {
            *n == name && (*e == expr || (named_alike && *alike) || (plain_column && *alias))
        });
        seen.push((name.clone(), expr.clone(), named_alike, aliased));
        let beside_wildcard = has_wildcard && plain_column;
        if !(repeated || beside_wildcard) {
            continue;
        }
        *item = SelectItem::ExprWithAlias {
            expr,
            alias: marked(&name, position),
        };
    }
}

/// The name the item at `position` of a select list is planned under when
/// it repeats `name`.
pub(crate) fn marked(name: &str, position: usize) -> Ident {
    Ident {
        value: format!("{name}{MARK}{position}"),
        quote_style: Some('"'),
        span: Span::empty(),
    }
}

/// Whether `select`'s list holds `*` or `t.*`, whose width is not known
/// before planning.
pub(crate) fn has_wildcard(select: &Select) -> bool {
    select.projection.iter().any(|item| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    })
}

/// The name a result column is shown under.
pub fn shown_name(name: &str) -> &str {
    name.split_once(MARK).map_or(name, |(shown, _)| shown)
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::ast::Statement;

    use super::*;
    use crate::parse_statement;

    fn marked(sql: &str) -> String {
        let Statement::Query(mut query) = parse_statement(sql).unwrap().statement else {
            panic!("a query");
        };
        mark_repeated_columns(&mut query);
        query.to_string().replace(MARK, "|")
    }

    #[test]
    fn repeats_are_marked_after_the_first() {
        assert_eq!(
            marked("SELECT count(), count(), number AS n, number AS n FROM t"),
            "SELECT count(), count() AS \"count()|1\", number AS n, number AS \"n|3\" FROM t"
        );
        assert_eq!(
            marked("SELECT concat(a, b), a || b FROM t"),
            "SELECT concat(a, b), a || b AS \"concat(a, b)|1\" FROM t"
        );
        assert_eq!(
            marked("SELECT number AS n, n FROM t"),
            "SELECT number AS n, n AS \"n|1\" FROM t"
        );
    }

    #[test]
    fn repeats_in_set_operands_are_marked_at_any_depth() {
        assert_eq!(
            marked("SELECT a FROM (SELECT x AS a, x AS b FROM t UNION ALL SELECT x, x FROM t)"),
            "SELECT a FROM (SELECT x AS a, x AS b FROM t UNION ALL SELECT x, x AS \"x|1\" FROM t)"
        );
    }

    #[test]
    fn plain_columns_beside_a_wildcard_are_marked() {
        assert_eq!(
            marked("SELECT number, *, number + 1 AS x FROM t"),
            "SELECT number AS \"number|0\", *, number + 1 AS x FROM t"
        );
        assert_eq!(shown_name("number\u{1f}0"), "number");
        assert_eq!(shown_name("number"), "number");
    }
}
