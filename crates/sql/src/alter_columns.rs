//! `ALTER TABLE` commands on columns and comments as ClickHouse writes them.
//! sqlparser reads `ADD | DROP | RENAME COLUMN`; ClickHouse's `MODIFY
//! COLUMN` (type optional, properties kept unless given), `MODIFY COLUMN c
//! REMOVE property`, `COMMENT COLUMN` and `MODIFY COMMENT` are read here.
//! An ALTER is read command by command, each by whichever knows it.

use datafusion::sql::sqlparser::ast::{
    AlterTableOperation, ColumnOption, DataType, Ident, MySQLColumnPosition, ObjectName,
};
use datafusion::sql::sqlparser::dialect::{ClickHouseDialect, Dialect, GenericDialect};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan};
use strata_common::{ErrorCode, Result, StrataError};

use crate::parser::{expect_end, syntax_error};
use crate::part_statements::parse_word;

/// `ALTER TABLE table command, command, ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterColumns {
    pub table: ObjectName,
    pub commands: Vec<AlterCommand>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AlterCommand {
    /// What sqlparser reads: ADD, DROP and RENAME COLUMN.
    Standard(AlterTableOperation),
    /// `MODIFY COLUMN [IF EXISTS] c ...`.
    Modify {
        column: Ident,
        if_exists: bool,
        change: ColumnChange,
    },
    /// `COMMENT COLUMN [IF EXISTS] c 'text'`.
    Comment {
        column: Ident,
        if_exists: bool,
        text: String,
    },
    /// `MODIFY COMMENT 'text'`: the table's comment.
    TableComment(String),
}

/// What a `MODIFY COLUMN` changes.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnChange {
    /// The properties given replace the column's; the others stay.
    Set {
        data_type: Option<DataType>,
        /// DEFAULT, MATERIALIZED, ALIAS, EPHEMERAL and COMMENT, as given.
        options: Vec<ColumnOption>,
        /// `CODEC(...)`'s arguments as written.
        codec: Option<String>,
    },
    /// `REMOVE property`.
    Remove(ColumnProperty),
}

/// A property `MODIFY COLUMN c REMOVE` takes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnProperty {
    Default,
    Materialized,
    Alias,
    Comment,
    Codec,
}

impl ColumnProperty {
    pub fn keyword(self) -> &'static str {
        match self {
            ColumnProperty::Default => "DEFAULT",
            ColumnProperty::Materialized => "MATERIALIZED",
            ColumnProperty::Alias => "ALIAS",
            ColumnProperty::Comment => "COMMENT",
            ColumnProperty::Codec => "CODEC",
        }
    }
}

/// Reads `sql` as an `ALTER TABLE` of columns and comments; `None` when it
/// is some other statement (sqlparser's error then says why). Read in
/// ClickHouse's dialect, which alone reads `Array(T)`, with ADD COLUMN's
/// `FIRST` and `AFTER c` (which it does not read) taken off the tokens and
/// put back on the commands; else in the generic dialect.
pub fn parse_alter_columns(sql: &str) -> Result<Option<AlterColumns>> {
    parse_alter_columns_in(&ClickHouseDialect {}, sql)
        .or_else(|error| parse_alter_columns_in(&GenericDialect {}, sql).map_err(|_| error))
}

fn parse_alter_columns_in(dialect: &dyn Dialect, sql: &str) -> Result<Option<AlterColumns>> {
    let mut tokens = crate::clickhouse_tokens::tokenize(dialect, sql)?;
    let positions = take_positions(&mut tokens);
    let mut parser = Parser::new(dialect)
        .with_recursion_limit(crate::parser::MAX_NESTING)
        .with_tokens_with_locations(tokens);
    let parsed = parse_commands(sql, &mut parser)?;
    Ok(parsed.map(|mut alter| {
        for (command, position) in alter.commands.iter_mut().zip(positions) {
            if let (
                AlterCommand::Standard(AlterTableOperation::AddColumn {
                    column_position, ..
                }),
                Some(position),
            ) = (command, position)
            {
                *column_position = Some(position);
            }
        }
        alter
    }))
}

/// The `FIRST` or `AFTER c` ending each ADD COLUMN command, by command,
/// removed from `tokens`.
fn take_positions(tokens: &mut Vec<TokenWithSpan>) -> Vec<Option<MySQLColumnPosition>> {
    let word = |t: &TokenWithSpan, name: &str| matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(name));
    // Each command's significant tokens, split at commas outside brackets.
    let mut commands: Vec<Vec<usize>> = vec![Vec::new()];
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        match token.token {
            Token::Whitespace(_) => continue,
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                commands.push(Vec::new());
                continue;
            }
            _ => {}
        }
        commands.last_mut().expect("one per command").push(i);
    }
    let mut removed = Vec::new();
    let positions = commands
        .iter()
        .map(|command| {
            let adding = command
                .windows(2)
                .any(|w| word(&tokens[w[0]], "ADD") && word(&tokens[w[1]], "COLUMN"));
            let (&last, rest) = command.split_last()?;
            if !adding {
                return None;
            }
            if word(&tokens[last], "FIRST") {
                removed.push(last);
                return Some(MySQLColumnPosition::First);
            }
            let before = *rest.last()?;
            let Token::Word(column) = &tokens[last].token else {
                return None;
            };
            word(&tokens[before], "AFTER").then(|| {
                removed.extend([before, last]);
                MySQLColumnPosition::After(Ident {
                    value: column.value.clone(),
                    quote_style: column.quote_style,
                    span: tokens[last].span,
                })
            })
        })
        .collect();
    let mut index = 0;
    tokens.retain(|_| {
        index += 1;
        !removed.contains(&(index - 1))
    });
    positions
}

fn parse_commands(sql: &str, parser: &mut Parser) -> Result<Option<AlterColumns>> {
    if !parser.parse_keywords(&[Keyword::ALTER, Keyword::TABLE]) {
        return Ok(None);
    }
    let Ok(table) = parser.parse_object_name(false) else {
        return Ok(None);
    };
    let error = |e: ParserError| syntax_error(sql, &e.to_string());
    let mut commands = Vec::new();
    loop {
        commands.push(command(sql, parser).map_err(error)??);
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    expect_end(sql, parser)?;
    Ok(Some(AlterColumns { table, commands }))
}

/// One command; the outer error is the parser's, the inner one ours.
fn command(
    sql: &str,
    parser: &mut Parser,
) -> std::result::Result<Result<AlterCommand>, ParserError> {
    let [first, second] = parser.peek_tokens::<2>();
    if is_word(&first, "COMMENT") && is_word(&second, "COLUMN") {
        parser.next_token();
        parser.next_token();
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let column = parser.parse_identifier()?;
        let text = parser.parse_comment_value()?;
        return Ok(Ok(AlterCommand::Comment {
            column,
            if_exists,
            text,
        }));
    }
    if is_word(&first, "MODIFY") && is_word(&second, "COMMENT") {
        parser.next_token();
        parser.next_token();
        return Ok(Ok(AlterCommand::TableComment(
            parser.parse_comment_value()?,
        )));
    }
    if is_word(&first, "MODIFY") && is_word(&second, "COLUMN") {
        parser.next_token();
        parser.next_token();
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let column = parser.parse_identifier()?;
        return Ok(
            column_change(sql, parser).map(|change| AlterCommand::Modify {
                column,
                if_exists,
                change,
            }),
        );
    }
    Ok(Ok(AlterCommand::Standard(
        parser.parse_alter_table_operation()?,
    )))
}

/// The rest of `MODIFY COLUMN c`: `REMOVE property`, or an optional type
/// and the properties given.
fn column_change(sql: &str, parser: &mut Parser) -> Result<ColumnChange> {
    let error = |e: ParserError| syntax_error(sql, &e.to_string());
    if parse_word(parser, "REMOVE") {
        let property = [
            ColumnProperty::Default,
            ColumnProperty::Materialized,
            ColumnProperty::Alias,
            ColumnProperty::Comment,
            ColumnProperty::Codec,
        ]
        .into_iter()
        .find(|p| parse_word(parser, p.keyword()))
        .ok_or_else(|| {
            syntax_error(
                sql,
                "Expected DEFAULT, MATERIALIZED, ALIAS, COMMENT or CODEC after REMOVE",
            )
        })?;
        return Ok(ColumnChange::Remove(property));
    }
    let data_type = match starts_property(parser) {
        true => None,
        false => Some(parser.parse_data_type().map_err(error)?),
    };
    let mut options = Vec::new();
    let mut codec = None;
    loop {
        if parse_word(parser, "CODEC") {
            codec = Some(codec_text(sql, parser)?);
        } else if let Some(option) = parser.parse_optional_column_option().map_err(error)? {
            options.push(option);
        } else {
            break;
        }
    }
    if parse_word(parser, "TTL") || parse_word(parser, "FIRST") || parse_word(parser, "AFTER") {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "MODIFY COLUMN with TTL, FIRST or AFTER is not supported yet",
        ));
    }
    Ok(ColumnChange::Set {
        data_type,
        options,
        codec,
    })
}

fn is_word(token: &Token, word: &str) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Whether the next token ends the column's name without a type: a
/// property's keyword, a comma or the end.
fn starts_property(parser: &Parser) -> bool {
    match parser.peek_token().token {
        Token::Word(w) if w.quote_style.is_none() => [
            "DEFAULT",
            "MATERIALIZED",
            "ALIAS",
            "EPHEMERAL",
            "COMMENT",
            "CODEC",
            "TTL",
            "FIRST",
            "AFTER",
        ]
        .iter()
        .any(|k| w.value.eq_ignore_ascii_case(k)),
        Token::Comma | Token::SemiColon | Token::EOF => true,
        _ => false,
    }
}

/// `(...)` after CODEC, its inside as written.
fn codec_text(sql: &str, parser: &mut Parser) -> Result<String> {
    let bad = || syntax_error(sql, "Expected '(' and ')' after CODEC");
    if !parser.consume_token(&Token::LParen) {
        return Err(bad());
    }
    let mut depth = 1usize;
    let mut text = String::new();
    loop {
        let token = parser.next_token_no_skip().cloned().ok_or_else(bad)?.token;
        match token {
            Token::EOF => return Err(bad()),
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Ok(text.trim().to_string());
                }
            }
            _ => {}
        }
        text.push_str(&token.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(sql: &str) -> Vec<AlterCommand> {
        parse_alter_columns(sql).unwrap().unwrap().commands
    }

    #[test]
    fn modify_column_keeps_what_it_does_not_name() {
        let [AlterCommand::Modify { column, change, .. }] =
            &commands("ALTER TABLE t MODIFY COLUMN b COMMENT 'it''s'")[..]
        else {
            panic!("one MODIFY COLUMN");
        };
        assert_eq!(column.value, "b");
        assert_eq!(
            change,
            &ColumnChange::Set {
                data_type: None,
                options: vec![ColumnOption::Comment("it's".to_string())],
                codec: None,
            }
        );
        let [AlterCommand::Modify { change, .. }] = &commands(
            "ALTER TABLE t MODIFY COLUMN b Nullable(UInt16) DEFAULT 7 CODEC(ZSTD(3))",
        )[..] else {
            panic!("one MODIFY COLUMN");
        };
        let ColumnChange::Set {
            data_type, codec, ..
        } = change
        else {
            panic!("a SET");
        };
        assert!(data_type.is_some());
        assert_eq!(codec.as_deref(), Some("ZSTD(3)"));
    }

    #[test]
    fn comments_and_standard_commands_mix() {
        let all = commands(
            "ALTER TABLE db.t ADD COLUMN c Int8, COMMENT COLUMN IF EXISTS c 'x', MODIFY COMMENT 'table', MODIFY COLUMN c REMOVE COMMENT",
        );
        assert!(matches!(
            all[0],
            AlterCommand::Standard(AlterTableOperation::AddColumn { .. })
        ));
        assert!(
            matches!(&all[1], AlterCommand::Comment { if_exists: true, text, .. } if text == "x")
        );
        assert_eq!(all[2], AlterCommand::TableComment("table".to_string()));
        assert!(matches!(
            all[3],
            AlterCommand::Modify {
                change: ColumnChange::Remove(ColumnProperty::Comment),
                ..
            }
        ));
    }

    #[test]
    fn nested_types_and_positions_both_read() {
        let positioned = commands(
            "ALTER TABLE t ADD COLUMN b Array(UInt8) AFTER a, ADD COLUMN c Int8 FIRST, DROP COLUMN d",
        );
        let [
            AlterCommand::Standard(AlterTableOperation::AddColumn {
                column_def: array,
                column_position: Some(MySQLColumnPosition::After(after)),
                ..
            }),
            AlterCommand::Standard(AlterTableOperation::AddColumn {
                column_position: Some(MySQLColumnPosition::First),
                ..
            }),
            AlterCommand::Standard(AlterTableOperation::DropColumn { .. }),
        ] = &positioned[..]
        else {
            panic!("two positioned ADD COLUMNs and a DROP: {positioned:?}");
        };
        assert_eq!(after.value, "a");
        assert!(matches!(array.data_type, DataType::Array(_)));
    }

    #[test]
    fn malformed_commands_are_syntax_errors() {
        for sql in [
            "ALTER TABLE t MODIFY COLUMN b REMOVE NOTHING",
            "ALTER TABLE t COMMENT COLUMN b",
            "ALTER TABLE t MODIFY COLUMN b UInt8 CODEC(LZ4",
        ] {
            let error = parse_alter_columns(sql).unwrap_err();
            assert_eq!(error.code, ErrorCode::SYNTAX_ERROR, "{sql}");
        }
    }
}
