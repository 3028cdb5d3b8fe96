//! ALIAS columns: a table's column that is not stored but computed from the
//! row (`c UInt32 ALIAS a * 2`). As ClickHouse does, a statement that names
//! one reads its expression in its place, with the table's own columns
//! qualified so that a join cannot make them ambiguous.

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem, SetExpr, Statement,
    TableFactor, VisitMut, VisitorMut,
};

use crate::naming::column_name;
use crate::outside_subqueries::rewrite_outside_subqueries;
use crate::virtual_columns::{cte_names, for_each_factor, named_table};

/// A table's ALIAS columns, and the names of the columns it stores.
#[derive(Debug, Clone)]
pub struct AliasColumns {
    /// Each ALIAS column's name and expression (already cast to its type),
    /// over the table's unqualified column names.
    pub aliases: Vec<(String, Expr)>,
    pub stored: Vec<String>,
}

/// Replaces every reference to an ALIAS column of a table in a SELECT's
/// FROM by the column's expression. `columns` gives a table's ALIAS columns
/// by its name, or `None` when it has none.
pub fn substitute_alias_columns(
    statement: &mut Statement,
    columns: &dyn Fn(&ObjectName) -> Option<AliasColumns>,
) {
    let ctes = cte_names(statement);
    let _ = statement.visit(&mut Substituter { ctes, columns });
}

struct Substituter<'a> {
    ctes: HashSet<String>,
    columns: &'a dyn Fn(&ObjectName) -> Option<AliasColumns>,
}

/// A table of a FROM with ALIAS columns, under the name queries use for it.
struct Scope {
    qualifier: Ident,
    columns: AliasColumns,
}

impl Substituter<'_> {
    fn scopes(&self, select: &Select) -> Vec<Scope> {
        let mut scopes = Vec::new();
        let mut add = |factor: &TableFactor| {
            let Some(name) = named_table(factor, &self.ctes) else {
                return;
            };
            let Some(columns) = (self.columns)(name) else {
                return;
            };
            let TableFactor::Table { alias, .. } = factor else {
                return;
            };
            let qualifier = match (alias, name.0.last()) {
                (Some(alias), _) => alias.name.clone(),
                (None, Some(ObjectNamePart::Identifier(table))) => table.clone(),
                _ => return,
            };
            scopes.push(Scope { qualifier, columns });
        };
        for table in &select.from {
            for_each_factor(table, &mut add);
        }
        scopes
    }
}

impl VisitorMut for Substituter<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        // ORDER BY and LIMIT BY belong to the query, around its SELECT.
        let SetExpr::Select(select) = query.body.as_ref() else {
            return ControlFlow::Continue(());
        };
        let scopes = self.scopes(select);
        if scopes.is_empty() {
            return ControlFlow::Continue(());
        }
        replace_aliases(&mut query.order_by, &scopes);
        replace_aliases(&mut query.limit_clause, &scopes);
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        let scopes = self.scopes(select);
        if scopes.is_empty() {
            return ControlFlow::Continue(());
        }
        let mut names_taken: Vec<String> = Vec::new();
        for item in &mut select.projection {
            let (SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. }) = item
            else {
                continue;
            };
            // The result column keeps the name the column gives it: its
            // own, or qualified where an earlier item took that name.
            let name = match &*expr {
                Expr::Identifier(ident) => ident.value.clone(),
                Expr::CompoundIdentifier(parts) => {
                    let last = parts.last().map_or_else(String::new, |p| p.value.clone());
                    match names_taken.contains(&last) {
                        false => last,
                        true => parts
                            .iter()
                            .map(|p| p.value.as_str())
                            .collect::<Vec<_>>()
                            .join("."),
                    }
                }
                other => column_name(other),
            };
            names_taken.push(name.clone());
            if replace_aliases(expr, &scopes)
                && let SelectItem::UnnamedExpr(expr) = item
            {
                *item = SelectItem::ExprWithAlias {
                    expr: expr.clone(),
                    alias: Ident::with_quote('`', name),
                };
            }
        }
        replace_aliases(&mut select.selection, &scopes);
        replace_aliases(&mut select.group_by, &scopes);
        replace_aliases(&mut select.having, &scopes);
        replace_aliases(&mut select.prewhere, &scopes);
        ControlFlow::Continue(())
    }
}

/// Replaces ALIAS column references in `node`, not inside its subqueries;
/// whether it replaced any.
fn replace_aliases<T: VisitMut + ?Sized>(node: &mut T, scopes: &[Scope]) -> bool {
    rewrite_outside_subqueries(node, &mut |expr| match expansion(scopes, expr) {
        Some(expanded) => {
            *expr = expanded;
            true
        }
        None => false,
    })
}

/// The expression an identifier means, if it names an ALIAS column.
fn expansion(scopes: &[Scope], expr: &Expr) -> Option<Expr> {
    let (qualifier, column) = match expr {
        Expr::Identifier(column) => (None, column),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            (Some(&parts[parts.len() - 2]), &parts[parts.len() - 1])
        }
        _ => return None,
    };
    let mut candidates = scopes.iter().filter(|scope| match qualifier {
        Some(q) => q.value == scope.qualifier.value,
        None => true,
    });
    let scope = candidates.find(|s| s.columns.aliases.iter().any(|(n, _)| *n == column.value))?;
    // A bare name another table stores is that table's column.
    let stored_elsewhere = qualifier.is_none()
        && scopes
            .iter()
            .any(|s| !std::ptr::eq(s, scope) && s.columns.stored.contains(&column.value));
    if stored_elsewhere {
        return None;
    }
    let (_, aliased) = scope
        .columns
        .aliases
        .iter()
        .find(|(name, _)| *name == column.value)?;
    let mut expansion = aliased.clone();
    let _ = expansion.visit(&mut Qualifier(scope));
    Some(Expr::Nested(Box::new(expansion)))
}

/// Qualifies an ALIAS expression's column names with its table's name.
struct Qualifier<'a>(&'a Scope);

impl VisitorMut for Qualifier<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(column) = expr
            && self.0.columns.stored.contains(&column.value)
        {
            *expr = Expr::CompoundIdentifier(vec![self.0.qualifier.clone(), column.clone()]);
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;

    fn substituted(sql: &str) -> String {
        let mut statement = parse_statement(sql).unwrap().statement;
        let columns = |name: &ObjectName| {
            name.to_string().ends_with('e').then(|| AliasColumns {
                aliases: vec![(
                    "c".to_string(),
                    crate::parse_expr_text("CAST(a * 2, 'UInt32')").unwrap(),
                )],
                stored: vec!["a".to_string()],
            })
        };
        substitute_alias_columns(&mut statement, &columns);
        statement.to_string()
    }

    #[test]
    fn alias_columns_read_their_expressions() {
        assert_eq!(
            substituted("SELECT c, c + 1 FROM e WHERE c > 2 ORDER BY c"),
            "SELECT (CAST(e.a * 2, 'UInt32')) AS `c`, (CAST(e.a * 2, 'UInt32')) + 1 AS `plus(c, 1)` \
             FROM e WHERE (CAST(e.a * 2, 'UInt32')) > 2 ORDER BY (CAST(e.a * 2, 'UInt32'))"
        );
        assert_eq!(
            substituted("SELECT x.c FROM e AS x JOIN other AS o ON x.a = o.a"),
            "SELECT (CAST(x.a * 2, 'UInt32')) AS `c` FROM e AS x JOIN other AS o ON x.a = o.a"
        );
    }

    #[test]
    fn other_names_and_subqueries_are_left_alone() {
        assert_eq!(
            substituted("SELECT a, (SELECT c FROM other) FROM e"),
            "SELECT a, (SELECT c FROM other) FROM e"
        );
        assert_eq!(substituted("SELECT c FROM other"), "SELECT c FROM other");
    }
}
