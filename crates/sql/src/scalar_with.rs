//! ClickHouse's `WITH <expression> AS <name>`: a named constant or scalar
//! subquery, usable anywhere in the query that follows
//! (`WITH 10 AS n SELECT number FROM numbers(n)`).
//!
//! sqlparser reads only common table expressions (`WITH name AS (query)`),
//! so a statement it refuses that begins with WITH is read again here: a
//! list of `expression AS name`, then the query, whose uses of the names are
//! replaced by the expressions (a name wins over a column, as an alias does
//! in ClickHouse); an expression without a name is dropped. A list mixing
//! these with common table expressions is still refused.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Query, SelectItem, SetExpr, Statement, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::Dialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Location, Token, Tokenizer};

use crate::naming::column_name;

/// The query of `sql` if it is `WITH expr AS name [, ...] <query>`.
pub fn parse(dialect: &dyn Dialect, sql: &str, recursion_limit: usize) -> Option<Statement> {
    let tokens = crate::clickhouse_tokens::tokenize(dialect, sql).ok()?;
    let mut parser = Parser::new(dialect)
        .with_recursion_limit(recursion_limit)
        .with_tokens_with_locations(tokens);
    if !parser.parse_keyword(Keyword::WITH) {
        return None;
    }
    let mut names: Vec<(String, Expr)> = Vec::new();
    loop {
        let mut expr = parser.parse_expr().ok()?;
        // An expression without a name is of no use to the query
        // (`WITH dummy = 2 SELECT 1`): ClickHouse drops its value.
        if parser.parse_keyword(Keyword::AS) {
            let name = parser.parse_identifier().ok()?;
            // A later name may use an earlier one.
            replace_names(&mut expr, &names);
            names.push((name.value, expr));
        }
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    let mut query = parser.parse_query().ok()?;
    while parser.consume_token(&Token::SemiColon) {}
    if parser.peek_token().token != Token::EOF {
        return None;
    }
    keep_item_names(&mut query, &names);
    let _ = query.visit(&mut Replacer { names: &names });
    Some(Statement::Query(query))
}

/// `sql` with each subquery `(WITH expr AS name ... SELECT ...)`, and the
/// query of a `CREATE ... AS WITH expr AS name ...`, read as above and
/// written back as a plain query; None when there is none.
/// The last such subquery is taken first: none is nested inside it.
pub fn rewrite_subqueries(
    dialect: &dyn Dialect,
    sql: &str,
    recursion_limit: usize,
) -> Option<String> {
    let mut text = sql.to_string();
    let mut changed = false;
    // Each round replaces one subquery, so the rounds are bounded by them.
    for _ in 0..MAX_SUBQUERIES {
        let tokens = Tokenizer::new(dialect, &crate::source_text::normalize(&text))
            .with_unescape(false)
            .tokenize_with_location()
            .ok()?;
        let creates = tokens
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .is_some_and(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::CREATE));
        let Some((start, end, query)) = (0..tokens.len()).rev().find_map(|before| {
            let with = (before + 1..tokens.len())
                .find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))?;
            if !matches!(&tokens[with].token, Token::Word(w) if w.keyword == Keyword::WITH) {
                return None;
            }
            // A subquery `(WITH ...)`, or the query of `CREATE ... AS WITH ...`,
            // which runs to the statement's end.
            let end = match &tokens[before].token {
                Token::LParen => {
                    let close = crate::clickhouse_tokens::matching_close(&tokens, before)?;
                    offset(&text, tokens[close].span.start)?
                }
                Token::Word(w) if creates && w.keyword == Keyword::AS => {
                    text.trim_end().trim_end_matches(';').len()
                }
                _ => return None,
            };
            let start = offset(&text, tokens[with].span.start)?;
            let query = parse(dialect, &text[start..end], recursion_limit)?;
            Some((start, end, query))
        }) else {
            break;
        };
        text.replace_range(start..end, &query.to_string());
        changed = true;
    }
    changed.then_some(text)
}

/// The most `(WITH ...)` subqueries one statement has read.
const MAX_SUBQUERIES: usize = 64;

/// The byte offset of a tokenizer location (1-based line and character).
fn offset(text: &str, location: Location) -> Option<usize> {
    let line_start = match location.line {
        0 => return None,
        1 => 0,
        n => text.match_indices('\n').nth(n as usize - 2)?.0 + 1,
    };
    let column = usize::try_from(location.column).ok()?.checked_sub(1)?;
    let line = &text[line_start..];
    Some(
        line_start
            + line
                .char_indices()
                .nth(column)
                .map_or(line.len(), |(i, _)| i),
    )
}

/// Select items are named as written, with the names, as ClickHouse names
/// them (`multiply(number, n)`), before the names are replaced.
fn keep_item_names(query: &mut Query, names: &[(String, Expr)]) {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return;
    };
    for item in &mut select.projection {
        let SelectItem::UnnamedExpr(expr) = item else {
            continue;
        };
        let column = match &*expr {
            Expr::Identifier(ident) if names.iter().any(|(name, _)| *name == ident.value) => {
                ident.value.clone()
            }
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => continue,
            other => column_name(other),
        };
        *item = SelectItem::ExprWithAlias {
            expr: expr.clone(),
            alias: Ident::with_quote('"', column),
        };
    }
}

fn replace_names(expr: &mut Expr, names: &[(String, Expr)]) {
    let _ = expr.visit(&mut Replacer { names });
}

struct Replacer<'a> {
    names: &'a [(String, Expr)],
}

impl VisitorMut for Replacer<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(ident) = expr
            && let Some((_, definition)) = self.names.iter().find(|(name, _)| *name == ident.value)
        {
            *expr = Expr::Nested(Box::new(definition.clone()));
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;

    use super::*;

    fn read(sql: &str) -> Option<String> {
        parse(&ClickHouseDialect {}, sql, 64).map(|s| s.to_string())
    }

    #[test]
    fn subqueries_take_their_own_names() {
        let rewritten = rewrite_subqueries(
            &ClickHouseDialect {},
            "SELECT * FROM (WITH 2 AS x SELECT x) AS a,\n (WITH 'é' AS y SELECT y)",
            64,
        );
        assert_eq!(
            rewritten.as_deref(),
            Some("SELECT * FROM (SELECT (2) AS \"x\") AS a,\n (SELECT ('é') AS \"y\")")
        );
        assert_eq!(
            rewrite_subqueries(&ClickHouseDialect {}, "SELECT (1)", 64),
            None
        );
    }

    #[test]
    fn names_are_replaced_by_their_expressions() {
        assert_eq!(
            read("WITH 2 AS n, n * 3 AS m SELECT number * m, n FROM numbers(n)").as_deref(),
            Some(
                "SELECT number * ((2) * 3) AS \"multiply(number, m)\", (2) AS \"n\" FROM numbers((2))"
            )
        );
    }

    #[test]
    fn other_statements_are_not_read() {
        assert_eq!(read("WITH t AS (SELECT 1) SELECT * FROM t"), None);
        assert_eq!(read("WITH 1 AS x SELECT x garbage garbage"), None);
        assert_eq!(read("SELECT 1"), None);
    }
}
