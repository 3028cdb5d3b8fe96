//! Parameterized views: `CREATE VIEW v AS SELECT ... WHERE x = {p:UInt8}`
//! keeps each `{name:Type}` of its query as `__strata_param('name', 'Type')`
//! (read so on the tokens, see strata-sql's `clickhouse_tokens`), and
//! `SELECT ... FROM v(p = 1)` reads the view's query with each parameter
//! given as its value cast to its type, as ClickHouse substitutes them.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, Query, Statement, TableFactor, Visit,
    VisitMut, Visitor, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::{quoted, string_value, unnamed_arguments};
use strata_sql::{parse_expr_text, parse_statement};

use super::Session;
use crate::statements::ReadView;

impl Session {
    /// Puts in place of each `view(name = value, ...)` in FROM the view's
    /// query with its parameters given.
    pub(crate) async fn expand_parameterized_views(&self, statement: &mut Statement) -> Result<()> {
        let mut calls = ViewCalls(Vec::new());
        let _ = Visit::visit(&*statement, &mut calls);
        let mut queries = Vec::with_capacity(calls.0.len());
        for (name, values) in calls.0 {
            let query = match self.view(&name).await? {
                Some(ReadView::View(view)) => {
                    let Statement::Query(mut query) = parse_statement(&view.query)?.statement
                    else {
                        unreachable!("a view stores a query");
                    };
                    bind_parameters(&mut query, &values?)?;
                    Some(query)
                }
                _ => None,
            };
            queries.push(query);
        }
        let mut queries = queries.into_iter();
        let _ = VisitMut::visit(statement, &mut PutViews(&mut queries));
        Ok(())
    }
}

/// Fails for a parameter no one gave a value, once views are in place.
pub(crate) fn check_parameters_given(statement: &Statement) -> Result<()> {
    match unbound_parameter(statement) {
        Some(name) => Err(not_set(&name)),
        None => Ok(()),
    }
}

/// A stored query with its parameters written back as `{name:Type}`.
pub(crate) fn shown_parameters(query: &str) -> String {
    let marker = regex::Regex::new(&format!(
        r"{}\('((?:[^'\\]|\\.)*)', '((?:[^'\\]|\\.|'')*)'\)",
        strata_sql::QUERY_PARAMETER_FUNCTION
    ))
    .expect("the marker pattern is valid");
    marker
        .replace_all(query, |c: &regex::Captures| {
            format!(
                "{{{}:{}}}",
                &c[1],
                c[2].replace("''", "'").replace("\\'", "'")
            )
        })
        .into_owned()
}

fn not_set(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::UNKNOWN_QUERY_PARAMETER,
        format!("Substitution `{name}` is not set"),
    )
}

/// A marker's name and type.
fn marker(expr: &Expr) -> Option<(String, String)> {
    let Expr::Function(f) = expr else {
        return None;
    };
    if f.name.to_string() != strata_sql::QUERY_PARAMETER_FUNCTION {
        return None;
    }
    match unnamed_arguments(&f.args).as_slice() {
        [name, type_name] => Some((string_value(name)?, string_value(type_name)?)),
        _ => None,
    }
}

/// Each marker of `query` replaced by its value cast to its type; a
/// parameter without a value fails as ClickHouse does.
fn bind_parameters(query: &mut Query, values: &HashMap<String, String>) -> Result<()> {
    replace_markers(query, &|name, type_name| {
        let value = values.get(name).ok_or_else(|| not_set(name))?;
        parse_expr_text(&format!("_CAST({}, {})", quoted(value), quoted(type_name)))
    })
}

/// Each marker of `query` replaced by its type's default: the columns a
/// parameterized view has, planned when it is created.
pub(crate) fn parameter_defaults(query: &mut Query) -> Result<()> {
    replace_markers(query, &|_, type_name| {
        parse_expr_text(&format!("defaultValueOfTypeName({})", quoted(type_name)))
    })
}

fn replace_markers(query: &mut Query, value: &dyn Fn(&str, &str) -> Result<Expr>) -> Result<()> {
    let mut result = Ok(());
    let _ = datafusion::sql::sqlparser::ast::visit_expressions_mut(query, |expr| {
        if let Some((name, type_name)) = marker(expr) {
            match value(&name, &type_name) {
                Ok(replaced) => *expr = Expr::Nested(Box::new(replaced)),
                Err(error) => {
                    result = Err(error);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    result
}

/// The name of a parameter marker left in `statement`.
fn unbound_parameter(statement: &Statement) -> Option<String> {
    let mut found = None;
    let _ =
        datafusion::sql::sqlparser::ast::visit_expressions(statement, |expr| match marker(expr) {
            Some((name, _)) => {
                found = Some(name);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        });
    found
}

/// The values of a view call's arguments (`name = value`), as text.
fn parameter_values(args: &[FunctionArg]) -> Result<HashMap<String, String>> {
    args.iter()
        .map(|arg| {
            let expr = match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            };
            match expr {
                Some(Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                }) => {
                    let Expr::Identifier(name) = left.as_ref() else {
                        return Err(bad_argument(arg));
                    };
                    let value = string_value(right).unwrap_or_else(|| right.to_string());
                    Ok((name.value.clone(), value))
                }
                _ => Err(bad_argument(arg)),
            }
        })
        .collect()
}

fn bad_argument(arg: &FunctionArg) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("A parameterized view's arguments are name = value, got {arg}"),
    )
}

/// The calls in FROM of something that may be a view: name and values.
struct ViewCalls(
    Vec<(
        datafusion::sql::sqlparser::ast::ObjectName,
        Result<HashMap<String, String>>,
    )>,
);

impl Visitor for ViewCalls {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            args: Some(args),
            ..
        } = factor
        {
            self.0.push((name.clone(), parameter_values(&args.args)));
        }
        ControlFlow::Continue(())
    }
}

/// Puts each view's query in place of its call, in [`ViewCalls`]' order.
struct PutViews<'a, I: Iterator<Item = Option<Box<Query>>>>(&'a mut I);

impl<I: Iterator<Item = Option<Box<Query>>>> VisitorMut for PutViews<'_, I> {
    type Break = ();

    // After the children, so a query put in place is not visited again.
    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            args: Some(_),
            alias,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        if let Some(Some(subquery)) = self.0.next() {
            let alias = alias.clone().or_else(|| {
                name.0.last().and_then(|p| p.as_ident()).map(|n| {
                    datafusion::sql::sqlparser::ast::TableAlias {
                        explicit: true,
                        name: n.clone(),
                        columns: vec![],
                        at: None,
                    }
                })
            });
            *factor = TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                sample: None,
            };
        }
        ControlFlow::Continue(())
    }
}
