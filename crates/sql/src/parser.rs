//! Parsing ClickHouse SQL text into statements.
//!
//! sqlparser's ClickHouse dialect (with [`crate::dialect`]'s `DIV` and
//! `MOD`) does the parsing, on tokens where
//! [`crate::clickhouse_tokens`] rewrote the syntax it does not read (and
//! [`crate::scalar_with`] reads `WITH expr AS name`); this module turns its errors
//! into SYNTAX_ERROR with the position and what was expected, and keeps each
//! statement's source text for the query log and error messages.

use datafusion::sql::sqlparser::ast::{Expr, ObjectName, SetExpr, Statement};
use datafusion::sql::sqlparser::dialect::{ClickHouseDialect, Dialect, GenericDialect};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use strata_common::{ErrorCode, Result, StrataError};

use crate::dialect::StrataDialect;
use crate::source_text::normalize;

/// Deepest expression nesting accepted; deeper input is a syntax error, not a stack overflow.
pub(crate) const MAX_NESTING: usize = 256;

/// A parsed statement with the text it came from.
#[derive(Debug, Clone)]
pub struct ParsedStatement {
    pub statement: Statement,
    pub text: String,
}

/// Splits `sql` into statements on top-level semicolons, keeping each statement's
/// original text (a later statement's syntax error must not stop earlier ones).
pub fn split_statements(sql: &str) -> Result<Vec<String>> {
    Ok(statement_spans(sql)?
        .into_iter()
        .map(|span| sql[span].trim().to_string())
        .collect())
}

/// Byte ranges of the statements in `sql`, each ending before its semicolon.
/// The inline data of an `INSERT ... FORMAT` (other than Values) also ends
/// at a blank line, as ClickHouse's clients read it, so the statements
/// after it need no semicolon before them.
pub fn statement_spans(sql: &str) -> Result<Vec<std::ops::Range<usize>>> {
    let mut statements = Vec::new();
    let mut from = 0;
    while let Some(resume) = spans_from(sql, from, &mut statements)? {
        from = resume;
    }
    Ok(statements)
}

/// Appends the spans of the statements in `sql[from..]`, up to one whose
/// inline data a blank line ends; then where the text goes on after it.
fn spans_from(
    sql: &str,
    from: usize,
    statements: &mut Vec<std::ops::Range<usize>>,
) -> Result<Option<usize>> {
    let rest = &sql[from..];
    let dialect = ClickHouseDialect {};
    let tokens = Tokenizer::new(&dialect, &normalize(rest))
        .tokenize_with_location()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let offset = |line: u64, column: u64| from + char_offset(rest, line, column);
    let mut begin: Option<usize> = None;
    let mut end_statement = |span: std::ops::Range<usize>| match data_end_at_blank_line(sql, &span)
    {
        Some(data_end) => {
            statements.push(span.start..data_end);
            Some(data_end)
        }
        None => {
            statements.push(span);
            None
        }
    };
    for token in &tokens {
        match token.token {
            Token::SemiColon => {
                if let Some(b) = begin.take() {
                    let end = offset(token.span.start.line, token.span.start.column);
                    if let Some(resume) = end_statement(b..end) {
                        return Ok(Some(resume));
                    }
                }
            }
            Token::Whitespace(_) => {}
            _ if begin.is_none() => {
                begin = Some(offset(token.span.start.line, token.span.start.column))
            }
            _ => {}
        }
    }
    Ok(begin.and_then(|b| end_statement(b..sql.len())))
}

/// Where the inline data of an `INSERT ... FORMAT` statement at `span` ends
/// if a blank line comes before the span's end; None for any other
/// statement, and for Values, whose parser finds its own end.
fn data_end_at_blank_line(sql: &str, span: &std::ops::Range<usize>) -> Option<usize> {
    let insert = crate::insert_format::split_insert_format(&sql[span.clone()])?;
    if insert.inline_data.is_none() || insert.format.eq_ignore_ascii_case("Values") {
        return None;
    }
    let data_at = span.start + insert.data_at;
    let blank = sql[data_at..span.end].find("\n\n")?;
    Some(data_at + blank)
}

/// `INTO OUTFILE`, `FORMAT` and `SETTINGS` clauses that end a query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrailingClauses {
    pub outfile: Option<OutFile>,
    pub format: Option<String>,
    /// (name, value as written, unquoted)
    pub settings: Vec<(String, String)>,
}

/// `INTO OUTFILE 'path' [AND STDOUT] [APPEND | TRUNCATE] [COMPRESSION
/// 'method' [LEVEL n]]`: where the client writes a query's result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutFile {
    pub path: String,
    pub and_stdout: bool,
    pub mode: OutFileMode,
    pub compression: Option<String>,
    pub level: Option<u32>,
}

/// What `INTO OUTFILE` does with a file that exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutFileMode {
    /// Refuse it (FILE_ALREADY_EXISTS).
    #[default]
    New,
    Append,
    Truncate,
}

/// Splits trailing `FORMAT name` and `SETTINGS k = v, ...` clauses off a query.
/// They are found on tokens at parenthesis depth 0, and only where everything
/// after them is such clauses, so a column named `format` is left alone.
pub fn split_trailing_clauses(sql: &str) -> Result<(String, TrailingClauses)> {
    let dialect = ClickHouseDialect {};
    let tokens: Vec<TokenWithSpan> = Tokenizer::new(&dialect, &normalize(sql))
        .tokenize_with_location()
        .map_err(|e| syntax_error(sql, &e.to_string()))?
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::SemiColon))
        .collect();
    let mut depth = 0i32;
    for (i, token) in tokens.iter().enumerate() {
        match &token.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth -= 1,
            Token::Word(w)
                if depth == 0
                    && (matches!(w.keyword, Keyword::FORMAT | Keyword::SETTINGS)
                        || starts_outfile(&tokens[i..])) =>
            {
                if let Some(clauses) = parse_clauses(&tokens[i..]) {
                    let cut = char_offset(sql, token.span.start.line, token.span.start.column);
                    return Ok((sql[..cut].trim_end().to_string(), clauses));
                }
            }
            _ => {}
        }
    }
    Ok((sql.to_string(), TrailingClauses::default()))
}

fn parse_clauses(tokens: &[TokenWithSpan]) -> Option<TrailingClauses> {
    let mut clauses = TrailingClauses::default();
    let mut i = 0;
    let word = |t: Option<&TokenWithSpan>| match t.map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w.value.clone()),
        _ => None,
    };
    while i < tokens.len() {
        let Token::Word(w) = &tokens[i].token else {
            return None;
        };
        match w.keyword {
            Keyword::INTO if clauses == TrailingClauses::default() => {
                let (outfile, used) = parse_outfile(&tokens[i..])?;
                clauses.outfile = Some(outfile);
                i += used;
            }
            Keyword::FORMAT if clauses.format.is_none() => {
                clauses.format = Some(word(tokens.get(i + 1))?);
                i += 2;
            }
            Keyword::SETTINGS => {
                i += 1;
                loop {
                    let name = word(tokens.get(i))?;
                    if tokens.get(i + 1).map(|t| &t.token) != Some(&Token::Eq) {
                        return None;
                    }
                    i += 2;
                    let negative = tokens.get(i).map(|t| &t.token) == Some(&Token::Minus);
                    if negative {
                        i += 1;
                    }
                    let value = match tokens.get(i).map(|t| &t.token)? {
                        Token::Number(n, _) => n.clone(),
                        Token::SingleQuotedString(s) => s.clone(),
                        Token::Word(w) => w.value.clone(),
                        _ => return None,
                    };
                    clauses
                        .settings
                        .push((name, if negative { format!("-{value}") } else { value }));
                    i += 1;
                    if tokens.get(i).map(|t| &t.token) == Some(&Token::Comma) {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            _ => return None,
        }
    }
    Some(clauses)
}

fn is_word(token: Option<&TokenWithSpan>, word: &str) -> bool {
    matches!(token.map(|t| &t.token), Some(Token::Word(w)) if w.value.eq_ignore_ascii_case(word))
}

fn starts_outfile(tokens: &[TokenWithSpan]) -> bool {
    is_word(tokens.first(), "INTO") && is_word(tokens.get(1), "OUTFILE")
}

/// An `INTO OUTFILE ...` clause at the start of `tokens`, and how many
/// tokens it takes.
fn parse_outfile(tokens: &[TokenWithSpan]) -> Option<(OutFile, usize)> {
    if !starts_outfile(tokens) {
        return None;
    }
    let text = |i: usize| match tokens.get(i).map(|t| &t.token) {
        Some(Token::SingleQuotedString(s)) => Some(s.clone()),
        _ => None,
    };
    let mut outfile = OutFile {
        path: text(2)?,
        ..OutFile::default()
    };
    let mut i = 3;
    if is_word(tokens.get(i), "AND") && is_word(tokens.get(i + 1), "STDOUT") {
        outfile.and_stdout = true;
        i += 2;
    }
    if is_word(tokens.get(i), "APPEND") {
        outfile.mode = OutFileMode::Append;
        i += 1;
    } else if is_word(tokens.get(i), "TRUNCATE") {
        outfile.mode = OutFileMode::Truncate;
        i += 1;
    }
    if is_word(tokens.get(i), "COMPRESSION") {
        outfile.compression = Some(text(i + 1)?);
        i += 2;
        if is_word(tokens.get(i), "LEVEL") {
            let Some(Token::Number(level, _)) = tokens.get(i + 1).map(|t| &t.token) else {
                return None;
            };
            outfile.level = Some(level.parse().ok()?);
            i += 2;
        }
    }
    Some((outfile, i))
}

/// The byte offset of a 1-based (line, column) character position.
/// Byte ranges of the `EXPLAIN ...` statements written as subqueries,
/// `FROM (EXPLAIN ...)` or `JOIN (EXPLAIN ...)`, each without its parentheses: they run first and
/// their lines take their place, as in ClickHouse.
pub fn explain_subqueries(sql: &str) -> Result<Vec<std::ops::Range<usize>>> {
    let named = sql
        .as_bytes()
        .windows("EXPLAIN".len())
        .any(|w| w.eq_ignore_ascii_case(b"EXPLAIN"));
    if !named {
        return Ok(Vec::new());
    }
    let dialect = ClickHouseDialect {};
    let tokens = Tokenizer::new(&dialect, &normalize(sql))
        .tokenize_with_location()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let offset =
        |token: &TokenWithSpan| char_offset(sql, token.span.start.line, token.span.start.column);
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i + 1 < significant.len() {
        let after_from = i > 0
            && matches!(&significant[i - 1].token, Token::Word(w) if matches!(w.keyword, Keyword::FROM | Keyword::JOIN));
        let opens_explain = after_from
            && significant[i].token == Token::LParen
            && matches!(&significant[i + 1].token, Token::Word(w) if w.keyword == Keyword::EXPLAIN);
        if !opens_explain {
            i += 1;
            continue;
        }
        let mut depth = 0usize;
        let close = significant[i..].iter().position(|t| {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            depth == 0
        });
        let Some(close) = close else {
            return Err(syntax_error(sql, "Expected ')' after the EXPLAIN subquery"));
        };
        ranges.push(offset(significant[i + 1])..offset(significant[i + close]));
        i += close + 1;
    }
    Ok(ranges)
}

fn char_offset(sql: &str, line: u64, column: u64) -> usize {
    let mut line_start = 0;
    for _ in 1..line {
        match sql[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return sql.len(),
        }
    }
    sql[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(sql.len(), |(i, _)| line_start + i)
}

/// Parses exactly one statement.
pub fn parse_statement(sql: &str) -> Result<ParsedStatement> {
    if let Some(rewritten) = without_sync(sql)
        .or_else(|| quoted_deduplicate_list(sql))
        .or_else(|| set_flags_on(sql))
        .or_else(|| show_create_table(sql))
    {
        let mut parsed = parse_statement(&rewritten)?;
        parsed.text = sql.to_string();
        return Ok(parsed);
    }
    // sqlparser reads `DROP TEMPORARY TABLE` only in its generic dialect.
    let mut words = sql.split_whitespace();
    let drop_temporary = words.next().is_some_and(|w| w.eq_ignore_ascii_case("DROP"))
        && words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("TEMPORARY"));
    if drop_temporary {
        return parse_in_dialect(&GenericDialect {}, sql);
    }
    parse_in_dialect(&StrataDialect, sql)
}

/// `SHOW CREATE t` as `SHOW CREATE TABLE t`: ClickHouse takes a table
/// where no kind of object is named.
fn show_create_table(sql: &str) -> Option<String> {
    let mut words = sql.split_whitespace();
    let show_create =
        words.next()?.eq_ignore_ascii_case("SHOW") && words.next()?.eq_ignore_ascii_case("CREATE");
    let next = words.next()?;
    let kinds = [
        "TABLE",
        "VIEW",
        "DATABASE",
        "DICTIONARY",
        "USER",
        "ROLE",
        "QUOTA",
        "ROW",
        "SETTINGS",
        "PROFILE",
        "POLICY",
        "TEMPORARY",
        "FUNCTION",
        "MATERIALIZED",
        "NAMED",
    ];
    if !show_create || kinds.iter().any(|k| next.eq_ignore_ascii_case(k)) {
        return None;
    }
    // The third word's offset: past two words and the spaces after them.
    let mut rest = sql.trim_start();
    for _ in 0..2 {
        rest = rest
            .trim_start_matches(|c: char| !c.is_whitespace())
            .trim_start();
    }
    Some(format!("SHOW CREATE TABLE {rest}"))
}

/// `SET a, b = 2` with `a = 1`: ClickHouse reads a setting named without a
/// value as turned on. Only lists of plain names and assignments qualify.
fn set_flags_on(sql: &str) -> Option<String> {
    let trimmed = sql.trim_end().trim_end_matches(';').trim_end();
    let rest = trimmed
        .get(..4)
        .filter(|head| head.eq_ignore_ascii_case("SET "))
        .map(|_| &trimmed[4..])?;
    let is_name = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // Values with commas or quotes inside stay with sqlparser.
    if rest.contains(['\'', '"', '`', '(']) {
        return None;
    }
    let items: Vec<&str> = rest.split(',').map(str::trim).collect();
    let bare = |item: &&str| is_name(item) && !item.eq_ignore_ascii_case("ROLE");
    if !items.iter().any(bare) {
        return None;
    }
    let assignment = |item: &&str| {
        item.split_once('=')
            .is_some_and(|(name, _)| is_name(name.trim()))
    };
    if !items.iter().all(|item| bare(item) || assignment(item)) {
        return None;
    }
    let items: Vec<String> = items
        .iter()
        .map(|item| match bare(item) {
            true => format!("{item} = 1"),
            false => item.to_string(),
        })
        .collect();
    Some(format!("SET {}", items.join(", ")))
}

/// `DROP ... name SYNC` without its `SYNC`: Strata's DROP always waits
/// until the data is gone, which is what SYNC asks of ClickHouse.
fn without_sync(sql: &str) -> Option<String> {
    let trimmed = sql.trim_end().trim_end_matches(';').trim_end();
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let is_drop = words
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("DROP") || w.eq_ignore_ascii_case("DETACH"));
    let names_object = |w: &&str| {
        ["TABLE", "DATABASE", "VIEW", "DICTIONARY", "EXISTS"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
    };
    let ends_in_sync = words.len() >= 4
        && words.last().is_some_and(|w| w.eq_ignore_ascii_case("SYNC"))
        && !words.get(words.len() - 2).is_some_and(names_object);
    (is_drop && ends_in_sync).then(|| trimmed[..trimmed.len() - 4].to_string())
}

/// `OPTIMIZE ... DEDUPLICATE BY a, b` with its column list as one string
/// (`BY 'a, b'`): sqlparser reads one expression there, and the list may be
/// `* EXCEPT c` or `COLUMNS('re')`, which the engine expands.
fn quoted_deduplicate_list(sql: &str) -> Option<String> {
    let trimmed = sql.trim_end().trim_end_matches(';').trim_end();
    let starts_optimize = trimmed
        .split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("OPTIMIZE"));
    if !starts_optimize {
        return None;
    }
    let upper = trimmed.to_ascii_uppercase();
    let at = upper.find("DEDUPLICATE")? + "DEDUPLICATE".len();
    let rest = &trimmed[at..];
    let list = rest
        .trim_start()
        .strip_prefix(['B', 'b'])?
        .strip_prefix(['Y', 'y'])?;
    if !list.starts_with(char::is_whitespace) || list.trim_start().starts_with('\'') {
        return None;
    }
    let quoted = list.trim().replace('\\', "\\\\").replace('\'', "\\'");
    Some(format!("{} BY '{quoted}'", &trimmed[..at]))
}

/// Parses an ALTER TABLE statement. sqlparser reads ClickHouse's `FIRST`
/// and `AFTER column` of `ADD COLUMN` only in its generic dialect, which
/// also reads ClickHouse's types.
pub fn parse_alter_statement(sql: &str) -> Result<ParsedStatement> {
    parse_in_dialect(&GenericDialect {}, sql)
}

/// A parser over `sql`'s tokens as ClickHouse reads them (string escapes,
/// `?:`, join strictness), for statements read word by word.
pub(crate) fn clickhouse_parser<'a>(dialect: &'a dyn Dialect, sql: &str) -> Result<Parser<'a>> {
    let tokens = crate::clickhouse_tokens::tokenize(dialect, sql)?;
    Ok(Parser::new(dialect)
        .with_recursion_limit(MAX_NESTING)
        .with_tokens_with_locations(tokens))
}

/// NOT_IMPLEMENTED for a form Strata does not read yet.
pub(crate) fn not_supported(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!("{what} is not supported yet"),
    )
}

/// Past trailing `;`s, the end of `sql`, or a syntax error.
pub(crate) fn expect_end(sql: &str, parser: &mut Parser) -> Result<()> {
    while parser.consume_token(&Token::SemiColon) {}
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(syntax_error(
            sql,
            &format!("Expected end of query, found: {}", next.token),
        ));
    }
    Ok(())
}

/// Parses `sql` as one expression, alone.
pub fn parse_expr_text(sql: &str) -> Result<Expr> {
    let dialect = StrataDialect;
    let mut parser = clickhouse_parser(&dialect, sql)?;
    let expr = parser.parse_expr().map_err(|e| parser_error(sql, e))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(syntax_error(
            sql,
            &format!("Expected end of expression, found: {}", next.token),
        ));
    }
    Ok(expr)
}

/// Parses `sql` as one possibly qualified name (`db.t`), alone.
pub fn parse_object_name(sql: &str) -> Result<ObjectName> {
    let dialect = ClickHouseDialect {};
    let mut parser = clickhouse_parser(&dialect, sql)?;
    let name = parser
        .parse_object_name(false)
        .map_err(|e| parser_error(sql, e))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(syntax_error(
            sql,
            &format!("Expected end of query, found: {}", next.token),
        ));
    }
    Ok(name)
}

fn parse_in_dialect(dialect: &dyn Dialect, sql: &str) -> Result<ParsedStatement> {
    let mut parser = clickhouse_parser(dialect, sql)?;
    let statement = match parser.parse_statement() {
        Ok(statement) => {
            while parser.consume_token(&Token::SemiColon) {}
            let next = parser.peek_token();
            if next.token != Token::EOF {
                return Err(syntax_error(
                    sql,
                    &format!(
                        "Expected end of query, found: {} at {}",
                        next.token, next.span.start
                    ),
                ));
            }
            statement
        }
        Err(error) => match crate::scalar_with::parse(dialect, sql, MAX_NESTING) {
            Some(statement) => statement,
            None => {
                let rewritten = crate::scalar_with::rewrite_subqueries(dialect, sql, MAX_NESTING)
                    .ok_or_else(|| parser_error(sql, error.clone()))?;
                let parsed =
                    parse_in_dialect(dialect, &rewritten).map_err(|_| parser_error(sql, error))?;
                return Ok(ParsedStatement {
                    text: sql.to_string(),
                    ..parsed
                });
            }
        },
    };
    crate::depth::check_depth(&statement)?;
    let mut statement = statement;
    crate::join_strictness::rewrite(&mut statement)?;
    with_before_insert(&mut statement)?;
    Ok(ParsedStatement {
        statement,
        text: sql.to_string(),
    })
}

/// `WITH c AS (...) INSERT INTO t SELECT ... FROM c`: ClickHouse gives the
/// WITH to the inserted SELECT, which may not have one of its own.
fn with_before_insert(statement: &mut Statement) -> Result<()> {
    let Statement::Query(query) = statement else {
        return Ok(());
    };
    if query.with.is_none() || !matches!(query.body.as_ref(), SetExpr::Insert(_)) {
        return Ok(());
    }
    let SetExpr::Insert(mut insert) = query.body.as_ref().clone() else {
        unreachable!("checked");
    };
    if let Statement::Insert(ref mut i) = insert
        && let Some(source) = i.source.as_mut()
    {
        if source.with.is_some() {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Only one WITH should be presented, either before INSERT or SELECT.",
            ));
        }
        source.with = query.with.take();
    }
    *statement = insert;
    Ok(())
}

pub(crate) fn parser_error(sql: &str, error: ParserError) -> StrataError {
    match error {
        ParserError::RecursionLimitExceeded => StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!(
                "Maximum parse depth ({MAX_NESTING}) exceeded. Consider rising max_parser_depth parameter"
            ),
        ),
        ParserError::TokenizerError(msg) | ParserError::ParserError(msg) => syntax_error(sql, &msg),
    }
}

pub(crate) fn syntax_error(sql: &str, detail: &str) -> StrataError {
    let shown: String = sql.chars().take(200).collect();
    StrataError::new(
        ErrorCode::SYNTAX_ERROR,
        format!("Syntax error: {detail}. In query: {shown}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deduplicate_list_is_one_string() {
        assert_eq!(
            quoted_deduplicate_list("OPTIMIZE TABLE t FINAL DEDUPLICATE BY * EXCEPT (c);").unwrap(),
            "OPTIMIZE TABLE t FINAL DEDUPLICATE BY '* EXCEPT (c)'"
        );
        assert_eq!(
            quoted_deduplicate_list("optimize table t deduplicate by COLUMNS('a|b')").unwrap(),
            "optimize table t deduplicate BY 'COLUMNS(\\'a|b\\')'"
        );
        assert!(quoted_deduplicate_list("OPTIMIZE TABLE t FINAL DEDUPLICATE").is_none());
        assert!(parse_statement("OPTIMIZE TABLE t FINAL DEDUPLICATE BY a, b").is_ok());
    }

    #[test]
    fn show_create_without_a_kind_shows_a_table() {
        assert_eq!(
            show_create_table("SHOW CREATE db.t").unwrap(),
            "SHOW CREATE TABLE db.t"
        );
        assert!(show_create_table("show create view v").is_none());
        assert_eq!(
            show_create_table("show  create create").unwrap(),
            "SHOW CREATE TABLE create"
        );
        assert!(show_create_table("SELECT 1").is_none());
    }

    #[test]
    fn a_setting_named_without_a_value_is_turned_on() {
        assert_eq!(
            set_flags_on("SET optimize_on_insert;").unwrap(),
            "SET optimize_on_insert = 1"
        );
        assert_eq!(set_flags_on("set a, b = 2").unwrap(), "SET a = 1, b = 2");
        assert!(set_flags_on("SET a = 1").is_none());
        assert!(set_flags_on("SET ROLE r").is_none());
        assert!(set_flags_on("SET a, b = 'x,y'").is_none());
    }

    #[test]
    fn splits_on_top_level_semicolons_only() {
        let parts = split_statements("SELECT 1; SELECT ';' ;; SELECT 2").unwrap();
        assert_eq!(parts, vec!["SELECT 1", "SELECT ';'", "SELECT 2"]);
    }

    #[test]
    fn inline_data_ends_at_a_blank_line_or_a_semicolon() {
        let sql = "INSERT INTO t FORMAT TSV 1\n2\n\nSELECT 1;\nINSERT INTO t FORMAT CSV 3;\nSELECT 2\n\nSELECT 3";
        let parts = split_statements(sql).unwrap();
        assert_eq!(
            parts,
            vec![
                "INSERT INTO t FORMAT TSV 1\n2",
                "SELECT 1",
                "INSERT INTO t FORMAT CSV 3",
                "SELECT 2\n\nSELECT 3"
            ]
        );
        let values = split_statements("INSERT INTO t VALUES (1)\n\n(2); SELECT 1").unwrap();
        assert_eq!(values, vec!["INSERT INTO t VALUES (1)\n\n(2)", "SELECT 1"]);
    }

    #[test]
    fn syntax_errors_carry_code_62_and_position() {
        let err = parse_statement("SELEC 1").unwrap_err();
        assert_eq!(err.code, ErrorCode::SYNTAX_ERROR);
        let err = parse_statement("SELECT 1 FROM").unwrap_err();
        assert_eq!(err.code, ErrorCode::SYNTAX_ERROR);
        assert!(err.message.contains("Expected"), "{}", err.message);
    }

    #[test]
    fn trailing_clauses_are_split_off() {
        let (body, c) =
            split_trailing_clauses("SELECT 1 SETTINGS max_threads = 2, x = 'a' FORMAT JSON")
                .unwrap();
        assert_eq!(body, "SELECT 1");
        assert_eq!(c.format.as_deref(), Some("JSON"));
        assert_eq!(
            c.settings,
            vec![("max_threads".into(), "2".into()), ("x".into(), "a".into())]
        );
        let (body, c) =
            split_trailing_clauses("SELECT format FROM t WHERE x IN (SELECT 1 FORMAT TSV)")
                .unwrap();
        assert_eq!(
            body,
            "SELECT format FROM t WHERE x IN (SELECT 1 FORMAT TSV)"
        );
        assert_eq!(c, TrailingClauses::default());
    }

    #[test]
    fn into_outfile_is_split_off_before_format() {
        let (body, c) = split_trailing_clauses(
            "SELECT 1 INTO OUTFILE 'r.csv.gz' AND STDOUT TRUNCATE COMPRESSION 'gzip' LEVEL 3 FORMAT CSV",
        )
        .unwrap();
        assert_eq!(body, "SELECT 1");
        let outfile = c.outfile.unwrap();
        assert_eq!(outfile.path, "r.csv.gz");
        assert!(outfile.and_stdout);
        assert_eq!(outfile.mode, OutFileMode::Truncate);
        assert_eq!(outfile.compression.as_deref(), Some("gzip"));
        assert_eq!(outfile.level, Some(3));
        assert_eq!(c.format.as_deref(), Some("CSV"));
        let (body, c) = split_trailing_clauses("INSERT INTO t SELECT 1").unwrap();
        assert_eq!(body, "INSERT INTO t SELECT 1");
        assert_eq!(c, TrailingClauses::default());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let sql = format!("SELECT {}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(
            parse_statement(&sql).unwrap_err().code,
            ErrorCode::SYNTAX_ERROR
        );
    }
}
