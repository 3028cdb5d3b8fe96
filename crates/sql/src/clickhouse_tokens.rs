//! ClickHouse syntax that sqlparser does not read, rewritten on the tokens
//! before parsing (positions in error messages stay those of the text):
//!
//! - string literals unescaped as ClickHouse does (`\x41`, `\0`, `\v`,
//!   `\e`, `\N`; an unknown escape keeps its backslash), and a doubled
//!   quote in a quoted name read as one;
//! - join strictness (`ALL`, `ANY`, `SEMI`, `ANTI` and the side in any
//!   order), see [`crate::join_strictness`];
//! - `USING k1, k2` without parentheses;
//! - `INSERT ... VALUES (1) (2)` without commas between rows, and a comma
//!   after the last name of an INSERT's column list or value of a row;
//! - the `c ? a : b` operator, as `if(c, a, b)`;
//! - `t.1` and `f(x).2`, tuple elements by position, as `tupleElement(t, 1)`,
//!   and `f(x).name` by name;
//! - `INTERVAL '2 day'` as `INTERVAL 2 day`;
//! - names that start with digits (`02005_t`), as one word;
//! - `0x7f` as the number 127 (`x'7f'` stays a string), `0x1p4` as the
//!   Float64 16, `0b101` as 5, each also with `_` between digits;
//! - `−` (U+2212) as the minus sign;
//! - `(x,)`, a tuple of one element, as `tuple(x)`;
//! - `f(args) FILTER (WHERE cond)` as the -If combinator, `fIf(args, cond)`;
//! - `x IN [1, 2]` and `x IN array(1, 2)` as `x IN (1, 2)`, and
//!   `ARRAY JOIN [1, 2] AS a` as `ARRAY JOIN array(1, 2) AS a`;
//! - `x IN 1`, `x IN 'a'` and `x IN t` without parentheses, as `x IN (1)`,
//!   `x IN ('a')` and `x IN (SELECT * FROM t)`;
//! - `LIMIT m, n BY keys` and `LIMIT n OFFSET m BY keys` (numbers), as
//!   `OFFSET m LIMIT n BY keys`;
//! - `LIMIT n BY keys LIMIT m [OFFSET k]`, the second as `[OFFSET k ROWS]
//!   FETCH FIRST m ROWS ONLY`;
//! - `LIMIT n WITH TIES`, as `LIMIT n FETCH ROWS WITH TIES` (a FETCH with
//!   no count, which `query_clauses` turns into a `rank()` window);
//! - `DateTime64` without a precision, as `DateTime64(3)`;
//! - `FROM t [AS a] FINAL`, as the table hint `t [AS a] WITH (FINAL)`, which
//!   the engine takes off the table before planning (see [`FINAL_HINT`]);
//! - `(expr AS name)` inside expressions (`inline_aliases`);
//! - column matchers with transformers, `COLUMNS('re') APPLY(sum)`, as
//!   nested calls (`column_matchers`);
//! - a query parameter left in the text, `{name:Type}`, as
//!   `__strata_param('name', 'Type')`: a parameterized view keeps it so, and
//!   the engine gives it a value or fails with UNKNOWN_QUERY_PARAMETER.

use datafusion::sql::sqlparser::dialect::Dialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace, Word};
use strata_common::Result;

use crate::parser::syntax_error;

/// The tokens of `sql` with ClickHouse's syntax rewritten for sqlparser.
pub fn tokenize(dialect: &dyn Dialect, sql: &str) -> Result<Vec<TokenWithSpan>> {
    let mut tokens = Tokenizer::new(dialect, &crate::source_text::normalize(sql))
        .with_unescape(false)
        .tokenize_with_location()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    for token in &mut tokens {
        match &mut token.token {
            Token::SingleQuotedString(raw) => *raw = unescape(raw),
            // Without unescaping, a doubled quote stays doubled in the name.
            Token::Word(w) => {
                if let Some(q) = w.quote_style {
                    w.value = w.value.replace(&format!("{q}{q}"), &q.to_string());
                }
            }
            // ClickHouse reads U+2212, the minus sign of typeset text, as `-`.
            Token::Char('\u{2212}') => token.token = Token::Minus,
            _ => {}
        }
    }
    let tokens = digit_led_names(tokens);
    let tokens = query_parameters(tokens);
    let tokens = hex_numbers(tokens);
    let tokens = aggregate_filters(tokens);
    let tokens = crate::join_strictness::rewrite_words(tokens, sql)?;
    let tokens = parenthesize_using(tokens);
    let tokens = crate::join_strictness::mark_constraints(tokens, sql)?;
    let tokens = separate_values_rows(tokens);
    let tokens = insert_trailing_commas(tokens);
    let tokens = one_element_tuples(tokens);
    let tokens = fetch_with_ties(tokens);
    let tokens = final_hints(tokens);
    let tokens = bracket_operands(tokens);
    let tokens = in_bare_operands(tokens);
    let tokens = show_not_like(tokens);
    let tokens = limit_offset_by(tokens);
    let tokens = limit_after_limit_by(tokens);
    let tokens = totals_without_group_by(tokens);
    let tokens = ordered_set_operands(tokens);
    let tokens = tuple_elements(tokens);
    let tokens = interval_texts(tokens);
    let tokens = zoned_date_times(tokens);
    let tokens = default_date_time_precision(tokens);
    let tokens = empty_type_parentheses(tokens);
    let tokens = tables_named_table(tokens);
    let tokens = bare_lambda_parameters(tokens);
    let tokens = aggregate_function_arguments(tokens);
    let tokens = crate::column_matchers::encode(tokens);
    let tokens = conditional_operators(tokens);
    Ok(crate::inline_aliases::inline_aliases(tokens))
}

/// A string literal's text as ClickHouse reads it.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    // Bytes from `\xHH` runs, decoded together so multi-byte UTF-8 works.
    let mut bytes: Vec<u8> = Vec::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'x') {
            let mut probe = chars.clone();
            probe.next();
            let hex: String = probe.by_ref().take(2).collect();
            if hex.len() == 2
                && let Ok(byte) = u8::from_str_radix(&hex, 16)
            {
                bytes.push(byte);
                chars = probe;
                continue;
            }
        }
        flush_bytes(&mut bytes, &mut out);
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                out.push('\'');
            }
            '\\' => match chars.next() {
                None => out.push('\\'),
                Some('a') => out.push('\x07'),
                Some('b') => out.push('\x08'),
                Some('e') => out.push('\x1b'),
                Some('f') => out.push('\x0c'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('v') => out.push('\x0b'),
                Some('0') => out.push('\0'),
                // `\N` is TSV's NULL; in a literal it reads as nothing.
                Some('N') => {}
                Some(quoted @ ('\\' | '\'' | '"' | '`' | '/' | '=' | '?')) => out.push(quoted),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
            },
            other => out.push(other),
        }
    }
    flush_bytes(&mut bytes, &mut out);
    out
}

/// Appends `\xHH` bytes; bytes that are not UTF-8 become U+FFFD, as a
/// String cannot hold them.
fn flush_bytes(bytes: &mut Vec<u8>, out: &mut String) {
    if !bytes.is_empty() {
        out.push_str(&String::from_utf8_lossy(bytes));
        bytes.clear();
    }
}

pub(crate) fn is_space(token: &TokenWithSpan) -> bool {
    matches!(token.token, Token::Whitespace(_))
}

pub(crate) fn keyword(token: &TokenWithSpan) -> Keyword {
    match &token.token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Words that end a `USING` list written without parentheses.
fn ends_using_list(k: Keyword) -> bool {
    crate::join_strictness::is_join_modifier(k)
        || matches!(
            k,
            Keyword::JOIN
                | Keyword::WHERE
                | Keyword::PREWHERE
                | Keyword::GROUP
                | Keyword::HAVING
                | Keyword::ORDER
                | Keyword::LIMIT
                | Keyword::OFFSET
                | Keyword::SETTINGS
                | Keyword::FORMAT
                | Keyword::UNION
                | Keyword::EXCEPT
                | Keyword::INTERSECT
                | Keyword::WINDOW
                | Keyword::QUALIFY
                | Keyword::ARRAY
                | Keyword::INTO
                | Keyword::FETCH
        )
}

/// `JOIN t USING a, b` becomes `JOIN t USING (a, b)`.
fn parenthesize_using(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out = Vec::with_capacity(tokens.len() + 2);
    let mut seen_join = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        seen_join |= keyword(token) == Keyword::JOIN;
        out.push(token.clone());
        i += 1;
        if !(seen_join && keyword(token) == Keyword::USING) {
            continue;
        }
        let first = (i..tokens.len()).find(|&j| !is_space(&tokens[j]));
        let Some(first) = first.filter(|&j| is_list_word(&tokens[j])) else {
            continue;
        };
        // The list: words, dots and commas up to the first other token.
        let mut end = first;
        let mut j = first;
        while j < tokens.len() {
            let t = &tokens[j];
            if is_list_word(t) || matches!(t.token, Token::Period | Token::Comma) {
                if !matches!(t.token, Token::Comma) {
                    end = j + 1;
                }
            } else if !is_space(t) {
                break;
            }
            j += 1;
        }
        out.extend(tokens[i..first].iter().cloned());
        out.push(with_token(&tokens[first], Token::LParen));
        out.extend(tokens[first..end].iter().cloned());
        out.push(with_token(&tokens[end - 1], Token::RParen));
        i = end;
    }
    out
}

fn is_list_word(token: &TokenWithSpan) -> bool {
    matches!(&token.token, Token::Word(w) if w.quote_style.is_some() || !ends_using_list(w.keyword))
}

pub(crate) fn with_token(at: &TokenWithSpan, token: Token) -> TokenWithSpan {
    TokenWithSpan {
        token,
        span: at.span,
    }
}

/// The scale `DateTime('zone')` comes with as a DateTime64 (no DateTime64
/// has it): [`zoned_date_times`].
pub const ZONED_DATE_TIME_SCALE: u64 = u32::MAX as u64;

/// The type `DateTime('zone')`, whose zone sqlparser does not read, as
/// `DateTime64(ZONED_DATE_TIME_SCALE, 'zone')`, which `literal_text` and
/// the casts of `equivalents::dates` read back as a DateTime.
fn zoned_date_times(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Whether a rewritten type waits for its parenthesis.
    let mut pending = false;
    for (i, token) in tokens.iter().enumerate() {
        let mut rest = tokens[i + 1..].iter().filter(|t| !is_space(t));
        let zoned = keyword(token) == Keyword::DATETIME
            && rest.next().is_some_and(|t| t.token == Token::LParen)
            && rest
                .next()
                .is_some_and(|t| matches!(t.token, Token::SingleQuotedString(_)))
            && rest.next().is_some_and(|t| t.token == Token::RParen);
        if zoned {
            out.push(with_token(token, Token::make_keyword("DATETIME64")));
            pending = true;
            continue;
        }
        out.push(token.clone());
        if pending && token.token == Token::LParen {
            out.push(with_token(
                token,
                Token::Number(ZONED_DATE_TIME_SCALE.to_string(), false),
            ));
            out.push(with_token(token, Token::Comma));
            pending = false;
        }
    }
    out
}

/// The type `DateTime64` without a precision, which sqlparser does not
/// read, as ClickHouse's default `DateTime64(3)`: where a type is written
/// (after a column's name, `::` or `AS`, or inside a type's parentheses).
fn default_date_time_precision(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        out.push(token.clone());
        let bare = keyword(token) == Keyword::DATETIME64
            && tokens[i + 1..]
                .iter()
                .find(|t| !is_space(t))
                .is_none_or(|t| t.token != Token::LParen);
        if bare && names_a_type(&out[..out.len() - 1]) {
            out.push(with_token(token, Token::LParen));
            out.push(with_token(token, Token::Number("3".to_string(), false)));
            out.push(with_token(token, Token::RParen));
        }
    }
    out
}

/// `arrayMap(x, y -> x + y, a, b)`: a lambda's parameters without their
/// parentheses, as the first argument of a call, parenthesized.
fn bare_lambda_parameters(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if token.token == Token::Arrow
            && let Some(open) = bare_parameters_start(&out)
        {
            out.insert(open + 1, with_token(&token, Token::LParen));
            out.push(with_token(&token, Token::RParen));
        }
        out.push(token);
    }
    out
}

/// Where `before` ends in `( name, name [, name ...]` (two names or more),
/// the index of that `(`.
fn bare_parameters_start(before: &[TokenWithSpan]) -> Option<usize> {
    let mut names = 0;
    let mut expect_name = true;
    for i in (0..before.len()).rev() {
        match &before[i].token {
            _ if is_space(&before[i]) => {}
            Token::Word(_) if expect_name => {
                names += 1;
                expect_name = false;
            }
            Token::Comma if !expect_name => expect_name = true,
            Token::LParen if !expect_name && names >= 2 => return Some(i),
            _ => return None,
        }
    }
    None
}

/// `FROM table`: a table named `table` (sqlparser reads the keyword as
/// the start of `TABLE(...)`), quoted.
fn tables_named_table(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let after_from = out
            .iter()
            .rev()
            .find(|t| !is_space(t))
            .is_some_and(|t| matches!(keyword(t), Keyword::FROM | Keyword::JOIN));
        let called = tokens[i + 1..]
            .iter()
            .find(|t| !is_space(t))
            .is_some_and(|t| t.token == Token::LParen);
        if keyword(token) == Keyword::TABLE && after_from && !called {
            let Token::Word(word) = &token.token else {
                unreachable!("a keyword is a word");
            };
            out.push(with_token(token, Token::make_word(&word.value, Some('`'))));
            continue;
        }
        out.push(token.clone());
    }
    out
}

/// The type `DateTime()`, which sqlparser does not read, as `DateTime`.
fn empty_type_parentheses(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        let is_type = keyword(token) == Keyword::DATETIME && names_a_type(&out);
        out.push(token.clone());
        if !is_type {
            continue;
        }
        let mut next = (i..tokens.len()).filter(|&j| !is_space(&tokens[j]));
        if let (Some(open), Some(close)) = (next.next(), next.next())
            && tokens[open].token == Token::LParen
            && tokens[close].token == Token::RParen
        {
            i = close + 1;
        }
    }
    out
}

/// `AggregateFunction(quantiles(0.5, 0.9), Nullable(UInt64))`: each
/// argument becomes one quoted type modifier, as sqlparser reads the
/// arguments of a type it does not know only as words, numbers or strings.
fn aggregate_function_arguments(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        out.push(token.clone());
        i += 1;
        let is_state_type = matches!(&token.token, Token::Word(w)
            if w.quote_style.is_none()
                && ["AggregateFunction", "SimpleAggregateFunction"]
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case(&w.value)));
        if !is_state_type || tokens.get(i).map(|t| &t.token) != Some(&Token::LParen) {
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
        let (mut depth, mut argument) = (0usize, String::new());
        while i < tokens.len() {
            let next = &tokens[i];
            i += 1;
            match &next.token {
                Token::LParen => depth += 1,
                Token::RParen if depth > 0 => depth -= 1,
                Token::Comma | Token::RParen if depth == 0 => {
                    let text = argument.trim().to_string();
                    out.push(with_token(next, Token::SingleQuotedString(text)));
                    argument.clear();
                    out.push(next.clone());
                    if next.token == Token::RParen {
                        break;
                    }
                    continue;
                }
                _ => {}
            }
            match &next.token {
                Token::SingleQuotedString(text) => argument.push_str(&format!("'{text}'")),
                other => argument.push_str(&other.to_string()),
            }
        }
    }
    out
}

/// Whether a word after `before` is a type rather than an expression.
fn names_a_type(before: &[TokenWithSpan]) -> bool {
    let significant: Vec<&TokenWithSpan> = before.iter().filter(|t| !is_space(t)).collect();
    // Nothing before it: a type's own text (`CAST(x, 'DateTime64')`).
    let Some(&prev) = significant.last() else {
        return true;
    };
    match &prev.token {
        Token::DoubleColon => true,
        Token::Word(_) => !matches!(
            keyword(prev),
            Keyword::SELECT
                | Keyword::WHERE
                | Keyword::BY
                | Keyword::ON
                | Keyword::AND
                | Keyword::OR
                | Keyword::NOT
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::HAVING
                | Keyword::DISTINCT
                | Keyword::PREWHERE
        ),
        Token::LParen | Token::Comma => in_type_arguments(&significant),
        _ => false,
    }
}

/// Whether the innermost open parenthesis belongs to a type (`Nullable(`).
fn in_type_arguments(tokens: &[&TokenWithSpan]) -> bool {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().rev() {
        match token.token {
            Token::RParen => depth += 1,
            Token::LParen if depth > 0 => depth -= 1,
            Token::LParen => {
                let opener = i.checked_sub(1).map(|p| tokens[p].token.to_string());
                return opener.is_some_and(|name| {
                    [
                        "Nullable",
                        "LowCardinality",
                        "Array",
                        "Map",
                        "Tuple",
                        "Variant",
                    ]
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case(&name))
                });
            }
            _ => {}
        }
    }
    false
}

/// `INSERT INTO t (a, b, ) VALUES (1, 2, )`: ClickHouse takes a comma
/// after the last name of the column list and the last value of a row;
/// sqlparser does not.
fn insert_trailing_commas(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let first_word = tokens.iter().find(|t| !is_space(t)).map(keyword);
    if first_word != Some(Keyword::INSERT) {
        return tokens;
    }
    let mut in_values = false;
    let mut i = 0;
    while i < tokens.len() {
        match keyword(&tokens[i]) {
            Keyword::VALUES => in_values = true,
            Keyword::SELECT | Keyword::FORMAT | Keyword::WITH => break,
            _ => {}
        }
        if tokens[i].token == Token::LParen {
            i = without_trailing_comma(&mut tokens, i);
            if !in_values {
                // Past the column list only VALUES rows are lists of values.
                in_values = tokens[i..].iter().any(|t| keyword(t) == Keyword::VALUES);
                if !in_values {
                    break;
                }
            }
        }
        i += 1;
    }
    tokens
}

/// Removes a comma right before the parenthesis that closes the one at
/// `open`; returns the index of the closing one.
fn without_trailing_comma(tokens: &mut Vec<TokenWithSpan>, open: usize) -> usize {
    if let Some((comma, _)) = trailing_comma(tokens, open) {
        tokens.remove(comma);
    }
    matching_close(tokens, open).unwrap_or(tokens.len())
}

/// `(x,)`, ClickHouse's tuple of one element, as `tuple(x)`: a bracket where
/// an expression starts (after an operator, a comma, another bracket or a
/// word such as SELECT or IN), not one that opens arguments or a column list
/// (after a name, which may also be a keyword: `CREATE TABLE data (a Int8,)`).
fn one_element_tuples(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    // (index, Some(word)) inserts the word before `index`; (index, None) removes it.
    let mut edits: Vec<(usize, Option<TokenWithSpan>)> = Vec::new();
    let mut previous: Option<usize> = None;
    for i in 0..tokens.len() {
        if is_space(&tokens[i]) {
            continue;
        }
        let starts_tuple = tokens[i].token == Token::LParen
            && previous.is_none_or(|p| crate::inline_aliases::groups_expression(&tokens[p]));
        previous = Some(i);
        if starts_tuple && let Some(comma) = lone_trailing_comma(&tokens, i) {
            edits.push((comma, None));
            edits.push((
                i,
                Some(with_token(&tokens[i], Token::make_word("tuple", None))),
            ));
        }
    }
    edits.sort_by(|a, b| b.0.cmp(&a.0));
    for (index, edit) in edits {
        match edit {
            Some(word) => tokens.insert(index, word),
            None => {
                tokens.remove(index);
            }
        }
    }
    tokens
}

/// The comma of `(x,)` opened at `open`: its only comma at its own depth,
/// right before its closing bracket.
fn lone_trailing_comma(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    trailing_comma(tokens, open)
        .filter(|&(_, commas)| commas == 1)
        .map(|(comma, _)| comma)
}

/// The comma right before the bracket that closes the one at `open`, and
/// how many commas that bracket holds at its own depth.
fn trailing_comma(tokens: &[TokenWithSpan], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut commas = 0;
    let mut last: Option<usize> = None;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        if opens(token) {
            depth += 1;
        } else if closes(token) {
            depth -= 1;
            if depth == 0 {
                return last
                    .filter(|&c| tokens[c].token == Token::Comma)
                    .map(|c| (c, commas));
            }
        }
        if depth == 1 && token.token == Token::Comma {
            commas += 1;
        }
        if !is_space(token) {
            last = Some(i);
        }
    }
    None
}

/// `INSERT ... VALUES (1) (2)` gets the commas sqlparser needs.
fn separate_values_rows(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let first_word = tokens.iter().find(|t| !is_space(t)).map(keyword);
    if first_word != Some(Keyword::INSERT) {
        return tokens;
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut in_values = false;
    let mut depth = 0i32;
    let mut row_closed = false;
    for token in tokens {
        match &token.token {
            Token::LParen => {
                if in_values && depth == 0 && row_closed {
                    out.push(with_token(&token, Token::Comma));
                }
                depth += 1;
                row_closed = false;
            }
            Token::RParen => {
                depth -= 1;
                row_closed = depth == 0;
            }
            Token::Whitespace(_) => {}
            _ => {
                in_values |= depth == 0 && keyword(&token) == Keyword::VALUES;
                row_closed = false;
            }
        }
        out.push(token);
    }
    out
}

/// `INTERVAL '2 day'`, the amount and unit in one string, as `INTERVAL 2 day`;
/// a short unit after a one-token amount (`INTERVAL 4 h`) by its full keyword.
fn interval_texts(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    use strata_functions::dates::intervals::IntervalKind;
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Token::Word(unit) = &token.token
            && unit.quote_style.is_none()
            && let Some(kind) = IntervalKind::from_keyword(&unit.value)
            && !unit.value.eq_ignore_ascii_case(kind.keyword())
            && let mut before = out.iter().rev().filter(|t| !is_space(t))
            && before
                .next()
                .is_some_and(|amount| matches!(amount.token, Token::Number(..) | Token::Word(_)))
            && before
                .next()
                .is_some_and(|t| keyword(t) == Keyword::INTERVAL)
        {
            out.push(with_token(&token, Token::make_word(kind.keyword(), None)));
            continue;
        }
        let after_interval = out
            .iter()
            .rev()
            .find(|t| !is_space(t))
            .is_some_and(|t| keyword(t) == Keyword::INTERVAL);
        if let Token::SingleQuotedString(text) = &token.token
            && after_interval
            && let Some((amount, unit)) = text.trim().split_once(char::is_whitespace)
            && amount.parse::<i64>().is_ok()
            && let Some(kind) = IntervalKind::from_keyword(unit.trim())
        {
            out.push(with_token(&token, Token::Number(amount.to_string(), false)));
            out.push(with_token(&token, Token::Whitespace(Whitespace::Space)));
            out.push(with_token(
                &token,
                Token::make_word(unit_word(unit.trim(), kind), None),
            ));
            continue;
        }
        out.push(token);
    }
    out
}

/// A unit as written when it is the full keyword (`day`), else the full
/// keyword (`h` is `Hour`), which every SQL parser reads.
fn unit_word(written: &str, kind: strata_functions::dates::intervals::IntervalKind) -> &str {
    if written.eq_ignore_ascii_case(kind.keyword()) {
        written
    } else {
        kind.keyword()
    }
}

/// `t.1` is `tupleElement(t, 1)`: the tokenizer reads `.1` as a number
/// right after the operand.
fn tuple_elements(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Token::Number(number, _) = &token.token
            && let Some(index) = number.strip_prefix('.')
            && !index.is_empty()
            && index.bytes().all(|b| b.is_ascii_digit())
            && let Some(start) = operand_start(&out)
        {
            let head = [
                with_token(&token, Token::make_word("tupleElement", None)),
                with_token(&token, Token::LParen),
            ];
            out.splice(start..start, head);
            out.push(with_token(&token, Token::Comma));
            out.push(with_token(&token, Token::Number(index.to_string(), false)));
            out.push(with_token(&token, Token::RParen));
            continue;
        }
        // `f(x).name`, `a[1].name`: an element of a named tuple by name.
        if let Token::Word(word) = &token.token
            && let [.., operand_end, period] = out.as_slice()
            && period.token == Token::Period
            && matches!(operand_end.token, Token::RParen | Token::RBracket)
        {
            out.pop();
            if let Some(start) = operand_start(&out) {
                let head = [
                    with_token(&token, Token::make_word("tupleElement", None)),
                    with_token(&token, Token::LParen),
                ];
                out.splice(start..start, head);
                out.push(with_token(&token, Token::Comma));
                out.push(with_token(
                    &token,
                    Token::SingleQuotedString(word.value.clone()),
                ));
                out.push(with_token(&token, Token::RParen));
                continue;
            }
            out.push(with_token(&token, Token::Period));
        }
        out.push(token);
    }
    out
}

/// Where the operand that `tokens` end with starts: a (dotted) name, a
/// call, a parenthesized or bracketed expression, with its subscripts.
fn operand_start(tokens: &[TokenWithSpan]) -> Option<usize> {
    let last = tokens.len().checked_sub(1)?;
    match tokens[last].token {
        Token::Word(_) => {
            let mut start = last;
            while start >= 2
                && tokens[start - 1].token == Token::Period
                && matches!(tokens[start - 2].token, Token::Word(_))
            {
                start -= 2;
            }
            Some(start)
        }
        Token::RParen | Token::RBracket => {
            let open = matching_open(tokens, last)?;
            let applied = open > 0
                && match (&tokens[last].token, &tokens[open - 1].token) {
                    (Token::RParen, before) => matches!(before, Token::Word(_)),
                    (_, before) => {
                        matches!(before, Token::Word(_) | Token::RParen | Token::RBracket)
                    }
                };
            if applied {
                operand_start(&tokens[..open])
            } else {
                Some(open)
            }
        }
        _ => None,
    }
}

/// The bracket that closes the one opening at `open`.
pub(crate) fn matching_close(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        if opens(token) {
            depth += 1;
        } else if closes(token) {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The bracket that opens the one closing at `close`.
pub(crate) fn matching_open(tokens: &[TokenWithSpan], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        if closes(&tokens[i]) {
            depth += 1;
        } else if opens(&tokens[i]) {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// ClickHouse's per-key offsets, `LIMIT m, n BY` and `LIMIT n OFFSET m BY`
/// with numbers, become `OFFSET m LIMIT n BY`, the form sqlparser reads.
fn limit_offset_by(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !is_space(&tokens[i]))
        .collect();
    for window in significant.windows(5) {
        let [limit, first, between, second, by] = *window else {
            unreachable!("windows of 5")
        };
        let is_number = |i: usize| matches!(tokens[i].token, Token::Number(..));
        if keyword(&tokens[limit]) != Keyword::LIMIT
            || !is_number(first)
            || !is_number(second)
            || keyword(&tokens[by]) != Keyword::BY
        {
            continue;
        }
        let (offset, count) = if tokens[between].token == Token::Comma {
            (first, second)
        } else if keyword(&tokens[between]) == Keyword::OFFSET {
            (second, first)
        } else {
            continue;
        };
        let (offset, count) = (tokens[offset].clone(), tokens[count].clone());
        tokens[limit] = with_token(&tokens[limit], Token::make_keyword("OFFSET"));
        tokens[first] = offset;
        tokens[between] = with_token(&tokens[between], Token::make_keyword("LIMIT"));
        tokens[second] = count;
    }
    tokens
}

/// `LIMIT n BY keys LIMIT m`: the second LIMIT, of numbers, becomes
/// `FETCH FIRST m ROWS ONLY`, which sqlparser reads after a LIMIT clause,
/// and its offset (`LIMIT m OFFSET k`, `LIMIT k, m`) `OFFSET k ROWS` before
/// it: the `ROWS` tells [`crate::query_clauses`] it is not the per-key one.
fn limit_after_limit_by(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut depth = 0usize;
    // The depth of the last LIMIT, and whether a BY followed it there.
    let mut last_limit: Option<(usize, bool)> = None;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        if opens(token) {
            depth += 1;
        } else if closes(token) {
            depth = depth.saturating_sub(1);
            last_limit = last_limit.filter(|&(at, _)| at <= depth);
        }
        match keyword(token) {
            Keyword::LIMIT if last_limit == Some((depth, true)) => {
                if let Some(outer) = outer_limit(&tokens, i) {
                    let space = with_token(token, Token::Whitespace(Whitespace::Space));
                    let word = |w: &str| with_token(token, Token::make_keyword(w));
                    if let Some(offset) = outer.offset {
                        out.extend([word("OFFSET"), space.clone(), tokens[offset].clone()]);
                        out.extend([space.clone(), word("ROWS"), space.clone()]);
                    }
                    out.extend([word("FETCH"), space.clone(), word("FIRST"), space.clone()]);
                    out.push(tokens[outer.count].clone());
                    out.extend([space.clone(), word("ROWS"), space, word("ONLY")]);
                    last_limit = None;
                    i = outer.end;
                    continue;
                }
            }
            Keyword::LIMIT => last_limit = Some((depth, false)),
            Keyword::BY if last_limit.is_some_and(|(at, _)| at == depth) => {
                last_limit = Some((depth, true));
            }
            Keyword::SELECT | Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT => {
                last_limit = last_limit.filter(|&(at, _)| at != depth);
            }
            _ => {}
        }
        if token.token == Token::SemiColon {
            last_limit = None;
        }
        out.push(token.clone());
        i += 1;
    }
    out
}

/// A LIMIT of numbers: where its count and offset are, and the index past it.
struct OuterLimit {
    count: usize,
    offset: Option<usize>,
    end: usize,
}

/// The LIMIT at `limit` when it is `LIMIT m`, `LIMIT m OFFSET k` or
/// `LIMIT k, m` of numbers.
fn outer_limit(tokens: &[TokenWithSpan], limit: usize) -> Option<OuterLimit> {
    let significant: Vec<usize> = (limit + 1..tokens.len())
        .filter(|&i| !is_space(&tokens[i]))
        .take(3)
        .collect();
    let number = |n: usize| {
        let at = *significant.get(n)?;
        matches!(tokens[at].token, Token::Number(..)).then_some(at)
    };
    let first = number(0)?;
    let (count, offset) = match significant.get(1).map(|&i| &tokens[i]) {
        Some(between) if keyword(between) == Keyword::OFFSET => (first, Some(number(2)?)),
        Some(between) if between.token == Token::Comma => (number(2)?, Some(first)),
        _ => (first, None),
    };
    let end = offset.map_or(count, |offset| offset.max(count)) + 1;
    Some(OuterLimit { count, offset, end })
}

/// `WITH TOTALS` of a SELECT without GROUP BY gets `GROUP BY ()` before it,
/// the form sqlparser reads; [`crate::totals`] takes the empty key off.
fn totals_without_group_by(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Per nesting depth: whether the SELECT there has a GROUP BY yet.
    let mut grouped: Vec<bool> = vec![false];
    for (i, token) in tokens.iter().enumerate() {
        if opens(token) {
            grouped.push(false);
        } else if closes(token) && grouped.len() > 1 {
            grouped.pop();
        }
        let here = grouped.last_mut().expect("the outermost depth stays");
        match keyword(token) {
            Keyword::SELECT => *here = false,
            Keyword::GROUP => *here = true,
            Keyword::WITH
                if !*here
                    && next_significant(&tokens, i + 1)
                        .is_some_and(|j| keyword(&tokens[j]) == Keyword::TOTALS) =>
            {
                let space = with_token(token, Token::Whitespace(Whitespace::Space));
                for word in ["GROUP", "BY"] {
                    out.push(with_token(token, Token::make_keyword(word)));
                    out.push(space.clone());
                }
                out.push(with_token(token, Token::LParen));
                out.push(with_token(token, Token::RParen));
                out.push(space);
                *here = true;
            }
            _ => {}
        }
        out.push(token.clone());
    }
    out
}

/// `WITH TIES` gets the `FETCH ROWS` sqlparser reads it after, unless it
/// ends a FETCH clause already (`FETCH FIRST 2 ROWS WITH TIES`).
fn fetch_with_ties(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let after_rows = out
            .iter()
            .rev()
            .find(|t| !is_space(t))
            .is_some_and(|t| matches!(keyword(t), Keyword::ROW | Keyword::ROWS));
        if keyword(token) == Keyword::WITH
            && !after_rows
            && tokens[i + 1..]
                .iter()
                .find(|t| !is_space(t))
                .is_some_and(|t| keyword(t) == Keyword::TIES)
        {
            let space = Token::Whitespace(Whitespace::Space);
            for word in ["FETCH", "ROWS"] {
                out.push(with_token(token, Token::make_keyword(word)));
                out.push(with_token(token, space.clone()));
            }
        }
        out.push(token.clone());
    }
    out
}

/// The table hint `FINAL` becomes: `t FINAL` is `t WITH (FINAL)`.
pub const FINAL_HINT: &str = "FINAL";

/// `FINAL` after a table (its name or alias), not in `OPTIMIZE ... FINAL`
/// nor as the setting `final = 1`, as `WITH (FINAL)`.
fn final_hints(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let optimize = tokens
        .iter()
        .find(|t| !is_space(t))
        .is_some_and(|t| keyword(t) == Keyword::OPTIMIZE);
    if optimize {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let after_name = out
            .iter()
            .rev()
            .find(|t| !is_space(t))
            .is_some_and(|t| matches!(t.token, Token::Word(_)));
        let next = tokens[i + 1..].iter().find(|t| !is_space(t));
        let is_setting = next.is_some_and(|t| matches!(t.token, Token::Eq));
        if keyword(token) == Keyword::FINAL && after_name && !is_setting {
            out.push(with_token(token, Token::make_keyword("WITH")));
            out.push(with_token(token, Token::LParen));
            out.push(token.clone());
            out.push(with_token(token, Token::RParen));
            continue;
        }
        out.push(token.clone());
    }
    out
}

/// Array literals where sqlparser reads no expression: `x IN [1, 2]` and
/// `x IN array(1, 2)` (the set) as `x IN (1, 2)`, and `ARRAY JOIN [1, 2]
/// AS a` (also an item after a comma of the clause's list) as `ARRAY JOIN
/// array(1, 2) AS a`, read as a table function that [`crate::array_join`]
/// takes for the array.
fn bracket_operands(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Bracket depths whose closing bracket becomes a parenthesis.
    let mut opened: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match &token.token {
            // `x IN array(1, 2)`: the set, as `x IN (1, 2)`.
            Token::Word(w)
                if w.quote_style.is_none()
                    && w.value.eq_ignore_ascii_case("array")
                    && tokens.peek().is_some_and(|t| t.token == Token::LParen)
                    && out
                        .iter()
                        .rev()
                        .find(|t| !is_space(t))
                        .is_some_and(|t| keyword(t) == Keyword::IN) =>
            {
                continue;
            }
            Token::LBracket => {
                let previous = out.iter().rev().find(|t| !is_space(t));
                let after_in = previous.is_some_and(|t| keyword(t) == Keyword::IN);
                let joined = joins_array(&out);
                depth += 1;
                if after_in || joined {
                    opened.push(depth);
                    if joined {
                        out.push(with_token(&token, Token::make_word("array", None)));
                    }
                    out.push(with_token(&token, Token::LParen));
                    continue;
                }
            }
            Token::RBracket => {
                let closes = opened.last() == Some(&depth);
                depth = depth.saturating_sub(1);
                if closes {
                    opened.pop();
                    out.push(with_token(&token, Token::RParen));
                    continue;
                }
            }
            _ => {}
        }
        out.push(token);
    }
    out
}

/// Whether an operand after `before` is an array of an ARRAY JOIN: right
/// after `ARRAY JOIN`, or after a comma whose clause (the nearest clause word
/// at the comma's depth) is one.
fn joins_array(before: &[TokenWithSpan]) -> bool {
    let mut significant = before.iter().rev().filter(|t| !is_space(t));
    if !significant
        .next()
        .is_some_and(|t| matches!(t.token, Token::Comma))
    {
        return is_array_join(before);
    }
    let mut depth = 0usize;
    for (at, token) in before.iter().enumerate().rev() {
        match token.token {
            Token::RParen | Token::RBracket => depth += 1,
            Token::LParen | Token::LBracket if depth == 0 => return false,
            Token::LParen | Token::LBracket => depth -= 1,
            _ if depth == 0 && is_clause_word(keyword(token)) => {
                return is_array_join(&before[..=at]);
            }
            _ => {}
        }
    }
    false
}

/// Whether `tokens` end with `ARRAY JOIN`.
fn is_array_join(tokens: &[TokenWithSpan]) -> bool {
    let mut words = tokens.iter().rev().filter(|t| !is_space(t)).map(keyword);
    words.next() == Some(Keyword::JOIN) && words.next() == Some(Keyword::ARRAY)
}

/// Words that start a clause of a query, where a list of its operands ends
/// (`ARRAY` is also a function's name: an ARRAY JOIN's clause word is JOIN).
fn is_clause_word(k: Keyword) -> bool {
    (ends_using_list(k) && k != Keyword::ARRAY)
        || matches!(
            k,
            Keyword::SELECT | Keyword::FROM | Keyword::ON | Keyword::USING | Keyword::BY
        )
}

/// `{name:Type}` as `__strata_param('name', 'Type')`.
fn query_parameters(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let parameter = match (&tokens[i].token, tokens.get(i + 1), tokens.get(i + 2)) {
            (Token::LBrace, Some(name), Some(colon)) if colon.token == Token::Colon => {
                match &name.token {
                    Token::Word(w) => {
                        let end = (i + 3..tokens.len()).find(|&j| tokens[j].token == Token::RBrace);
                        end.map(|end| (w.value.clone(), end))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((name, end)) = parameter else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        let type_name: String = tokens[i + 3..end]
            .iter()
            .map(|t| t.token.to_string())
            .collect();
        let at = &tokens[i];
        out.push(with_token(
            at,
            Token::make_word(crate::QUERY_PARAMETER_FUNCTION, None),
        ));
        out.push(with_token(at, Token::LParen));
        out.push(with_token(at, Token::SingleQuotedString(name)));
        out.push(with_token(at, Token::Comma));
        out.push(with_token(
            at,
            Token::SingleQuotedString(type_name.trim().to_string()),
        ));
        out.push(with_token(&tokens[end], Token::RParen));
        i = end + 1;
    }
    out
}

/// A name that starts with digits (`02005_t`, `03314_t`, as ClickHouse's
/// test tables are named), which sqlparser reads as a number (its digits
/// and underscores) and a word: one word.
fn digit_led_names(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for token in tokens {
        let joined = match (out.last(), &token.token) {
            (Some(previous), Token::Word(word))
                if word.quote_style.is_none()
                    && previous.span.end == token.span.start
                    && matches!(&previous.token, Token::Number(digits, false)
                        if digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')) =>
            {
                let Token::Number(digits, _) = &previous.token else {
                    unreachable!("matched as a number")
                };
                Some(match binary_number(digits, &word.value) {
                    Some(number) => Token::Number(number.to_string(), false),
                    None => Token::make_word(&format!("{digits}{}", word.value), None),
                })
            }
            _ => None,
        };
        match joined {
            Some(word) => {
                let previous = out.pop().expect("a number came before");
                out.push(TokenWithSpan {
                    token: word,
                    span: previous.span.union(&token.span),
                });
            }
            None => out.push(token),
        }
    }
    out
}

/// `0b0101` (or `0b01_01`), read as `0` and the word `b0101`: the number 5.
fn binary_number(digits: &str, word: &str) -> Option<u64> {
    let bits = word.strip_prefix('b').filter(|_| digits == "0")?;
    u64::from_str_radix(&bits.replace('_', ""), 2).ok()
}

/// `0x7f000001`, which sqlparser reads as the string `x'7f000001'`: a
/// number in ClickHouse. The two forms differ in their width in the text.
/// A binary exponent right after the digits (`0x1p4`, `0xFFp-1`) makes
/// the number a Float64, as in C.
fn hex_numbers(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        let Token::HexStringLiteral(digits) = &token.token else {
            out.push(token.clone());
            continue;
        };
        let span = token.span;
        let written = span.end.column.saturating_sub(span.start.column);
        let prefixed = span.start.line == span.end.line && written == digits.len() as u64 + 2;
        let Ok(number) = u64::from_str_radix(&digits.replace('_', ""), 16) else {
            out.push(token.clone());
            continue;
        };
        if !prefixed {
            out.push(token.clone());
            continue;
        }
        match binary_exponent(&tokens[i - 1..]) {
            Some((exponent, taken)) => {
                let value = number as f64 * 2f64.powi(exponent);
                let last = &tokens[i - 1 + taken];
                out.push(TokenWithSpan {
                    token: Token::Number(format!("{value:?}"), false),
                    span: span.union(&last.span),
                });
                i += taken;
            }
            None => out.push(with_token(token, Token::Number(number.to_string(), false))),
        }
    }
    out
}

/// The binary exponent written right after a hex number (`tokens[0]`), as
/// sqlparser splits it (`p4`, or `p` `-` `1`), and how many tokens it took.
fn binary_exponent(tokens: &[TokenWithSpan]) -> Option<(i32, usize)> {
    let adjacent = |a: usize, b: usize| {
        tokens
            .get(b)
            .is_some_and(|t| t.span.start == tokens[a].span.end)
    };
    if !adjacent(0, 1) {
        return None;
    }
    let Token::Word(word) = &tokens[1].token else {
        return None;
    };
    let rest = word
        .value
        .strip_prefix(['p', 'P'])
        .filter(|_| word.quote_style.is_none())?;
    if !rest.is_empty() {
        return Some((rest.parse().ok()?, 1));
    }
    let sign = match tokens.get(2).map(|t| &t.token) {
        Some(Token::Minus) if adjacent(1, 2) => -1,
        Some(Token::Plus) if adjacent(1, 2) => 1,
        _ => return None,
    };
    match tokens.get(3).map(|t| &t.token) {
        Some(Token::Number(digits, false)) if adjacent(2, 3) => {
            Some((sign * digits.parse::<i32>().ok()?, 3))
        }
        _ => None,
    }
}

/// `f(args) FILTER (WHERE cond)`, which sqlparser reads in ClickHouse's
/// dialect as an alias `FILTER`: the -If form `fIf(args, cond)`.
fn aggregate_filters(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        // The call just written, `name ( args )`, as filter_clause found it.
        let call = filter_clause(&tokens, i).and_then(|clause| {
            let call_close = out.iter().rposition(|t| !is_space(t))?;
            let call_open = matching_open(&out, call_close)?;
            let name = out[..call_open].iter().rposition(|t| !is_space(t))?;
            Some((clause, call_open, call_close, name))
        });
        let Some(((open, close), call_open, call_close, name)) = call else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        let Token::Word(word) = &out[name].token else {
            unreachable!("filter_clause checked the name")
        };
        out[name] = with_token(
            &out[name],
            Token::make_word(&format!("{}If", word.value), None),
        );
        let empty = out[call_open + 1..call_close].iter().all(is_space);
        out.truncate(call_close);
        if !empty {
            out.push(with_token(&tokens[open], Token::Comma));
        }
        let condition = (open + 1..close)
            .find(|&j| keyword(&tokens[j]) == Keyword::WHERE)
            .expect("WHERE");
        out.extend(tokens[condition + 1..close].iter().cloned());
        out.push(with_token(&tokens[close], Token::RParen));
        i = close + 1;
    }
    out
}

/// The parentheses of a `FILTER (WHERE ...)` starting at `at`, where it
/// follows a call `name(args)` without DISTINCT.
fn filter_clause(tokens: &[TokenWithSpan], at: usize) -> Option<(usize, usize)> {
    let is_filter = matches!(&tokens[at].token, Token::Word(w)
        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("FILTER"));
    if !is_filter {
        return None;
    }
    let next = |from: usize| (from..tokens.len()).find(|&j| !is_space(&tokens[j]));
    let open = next(at + 1)?;
    let condition = next(open + 1)?;
    if tokens[open].token != Token::LParen || keyword(&tokens[condition]) != Keyword::WHERE {
        return None;
    }
    let call_close = (0..at).rev().find(|&j| !is_space(&tokens[j]))?;
    if tokens[call_close].token != Token::RParen {
        return None;
    }
    let call_open = matching_open(tokens, call_close)?;
    let name = (0..call_open).rev().find(|&j| !is_space(&tokens[j]))?;
    let distinct = (call_open + 1..call_close).any(|j| keyword(&tokens[j]) == Keyword::DISTINCT);
    let named = matches!(&tokens[name].token, Token::Word(w) if w.quote_style.is_none());
    (named && !distinct).then_some(())?;
    Some((open, matching_close(tokens, open)?))
}

/// The operand of `IN` written without parentheses: a literal or a call is
/// a set of one, `tuple(a, b)` the set of its elements, a name is a table
/// (`x IN t` as `x IN (SELECT * FROM t)`). `IN PARTITION` (ALTER) and
/// SHOW's `IN db` stay.
fn in_bare_operands(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut statement_start = true;
    let mut showing = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        out.push(token.clone());
        i += 1;
        if token.token == Token::SemiColon {
            statement_start = true;
            continue;
        }
        if statement_start && !is_space(token) {
            statement_start = false;
            showing = keyword(token) == Keyword::SHOW;
        }
        if showing || keyword(token) != Keyword::IN {
            continue;
        }
        let Some(start) = (i..tokens.len()).find(|&j| !is_space(&tokens[j])) else {
            continue;
        };
        if let Some((set, end)) = called_set(&tokens, start) {
            out.extend(tokens[i..start].iter().cloned());
            out.extend(set);
            i = end;
            continue;
        }
        let end = bare_operand_end(&tokens, start);
        if end == start {
            continue;
        }
        let table = matches!(&tokens[start].token, Token::Word(w) if !is_literal_word(w));
        let opening = |t: Token| with_token(&tokens[start], t);
        out.extend(tokens[i..start].iter().cloned());
        out.push(opening(Token::LParen));
        if table {
            out.push(opening(Token::make_keyword("SELECT")));
            out.push(opening(Token::Whitespace(Whitespace::Space)));
            out.push(opening(Token::Mul));
            out.push(opening(Token::Whitespace(Whitespace::Space)));
            out.push(opening(Token::make_keyword("FROM")));
            out.push(opening(Token::Whitespace(Whitespace::Space)));
        }
        out.extend(tokens[start..end].iter().cloned());
        out.push(with_token(&tokens[end - 1], Token::RParen));
        i = end;
    }
    out
}

/// `SHOW TABLES NOT LIKE 'p'` (and NOT ILIKE, of any SHOW that filters by
/// pattern) as `SHOW TABLES WHERE name NOT LIKE 'p'`, which sqlparser reads;
/// SHOW COLUMNS filters its `field`.
fn show_not_like(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut statement_start = true;
    let mut showing = false;
    let mut column = "name";
    for (i, token) in tokens.iter().enumerate() {
        if token.token == Token::SemiColon {
            statement_start = true;
        } else if statement_start && !is_space(token) {
            statement_start = false;
            showing = keyword(token) == Keyword::SHOW;
            column = "name";
        }
        if showing && matches!(keyword(token), Keyword::COLUMNS | Keyword::FIELDS) {
            column = "field";
        }
        let negated_pattern = showing
            && keyword(token) == Keyword::NOT
            && next_significant(&tokens, i + 1)
                .is_some_and(|j| matches!(keyword(&tokens[j]), Keyword::LIKE | Keyword::ILIKE));
        if negated_pattern {
            let space = with_token(token, Token::Whitespace(Whitespace::Space));
            out.push(with_token(token, Token::make_keyword("WHERE")));
            out.push(space.clone());
            out.push(with_token(token, Token::make_word(column, None)));
            out.push(space);
        }
        out.push(token.clone());
    }
    out
}

/// `SELECT ... ORDER BY a LIMIT n UNION ALL SELECT ... LIMIT m`: in
/// ClickHouse each SELECT of a set operation may have its own ORDER BY and
/// LIMIT, the last one's included (they never apply to the whole result).
/// sqlparser reads them so only on a parenthesized operand, so each such
/// operand gets parentheses, from its SELECT (a WITH before stays over the
/// whole statement) to the set operator, or for the last to the end of the
/// query, before its FORMAT or SETTINGS.
fn ordered_set_operands(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut depths = vec![SetOperand::default()];
    for (i, token) in tokens.iter().enumerate() {
        let token = token.clone();
        let called =
            next_significant(&tokens, i + 1).is_some_and(|j| tokens[j].token == Token::LParen);
        let ends_query = matches!(token.token, Token::SemiColon | Token::EOF)
            || (closes(&token) && depths.len() > 1)
            || (matches!(keyword(&token), Keyword::FORMAT | Keyword::SETTINGS) && !called);
        if ends_query {
            let operand = depths.last_mut().expect("the statement's depth stays");
            if operand.in_set_operation {
                operand.close(&mut out, &token);
            }
        }
        if opens(&token) {
            depths.push(SetOperand::default());
        } else if closes(&token) && depths.len() > 1 {
            depths.pop();
        } else if token.token == Token::SemiColon {
            depths = vec![SetOperand::default()];
        }
        let operand = depths.last_mut().expect("the statement's depth stays");
        match keyword(&token) {
            Keyword::SELECT if operand.select.is_none() => operand.select = Some(out.len()),
            Keyword::ORDER | Keyword::LIMIT if operand.select.is_some() => operand.ordered = true,
            // `* EXCEPT (a)` is a column matcher.
            Keyword::EXCEPT
                if out.iter().rev().find(|t| !is_space(t)).map(|t| &t.token)
                    == Some(&Token::Mul) => {}
            Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT => {
                operand.close(&mut out, &token);
                operand.in_set_operation = true;
            }
            _ => {}
        }
        out.push(token);
    }
    if let Some(operand) = depths.first_mut()
        && operand.in_set_operation
        && let Some(last) = out.last().cloned()
    {
        operand.close(&mut out, &last);
    }
    out
}

/// The index of the first token from `from` on that is not whitespace.
pub(crate) fn next_significant(tokens: &[TokenWithSpan], from: usize) -> Option<usize> {
    (from..tokens.len()).find(|&i| !is_space(&tokens[i]))
}

/// One bracket depth's SELECT being read, for [`ordered_set_operands`].
#[derive(Clone, Copy, Default)]
struct SetOperand {
    /// Where its SELECT is in the tokens written so far.
    select: Option<usize>,
    /// Whether ORDER or LIMIT followed it at this depth.
    ordered: bool,
    /// Whether a set operator came before it at this depth.
    in_set_operation: bool,
}

impl SetOperand {
    /// Ends the operand at the end of `out`, parenthesized if ordered.
    fn close(&mut self, out: &mut Vec<TokenWithSpan>, at: &TokenWithSpan) {
        if let (Some(start), true) = (self.select, self.ordered) {
            out.insert(start, with_token(at, Token::LParen));
            out.push(with_token(at, Token::RParen));
            out.push(with_token(at, Token::Whitespace(Whitespace::Space)));
        }
        self.select = None;
        self.ordered = false;
    }
}

/// A call as the operand of `IN`: `tuple(a, b)` is the set `(a, b)`, any
/// other call `f(...)` a set of one, `(f(...))`. The set's tokens and the
/// index past the call; None when no call starts at `start`.
fn called_set(tokens: &[TokenWithSpan], start: usize) -> Option<(Vec<TokenWithSpan>, usize)> {
    let Token::Word(name) = &tokens[start].token else {
        return None;
    };
    let open = start + 1;
    if tokens.get(open)?.token != Token::LParen || name.keyword == Keyword::PARTITION {
        return None;
    }
    let close = matching_close(tokens, open)?;
    if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("tuple") {
        return Some((tokens[open..=close].to_vec(), close + 1));
    }
    let mut set = vec![with_token(&tokens[start], Token::LParen)];
    set.extend_from_slice(&tokens[start..=close]);
    set.push(with_token(&tokens[close], Token::RParen));
    Some((set, close + 1))
}

/// Where a bare `IN` operand starting at `start` ends (exclusive): a
/// literal (with its sign), or a name `t` or `db.t` not followed by `(`;
/// `start` when the operand is anything else.
fn bare_operand_end(tokens: &[TokenWithSpan], start: usize) -> usize {
    let at = |j: usize| tokens.get(j).map(|t| &t.token);
    match at(start) {
        Some(Token::Number(..) | Token::SingleQuotedString(_)) => start + 1,
        Some(Token::Minus) if matches!(at(start + 1), Some(Token::Number(..))) => start + 2,
        Some(Token::Word(w)) if is_literal_word(w) => start + 1,
        Some(Token::Word(w)) if w.quote_style.is_some() || w.keyword != Keyword::PARTITION => {
            let mut end = start + 1;
            while matches!(at(end), Some(Token::Period))
                && matches!(at(end + 1), Some(Token::Word(_)))
            {
                end += 2;
            }
            match at(end) {
                Some(Token::LParen | Token::Period) => start,
                _ => end,
            }
        }
        _ => start,
    }
}

fn is_literal_word(word: &Word) -> bool {
    word.quote_style.is_none()
        && matches!(word.keyword, Keyword::NULL | Keyword::TRUE | Keyword::FALSE)
}

fn is_question_mark(token: &TokenWithSpan) -> bool {
    matches!(&token.token, Token::Placeholder(p) if p == "?")
}

/// Words an operand of `?:` cannot reach past: the operator binds loosest,
/// so its operands stop only at commas, brackets and clause words.
fn bounds_conditional(k: Keyword) -> bool {
    ends_using_list(k)
        || matches!(
            k,
            Keyword::SELECT
                | Keyword::FROM
                | Keyword::AS
                | Keyword::ON
                | Keyword::BY
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::END
                | Keyword::DISTINCT
                | Keyword::ASC
                | Keyword::DESC
        )
}

/// Where `?:` operands end, looking from inside them (`->`: a lambda's
/// body is the condition, not the lambda).
fn is_boundary(token: &TokenWithSpan) -> bool {
    matches!(
        token.token,
        Token::Comma | Token::SemiColon | Token::EOF | Token::Arrow
    ) || bounds_conditional(keyword(token))
}

fn opens(token: &TokenWithSpan) -> bool {
    matches!(token.token, Token::LParen | Token::LBracket | Token::LBrace)
}

fn closes(token: &TokenWithSpan) -> bool {
    matches!(token.token, Token::RParen | Token::RBracket | Token::RBrace)
}

/// `c ? a : b` becomes `if(c, a, b)`, one operator at a time from the left
/// (so `a ? b : c ? d : e` nests to the right, as in ClickHouse).
fn conditional_operators(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    while let Some(question) = tokens.iter().position(is_question_mark) {
        let Some((start, colon, end)) = conditional_extent(&tokens, question) else {
            // No `:` to match: leave it for the parser to report.
            break;
        };
        let at = tokens[question].clone();
        tokens[question] = with_token(&at, Token::Comma);
        tokens[colon] = with_token(&at, Token::Comma);
        tokens.insert(end, with_token(&at, Token::RParen));
        tokens.insert(start, with_token(&at, Token::LParen));
        tokens.insert(start, with_token(&at, Token::make_word("if", None)));
    }
    tokens
}

/// The first token of the condition, the matching `:`, and the index just
/// past the last token of the alternative.
fn conditional_extent(tokens: &[TokenWithSpan], question: usize) -> Option<(usize, usize, usize)> {
    let mut start = 0;
    let mut depth = 0usize;
    for i in (0..question).rev() {
        let t = &tokens[i];
        if closes(t) {
            depth += 1;
        } else if opens(t) {
            if depth == 0 {
                start = i + 1;
                break;
            }
            depth -= 1;
        } else if depth == 0 && (is_boundary(t) || matches!(t.token, Token::Colon)) {
            start = i + 1;
            break;
        }
    }
    // `?`s met and not yet matched by a `:`, in the branch being read.
    let (mut depth, mut pending, mut colon) = (0usize, 0usize, None);
    for (i, t) in tokens.iter().enumerate().skip(question + 1) {
        if opens(t) {
            depth += 1;
        } else if closes(t) {
            if depth == 0 {
                return colon.map(|c| (start, c, i));
            }
            depth -= 1;
        } else if depth > 0 {
            continue;
        } else if is_question_mark(t) {
            pending += 1;
        } else if matches!(t.token, Token::Colon) {
            if pending > 0 {
                pending -= 1;
            } else if colon.is_none() {
                colon = Some(i);
            } else {
                // An enclosing operator's `:`.
                return colon.map(|c| (start, c, i));
            }
        } else if is_boundary(t) {
            return colon.map(|c| (start, c, i));
        }
    }
    colon.map(|c| (start, c, tokens.len()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use strata_common::ErrorCode;

    /// The significant tokens of `sql` after the rewrites, spaced.
    pub(crate) fn text(sql: &str) -> String {
        tokenize(&ClickHouseDialect {}, sql)
            .unwrap()
            .iter()
            .filter(|t| !is_space(t))
            .map(|t| t.token.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn escapes_read_as_clickhouse_reads_them() {
        assert_eq!(unescape(r"a\x41\tb"), "aA\tb");
        assert_eq!(unescape(r"\0\v\e\a"), "\0\x0b\x1b\x07");
        assert_eq!(unescape(r"it\'s it''s"), "it's it's");
        assert_eq!(unescape(r"\q\\"), "\\q\\");
        assert_eq!(unescape(r"\N"), "");
        assert_eq!(unescape(r"\xC3\xA9"), "é");
        assert_eq!(unescape(r"\x4"), "\\x4");
    }

    #[test]
    fn ordered_set_operands_are_parenthesized() {
        assert_eq!(
            text("SELECT 1 LIMIT 1 UNION ALL SELECT 2"),
            "( SELECT 1 LIMIT 1 ) UNION ALL SELECT 2"
        );
        assert_eq!(
            text("WITH 1 AS c SELECT c UNION ALL SELECT 2 ORDER BY 1 FORMAT TSV"),
            "WITH 1 AS c SELECT c UNION ALL ( SELECT 2 ORDER BY 1 ) FORMAT TSV"
        );
        assert_eq!(
            text("SELECT * FROM (SELECT 1 UNION ALL SELECT format('{}', 2) LIMIT 1) LIMIT 5"),
            "SELECT * FROM ( SELECT 1 UNION ALL ( SELECT format ( '{}' , 2 ) LIMIT 1 ) ) LIMIT 5"
        );
        assert_eq!(
            text("SELECT * EXCEPT (a) FROM t ORDER BY b LIMIT 1 UNION ALL SELECT 1"),
            "( SELECT * EXCEPT ( a ) FROM t ORDER BY b LIMIT 1 ) UNION ALL SELECT 1"
        );
        assert_eq!(
            text("SELECT 1 UNION ALL SELECT 2; SELECT 3 ORDER BY 1"),
            "SELECT 1 UNION ALL SELECT 2 ; SELECT 3 ORDER BY 1"
        );
    }

    #[test]
    fn trailing_commas_and_one_element_tuples() {
        assert_eq!(
            text("INSERT INTO t (a, b,) VALUES (1, 2,) (3, (4,),)"),
            "INSERT INTO t ( a , b ) VALUES ( 1 , 2 ) , ( 3 , tuple ( 4 ) )"
        );
        assert_eq!(
            text("SELECT (1,), f((2,)) WHERE x IN (3,)"),
            "SELECT tuple ( 1 ) , f ( tuple ( 2 ) ) WHERE x IN ( 3 )"
        );
        // Arguments and column lists keep their comma, for sqlparser to judge.
        assert_eq!(text("SELECT f(1,)"), "SELECT f ( 1 , )");
        assert_eq!(
            text("CREATE TABLE data (a Int8,) ENGINE = Memory"),
            "CREATE TABLE data ( a Int8 , ) ENGINE = Memory"
        );
    }

    #[test]
    fn join_strictness_takes_sqlparser_order() {
        assert_eq!(
            text("SELECT * FROM a ALL INNER JOIN b USING k"),
            "SELECT * FROM a INNER JOIN b USING ( k )"
        );
        assert_eq!(
            text("SELECT * FROM a ANTI RIGHT JOIN b ON a.k = b.k"),
            "SELECT * FROM a RIGHT ANTI JOIN b ON a . k = b . k"
        );
        assert_eq!(
            text("SELECT * FROM a GLOBAL ANTI JOIN b USING k, j WHERE 1"),
            "SELECT * FROM a LEFT ANTI JOIN b USING ( k , j ) WHERE 1"
        );
        assert_eq!(text("SELECT 1 GLOBAL IN (1)"), "SELECT 1 IN ( 1 )");
        assert_eq!(
            text("SELECT * FROM a ANY LEFT JOIN b USING k"),
            "SELECT * FROM a LEFT JOIN b USING ( __strata_one_right , k )"
        );
        assert_eq!(
            text("SELECT * FROM a SEMI JOIN (SELECT 1 k) s ON a.k = s.k"),
            "SELECT * FROM a INNER JOIN ( SELECT 1 k ) s ON __strata_one_right AND a . k = s . k"
        );
        assert_eq!(
            text("SELECT * FROM a ASOF LEFT JOIN b USING k, t"),
            "SELECT * FROM a LEFT JOIN b USING ( __strata_asof , k , t )"
        );
        let err = tokenize(
            &ClickHouseDialect {},
            "SELECT * FROM a ASOF RIGHT JOIN b USING k, t",
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::NOT_IMPLEMENTED);
    }

    #[test]
    fn in_takes_a_bare_literal_call_or_table() {
        assert_eq!(text("SELECT 1 IN 1"), "SELECT 1 IN ( 1 )");
        assert_eq!(text("SELECT 1 NOT IN -2"), "SELECT 1 NOT IN ( - 2 )");
        assert_eq!(text("SELECT 1 IN NULL"), "SELECT 1 IN ( NULL )");
        assert_eq!(
            text("SELECT x IN db.data FROM u"),
            "SELECT x IN ( SELECT * FROM db . data ) FROM u"
        );
        assert_eq!(text("SELECT x IN f(1)"), "SELECT x IN ( f ( 1 ) )");
        assert_eq!(text("SHOW TABLES IN system"), "SHOW TABLES IN system");
        assert_eq!(
            text("ALTER TABLE t DELETE IN PARTITION 1 WHERE 1"),
            "ALTER TABLE t DELETE IN PARTITION 1 WHERE 1"
        );
    }

    #[test]
    fn show_negated_patterns_filter_by_name() {
        assert_eq!(
            text("SHOW TABLES FROM system NOT LIKE '%a%' LIMIT 2"),
            "SHOW TABLES FROM system WHERE name NOT LIKE '%a%' LIMIT 2"
        );
        assert_eq!(
            text("SHOW COLUMNS FROM t NOT ILIKE 'x'"),
            "SHOW COLUMNS FROM t WHERE field NOT ILIKE 'x'"
        );
        assert_eq!(text("SELECT 'a' NOT LIKE 'b'"), "SELECT 'a' NOT LIKE 'b'");
    }

    #[test]
    fn hex_numbers_and_aggregate_filters() {
        assert_eq!(text("SELECT 0x7f, x'7f'"), "SELECT 127 , X'7f'");
        assert_eq!(
            text("SELECT 0x1p4, 0xFFp-1, 0x1P+2, 0b0101, 0x1 p4"),
            "SELECT 16.0 , 127.5 , 4.0 , 5 , 1 p4"
        );
        assert_eq!(
            text("SELECT argMax(a, b) FILTER (WHERE c > 1), count() FILTER (WHERE d)"),
            "SELECT argMaxIf ( a , b , c > 1 ) , countIf ( d )"
        );
        assert_eq!(
            text("SELECT count(DISTINCT a) FILTER (WHERE c)"),
            "SELECT count ( DISTINCT a ) FILTER ( WHERE c )"
        );
    }

    #[test]
    fn names_may_start_with_digits() {
        assert_eq!(text("SELECT * FROM 02005_t"), "SELECT * FROM 02005_t");
        assert_eq!(text("SELECT 1 a, 2e3"), "SELECT 1 a , 2e3");
    }

    #[test]
    fn in_takes_an_array_literal_as_its_set() {
        assert_eq!(
            text("SELECT 2 IN [1, [2][1]], x NOT IN ['a'] FROM t"),
            "SELECT 2 IN ( 1 , [ 2 ] [ 1 ] ) , x NOT IN ( 'a' ) FROM t"
        );
        assert_eq!(
            text("SELECT 2 IN array(1, 2), array(3) FROM t"),
            "SELECT 2 IN ( 1 , 2 ) , array ( 3 ) FROM t"
        );
    }

    #[test]
    fn array_join_literals_are_array_calls() {
        assert_eq!(
            text("SELECT a FROM t ARRAY JOIN [1, [2][1]] AS a"),
            "SELECT a FROM t ARRAY JOIN array ( 1 , [ 2 ] [ 1 ] ) AS a"
        );
        assert_eq!(
            text("SELECT 1 FROM t LEFT ARRAY JOIN arr AS x, ['a'] AS y WHERE [1] = [1]"),
            "SELECT 1 FROM t LEFT ARRAY JOIN arr AS x , array ( 'a' ) AS y WHERE [ 1 ] = [ 1 ]"
        );
        assert_eq!(
            text("SELECT 1 FROM t ARRAY JOIN [1] AS x, array(2) AS y, [3] AS z"),
            "SELECT 1 FROM t ARRAY JOIN array ( 1 ) AS x , array ( 2 ) AS y , array ( 3 ) AS z"
        );
        // Commas of other clauses and of calls keep their brackets.
        assert_eq!(
            text("SELECT 1, [2] FROM t ARRAY JOIN f(x, [3]) AS a"),
            "SELECT 1 , [ 2 ] FROM t ARRAY JOIN f ( x , [ 3 ] ) AS a"
        );
    }

    #[test]
    fn conditional_operator_is_if() {
        assert_eq!(
            text("SELECT x > 1 ? 'a' : 'b' AS s, 2 FROM t"),
            "SELECT if ( x > 1 , 'a' , 'b' ) AS s , 2 FROM t"
        );
        assert_eq!(
            text("SELECT f(a ? b : c ? d : e)"),
            "SELECT f ( if ( a , b , if ( c , d , e ) ) )"
        );
        assert_eq!(
            text("SELECT a ? b ? c : d : e"),
            "SELECT if ( a , if ( b , c , d ) , e )"
        );
        assert_eq!(
            text("SELECT 1 WHERE a AND b ? 1 : 0 ORDER BY 1"),
            "SELECT 1 WHERE if ( a AND b , 1 , 0 ) ORDER BY 1"
        );
    }

    #[test]
    fn tuple_elements_by_position() {
        assert_eq!(text("SELECT t.1"), "SELECT tupleElement ( t , 1 )");
        assert_eq!(
            text("SELECT d + INTERVAL '2 day', INTERVAL '-3  HOUR', '2 day'"),
            "SELECT d + INTERVAL 2 day , INTERVAL -3 HOUR , '2 day'"
        );
        assert_eq!(
            text("SELECT f(x).a, m[1].b"),
            "SELECT tupleElement ( f ( x ) , 'a' ) , tupleElement ( m [ 1 ] , 'b' )"
        );
        assert_eq!(
            text("SELECT tuple(1, 'a').2.1"),
            "SELECT tupleElement ( tupleElement ( tuple ( 1 , 'a' ) , 2 ) , 1 )"
        );
        assert_eq!(
            text("SELECT (1, 2).1, a.b[1].2"),
            "SELECT tupleElement ( ( 1 , 2 ) , 1 ) , tupleElement ( a . b [ 1 ] , 2 )"
        );
        assert_eq!(text("SELECT 1.5, x .5"), "SELECT 1.5 , x .5");
    }

    #[test]
    fn totals_without_group_by_get_an_empty_key() {
        assert_eq!(
            text("SELECT count() FROM t WITH TOTALS"),
            "SELECT count ( ) FROM t GROUP BY ( ) WITH TOTALS"
        );
        assert_eq!(
            text("SELECT k FROM t GROUP BY k WITH TOTALS"),
            "SELECT k FROM t GROUP BY k WITH TOTALS"
        );
        assert_eq!(
            text("SELECT * FROM (SELECT k FROM t GROUP BY k) WITH TOTALS"),
            "SELECT * FROM ( SELECT k FROM t GROUP BY k ) GROUP BY ( ) WITH TOTALS"
        );
    }

    #[test]
    fn a_limit_after_limit_by_is_a_fetch_with_its_offset() {
        assert_eq!(
            text("SELECT k FROM t LIMIT 1 BY k LIMIT 3"),
            "SELECT k FROM t LIMIT 1 BY k FETCH FIRST 3 ROWS ONLY"
        );
        assert_eq!(
            text("SELECT k FROM t LIMIT 1 BY k LIMIT 3 OFFSET 2"),
            "SELECT k FROM t LIMIT 1 BY k OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY"
        );
        assert_eq!(
            text("SELECT k FROM t LIMIT 1 BY k LIMIT 2, 3"),
            "SELECT k FROM t LIMIT 1 BY k OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY"
        );
        assert_eq!(
            text("SELECT k FROM t LIMIT 2, 3"),
            "SELECT k FROM t LIMIT 2 , 3"
        );
    }

    #[test]
    fn limit_offset_by_takes_sqlparser_order() {
        assert_eq!(
            text("SELECT k FROM t LIMIT 1, 2 BY k"),
            "SELECT k FROM t OFFSET 1 LIMIT 2 BY k"
        );
        assert_eq!(
            text("SELECT k FROM t LIMIT 2 OFFSET 1 BY k"),
            "SELECT k FROM t OFFSET 1 LIMIT 2 BY k"
        );
        assert_eq!(text("SELECT 1 LIMIT 1, 2"), "SELECT 1 LIMIT 1 , 2");
    }

    #[test]
    fn with_ties_reads_as_fetch() {
        assert_eq!(
            text("SELECT 1 ORDER BY 1 LIMIT 2 WITH TIES"),
            "SELECT 1 ORDER BY 1 LIMIT 2 FETCH ROWS WITH TIES"
        );
        assert_eq!(
            text("SELECT 1 ORDER BY 1 FETCH FIRST 2 ROWS WITH TIES"),
            "SELECT 1 ORDER BY 1 FETCH FIRST 2 ROWS WITH TIES"
        );
    }

    #[test]
    fn values_rows_get_commas() {
        assert_eq!(
            text("INSERT INTO t VALUES (1, (2)) (3, 4),(5, 6)"),
            "INSERT INTO t VALUES ( 1 , ( 2 ) ) , ( 3 , 4 ) , ( 5 , 6 )"
        );
        assert_eq!(text("SELECT (1) (2)"), "SELECT ( 1 ) ( 2 )");
    }
}
