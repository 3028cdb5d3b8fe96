//! SQL user-defined functions: `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS]
//! name AS (a, b) -> expr` and `DROP FUNCTION [IF EXISTS] name`, read here;
//! a call is replaced by the function's expression with its arguments in
//! place of its parameters ([`inline_calls`]), as ClickHouse expands them,
//! before anything else reads the statement.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, OneOrManyWithParens, Query, SelectItem, SetExpr, Statement, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::{ErrorCode, Result, StrataError};

use crate::dialect::StrataDialect;
use crate::literal_text::unnamed_arguments;
use crate::naming::column_name;
use crate::parser::{clickhouse_parser, expect_end, parser_error, syntax_error};
use crate::part_statements::parse_word;

/// How deep calls may expand into calls: deeper is a function calling itself.
const MAX_EXPANSION_DEPTH: usize = 32;

/// A function's definition.
#[derive(Debug, Clone, PartialEq)]
pub struct UserFunction {
    pub name: String,
    pub parameters: Vec<Ident>,
    pub body: Expr,
}

impl UserFunction {
    /// `CREATE FUNCTION name AS (params) -> body`, as stored and shown.
    pub fn create_query(&self) -> String {
        format!("CREATE FUNCTION {} AS {}", self.name, self.lambda_text())
    }

    fn lambda_text(&self) -> String {
        let parameters: Vec<&str> = self.parameters.iter().map(|p| p.value.as_str()).collect();
        format!("({}) -> {}", parameters.join(", "), self.body)
    }
}

/// A CREATE FUNCTION statement.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateFunction {
    pub function: UserFunction,
    pub or_replace: bool,
    pub if_not_exists: bool,
}

/// The statement, when it is a CREATE FUNCTION.
pub fn parse_create_function(sql: &str) -> Result<Option<CreateFunction>> {
    let dialect = StrataDialect;
    let mut parser = clickhouse_parser(&dialect, sql)?;
    if !parser.parse_keyword(Keyword::CREATE) {
        return Ok(None);
    }
    let or_replace = parser.parse_keywords(&[Keyword::OR, Keyword::REPLACE]);
    if !parser.parse_keyword(Keyword::FUNCTION) {
        return Ok(None);
    }
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser
        .parse_identifier()
        .map_err(|e| parser_error(sql, e))?;
    if parser.parse_keywords(&[Keyword::ON, Keyword::CLUSTER]) {
        parser
            .parse_identifier()
            .map_err(|e| parser_error(sql, e))?;
    }
    parser
        .expect_keyword(Keyword::AS)
        .map_err(|e| parser_error(sql, e))?;
    // sqlparser reads no lambda without parameters: `() -> expr`.
    let empty = parser.peek_token().token == Token::LParen
        && parser.peek_nth_token(1).token == Token::RParen
        && parser.peek_nth_token(2).token == Token::Arrow;
    let (parameters, body) = if empty {
        for _ in 0..3 {
            parser.next_token();
        }
        (
            Vec::new(),
            parser.parse_expr().map_err(|e| parser_error(sql, e))?,
        )
    } else {
        match parser.parse_expr().map_err(|e| parser_error(sql, e))? {
            Expr::Lambda(lambda) => {
                let parameters = match lambda.params {
                    OneOrManyWithParens::One(p) => vec![p.name],
                    OneOrManyWithParens::Many(ps) => ps.into_iter().map(|p| p.name).collect(),
                };
                (parameters, *lambda.body)
            }
            _ => {
                return Err(syntax_error(
                    sql,
                    "CREATE FUNCTION wants a lambda: AS (x, y) -> expression",
                ));
            }
        }
    };
    expect_end(sql, &mut parser)?;
    for (i, parameter) in parameters.iter().enumerate() {
        if parameters[..i].iter().any(|p| p.value == parameter.value) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Identifier {} already used as function parameter",
                    parameter.value
                ),
            ));
        }
    }
    Ok(Some(CreateFunction {
        function: UserFunction {
            name: name.value,
            parameters,
            body,
        },
        or_replace,
        if_not_exists,
    }))
}

/// `DROP FUNCTION [IF EXISTS] name [ON CLUSTER c]`: the name and whether IF EXISTS.
pub fn parse_drop_function(sql: &str) -> Result<Option<(String, bool)>> {
    let dialect = StrataDialect;
    let mut parser = clickhouse_parser(&dialect, sql)?;
    if !parser.parse_keywords(&[Keyword::DROP, Keyword::FUNCTION]) {
        return Ok(None);
    }
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser
        .parse_identifier()
        .map_err(|e| parser_error(sql, e))?;
    if parse_word(&mut parser, "ON") {
        if !parse_word(&mut parser, "CLUSTER") {
            return Err(syntax_error(sql, "expected CLUSTER after ON"));
        }
        parser
            .parse_identifier()
            .map_err(|e| parser_error(sql, e))?;
    }
    expect_end(sql, &mut parser)?;
    Ok(Some((name.value, if_exists)))
}

/// Replaces every call of a user function in `statement` by its expression.
/// A select item that calls one keeps the name the call gives it.
pub fn inline_calls(
    statement: &mut Statement,
    find: &dyn Fn(&str) -> Option<UserFunction>,
) -> Result<()> {
    let mut inliner = Inliner { find };
    match statement.visit(&mut inliner) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(error) => Err(error),
    }
}

struct Inliner<'a> {
    find: &'a dyn Fn(&str) -> Option<UserFunction>,
}

impl VisitorMut for Inliner<'_> {
    type Break = StrataError;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<StrataError> {
        let SetExpr::Select(select) = query.body.as_mut() else {
            return ControlFlow::Continue(());
        };
        for item in &mut select.projection {
            if let SelectItem::UnnamedExpr(expr) = item
                && calls_any(expr, self.find)
            {
                let alias = Ident::with_quote('`', column_name(expr));
                *item = SelectItem::ExprWithAlias {
                    expr: expr.clone(),
                    alias,
                };
            }
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<StrataError> {
        match expand(expr, self.find, 0) {
            Ok(()) => ControlFlow::Continue(()),
            Err(error) => ControlFlow::Break(error),
        }
    }
}

/// Whether `expr` calls a user function.
fn calls_any(expr: &Expr, find: &dyn Fn(&str) -> Option<UserFunction>) -> bool {
    use datafusion::sql::sqlparser::ast::visit_expressions;
    visit_expressions(expr, |e| match e {
        Expr::Function(f) if find(&f.name.to_string()).is_some() => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Expands `expr` if it is a call of a user function, then the calls its
/// expansion brings in (its arguments were expanded before).
fn expand(
    expr: &mut Expr,
    find: &dyn Fn(&str) -> Option<UserFunction>,
    depth: usize,
) -> Result<()> {
    let Expr::Function(call) = expr else {
        return Ok(());
    };
    let Some(function) = find(&call.name.to_string()) else {
        return Ok(());
    };
    if depth >= MAX_EXPANSION_DEPTH {
        return Err(StrataError::new(
            ErrorCode::TOO_DEEP_RECURSION,
            format!(
                "Function {} calls user functions more than {MAX_EXPANSION_DEPTH} deep: it calls itself",
                function.name
            ),
        ));
    }
    let arguments: Vec<Expr> = unnamed_arguments(&call.args).into_iter().cloned().collect();
    if arguments.len() != function.parameters.len() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Lambda {} expect {} arguments. Actual: {}.",
                function.lambda_text(),
                function.parameters.len(),
                arguments.len()
            ),
        ));
    }
    let mut body = function.body.clone();
    substitute(&mut body, &function.parameters, &arguments);
    let mut result = Ok(());
    let _ = datafusion::sql::sqlparser::ast::visit_expressions_mut(&mut body, |e| {
        if let Err(error) = expand(e, find, depth + 1) {
            result = Err(error);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    result?;
    *expr = Expr::Nested(Box::new(body));
    Ok(())
}

/// Puts each argument, parenthesized, where the body names its parameter,
/// except inside a lambda that names the parameter again.
fn substitute(body: &mut Expr, parameters: &[Ident], arguments: &[Expr]) {
    let mut substitute = Substitute {
        parameters,
        arguments,
        shadowed: Vec::new(),
    };
    let _ = body.visit(&mut substitute);
}

struct Substitute<'a> {
    parameters: &'a [Ident],
    arguments: &'a [Expr],
    /// The parameters of the lambdas the visit is in.
    shadowed: Vec<Vec<String>>,
}

impl VisitorMut for Substitute<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Lambda(lambda) = expr {
            let bound = match &lambda.params {
                OneOrManyWithParens::One(p) => vec![p.name.value.clone()],
                OneOrManyWithParens::Many(ps) => ps.iter().map(|p| p.name.value.clone()).collect(),
            };
            self.shadowed.push(bound);
        }
        ControlFlow::Continue(())
    }

    // After the children: an argument put in place is not visited again.
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::Lambda(_) => {
                self.shadowed.pop();
            }
            Expr::Identifier(ident) => {
                let shadowed = self.shadowed.iter().flatten().any(|n| *n == ident.value);
                let position = self.parameters.iter().position(|p| p.value == ident.value);
                if let (false, Some(i)) = (shadowed, position) {
                    *expr = Expr::Nested(Box::new(self.arguments[i].clone()));
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}
