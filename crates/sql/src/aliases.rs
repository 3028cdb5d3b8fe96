//! A SELECT's aliases, usable in the rest of its select list and in its WHERE,
//! as in ClickHouse: `SELECT number * 2 AS d, d + 1 FROM t WHERE d > 5`.
//!
//! DataFusion resolves aliases only in GROUP BY, HAVING and ORDER BY, and
//! prefers a column of the same name in GROUP BY, so each use in the select
//! list, WHERE, PREWHERE and GROUP BY is replaced by the aliased expression
//! (parenthesized). As in ClickHouse, an alias wins over a column of the same
//! name, except inside its own definition (`SELECT number + 1 AS number`). Subqueries keep their own
//! scope: an alias is not looked up inside them.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, Query, Select, SelectItem, VisitMut, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};

/// The aliases the user wrote in `select`'s list, with their expressions.
/// Taken before the select items get their ClickHouse column names, which
/// are aliases too but not ones a query may refer to.
pub fn user_aliases(select: &Select) -> Result<HashMap<String, Expr>> {
    let mut aliases: HashMap<String, Expr> = HashMap::new();
    for item in &select.projection {
        let SelectItem::ExprWithAlias { expr, alias } = item else {
            continue;
        };
        if let Some(earlier) = aliases.get(&alias.value)
            && earlier != expr
        {
            return Err(StrataError::new(
                ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS,
                format!(
                    "Multiple expressions {expr} AS {0} and {earlier} AS {0} for alias {0}",
                    alias.value
                ),
            ));
        }
        aliases.insert(alias.value.clone(), expr.clone());
    }
    Ok(aliases)
}

/// Replaces uses of `aliases` in `select`'s list, WHERE and GROUP BY by what
/// they name.
pub fn expand_aliases(select: &mut Select, aliases: &HashMap<String, Expr>) {
    if aliases.is_empty() {
        return;
    }
    for item in &mut select.projection {
        let (expr, own) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            SelectItem::UnnamedExpr(expr) => (expr, None),
            _ => continue,
        };
        let mut expanding: Vec<String> = own.into_iter().collect();
        expand(expr, aliases, &mut expanding);
    }
    if let Some(selection) = &mut select.selection {
        expand(selection, aliases, &mut Vec::new());
    }
    if let Some(prewhere) = &mut select.prewhere {
        expand(prewhere, aliases, &mut Vec::new());
    }
    if let GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        for key in keys {
            expand(key, aliases, &mut Vec::new());
        }
    }
}

/// Expands the aliases in `expr`; `expanding` holds the aliases whose
/// definitions are being expanded, whose names there mean columns.
fn expand(expr: &mut Expr, aliases: &HashMap<String, Expr>, expanding: &mut Vec<String>) {
    let mut visitor = Expander {
        aliases,
        expanding,
        query_depth: 0,
    };
    let _ = expr.visit(&mut visitor);
}

struct Expander<'a> {
    aliases: &'a HashMap<String, Expr>,
    expanding: &'a mut Vec<String>,
    query_depth: usize,
}

impl VisitorMut for Expander<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.query_depth > 0 {
            return ControlFlow::Continue(());
        }
        let Expr::Identifier(ident) = expr else {
            return ControlFlow::Continue(());
        };
        let name = ident.value.clone();
        if self.expanding.contains(&name) {
            return ControlFlow::Continue(());
        }
        let Some(definition) = self.aliases.get(&name) else {
            return ControlFlow::Continue(());
        };
        let mut definition = definition.clone();
        self.expanding.push(name);
        expand(&mut definition, self.aliases, self.expanding);
        self.expanding.pop();
        *expr = Expr::Nested(Box::new(definition));
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::ast::{SetExpr, Statement};

    use super::*;
    use crate::parse_statement;

    fn expanded(sql: &str) -> String {
        let mut statement = parse_statement(sql).unwrap().statement;
        let Statement::Query(query) = &mut statement else {
            panic!("a query");
        };
        let SetExpr::Select(select) = query.body.as_mut() else {
            panic!("a select");
        };
        let aliases = user_aliases(select).unwrap();
        expand_aliases(select, &aliases);
        statement.to_string()
    }

    #[test]
    fn aliases_expand_in_the_list_and_where() {
        assert_eq!(
            expanded("SELECT number * 2 AS d, d + 1 AS e, e FROM t WHERE d > 5"),
            "SELECT number * 2 AS d, (number * 2) + 1 AS e, ((number * 2) + 1) FROM t WHERE (number * 2) > 5"
        );
    }

    #[test]
    fn an_alias_means_the_column_inside_its_own_definition() {
        assert_eq!(
            expanded("SELECT number + 1 AS number FROM t WHERE number > 1"),
            "SELECT number + 1 AS number FROM t WHERE (number + 1) > 1"
        );
    }

    #[test]
    fn subqueries_keep_their_own_scope() {
        assert_eq!(
            expanded("SELECT 1 AS a, a IN (SELECT a FROM t) FROM u"),
            "SELECT 1 AS a, (1) IN (SELECT a FROM t) FROM u"
        );
    }

    #[test]
    fn two_expressions_for_one_alias_fail() {
        let mut statement = parse_statement("SELECT 1 AS x, 2 AS x").unwrap().statement;
        let Statement::Query(query) = &mut statement else {
            panic!("a query");
        };
        let SetExpr::Select(select) = query.body.as_ref() else {
            panic!("a select");
        };
        let error = user_aliases(select).unwrap_err();
        assert_eq!(error.code, ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS);
    }
}
