//! The parts of `CREATE TABLE` that sqlparser does not read as ClickHouse
//! writes them: the engine clause (`ENGINE = MergeTree PARTITION BY ...
//! ORDER BY ... SETTINGS ...`, whose clauses come in any order) and column
//! `CODEC(...)`s and `INDEX` items. They are cut out of the statement's tokens and parsed
//! here; what is left is an ordinary `CREATE TABLE` for sqlparser.

use datafusion::sql::sqlparser::ast::Expr;
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer, Whitespace};
use strata_common::{ErrorCode, Result, StrataError, settings};

use crate::clickhouse_tokens::unescape;
use crate::constraints::{self, TableConstraint};
use crate::parser::syntax_error;
use crate::skip_index::{self, SkipIndex};
use crate::source_text::normalize;
use crate::ttl::TtlRule;

/// `ENGINE = Name(args) [PARTITION BY e] [ORDER BY e] [PRIMARY KEY e] [SAMPLE BY e] [SETTINGS k = v, ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineClause {
    pub name: String,
    pub arguments: Vec<Expr>,
    pub partition_by: Option<Expr>,
    pub order_by: Option<Expr>,
    pub primary_key: Option<Expr>,
    /// `SAMPLE BY e`: the key `SELECT ... SAMPLE` cuts its range of.
    pub sample_by: Option<Expr>,
    /// `SETTINGS` in the order written, values unquoted.
    pub settings: Vec<(String, String)>,
    /// `TTL` rules in the order written.
    pub ttl: Vec<TtlRule>,
    /// `COMMENT 'text'`, the table's.
    pub comment: Option<String>,
    /// `INDEX ...` items of the column list, in order.
    pub indexes: Vec<SkipIndex>,
}

impl EngineClause {
    /// `ENGINE = Memory`, what a temporary table gets when it names none.
    pub fn memory() -> Self {
        Self::named("Memory")
    }

    /// `ENGINE = name`, with no arguments or clauses.
    pub fn named(name: &str) -> Self {
        EngineClause {
            name: name.to_string(),
            arguments: Vec::new(),
            partition_by: None,
            order_by: None,
            primary_key: None,
            sample_by: None,
            settings: Vec::new(),
            ttl: Vec::new(),
            comment: None,
            indexes: Vec::new(),
        }
    }
}

/// The settings of the `Set` engine.
pub const SET_SETTINGS: &[&str] = &["persistent", "disk"];

/// The settings of the `Join` engine (some are query settings too).
pub const JOIN_SETTINGS: &[&str] = &[
    "persistent",
    "disk",
    "join_use_nulls",
    "join_any_take_last_row",
    "max_rows_in_join",
    "max_bytes_in_join",
    "join_overflow_mode",
];

impl EngineClause {
    /// Takes the query-level settings out of `SETTINGS` (ClickHouse applies
    /// them to the CREATE query itself), leaving the table's own.
    pub fn take_query_settings(&mut self) -> Vec<(String, String)> {
        let own: &[&str] = match self.name.as_str() {
            "Set" => SET_SETTINGS,
            "Join" => JOIN_SETTINGS,
            _ => &[],
        };
        let is_query_level = |name: &str| {
            !settings::is_merge_tree_setting(name)
                && !own.contains(&name)
                && settings::Scope::Query.find(name).is_some()
        };
        let (query, table) = std::mem::take(&mut self.settings)
            .into_iter()
            .partition(|(name, _)| is_query_level(name));
        self.settings = table;
        query
    }
}

/// A `CREATE TABLE` with its ClickHouse-only pieces taken out.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTableText {
    /// The statement without the engine clause and codecs.
    pub statement: String,
    pub engine: Option<EngineClause>,
    /// `CODEC(...)` arguments as written, by column position.
    pub codecs: Vec<(usize, String)>,
    /// `CONSTRAINT name CHECK | ASSUME expr` items of the column list.
    pub constraints: Vec<TableConstraint>,
    /// `AS [db.]table`: the table whose structure (and engine, when none
    /// is given) the new one takes.
    pub as_table: Option<String>,
    /// `AS function(args)`: a table that reads the table function, as
    /// written.
    pub as_function: Option<String>,
    /// `EMPTY AS SELECT`: the query gives the structure but no rows.
    pub empty: bool,
}

/// Whether `sql` starts a `CREATE TABLE` statement.
pub fn is_create_table(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(4)
        .map(str::to_ascii_uppercase)
        .collect();
    words.first().map(String::as_str) == Some("CREATE")
        && words[1..]
            .iter()
            .take_while(|w| matches!(w.as_str(), "OR" | "REPLACE" | "TEMPORARY" | "TABLE"))
            .any(|w| w == "TABLE")
}

/// Splits the engine clause and codecs off `sql`, a `CREATE TABLE` statement.
pub fn split_create_table(sql: &str) -> Result<CreateTableText> {
    let dialect = ClickHouseDialect {};
    // Strings stay as written, so the statement left keeps their escapes;
    // the engine clause's strings are read as ClickHouse reads them.
    let tokens = Tokenizer::new(&dialect, &normalize(sql))
        .with_unescape(false)
        .tokenize()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let mut kept = Vec::with_capacity(tokens.len());
    let mut codecs = Vec::new();
    let mut indexes = Vec::new();
    let mut declared_constraints = Vec::new();
    let mut engine = None;
    let mut depth = 0usize;
    let mut column = 0usize;
    let mut seen_columns = false;
    let mut as_table = None;
    let mut as_function = None;
    let mut seen_as = false;
    let mut empty = false;
    // Set where a column definition may start: its name is next.
    let mut column_start = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        if column_start && !matches!(token, Token::Whitespace(_)) {
            column_start = false;
            let is_index = skip_index::is_index_item(&tokens, i);
            if is_index || constraints::is_constraint_item(&tokens, i) {
                let end = skip_index::item_end(&tokens, i);
                let item = unescaped(&tokens[i..end]);
                match is_index {
                    true => indexes.push(skip_index::parse_index(sql, &item, parse_expr)?),
                    false => declared_constraints
                        .push(constraints::parse_constraint(sql, &item, parse_expr)?),
                }
                // The item leaves the list with a comma: the one before it,
                // or the one after it when it comes first.
                while matches!(kept.last(), Some(Token::Whitespace(_))) {
                    kept.pop();
                }
                i = end;
                if kept.last() == Some(&Token::Comma) {
                    kept.pop();
                    column -= 1;
                } else if tokens.get(end) == Some(&Token::Comma) {
                    i += 1;
                    column_start = true;
                }
                continue;
            }
            if has_no_type(&tokens, i) {
                kept.push(token.clone());
                kept.push(Token::Whitespace(Whitespace::Space));
                kept.push(Token::make_word(INFERRED_TYPE, None));
                i += 1;
                continue;
            }
        }
        match token {
            Token::LParen => {
                depth += 1;
                if depth == 1 && engine.is_none() && !seen_columns {
                    seen_columns = true;
                    column_start = true;
                }
            }
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 1 && seen_columns => {
                column += 1;
                column_start = true;
            }
            Token::Word(w)
                if depth == 1 && seen_columns && w.value.eq_ignore_ascii_case("CODEC") =>
            {
                let end = matching_paren(&tokens, next_significant(&tokens, i + 1))
                    .ok_or_else(|| syntax_error(sql, "Expected '(' and ')' after CODEC"))?;
                let open = next_significant(&tokens, i + 1);
                let inside: String = tokens[open + 1..end]
                    .iter()
                    .map(|t| t.to_string())
                    .collect();
                codecs.push((column, inside.trim().to_string()));
                i = end + 1;
                continue;
            }
            // Only the first `AS`: later ones are the query's.
            Token::Word(w) if depth == 0 && w.keyword == Keyword::AS && !seen_as => {
                seen_as = true;
                if let Some((name, end)) = source_table(&tokens, i + 1) {
                    let open = next_significant(&tokens, end);
                    if tokens.get(open) == Some(&Token::LParen) {
                        let close = matching_paren(&tokens, open).ok_or_else(|| {
                            syntax_error(sql, "Expected ')' after the table function's arguments")
                        })?;
                        let call: String =
                            tokens[open..=close].iter().map(|t| t.to_string()).collect();
                        as_function = Some(format!("{name}{call}"));
                        i = close + 1;
                        continue;
                    }
                    as_table = Some(name);
                    i = end;
                    continue;
                }
            }
            Token::Word(_) if depth == 0 && is_empty_marker(&tokens, i) => {
                empty = true;
                i += 1;
                continue;
            }
            Token::Word(w) if depth == 0 && w.keyword == Keyword::ENGINE => {
                let end = engine_clause_end(&tokens, i + 1);
                engine = Some(parse_engine_clause(sql, &unescaped(&tokens[i + 1..end]))?);
                i = end;
                continue;
            }
            // `ORDER BY x` with no ENGINE: the clauses of the default engine.
            Token::Word(_)
                if depth == 0
                    && engine.is_none()
                    && !seen_as
                    && !is_table_name(&tokens, i)
                    && clause_at(&tokens, i).is_some_and(|(clause, _)| clause != "COMMENT") =>
            {
                let end = engine_clause_end(&tokens, i);
                let mut clause = vec![Token::make_word(DEFAULT_ENGINE, None)];
                clause.extend(unescaped(&tokens[i..end]));
                engine = Some(parse_engine_clause(sql, &clause)?);
                i = end;
                continue;
            }
            _ => {}
        }
        kept.push(token.clone());
        i += 1;
    }
    if !indexes.is_empty() {
        engine
            .get_or_insert_with(|| EngineClause::named(DEFAULT_ENGINE))
            .indexes = indexes;
    }
    Ok(CreateTableText {
        statement: kept.iter().map(|t| t.to_string()).collect(),
        engine,
        codecs,
        constraints: declared_constraints,
        as_table,
        as_function,
        empty,
    })
}

/// The engine name of clauses written without `ENGINE = ...`: the session's
/// `default_table_engine` takes its place.
pub const DEFAULT_ENGINE: &str = "__default_engine";

/// The type a column declared without one has (`b DEFAULT a + 1`), until
/// its expression's type takes its place.
pub const INFERRED_TYPE: &str = "__inferred_type";

/// Whether the column definition starting at `i` gives no type: its name is
/// followed by the keyword of its default.
fn has_no_type(tokens: &[Token], i: usize) -> bool {
    let next = next_significant(tokens, i + 1);
    matches!(&tokens[i], Token::Word(_))
        && matches!(tokens.get(next), Some(Token::Word(w)) if w.quote_style.is_none() && matches!(
            w.keyword,
            Keyword::DEFAULT | Keyword::MATERIALIZED | Keyword::ALIAS | Keyword::EPHEMERAL
        ))
}

/// The table named after `AS` (`[db.]name`, not a query) and where its name ends.
fn source_table(tokens: &[Token], from: usize) -> Option<(String, usize)> {
    let first = next_significant(tokens, from);
    let is_name = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) => {
            w.quote_style.is_some() || !matches!(w.keyword, Keyword::SELECT | Keyword::WITH)
        }
        _ => false,
    };
    if !is_name(first) {
        return None;
    }
    let mut end = first + 1;
    if tokens.get(end) == Some(&Token::Period) && is_name(end + 1) {
        end += 2;
    }
    let name = tokens[first..end].iter().map(|t| t.to_string()).collect();
    Some((name, end))
}

/// `EMPTY` right before `AS`.
fn is_empty_marker(tokens: &[Token], i: usize) -> bool {
    let next = next_significant(tokens, i + 1);
    matches!(&tokens[i], Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("EMPTY"))
        && matches!(tokens.get(next), Some(Token::Word(w)) if w.keyword == Keyword::AS)
}

fn unescaped(tokens: &[Token]) -> Vec<Token> {
    tokens
        .iter()
        .map(|token| match token {
            Token::SingleQuotedString(raw) => Token::SingleQuotedString(unescape(raw)),
            other => other.clone(),
        })
        .collect()
}

pub(crate) fn next_significant(tokens: &[Token], mut i: usize) -> usize {
    while matches!(tokens.get(i), Some(Token::Whitespace(_))) {
        i += 1;
    }
    i
}

/// The index of the `)` closing the `(` at `open`.
pub(crate) fn matching_paren(tokens: &[Token], open: usize) -> Option<usize> {
    if tokens.get(open) != Some(&Token::LParen) {
        return None;
    }
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where the engine clause starting at `from` ends: at `AS SELECT`, `AS (`,
/// `AS WITH`, `EMPTY AS` or the statement's end.
pub(crate) fn engine_clause_end(tokens: &[Token], from: usize) -> usize {
    let mut depth = 0usize;
    for i in from..tokens.len() {
        match &tokens[i] {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::SemiColon if depth == 0 => return i,
            Token::Word(_) if depth == 0 && is_empty_marker(tokens, i) => return i,
            Token::Word(w) if depth == 0 && w.keyword == Keyword::AS => {
                let next = next_significant(tokens, i + 1);
                let starts_query = match tokens.get(next) {
                    Some(Token::LParen) => true,
                    Some(Token::Word(w)) => matches!(w.keyword, Keyword::SELECT | Keyword::WITH),
                    _ => false,
                };
                if starts_query {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The clause keywords an engine clause is split on, at depth 0.
pub(crate) fn clause_at(tokens: &[Token], i: usize) -> Option<(&'static str, usize)> {
    let Token::Word(first) = &tokens[i] else {
        return None;
    };
    let second = next_significant(tokens, i + 1);
    let second_is = |keyword: Keyword| matches!(tokens.get(second), Some(Token::Word(w)) if w.keyword == keyword);
    match first.keyword {
        Keyword::PARTITION if second_is(Keyword::BY) => Some(("PARTITION BY", second + 1)),
        Keyword::ORDER if second_is(Keyword::BY) => Some(("ORDER BY", second + 1)),
        Keyword::PRIMARY if second_is(Keyword::KEY) => Some(("PRIMARY KEY", second + 1)),
        Keyword::SAMPLE if second_is(Keyword::BY) => Some(("SAMPLE BY", second + 1)),
        Keyword::SETTINGS => Some(("SETTINGS", i + 1)),
        _ if first.value.eq_ignore_ascii_case("TTL") => Some(("TTL", i + 1)),
        Keyword::COMMENT => Some(("COMMENT", i + 1)),
        _ => None,
    }
}

/// Whether the word at `i` is the created table's name (a table named
/// `ttl` or `order`), not a clause: it follows TABLE, IF NOT EXISTS or a
/// database's `.`.
fn is_table_name(tokens: &[Token], i: usize) -> bool {
    let before = tokens[..i]
        .iter()
        .rev()
        .find(|t| !matches!(t, Token::Whitespace(_)));
    match before {
        Some(Token::Word(w)) => matches!(w.keyword, Keyword::TABLE | Keyword::EXISTS),
        Some(Token::Period) => true,
        _ => false,
    }
}

fn parse_engine_clause(sql: &str, tokens: &[Token]) -> Result<EngineClause> {
    let mut i = next_significant(tokens, 0);
    if tokens.get(i) == Some(&Token::Eq) {
        i = next_significant(tokens, i + 1);
    }
    let name = match tokens.get(i) {
        Some(Token::Word(w)) => w.value.clone(),
        _ => {
            return Err(syntax_error(
                sql,
                "Expected the table engine's name after ENGINE",
            ));
        }
    };
    let mut engine = EngineClause {
        name,
        arguments: Vec::new(),
        partition_by: None,
        order_by: None,
        primary_key: None,
        sample_by: None,
        settings: Vec::new(),
        ttl: Vec::new(),
        comment: None,
        indexes: Vec::new(),
    };
    i = next_significant(tokens, i + 1);
    if tokens.get(i) == Some(&Token::LParen) {
        let end = matching_paren(tokens, i)
            .ok_or_else(|| syntax_error(sql, "Expected ')' after the engine's arguments"))?;
        let inside = &tokens[i + 1..end];
        if inside.iter().any(|t| !matches!(t, Token::Whitespace(_))) {
            engine.arguments = split_on_commas(inside)
                .into_iter()
                .map(|piece| parse_expr(sql, piece))
                .collect::<Result<_>>()?;
        }
        i = end + 1;
    }
    // Clause starts at depth 0, then each clause runs to the next one.
    let mut starts = Vec::new();
    let mut depth = 0usize;
    for j in i..tokens.len() {
        match &tokens[j] {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Whitespace(_) => {}
            _ if depth == 0 => {
                if let Some((clause, body)) = clause_at(tokens, j) {
                    starts.push((j, clause, body));
                } else if starts.is_empty() {
                    return Err(syntax_error(
                        sql,
                        &format!("Unexpected {} in the ENGINE clause", tokens[j]),
                    ));
                }
            }
            _ => {}
        }
    }
    for (n, &(_, clause, body)) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(tokens.len(), |s| s.0);
        let body = &tokens[body..end];
        let slot = match clause {
            "PARTITION BY" => &mut engine.partition_by,
            "ORDER BY" => &mut engine.order_by,
            "PRIMARY KEY" => &mut engine.primary_key,
            "SAMPLE BY" => &mut engine.sample_by,
            "SETTINGS" => {
                for piece in split_on_commas(body) {
                    engine.settings.push(parse_setting(sql, piece)?);
                }
                continue;
            }
            "COMMENT" => {
                engine.comment = Some(comment_text(sql, body)?);
                continue;
            }
            "TTL" => {
                engine.ttl = crate::ttl::parse_rules(sql, body)?;
                continue;
            }
            other => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("{other} is not supported yet"),
                ));
            }
        };
        if slot.is_some() {
            return Err(syntax_error(sql, &format!("{clause} is given twice")));
        }
        *slot = Some(parse_expr(sql, body)?);
    }
    Ok(engine)
}

/// The string a `COMMENT` clause gives.
fn comment_text(sql: &str, body: &[Token]) -> Result<String> {
    let significant: Vec<&Token> = body
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    match significant[..] {
        [Token::SingleQuotedString(text)] => Ok(text.clone()),
        _ => Err(syntax_error(sql, "Expected a string literal after COMMENT")),
    }
}

pub(crate) fn split_on_commas(tokens: &[Token]) -> Vec<&[Token]> {
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                pieces.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&tokens[start..]);
    pieces
}

pub(crate) fn parse_expr(sql: &str, tokens: &[Token]) -> Result<Expr> {
    let dialect = crate::dialect::StrataDialect;
    let significant: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    // `ORDER BY ()`, the empty key, which sqlparser does not read.
    let tokens = match significant[..] {
        [Token::LParen, Token::RParen] => {
            vec![
                Token::make_word("tuple", None),
                Token::LParen,
                Token::RParen,
            ]
        }
        _ => tokens.to_vec(),
    };
    let mut parser = Parser::new(&dialect).with_tokens(tokens);
    let expr = parser
        .parse_expr()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(syntax_error(
            sql,
            &format!("Unexpected {} in the ENGINE clause", next.token),
        ));
    }
    Ok(expr)
}

pub(crate) fn parse_setting(sql: &str, tokens: &[Token]) -> Result<(String, String)> {
    let significant: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let value = |token: &Token| match token {
        Token::Number(n, _) => Some(n.clone()),
        Token::SingleQuotedString(s) => Some(s.clone()),
        Token::Word(w) => Some(w.value.clone()),
        _ => None,
    };
    match significant.as_slice() {
        [Token::Word(name), Token::Eq, v] => value(v).map(|v| (name.value.clone(), v)),
        // `disk = disk(type = s3, ...)`: the definition's text, read by the
        // engine.
        [
            Token::Word(name),
            Token::Eq,
            Token::Word(call),
            Token::LParen,
            ..,
            Token::RParen,
        ] if call.value.eq_ignore_ascii_case("disk") => {
            let text: Vec<String> = significant[2..].iter().map(|t| t.to_string()).collect();
            Some((name.value.clone(), text.join(" ")))
        }
        [
            Token::Word(name),
            Token::Eq,
            Token::Minus,
            Token::Number(n, _),
        ] => Some((name.value.clone(), format!("-{n}"))),
        _ => None,
    }
    .ok_or_else(|| syntax_error(sql, "Expected `name = value` in SETTINGS"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_clauses_come_in_any_order() {
        let text = split_create_table(
            "CREATE TABLE t (A Int64, S String DEFAULT 'x' CODEC(ZSTD(3)), D Date CODEC(LZ4)) \
             ENGINE = MergeTree PARTITION BY toYYYYMM(D) ORDER BY (A, S) \
             SETTINGS index_granularity = 1024, x = 'y'",
        )
        .unwrap();
        assert_eq!(
            text.statement.trim(),
            "CREATE TABLE t (A Int64, S String DEFAULT 'x' , D Date )"
        );
        assert_eq!(
            text.codecs,
            vec![(1, "ZSTD(3)".to_string()), (2, "LZ4".to_string())]
        );
        let engine = text.engine.unwrap();
        assert_eq!(engine.name, "MergeTree");
        assert_eq!(engine.partition_by.unwrap().to_string(), "toYYYYMM(D)");
        assert_eq!(engine.order_by.unwrap().to_string(), "(A, S)");
        assert_eq!(
            engine.settings,
            vec![
                ("index_granularity".to_string(), "1024".to_string()),
                ("x".to_string(), "y".to_string())
            ]
        );

        let text = split_create_table(
            "CREATE TABLE t ENGINE = MergeTree() ORDER BY x PRIMARY KEY x AS SELECT 1 AS x",
        )
        .unwrap();
        assert_eq!(text.statement, "CREATE TABLE t AS SELECT 1 AS x");
        let engine = text.engine.unwrap();
        assert_eq!(engine.primary_key.unwrap().to_string(), "x");
        assert!(engine.arguments.is_empty());

        let memory = split_create_table("CREATE TABLE m (a UInt8) ENGINE = Memory").unwrap();
        assert_eq!(memory.engine.unwrap().name, "Memory");
        assert!(is_create_table("create or replace table x (a Int8)"));
        assert!(!is_create_table("CREATE DATABASE x"));
    }

    #[test]
    fn index_items_leave_the_column_list_and_its_codec_positions() {
        let text = split_create_table(
            "CREATE TABLE t (INDEX a x TYPE minmax, x UInt64 CODEC(ZSTD), \
             INDEX b (x, s) TYPE set(10) GRANULARITY 4, s String CODEC(LZ4)) \
             ENGINE = MergeTree ORDER BY x SAMPLE BY x",
        )
        .unwrap();
        assert_eq!(
            text.statement.trim(),
            "CREATE TABLE t ( x UInt64 , s String )"
        );
        assert_eq!(
            text.codecs,
            vec![(0, "ZSTD".to_string()), (1, "LZ4".to_string())]
        );
        let engine = text.engine.unwrap();
        assert_eq!(engine.sample_by.unwrap().to_string(), "x");
        let definitions: Vec<String> = engine.indexes.iter().map(SkipIndex::definition).collect();
        assert_eq!(
            definitions,
            [
                "INDEX a x TYPE minmax GRANULARITY 1",
                "INDEX b (x, s) TYPE set(10) GRANULARITY 4"
            ]
        );
        // Without an ENGINE, the indexes go with the default engine's clauses.
        let default = split_create_table("CREATE TABLE t (x UInt8, INDEX i x TYPE minmax)")
            .unwrap()
            .engine
            .unwrap();
        assert_eq!(default.name, DEFAULT_ENGINE);
        assert_eq!(default.indexes.len(), 1);
        let column_named_index =
            split_create_table("CREATE TABLE t (index UInt8) ENGINE = Memory").unwrap();
        assert!(column_named_index.engine.unwrap().indexes.is_empty());
    }

    #[test]
    fn copies_empty_queries_and_query_settings() {
        let copy = split_create_table("CREATE TABLE n AS db.t ENGINE = Memory").unwrap();
        assert_eq!(copy.statement.trim(), "CREATE TABLE n");
        assert_eq!(copy.as_table.as_deref(), Some("db.t"));
        let empty = split_create_table(
            "CREATE TABLE n ENGINE = Memory EMPTY AS SELECT 1 AS t SETTINGS x = 1",
        )
        .unwrap();
        assert!(empty.empty && empty.as_table.is_none());
        let function = split_create_table("CREATE TABLE n AS numbers(10, 2)").unwrap();
        assert_eq!(function.as_function.as_deref(), Some("numbers(10, 2)"));
        assert_eq!(function.statement.trim(), "CREATE TABLE n");
        let mut engine = split_create_table(
            "CREATE TABLE n (a Int8) ENGINE = MergeTree ORDER BY a \
             SETTINGS max_threads = 2, index_granularity = 8",
        )
        .unwrap()
        .engine
        .unwrap();
        assert_eq!(
            engine.take_query_settings(),
            vec![("max_threads".to_string(), "2".to_string())]
        );
        assert_eq!(
            engine.settings,
            vec![("index_granularity".to_string(), "8".to_string())]
        );
    }

    #[test]
    fn clauses_without_engine_take_the_default() {
        let text =
            split_create_table("CREATE TABLE t (a Int8) ORDER BY () SETTINGS x = 1").unwrap();
        let engine = text.engine.unwrap();
        assert_eq!(engine.name, DEFAULT_ENGINE);
        assert_eq!(engine.order_by.unwrap().to_string(), "tuple()");
        assert_eq!(engine.settings, vec![("x".to_string(), "1".to_string())]);
        let query = split_create_table("CREATE TABLE t AS SELECT 1 AS a ORDER BY a").unwrap();
        assert!(query.engine.is_none());
    }

    #[test]
    fn bad_engine_clauses_are_syntax_errors() {
        for sql in [
            "CREATE TABLE t (a Int8) ENGINE = MergeTree ORDER BY",
            "CREATE TABLE t (a Int8) ENGINE = MergeTree ORDER BY a ORDER BY a",
            "CREATE TABLE t (a Int8) ENGINE = MergeTree junk ORDER BY a",
            "CREATE TABLE t (a Int8) ENGINE = MergeTree ORDER BY a SETTINGS x",
            "CREATE TABLE t (a Int8 CODEC) ENGINE = MergeTree ORDER BY a",
        ] {
            assert_eq!(
                split_create_table(sql).unwrap_err().code,
                ErrorCode::SYNTAX_ERROR,
                "{sql}"
            );
        }
    }
}
