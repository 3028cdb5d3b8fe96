//! `CREATE DICTIONARY`, which sqlparser does not read: the column list (read
//! as a CREATE TABLE's), `PRIMARY KEY`, `SOURCE(KIND(KEY value ...))`,
//! `LAYOUT(NAME(...))`, `LIFETIME([MIN a MAX b] | n)`, `RANGE(...)`,
//! `SETTINGS(...)` and `COMMENT`; and the other statements naming a
//! dictionary (`DROP DICTIONARY`, `SHOW CREATE DICTIONARY`, `SYSTEM RELOAD
//! DICTIONARY`).

use datafusion::sql::sqlparser::ast::{Ident, ObjectName, ObjectNamePart};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer, Word};
use strata_common::{ErrorCode, Result, StrataError};

use crate::clickhouse_tokens::unescape;
use crate::create_table::matching_paren;
use crate::literal_text::quoted;
use crate::parser::syntax_error;
use crate::source_text::normalize;

/// A dictionary's definition as written.
#[derive(Debug, Clone, PartialEq)]
pub struct DictionaryText {
    pub name: ObjectName,
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// The column list, parentheses included, as written.
    pub columns: String,
    pub primary_key: Vec<String>,
    pub source: Source,
    /// The layout's name in upper case, and its parameters as written.
    pub layout: (String, String),
    /// `LIFETIME` in seconds: (min, max).
    pub lifetime: (u64, u64),
    /// `RANGE(MIN a MAX b)` as written.
    pub range: Option<String>,
    pub comment: Option<String>,
}

/// `SOURCE(KIND(KEY value ...))`.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// In upper case: `CLICKHOUSE`, `FILE`, ...
    pub kind: String,
    /// Each key in upper case with its value (a string unquoted).
    pub parameters: Vec<(String, String)>,
}

impl Source {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.parameters
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `SOURCE(...)` as SHOW CREATE prints it.
    pub fn text(&self) -> String {
        let parameters: Vec<String> = self
            .parameters
            .iter()
            .map(|(key, value)| format!("{key} {}", quoted(value)))
            .collect();
        format!("SOURCE({}({}))", self.kind, parameters.join(" "))
    }
}

impl DictionaryText {
    /// The clauses after the column list, as SHOW CREATE prints them.
    pub fn clauses_text(&self) -> String {
        let mut text = format!(
            "PRIMARY KEY {}\n{}\nLIFETIME(MIN {} MAX {})\nLAYOUT({}({}))",
            self.primary_key.join(", "),
            self.source.text(),
            self.lifetime.0,
            self.lifetime.1,
            self.layout.0,
            self.layout.1
        );
        if let Some(range) = &self.range {
            text.push_str(&format!("\nRANGE({range})"));
        }
        if let Some(comment) = &self.comment {
            text.push_str(&format!("\nCOMMENT {}", quoted(comment)));
        }
        text
    }
}

/// Whether a statement's first words name a dictionary statement: the
/// cheap test before tokenizing.
pub fn is_dictionary_statement(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(4)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let starts = |expected: &[&str]| {
        words.len() >= expected.len() && expected.iter().zip(&words).all(|(e, w)| w == e)
    };
    starts(&["CREATE", "DICTIONARY"])
        || starts(&["CREATE", "OR", "REPLACE", "DICTIONARY"])
        || starts(&["DROP", "DICTIONARY"])
        || starts(&["SHOW", "CREATE", "DICTIONARY"])
        || starts(&["SYSTEM", "RELOAD", "DICTIONARY"])
        || starts(&["SYSTEM", "RELOAD", "DICTIONARIES"])
}

/// The statement's tokens without whitespace and comments.
fn tokens(sql: &str) -> Result<Vec<Token>> {
    let dialect = ClickHouseDialect {};
    let tokens = Tokenizer::new(&dialect, &normalize(sql))
        .with_unescape(false)
        .tokenize()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    Ok(tokens
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect())
}

fn is_word(token: Option<&Token>, word: &str) -> bool {
    matches!(token, Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn word_value(token: Option<&Token>) -> Option<String> {
    match token {
        Some(Token::Word(Word { value, .. })) => Some(value.clone()),
        _ => None,
    }
}

/// A dotted name at `at`: its parts and the position after it.
fn object_name(tokens: &[Token], mut at: usize) -> Option<(ObjectName, usize)> {
    let mut parts = vec![word_value(tokens.get(at))?];
    at += 1;
    while tokens.get(at) == Some(&Token::Period) {
        parts.push(word_value(tokens.get(at + 1))?);
        at += 2;
    }
    let name = ObjectName(
        parts
            .into_iter()
            .map(|p| ObjectNamePart::Identifier(Ident::new(p)))
            .collect(),
    );
    Some((name, at))
}

/// The statement, when it is a CREATE DICTIONARY.
pub fn parse_create_dictionary(sql: &str) -> Result<Option<DictionaryText>> {
    let tokens = tokens(sql)?;
    let mut at = 0;
    if !is_word(tokens.first(), "CREATE") {
        return Ok(None);
    }
    at += 1;
    let or_replace = is_word(tokens.get(at), "OR") && is_word(tokens.get(at + 1), "REPLACE");
    if or_replace {
        at += 2;
    }
    if !is_word(tokens.get(at), "DICTIONARY") {
        return Ok(None);
    }
    at += 1;
    let if_not_exists = is_word(tokens.get(at), "IF")
        && is_word(tokens.get(at + 1), "NOT")
        && is_word(tokens.get(at + 2), "EXISTS");
    if if_not_exists {
        at += 3;
    }
    let bad = |what: &str| syntax_error(sql, what);
    let (name, after) =
        object_name(&tokens, at).ok_or_else(|| bad("expected a dictionary name"))?;
    at = after;
    if is_word(tokens.get(at), "ON") && is_word(tokens.get(at + 1), "CLUSTER") {
        at += 3;
    }
    let close = matching_paren(&tokens, at)
        .ok_or_else(|| bad("expected the dictionary's columns in parentheses"))?;
    let columns: String = tokens[at..=close]
        .iter()
        .map(|t| t.to_string() + " ")
        .collect();
    at = close + 1;
    let mut clauses = Clauses::default();
    while at < tokens.len() {
        at = clauses.read(sql, &tokens, at)?;
    }
    let (Some(primary_key), Some(source), Some(layout)) =
        (clauses.primary_key, clauses.source, clauses.layout)
    else {
        return Err(StrataError::new(
            ErrorCode::INCORRECT_DICTIONARY_DEFINITION,
            "A dictionary needs PRIMARY KEY, SOURCE and LAYOUT",
        ));
    };
    Ok(Some(DictionaryText {
        name,
        or_replace,
        if_not_exists,
        columns,
        primary_key,
        source,
        layout,
        lifetime: clauses.lifetime.unwrap_or((0, 0)),
        range: clauses.range,
        comment: clauses.comment,
    }))
}

#[derive(Default)]
struct Clauses {
    primary_key: Option<Vec<String>>,
    source: Option<Source>,
    layout: Option<(String, String)>,
    lifetime: Option<(u64, u64)>,
    range: Option<String>,
    comment: Option<String>,
}

impl Clauses {
    /// Reads the clause at `at`; the position after it.
    fn read(&mut self, sql: &str, tokens: &[Token], at: usize) -> Result<usize> {
        let bad = |what: &str| syntax_error(sql, what);
        if tokens.get(at) == Some(&Token::SemiColon) {
            return Ok(tokens.len());
        }
        if is_word(tokens.get(at), "PRIMARY") && is_word(tokens.get(at + 1), "KEY") {
            let mut keys = Vec::new();
            let mut i = at + 2;
            loop {
                keys.push(word_value(tokens.get(i)).ok_or_else(|| bad("expected a key column"))?);
                i += 1;
                if tokens.get(i) != Some(&Token::Comma) {
                    break;
                }
                i += 1;
            }
            self.primary_key = Some(keys);
            return Ok(i);
        }
        if is_word(tokens.get(at), "COMMENT") {
            let Some(Token::SingleQuotedString(raw)) = tokens.get(at + 1) else {
                return Err(bad("expected a string after COMMENT"));
            };
            self.comment = Some(unescape(raw));
            return Ok(at + 2);
        }
        let word = word_value(tokens.get(at))
            .ok_or_else(|| {
                bad("expected PRIMARY KEY, SOURCE, LAYOUT, LIFETIME, RANGE, SETTINGS or COMMENT")
            })?
            .to_ascii_uppercase();
        let close = matching_paren(tokens, at + 1)
            .ok_or_else(|| bad("expected ( after the clause's name"))?;
        let inner = &tokens[at + 2..close];
        match word.as_str() {
            "SOURCE" => self.source = Some(source(sql, inner)?),
            "LAYOUT" => {
                let name =
                    word_value(inner.first()).ok_or_else(|| bad("expected a layout name"))?;
                let text: String = inner
                    .get(2..inner.len().saturating_sub(1))
                    .unwrap_or_default()
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.layout = Some((name.to_ascii_uppercase(), text));
            }
            "LIFETIME" => self.lifetime = Some(lifetime(sql, inner)?),
            "RANGE" => {
                self.range = Some(
                    inner
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
            "SETTINGS" => {}
            _ => return Err(bad(&format!("unexpected {word} in CREATE DICTIONARY"))),
        }
        Ok(close + 1)
    }
}

/// `KIND(KEY value ...)`.
fn source(sql: &str, inner: &[Token]) -> Result<Source> {
    let bad = |what: &str| syntax_error(sql, what);
    let kind = word_value(inner.first()).ok_or_else(|| bad("expected a source kind"))?;
    let close = matching_paren(inner, 1).ok_or_else(|| bad("expected ( after the source kind"))?;
    let mut parameters = Vec::new();
    let mut i = 2;
    while i < close {
        let key =
            word_value(inner.get(i)).ok_or_else(|| bad("expected a source parameter's name"))?;
        let value = match inner.get(i + 1) {
            Some(Token::SingleQuotedString(raw)) => unescape(raw),
            Some(Token::Number(n, _)) => n.clone(),
            Some(Token::Word(w)) => w.value.clone(),
            _ => return Err(bad("expected a source parameter's value")),
        };
        parameters.push((key.to_ascii_uppercase(), value));
        i += 2;
    }
    Ok(Source {
        kind: kind.to_ascii_uppercase(),
        parameters,
    })
}

/// `MIN a MAX b`, `MAX b MIN a` or `n`.
fn lifetime(sql: &str, inner: &[Token]) -> Result<(u64, u64)> {
    let number = |t: Option<&Token>| match t {
        Some(Token::Number(n, _)) => n.parse::<u64>().ok(),
        _ => None,
    };
    if let [single] = inner {
        let n =
            number(Some(single)).ok_or_else(|| syntax_error(sql, "expected LIFETIME seconds"))?;
        return Ok((0, n));
    }
    let (mut min, mut max) = (None, None);
    for pair in inner.chunks(2) {
        match (
            word_value(pair.first())
                .map(|w| w.to_ascii_uppercase())
                .as_deref(),
            number(pair.get(1)),
        ) {
            (Some("MIN"), Some(n)) => min = Some(n),
            (Some("MAX"), Some(n)) => max = Some(n),
            _ => return Err(syntax_error(sql, "expected LIFETIME(MIN a MAX b)")),
        }
    }
    Ok((min.unwrap_or(0), max.unwrap_or(0)))
}

/// What a statement that names a dictionary asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum DictionaryStatement {
    Drop {
        name: ObjectName,
        if_exists: bool,
    },
    ShowCreate(ObjectName),
    /// `SYSTEM RELOAD DICTIONARY name`, or every dictionary when None.
    Reload(Option<ObjectName>),
}

/// DROP DICTIONARY, SHOW CREATE DICTIONARY and SYSTEM RELOAD DICTIONARY[IES].
pub fn parse_dictionary_statement(sql: &str) -> Result<Option<DictionaryStatement>> {
    let tokens = tokens(sql)?;
    let words = |at: usize, expected: &[&str]| {
        expected
            .iter()
            .enumerate()
            .all(|(i, w)| is_word(tokens.get(at + i), w))
    };
    let name_at = |at: usize| -> Result<ObjectName> {
        let (name, end) = object_name(&tokens, at)
            .ok_or_else(|| syntax_error(sql, "expected a dictionary name"))?;
        match tokens.get(end) {
            None | Some(Token::SemiColon) => Ok(name),
            Some(_) if words(end, &["ON", "CLUSTER"]) => Ok(name),
            Some(_) => Err(syntax_error(
                sql,
                "unexpected text after the dictionary name",
            )),
        }
    };
    if words(0, &["DROP", "DICTIONARY"]) {
        let if_exists = words(2, &["IF", "EXISTS"]);
        let name = name_at(if if_exists { 4 } else { 2 })?;
        return Ok(Some(DictionaryStatement::Drop { name, if_exists }));
    }
    if words(0, &["SHOW", "CREATE", "DICTIONARY"]) {
        return Ok(Some(DictionaryStatement::ShowCreate(name_at(3)?)));
    }
    if words(0, &["SYSTEM", "RELOAD", "DICTIONARIES"]) {
        return Ok(Some(DictionaryStatement::Reload(None)));
    }
    if words(0, &["SYSTEM", "RELOAD", "DICTIONARY"]) {
        return Ok(Some(DictionaryStatement::Reload(Some(name_at(3)?))));
    }
    Ok(None)
}
