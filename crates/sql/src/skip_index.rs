//! `INDEX name expr TYPE kind[(args)] [GRANULARITY n]`, a data-skipping
//! index declared in a `CREATE TABLE` column list or by `ALTER TABLE ...
//! ADD INDEX`.

use datafusion::sql::sqlparser::ast::{Expr, FunctionArguments, ObjectName};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer, Whitespace};
use strata_common::{ErrorCode, Result, StrataError};

use crate::literal_text::expr_text;
use crate::parser::syntax_error;
use crate::part_statements::parse_word;

/// The index types ClickHouse has.
pub const INDEX_TYPES: [&str; 9] = [
    "hypothesis",
    "text",
    "vector_similarity",
    "bloom_filter",
    "sparse_grams",
    "tokenbf_v1",
    "ngrambf_v1",
    "set",
    "minmax",
];

#[derive(Debug, Clone, PartialEq)]
pub struct SkipIndex {
    pub name: String,
    pub expr: Expr,
    /// The type's name, `bloom_filter`.
    pub kind: String,
    /// The type as written, with its arguments: `bloom_filter(0.01)`.
    pub kind_full: String,
    /// Granules of the table per index granule.
    pub granularity: u64,
}

impl SkipIndex {
    /// The declaration as SHOW CREATE TABLE prints it.
    pub fn definition(&self) -> String {
        format!(
            "INDEX {} {} TYPE {} GRANULARITY {}",
            self.name,
            expr_text(&self.expr),
            self.kind_full,
            self.granularity
        )
    }
}

/// Whether the column-list item starting at `i` declares an index: `INDEX`,
/// a name, and `TYPE` later in the item (a column may be named `index`).
pub(crate) fn is_index_item(tokens: &[Token], i: usize) -> bool {
    let is_word = |token: Option<&Token>, word: &str| matches!(token, Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if !is_word(tokens.get(i), "INDEX") {
        return false;
    }
    let end = item_end(tokens, i);
    top_level_words(&tokens[i..end]).any(|(_, w)| w.eq_ignore_ascii_case("TYPE"))
}

/// Where the column-list item starting at `i` ends: at its comma or at the
/// list's closing parenthesis.
pub(crate) fn item_end(tokens: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, token) in tokens.iter().enumerate().skip(i) {
        match token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket if depth == 0 => return j,
            Token::RParen | Token::RBracket => depth -= 1,
            Token::Comma if depth == 0 => return j,
            _ => {}
        }
    }
    tokens.len()
}

/// The unquoted words of `tokens` outside parentheses, with positions.
fn top_level_words(tokens: &[Token]) -> impl Iterator<Item = (usize, &str)> {
    let mut depth = 0usize;
    tokens.iter().enumerate().filter_map(move |(j, token)| {
        match token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            Token::Word(w) if depth == 0 && w.quote_style.is_none() => {
                return Some((j, w.value.as_str()));
            }
            _ => {}
        }
        None
    })
}

/// Parses an index item (`INDEX` up to its comma), with `parse_expr`
/// reading the expression and the type.
pub(crate) fn parse_index(
    sql: &str,
    item: &[Token],
    parse_expr: impl Fn(&str, &[Token]) -> Result<Expr>,
) -> Result<SkipIndex> {
    let significant: Vec<usize> = (0..item.len())
        .filter(|&j| !matches!(item[j], Token::Whitespace(_)))
        .collect();
    let name = match significant.get(1).map(|&j| &item[j]) {
        Some(Token::Word(w)) if w.keyword != Keyword::TYPE || w.quote_style.is_some() => {
            w.value.clone()
        }
        _ => return Err(syntax_error(sql, "Expected the index's name after INDEX")),
    };
    let words: Vec<(usize, &str)> = top_level_words(item).collect();
    let type_at = words
        .iter()
        .rev()
        .find(|(_, w)| w.eq_ignore_ascii_case("TYPE"))
        .map(|&(j, _)| j)
        .ok_or_else(|| syntax_error(sql, "Expected TYPE in the index declaration"))?;
    let granularity_at = words
        .iter()
        .find(|&&(j, w)| j > type_at && w.eq_ignore_ascii_case("GRANULARITY"))
        .map(|&(j, _)| j);
    let expr = parse_expr(sql, &item[significant[1] + 1..type_at])?;
    let kind_end = granularity_at.unwrap_or(item.len());
    let (kind, kind_full) = index_type(sql, &parse_expr(sql, &item[type_at + 1..kind_end])?)?;
    let granularity = match granularity_at {
        None => 1,
        Some(at) => {
            let text: String = item[at + 1..].iter().map(|t| t.to_string()).collect();
            text.trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        "Index GRANULARITY must be a positive integer.",
                    )
                })?
        }
    };
    if !INDEX_TYPES.contains(&kind.as_str()) {
        return Err(StrataError::new(
            ErrorCode::INCORRECT_QUERY,
            format!(
                "Unknown Index type '{kind}'. Available index types: {}: When validating secondary index `{name}`",
                INDEX_TYPES.join(", ")
            ),
        ));
    }
    Ok(SkipIndex {
        name,
        expr,
        kind,
        kind_full,
        granularity,
    })
}

/// An index type's name and its text with arguments.
fn index_type(sql: &str, expr: &Expr) -> Result<(String, String)> {
    match expr {
        Expr::Identifier(ident) => Ok((ident.value.clone(), ident.value.clone())),
        Expr::Function(f)
            if matches!(f.args, FunctionArguments::List(_) | FunctionArguments::None) =>
        {
            Ok((f.name.to_string(), expr.to_string()))
        }
        _ => Err(syntax_error(sql, "Expected an index type after TYPE")),
    }
}

/// `ALTER TABLE t ADD | DROP | MATERIALIZE | CLEAR INDEX ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterIndex {
    pub table: ObjectName,
    pub command: IndexCommand,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IndexCommand {
    Add {
        index: SkipIndex,
        if_not_exists: bool,
        position: IndexPosition,
    },
    Drop {
        name: String,
        if_exists: bool,
    },
    /// `CLEAR INDEX`: drops an index's data, keeping its declaration.
    Clear,
}

/// Where `ADD INDEX` puts the new index among the table's.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexPosition {
    Last,
    First,
    After(String),
}

/// Reads `sql` as an ALTER of a table's indexes, or `None` if it is
/// another statement.
pub fn parse_alter_index(sql: &str) -> Result<Option<AlterIndex>> {
    // MATERIALIZE INDEX is a mutation (see `mutations`).
    let Some((mut parser, table, verb)) =
        alter_table_command(sql, &["ADD", "DROP", "CLEAR"], "INDEX")?
    else {
        return Ok(None);
    };
    let command = match verb {
        "ADD" => {
            let if_not_exists =
                parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
            let mut rest = remaining(&mut parser);
            let position = take_position(&mut rest);
            let item = column_list_item("INDEX", rest);
            IndexCommand::Add {
                index: parse_index(sql, &item, crate::create_table::parse_expr)?,
                if_not_exists,
                position,
            }
        }
        "DROP" => {
            let (name, if_exists) = dropped_name(sql, &mut parser)?;
            IndexCommand::Drop { name, if_exists }
        }
        _ => {
            parser
                .parse_identifier()
                .map_err(|e| syntax_error(sql, &e.to_string()))?;
            IndexCommand::Clear
        }
    };
    Ok(Some(AlterIndex { table, command }))
}

/// `ALTER TABLE name VERB NOUN ...`, one of `verbs`: the parser after the
/// noun, the table and the verb; None for any other statement.
pub(crate) fn alter_table_command(
    sql: &str,
    verbs: &[&'static str],
    noun: &str,
) -> Result<Option<(Parser<'static>, ObjectName, &'static str)>> {
    let tokens = Tokenizer::new(&crate::dialect::StrataDialect, sql)
        .tokenize()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let mut parser = Parser::new(&crate::dialect::StrataDialect).with_tokens(tokens);
    if !parser.parse_keywords(&[Keyword::ALTER, Keyword::TABLE]) {
        return Ok(None);
    }
    let Ok(table) = parser.parse_object_name(false) else {
        return Ok(None);
    };
    let verb = verbs
        .iter()
        .copied()
        .find(|verb| parse_word(&mut parser, verb));
    match verb {
        Some(verb) if parse_word(&mut parser, noun) => Ok(Some((parser, table, verb))),
        _ => Ok(None),
    }
}

/// `[IF EXISTS] name` ending a `DROP INDEX | CONSTRAINT`: the name, and
/// whether IF EXISTS was given.
pub(crate) fn dropped_name(sql: &str, parser: &mut Parser) -> Result<(String, bool)> {
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser
        .parse_identifier()
        .map_err(|e| syntax_error(sql, &e.to_string()))?
        .value;
    crate::parser::expect_end(sql, parser)?;
    Ok((name, if_exists))
}

/// An ALTER's declaration as the column-list item it adds: `head` (`INDEX`,
/// `CONSTRAINT`) before the tokens that followed it.
pub(crate) fn column_list_item(head: &str, rest: Vec<Token>) -> Vec<Token> {
    let mut item = vec![
        Token::make_word(head, None),
        Token::Whitespace(Whitespace::Space),
    ];
    item.extend(rest);
    item
}

/// The statement's tokens left, without trailing `;`s and whitespace.
pub(crate) fn remaining(parser: &mut Parser) -> Vec<Token> {
    let mut rest: Vec<Token> = std::iter::from_fn(|| {
        let token = parser.next_token().token;
        (token != Token::EOF).then_some(token)
    })
    .collect();
    while matches!(rest.last(), Some(Token::Whitespace(_) | Token::SemiColon)) {
        rest.pop();
    }
    rest
}

/// Takes a trailing `FIRST` or `AFTER name` off an `ADD INDEX` item.
fn take_position(item: &mut Vec<Token>) -> IndexPosition {
    let significant: Vec<usize> = (0..item.len())
        .filter(|&j| !matches!(item[j], Token::Whitespace(_)))
        .collect();
    let word = |at: Option<&usize>, expected: &str| matches!(at.map(|&j| &item[j]), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(expected));
    let n = significant.len();
    if n >= 1 && word(significant.get(n - 1), "FIRST") {
        item.truncate(significant[n - 1]);
        return IndexPosition::First;
    }
    if n >= 2 && word(significant.get(n - 2), "AFTER") {
        if let Token::Word(name) = &item[significant[n - 1]] {
            let name = name.value.clone();
            item.truncate(significant[n - 2]);
            return IndexPosition::After(name);
        }
    }
    IndexPosition::Last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alter_index_commands_read_with_positions() {
        let add = parse_alter_index("ALTER TABLE db.t ADD INDEX IF NOT EXISTS i lower(s) TYPE ngrambf_v1(3, 256, 2, 0) GRANULARITY 2 AFTER j;")
            .unwrap()
            .unwrap();
        assert_eq!(add.table.to_string(), "db.t");
        let IndexCommand::Add {
            index,
            if_not_exists,
            position,
        } = add.command
        else {
            panic!("an ADD INDEX");
        };
        assert!(if_not_exists);
        assert_eq!(position, IndexPosition::After("j".to_string()));
        assert_eq!(
            index.definition(),
            "INDEX i lower(s) TYPE ngrambf_v1(3, 256, 2, 0) GRANULARITY 2"
        );
        let drop = parse_alter_index("alter table t drop index if exists i")
            .unwrap()
            .unwrap();
        assert_eq!(
            drop.command,
            IndexCommand::Drop {
                name: "i".to_string(),
                if_exists: true
            }
        );
        assert!(
            parse_alter_index("ALTER TABLE t DROP COLUMN c")
                .unwrap()
                .is_none()
        );
        let unknown = parse_alter_index("ALTER TABLE t ADD INDEX i x TYPE nope").unwrap_err();
        assert_eq!(unknown.code, ErrorCode::INCORRECT_QUERY);
    }
}
