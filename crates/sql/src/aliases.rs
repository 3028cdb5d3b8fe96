//! A SELECT's aliases, usable in the rest of its select list and in its WHERE,
//! as in ClickHouse: `SELECT number * 2 AS d, d + 1 FROM t WHERE d > 5`.
//!
//! DataFusion resolves aliases only in GROUP BY, HAVING and ORDER BY, and
//! prefers a column of the same name in GROUP BY, so each use in the select
//! list, WHERE, PREWHERE, JOIN ... ON and GROUP BY is replaced by the aliased
//! expression (parenthesized). As in ClickHouse, an alias wins over a column
//! of the same name, except inside its own definition (`SELECT number + 1 AS
//! number`). Subqueries keep their own scope: an alias is not looked up
//! inside them.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, JoinConstraint, Query, Select, SelectItem, TableFactor,
    Value, VisitMut, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::join_using::constraint_mut;

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
    // `t.a` names a table's column where `t` is one of the FROM's tables.
    let scope = Scope {
        aliases,
        relations: relation_names(select),
    };
    for item in &mut select.projection {
        let (expr, own) = match item {
            // An item is the definition of its alias only where the user
            // wrote it so: `n` after `number AS n` is named `n` too.
            SelectItem::ExprWithAlias { expr, alias } => {
                let defines = aliases.get(&alias.value).is_none_or(|d| d == expr);
                let own = defines.then(|| alias.value.clone());
                (expr, own)
            }
            SelectItem::UnnamedExpr(expr) => (expr, None),
            _ => continue,
        };
        let mut expanding: Vec<String> = own.into_iter().collect();
        expand(expr, &scope, &mut expanding);
    }
    if let Some(selection) = &mut select.selection {
        expand(selection, &scope, &mut Vec::new());
    }
    if let Some(prewhere) = &mut select.prewhere {
        expand(prewhere, &scope, &mut Vec::new());
    }
    for join in select.from.iter_mut().flat_map(|from| &mut from.joins) {
        if let Some(JoinConstraint::On(on)) = constraint_mut(&mut join.join_operator) {
            expand(on, &scope, &mut Vec::new());
        }
    }
    if let GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        for key in keys {
            let literal = is_number(key);
            expand(key, &scope, &mut Vec::new());
            // An alias of a number (`0 AS b ... GROUP BY b`) groups by the
            // value, not by the select list's position it would read as.
            // (`+ 0` keeps it an expression; calls of a constant fold to it.)
            if !literal && is_number(key) {
                *key = Expr::BinaryOp {
                    left: Box::new(key.clone()),
                    op: BinaryOperator::Plus,
                    right: Box::new(Expr::value(Value::Number("0".to_string(), false))),
                };
            }
        }
    }
}

/// A number literal, in parentheses or not, which GROUP BY reads as a position.
fn is_number(expr: &Expr) -> bool {
    match expr {
        Expr::Nested(inner) => is_number(inner),
        Expr::Value(v) => matches!(v.value, Value::Number(..)),
        _ => false,
    }
}

/// The names a SELECT's expressions may use: its aliases, and the tables
/// of its FROM.
struct Scope<'a> {
    aliases: &'a HashMap<String, Expr>,
    relations: Vec<String>,
}

/// Expands the aliases in `expr`; `expanding` holds the aliases whose
/// definitions are being expanded, whose names there mean columns.
fn expand(expr: &mut Expr, scope: &Scope, expanding: &mut Vec<String>) {
    let mut visitor = Expander {
        scope,
        expanding,
        query_depth: 0,
    };
    let _ = expr.visit(&mut visitor);
}

struct Expander<'a> {
    scope: &'a Scope<'a>,
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
        match expr {
            Expr::Identifier(ident) => {
                if let Some(definition) = self.definition(&ident.value) {
                    *expr = definition;
                }
            }
            // `t.a` of a tuple aliased `t`: its element named `a`.
            Expr::CompoundIdentifier(parts)
                if parts.len() > 1 && !self.scope.relations.contains(&parts[0].value) =>
            {
                let Some(mut element) = self.definition(&parts[0].value) else {
                    return ControlFlow::Continue(());
                };
                for field in &parts[1..] {
                    let name = crate::ast_rewrite::string_literal(&field.value);
                    element = crate::ast_rewrite::call("tupleElement", vec![element, name]);
                }
                *expr = element;
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

impl Expander<'_> {
    /// What the alias `name` stands for, expanded, where a use of `name`
    /// means the alias.
    fn definition(&mut self, name: &str) -> Option<Expr> {
        if self.expanding.iter().any(|e| e == name) {
            return None;
        }
        let mut definition = self.scope.aliases.get(name)?.clone();
        self.expanding.push(name.to_string());
        expand(&mut definition, self.scope, self.expanding);
        self.expanding.pop();
        Some(Expr::Nested(Box::new(definition)))
    }
}

/// The names FROM's tables are known by (their aliases, or their names).
fn relation_names(select: &Select) -> Vec<String> {
    let factors = select.from.iter().flat_map(|from| {
        std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
    });
    factors
        .filter_map(|factor| match factor {
            TableFactor::Table {
                alias: Some(alias), ..
            }
            | TableFactor::Derived {
                alias: Some(alias), ..
            } => Some(alias.name.value.clone()),
            TableFactor::Table { name, .. } => name
                .0
                .last()
                .and_then(|part| part.as_ident())
                .map(|ident| ident.value.clone()),
            _ => None,
        })
        .collect()
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
    fn an_item_named_by_an_alias_reads_it() {
        let mut statement = parse_statement("SELECT number AS n, n AS n FROM t")
            .unwrap()
            .statement;
        let Statement::Query(query) = &mut statement else {
            panic!("a query");
        };
        let SetExpr::Select(select) = query.body.as_mut() else {
            panic!("a select");
        };
        let aliases = HashMap::from([("n".to_string(), Expr::Identifier("number".into()))]);
        expand_aliases(select, &aliases);
        assert_eq!(
            statement.to_string(),
            "SELECT number AS n, (number) AS n FROM t"
        );
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
    fn a_tuple_alias_reads_its_elements_by_name() {
        assert_eq!(
            expanded("SELECT (1, 2) AS t, t.a, u.b FROM u"),
            "SELECT (1, 2) AS t, \"tupleElement\"(((1, 2)), 'a'), u.b FROM u"
        );
        // Where a table has the alias's name, `t.a` is its column.
        assert_eq!(
            expanded("SELECT x AS t, t.a, t FROM t"),
            "SELECT x AS t, t.a, (x) FROM t"
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
