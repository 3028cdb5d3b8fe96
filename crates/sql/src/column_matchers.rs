//! ClickHouse's column matchers and their transformers in the select list:
//! `COLUMNS('regexp')`, `COLUMNS(a, b)`, `*` and `t.*`, each followed by
//! any chain of `APPLY(f)`, `EXCEPT(...)` and `REPLACE(expr AS name, ...)`,
//! as in `SELECT COLUMNS('^price') APPLY(sum) FROM t`.
//!
//! Two phases:
//! - on the tokens ([`encode`]), a chain sqlparser cannot read becomes
//!   nested calls it can: `* EXCEPT (b) APPLY(sum)` is
//!   `__matcher_apply(__matcher_except(__matcher_star(), b), sum)`. A bare
//!   `* EXCEPT (...)` of names or `* REPLACE (...)` is left to sqlparser.
//! - on the statement, one SELECT at a time, innermost first, given the
//!   columns of its FROM ([`crate::select_probes`]): [`expand`] writes each matcher as
//!   the expressions it stands for, in the select list or in a function's
//!   arguments (`concat(COLUMNS('^s'))`).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Query, Select, SelectItem, Value, Visit, VisitMut, Visitor,
    VisitorMut, visit_expressions_mut,
};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan};
use strata_common::{ErrorCode, Result, StrataError};

use crate::clickhouse_tokens::{is_space, keyword, matching_close, next_significant, with_token};
use crate::literal_text::string_value;
use crate::select_probes::{SourceColumn, qualified};

const COLUMNS: &str = "columns";
const STAR: &str = "__matcher_star";
const APPLY: &str = "__matcher_apply";
const EXCEPT: &str = "__matcher_except";
const EXCEPT_STRICT: &str = "__matcher_except_strict";
const REPLACE: &str = "__matcher_replace";

// ---------------------------------------------------------------------------
// Tokens

/// One transformer after a matcher: its call name and the tokens inside its
/// brackets (or its one word).
struct Transformer {
    call: &'static str,
    content: Vec<TokenWithSpan>,
}

/// Rewrites every matcher with transformers into nested calls.
pub(crate) fn encode(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some((matcher, is_star, after)) = matcher_at(&tokens, i, &out) {
            let (chain, end) = transformers(&tokens, after);
            let applies = chain.iter().any(|t| t.call == APPLY);
            // sqlparser reads `* EXCEPT ('regexp')` as a column's name.
            let excepts_pattern = chain.iter().any(|t| {
                matches!(t.call, EXCEPT | EXCEPT_STRICT)
                    && t.content
                        .iter()
                        .any(|token| matches!(token.token, Token::SingleQuotedString(_)))
            });
            if !chain.is_empty() && (applies || excepts_pattern || !is_star) {
                out.extend(encode_chain(matcher, chain));
                i = end;
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// The matcher starting at `i`, as tokens to encode, whether it is a
/// wildcard, and the index past it.
fn matcher_at(
    tokens: &[TokenWithSpan],
    i: usize,
    before: &[TokenWithSpan],
) -> Option<(Vec<TokenWithSpan>, bool, usize)> {
    let at = &tokens[i];
    let next = next_significant(tokens, i + 1);
    if let Token::Word(w) = &at.token
        && w.quote_style.is_none()
        && w.value.eq_ignore_ascii_case(COLUMNS)
        && next.is_some_and(|n| tokens[n].token == Token::LParen)
    {
        let close = matching_close(tokens, next?)?;
        return Some((tokens[i..=close].to_vec(), false, close + 1));
    }
    if !starts_select_item(before) {
        return None;
    }
    if at.token == Token::Mul {
        return Some((call(at, STAR, Vec::new()), true, i + 1));
    }
    // `a.b.*`: words joined by periods, ending in `*`.
    let mut qualifier = Vec::new();
    let mut j = i;
    while let Token::Word(w) = &tokens.get(j)?.token {
        qualifier.push(w.value.clone());
        if tokens.get(j + 1)?.token != Token::Period {
            return None;
        }
        j += 2;
    }
    if qualifier.is_empty() || tokens[j].token != Token::Mul {
        return None;
    }
    let name = with_token(at, Token::SingleQuotedString(qualifier.join(".")));
    Some((call(at, STAR, vec![name]), true, j + 1))
}

/// Whether a select item starts after `before`.
fn starts_select_item(before: &[TokenWithSpan]) -> bool {
    before.iter().rev().find(|t| !is_space(t)).is_some_and(|t| {
        t.token == Token::Comma || matches!(keyword(t), Keyword::SELECT | Keyword::DISTINCT)
    })
}

/// The transformers from `i` on, and the index past the last.
fn transformers(tokens: &[TokenWithSpan], mut i: usize) -> (Vec<Transformer>, usize) {
    let mut chain = Vec::new();
    while let Some(word) = next_significant(tokens, i) {
        let call = match keyword(&tokens[word]) {
            Keyword::APPLY => APPLY,
            Keyword::EXCEPT => EXCEPT,
            Keyword::REPLACE => REPLACE,
            _ => break,
        };
        let Some(mut start) = next_significant(tokens, word + 1) else {
            break;
        };
        let strict = call != APPLY && is_word(&tokens[start], "STRICT");
        if strict {
            match next_significant(tokens, start + 1) {
                Some(s) => start = s,
                None => break,
            }
        }
        let Some((content, end)) = transformer_argument(tokens, start) else {
            break;
        };
        let call = if strict && call == EXCEPT {
            EXCEPT_STRICT
        } else {
            call
        };
        chain.push(Transformer { call, content });
        i = end;
    }
    (chain, i)
}

/// What a transformer word takes: the tokens inside `( ... )`, or one name
/// or string. `EXCEPT (SELECT ...)` is a set operation, not a transformer.
fn transformer_argument(
    tokens: &[TokenWithSpan],
    start: usize,
) -> Option<(Vec<TokenWithSpan>, usize)> {
    let token = &tokens[start];
    if token.token == Token::LParen {
        let close = matching_close(tokens, start)?;
        let first = next_significant(tokens, start + 1)?;
        if matches!(keyword(&tokens[first]), Keyword::SELECT | Keyword::WITH) {
            return None;
        }
        return Some((tokens[start + 1..close].to_vec(), close + 1));
    }
    let single = match &token.token {
        Token::Word(w) => w.quote_style.is_some() || !is_clause_word(keyword(token)),
        Token::SingleQuotedString(_) => true,
        _ => false,
    };
    single.then(|| (vec![token.clone()], start + 1))
}

fn is_clause_word(k: Keyword) -> bool {
    matches!(
        k,
        Keyword::SELECT
            | Keyword::FROM
            | Keyword::WHERE
            | Keyword::GROUP
            | Keyword::ORDER
            | Keyword::LIMIT
            | Keyword::WITH
            | Keyword::ALL
            | Keyword::DISTINCT
    )
}

fn is_word(token: &TokenWithSpan, word: &str) -> bool {
    matches!(&token.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// `name(args)` as tokens, placed at `at`.
fn call(at: &TokenWithSpan, name: &str, args: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out = vec![
        with_token(at, Token::make_word(name, None)),
        with_token(at, Token::LParen),
    ];
    out.extend(args);
    out.push(with_token(at, Token::RParen));
    out
}

fn encode_chain(matcher: Vec<TokenWithSpan>, chain: Vec<Transformer>) -> Vec<TokenWithSpan> {
    let mut encoded = matcher;
    for transformer in chain {
        let at = encoded[0].clone();
        let content = if transformer.call == REPLACE {
            replacements(transformer.content)
        } else {
            transformer.content
        };
        let mut args = encoded;
        args.push(with_token(&at, Token::Comma));
        args.extend(content);
        encoded = call(&at, transformer.call, args);
    }
    encoded
}

/// `e1 AS n1, e2 AS n2` as the arguments `'n1', (e1), 'n2', (e2)`; an item
/// without `AS` stays as written, for the expansion to refuse.
fn replacements(content: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out = Vec::new();
    for item in top_level_items(&content) {
        if !out.is_empty() {
            out.push(with_token(&item[0], Token::Comma));
        }
        let alias = (0..item.len())
            .rev()
            .find(|&i| keyword(&item[i]) == Keyword::AS && depth_at(item, i) == 0);
        let name = alias
            .and_then(|a| next_significant(item, a + 1))
            .map(|n| &item[n]);
        match (alias, name.map(|n| &n.token)) {
            (Some(a), Some(Token::Word(w))) => {
                let at = &item[0];
                out.push(with_token(at, Token::SingleQuotedString(w.value.clone())));
                out.push(with_token(at, Token::Comma));
                out.push(with_token(at, Token::LParen));
                out.extend(item[..a].iter().cloned());
                out.push(with_token(at, Token::RParen));
            }
            _ => out.extend(item.iter().cloned()),
        }
    }
    out
}

/// The comma-separated items of a bracket's content.
fn top_level_items(content: &[TokenWithSpan]) -> Vec<&[TokenWithSpan]> {
    let mut items = Vec::new();
    let mut start = 0;
    for i in 0..content.len() {
        if content[i].token == Token::Comma && depth_at(content, i) == 0 {
            items.push(&content[start..i]);
            start = i + 1;
        }
    }
    items.push(&content[start..]);
    items.retain(|item| item.iter().any(|t| !is_space(t)));
    items
}

/// How many brackets are open at `at`.
fn depth_at(tokens: &[TokenWithSpan], at: usize) -> usize {
    let mut depth = 0usize;
    for token in &tokens[..at] {
        match token.token {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

// ---------------------------------------------------------------------------
// Statement

/// Whether the select list holds a matcher.
pub(crate) fn has_matcher(select: &Select) -> bool {
    let in_items = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => holds_matcher(e),
        _ => false,
    });
    in_items || select.selection.as_ref().is_some_and(holds_matcher)
}

fn matcher_name(expr: &Expr) -> Option<String> {
    let Expr::Function(f) = expr else { return None };
    call_matcher_name(f)
}

fn call_matcher_name(f: &Function) -> Option<String> {
    let name = f.name.to_string().to_ascii_lowercase();
    (name == COLUMNS || name.starts_with("__matcher_")).then_some(name)
}

/// Whether `expr` is a matcher or holds a call with one among its
/// arguments, at any depth outside its subqueries.
fn holds_matcher(expr: &Expr) -> bool {
    struct Finder {
        subqueries: usize,
    }
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.subqueries += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.subqueries -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            match expr {
                Expr::Function(f) if self.subqueries == 0 && calls_matcher(f) => {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    matcher_name(expr).is_some() || Visit::visit(expr, &mut Finder { subqueries: 0 }).is_break()
}

fn calls_matcher(f: &Function) -> bool {
    let FunctionArguments::List(list) = &f.args else {
        return false;
    };
    list.args.iter().any(|arg| match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => matcher_name(e).is_some(),
        FunctionArg::Unnamed(FunctionArgExpr::Wildcard | FunctionArgExpr::QualifiedWildcard(_)) => {
            spreads_wildcards(f)
        }
        _ => false,
    })
}

/// Whether `f(*)` stands for `f` of every column, as in `tuple(*)` or
/// `cityHash64(*)`; `count(*)` counts rows instead.
fn spreads_wildcards(f: &Function) -> bool {
    !f.name.to_string().eq_ignore_ascii_case("count")
}

/// Writes out the matchers of `select`, given the columns of its FROM.
pub(crate) fn expand(select: &mut Select, columns: &[SourceColumn]) -> Result<()> {
    if !has_matcher(select) {
        return Ok(());
    }
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::UnnamedExpr(expr) if matcher_name(&expr).is_some() => {
                for column in matched(&expr, columns)? {
                    projection.push(column.into_item());
                }
            }
            SelectItem::UnnamedExpr(mut expr) => {
                expand_arguments(&mut expr, columns)?;
                projection.push(SelectItem::UnnamedExpr(expr));
            }
            SelectItem::ExprWithAlias { mut expr, alias } => {
                expand_arguments(&mut expr, columns)?;
                projection.push(SelectItem::ExprWithAlias { expr, alias });
            }
            other => projection.push(other),
        }
    }
    if projection.is_empty() {
        return Err(StrataError::new(
            ErrorCode::EMPTY_LIST_OF_COLUMNS_QUERIED,
            "Empty list of columns in projection",
        ));
    }
    select.projection = projection;
    // `WHERE NOT ignore(*)`: calls of the WHERE spread their matchers too.
    if let Some(selection) = &mut select.selection {
        expand_arguments(selection, columns)?;
    }
    Ok(())
}

/// Replaces matchers among calls' arguments, at any depth outside
/// subqueries (each expanded with its own FROM), by the expressions they
/// stand for.
fn expand_arguments(expr: &mut Expr, columns: &[SourceColumn]) -> Result<()> {
    struct Expander<'a> {
        columns: &'a [SourceColumn],
        subqueries: usize,
    }
    impl VisitorMut for Expander<'_> {
        type Break = StrataError;
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<StrataError> {
            self.subqueries += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<StrataError> {
            self.subqueries -= 1;
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<StrataError> {
            match expr {
                // A matcher's own arguments are its chain, read when it expands.
                Expr::Function(f) if self.subqueries == 0 && call_matcher_name(f).is_none() => {
                    match expand_call(f, self.columns) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(e) => ControlFlow::Break(e),
                    }
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    let mut expander = Expander {
        columns,
        subqueries: 0,
    };
    match VisitMut::visit(expr, &mut expander) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

fn expand_call(f: &mut Function, columns: &[SourceColumn]) -> Result<()> {
    let spreads = spreads_wildcards(f);
    let FunctionArguments::List(list) = &mut f.args else {
        return Ok(());
    };
    let mut args = Vec::with_capacity(list.args.len());
    for arg in std::mem::take(&mut list.args) {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if matcher_name(&e).is_some() => {
                push_columns(&mut args, matched(&e, columns)?);
            }
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if spreads => {
                push_columns(&mut args, star(&[], columns)?);
            }
            FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(relation)) if spreads => {
                let written = relation_name(&relation);
                let qualifier = Expr::value(Value::SingleQuotedString(written));
                push_columns(&mut args, star(&[qualifier], columns)?);
            }
            other => args.push(other),
        }
    }
    list.args = args;
    Ok(())
}

fn push_columns(args: &mut Vec<FunctionArg>, columns: Vec<Matched>) {
    for column in columns {
        args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(column.expr)));
    }
}

/// `db.t` of `db.t.*`, as the matcher's qualifier is written.
fn relation_name(relation: &ObjectName) -> String {
    let parts: Vec<String> = relation
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => ident.value.clone(),
            other => other.to_string(),
        })
        .collect();
    parts.join(".")
}

/// One column a matcher stands for, as its transformers made it.
struct Matched {
    /// The source column's name, which EXCEPT and REPLACE refer to.
    source: String,
    expr: Expr,
    /// The name REPLACE gave it, until an APPLY wraps it.
    alias: Option<Ident>,
}

impl Matched {
    fn into_item(self) -> SelectItem {
        match self.alias {
            Some(alias) => SelectItem::ExprWithAlias {
                expr: self.expr,
                alias,
            },
            None => SelectItem::UnnamedExpr(self.expr),
        }
    }
}

/// The columns a matcher expression stands for, in order.
fn matched(expr: &Expr, columns: &[SourceColumn]) -> Result<Vec<Matched>> {
    let Some(name) = matcher_name(expr) else {
        return Err(bad_matcher(&format!("{expr} is not a column matcher")));
    };
    let Expr::Function(f) = expr else {
        unreachable!("matcher_name saw a call")
    };
    let args = arguments(f)?;
    match name.as_str() {
        COLUMNS => columns_matcher(&args, columns),
        STAR => star(&args, columns),
        _ => {
            let [inner, rest @ ..] = args.as_slice() else {
                return Err(bad_matcher("a transformer needs a matcher"));
            };
            let matched = self::matched(inner, columns)?;
            match name.as_str() {
                APPLY => apply(matched, rest),
                EXCEPT => except(matched, rest, false),
                EXCEPT_STRICT => except(matched, rest, true),
                REPLACE => replace(matched, rest),
                _ => Err(bad_matcher(&format!("unknown transformer {name}"))),
            }
        }
    }
}

fn arguments(f: &Function) -> Result<Vec<Expr>> {
    let FunctionArguments::List(list) = &f.args else {
        return Ok(Vec::new());
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e.clone()),
            other => Err(bad_matcher(&format!("unexpected argument {other}"))),
        })
        .collect()
}

fn bad_matcher(message: &str) -> StrataError {
    StrataError::new(ErrorCode::BAD_ARGUMENTS, message.to_string())
}

/// The source columns as expressions: qualified where their name repeats.
fn column_exprs<'a>(
    columns: &'a [SourceColumn],
    keep: impl Fn(&SourceColumn) -> bool + 'a,
) -> impl Iterator<Item = Matched> + 'a {
    columns.iter().filter(move |c| keep(c)).map(|c| {
        let repeated = columns.iter().filter(|o| o.name == c.name).count() > 1;
        let expr = match (&c.qualifier, repeated) {
            (Some(q), true) => qualified(q, &c.name),
            _ => Expr::Identifier(Ident::with_quote('"', &c.name)),
        };
        Matched {
            source: c.name.clone(),
            expr,
            alias: None,
        }
    })
}

/// `COLUMNS('regexp')` (columns whose name the expression finds) or
/// `COLUMNS(a, b)` (those columns).
fn columns_matcher(args: &[Expr], columns: &[SourceColumn]) -> Result<Vec<Matched>> {
    if let [pattern] = args
        && let Some(pattern) = string_value(pattern)
    {
        let regex = compile(&pattern)?;
        return Ok(column_exprs(columns, |c| regex.is_match(&c.name)).collect());
    }
    args.iter()
        .map(|arg| match arg {
            Expr::Identifier(ident) => Ok(Matched {
                source: ident.value.clone(),
                expr: arg.clone(),
                alias: None,
            }),
            Expr::CompoundIdentifier(parts) => Ok(Matched {
                source: parts.last().map(|p| p.value.clone()).unwrap_or_default(),
                expr: arg.clone(),
                alias: None,
            }),
            other => Err(bad_matcher(&format!(
                "COLUMNS takes a regular expression or column names, not {other}"
            ))),
        })
        .collect()
}

fn compile(pattern: &str) -> Result<regex::Regex> {
    regex::Regex::new(pattern).map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_COMPILE_REGEXP,
            format!("COLUMNS pattern {pattern} cannot be compiled: {e}"),
        )
    })
}

/// `*` or `t.*`: every column, or those of relation `t`.
fn star(args: &[Expr], columns: &[SourceColumn]) -> Result<Vec<Matched>> {
    let qualifier = args.first().and_then(string_value);
    let Some(qualifier) = qualifier else {
        return Ok(column_exprs(columns, |_| true).collect());
    };
    Ok(column_exprs(columns, move |c| c.of_relation(&qualifier)).collect())
}

/// `APPLY(f)`: `f(column)` for a function name, `f(params)(column)` for a
/// parametric one, the body with the column for a lambda `x -> body`.
fn apply(matched: Vec<Matched>, rest: &[Expr]) -> Result<Vec<Matched>> {
    let [function] = rest else {
        return Err(bad_matcher("APPLY takes one function"));
    };
    matched
        .into_iter()
        .map(|m| {
            let expr = applied(function, m.expr)?;
            Ok(Matched {
                source: m.source,
                expr,
                alias: None,
            })
        })
        .collect()
}

fn applied(function: &Expr, column: Expr) -> Result<Expr> {
    let one_argument = |column: Expr| {
        FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(column))],
            clauses: Vec::new(),
        })
    };
    match function {
        Expr::Identifier(name) => Ok(Expr::Function(Function {
            name: ObjectName::from(vec![name.clone()]),
            uses_odbc_syntax: false,
            parameters: FunctionArguments::None,
            args: one_argument(column),
            filter: None,
            null_treatment: None,
            over: None,
            within_group: Vec::new(),
        })),
        Expr::Function(f) if matches!(f.parameters, FunctionArguments::None) => {
            let mut call = f.clone();
            call.parameters = std::mem::replace(&mut call.args, one_argument(column));
            Ok(Expr::Function(call))
        }
        Expr::Lambda(lambda) => {
            let [param] = &*lambda.params else {
                return Err(bad_matcher("a lambda in APPLY takes one argument"));
            };
            let mut body = (*lambda.body).clone();
            substitute(&mut body, &param.name.value, &column);
            Ok(body)
        }
        other => Err(bad_matcher(&format!("APPLY takes a function, not {other}"))),
    }
}

/// Replaces every bare `name` in `expr` by `with`.
fn substitute(expr: &mut Expr, name: &str, with: &Expr) {
    let _ = visit_expressions_mut(expr, |e| {
        if matches!(e, Expr::Identifier(i) if i.value == name) {
            *e = with.clone();
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `EXCEPT(a, b)` drops those columns; `EXCEPT('regexp')` the columns it
/// finds. STRICT fails for a name that matched nothing.
fn except(matched: Vec<Matched>, rest: &[Expr], strict: bool) -> Result<Vec<Matched>> {
    if let [pattern] = rest
        && let Some(pattern) = string_value(pattern)
    {
        let regex = compile(&pattern)?;
        return Ok(matched
            .into_iter()
            .filter(|m| !regex.is_match(&m.source))
            .collect());
    }
    let names: Vec<String> = rest.iter().map(named).collect::<Result<_>>()?;
    if strict
        && let Some(missing) = names
            .iter()
            .find(|n| !matched.iter().any(|m| &m.source == *n))
    {
        return Err(bad_matcher(&format!(
            "Strict EXCEPT expects the column {missing}, which the matcher does not match"
        )));
    }
    Ok(matched
        .into_iter()
        .filter(|m| !names.contains(&m.source))
        .collect())
}

fn named(expr: &Expr) -> Result<String> {
    match expr {
        Expr::Identifier(ident) => Ok(ident.value.clone()),
        Expr::CompoundIdentifier(parts) => {
            Ok(parts.last().map(|p| p.value.clone()).unwrap_or_default())
        }
        other => Err(bad_matcher(&format!("expected a column name, got {other}"))),
    }
}

/// `REPLACE(expr AS name, ...)`: the column `name` becomes `expr`, keeping
/// its name.
fn replace(matched: Vec<Matched>, rest: &[Expr]) -> Result<Vec<Matched>> {
    let mut pairs = Vec::new();
    for pair in rest.chunks(2) {
        let [name, expr] = pair else {
            return Err(bad_matcher("REPLACE takes `expr AS name` items"));
        };
        let Some(name) = string_value(name) else {
            return Err(bad_matcher("REPLACE takes `expr AS name` items"));
        };
        pairs.push((name, expr));
    }
    Ok(matched
        .into_iter()
        .map(|m| match pairs.iter().find(|(name, _)| *name == m.source) {
            Some((name, expr)) => Matched {
                expr: (*expr).clone(),
                alias: Some(Ident::with_quote('"', name)),
                source: m.source,
            },
            None => m,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickhouse_tokens::tests::text;
    use crate::{parse_statement, select_probes};

    #[test]
    fn chains_become_nested_calls() {
        assert_eq!(
            text("SELECT * EXCEPT (b) APPLY(sum) FROM t"),
            "SELECT __matcher_apply ( __matcher_except ( __matcher_star ( ) , b ) , sum ) FROM t"
        );
        assert_eq!(
            text("SELECT t.* APPLY toString FROM t"),
            "SELECT __matcher_apply ( __matcher_star ( 't' ) , toString ) FROM t"
        );
        assert_eq!(
            text("SELECT COLUMNS('a') REPLACE (a + 1 AS a) FROM t"),
            "SELECT __matcher_replace ( COLUMNS ( 'a' ) , 'a' , ( a + 1 ) ) FROM t"
        );
    }

    #[test]
    fn what_sqlparser_reads_stays() {
        for sql in [
            "SELECT * EXCEPT (b) FROM t",
            "SELECT count(*), a * b FROM t",
            "SELECT COLUMNS('a') FROM t EXCEPT (SELECT 1)",
            "SELECT * FROM t EXCEPT SELECT * FROM u",
        ] {
            assert!(!text(sql).contains("__matcher"), "{sql}");
        }
    }

    fn expanded(sql: &str, columns: &[(&str, &str)]) -> String {
        let columns: Vec<SourceColumn> = columns
            .iter()
            .map(|(q, n)| SourceColumn {
                qualifier: (!q.is_empty()).then(|| q.to_string()),
                name: n.to_string(),
            })
            .collect();
        let mut statement = parse_statement(sql).unwrap().statement;
        let mut n = 0;
        while select_probes::next_probe(&mut statement, n).is_some() {
            if select_probes::rewrite_next(&mut statement, n, &columns).unwrap() {
                n += 1;
            }
        }
        statement.to_string()
    }

    #[test]
    fn matchers_expand_in_order() {
        let t = [("t", "a"), ("t", "ab"), ("t", "c")];
        assert_eq!(
            expanded("SELECT COLUMNS('^a') APPLY(x -> x + 1) FROM t", &t),
            r#"SELECT "a" + 1, "ab" + 1 FROM t"#
        );
        assert_eq!(
            expanded("SELECT * EXCEPT (ab) APPLY(quantiles(0.5)) FROM t", &t),
            r#"SELECT quantiles(0.5)("a"), quantiles(0.5)("c") FROM t"#
        );
        assert_eq!(
            expanded("SELECT concat(COLUMNS('b|c')) FROM t", &t),
            r#"SELECT concat("ab", "c") FROM t"#
        );
        let joined = [("l", "a"), ("r", "a")];
        assert_eq!(
            expanded("SELECT r.* APPLY(f), COLUMNS('a') FROM l, r", &joined),
            r#"SELECT f("r"."a") AS "f(r.a)", "l"."a", "r"."a" AS "r.a" FROM l, r"#
        );
    }

    #[test]
    fn probes_keep_the_with_clause() {
        let mut statement =
            parse_statement("WITH s AS (SELECT 1 AS a) SELECT COLUMNS('a') FROM s WHERE a > 0")
                .unwrap()
                .statement;
        let probe = select_probes::next_probe(&mut statement, 0).unwrap();
        assert_eq!(
            probe.query.to_string(),
            "WITH s AS (SELECT 1 AS a) SELECT * FROM s"
        );
    }

    #[test]
    fn an_empty_match_is_refused() {
        let mut statement = parse_statement("SELECT COLUMNS('z') FROM t")
            .unwrap()
            .statement;
        let columns = [SourceColumn {
            qualifier: None,
            name: "a".into(),
        }];
        let error = select_probes::rewrite_next(&mut statement, 0, &columns).unwrap_err();
        assert_eq!(error.code, ErrorCode::EMPTY_LIST_OF_COLUMNS_QUERIED);
    }
}
