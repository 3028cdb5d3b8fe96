//! ClickHouse's mutation statements, which sqlparser does not read:
//! `ALTER TABLE t DELETE WHERE c`, `ALTER TABLE t UPDATE a = e, b = f
//! WHERE c`, `ALTER TABLE t MATERIALIZE COLUMN c`, `ALTER TABLE t CLEAR
//! COLUMN c`, `ALTER TABLE t MATERIALIZE INDEX i` and `ALTER TABLE t APPLY
//! DELETED MASK`, several to one ALTER
//! separated by commas. Read word by word on
//! ClickHouse's tokens, so expressions read as in a SELECT.

use std::fmt;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{Expr, Ident, ObjectName, Value, visit_expressions_mut};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::{ErrorCode, Result, StrataError};

use crate::parser::{clickhouse_parser, expect_end, syntax_error};

/// One command of a mutation as written.
#[derive(Debug, Clone, PartialEq)]
pub enum MutationAst {
    Delete {
        predicate: Expr,
    },
    Update {
        assignments: Vec<(Ident, Expr)>,
        predicate: Expr,
    },
    ApplyDeletedMask,
    /// Writes a column's DEFAULT into the parts written before it was added.
    MaterializeColumn(Ident),
    /// Sets every row of a column back to its DEFAULT.
    ClearColumn(Ident),
    /// Builds a skipping index's data in every part.
    MaterializeIndex(Ident),
}

/// The column a lightweight DELETE clears, as ClickHouse names it: `DELETE
/// FROM t WHERE c` is the mutation `UPDATE _row_exists = 0 WHERE c`.
pub const ROW_EXISTS: &str = "_row_exists";

impl MutationAst {
    /// `DELETE FROM t WHERE predicate` as the mutation ClickHouse shows.
    pub fn lightweight_delete(predicate: Expr) -> Self {
        MutationAst::Update {
            assignments: vec![(
                Ident::new(ROW_EXISTS),
                Expr::value(Value::Number("0".to_string(), false)),
            )],
            predicate,
        }
    }
}

impl fmt::Display for MutationAst {
    /// As `system.mutations` shows a command (without its parentheses), in
    /// text that reads back as the same command.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MutationAst::Delete { predicate } => write!(f, "DELETE WHERE {}", shown(predicate)),
            MutationAst::Update {
                assignments,
                predicate,
            } => {
                let set: Vec<String> = assignments
                    .iter()
                    .map(|(column, value)| format!("{column} = {}", shown(value)))
                    .collect();
                write!(f, "UPDATE {} WHERE {}", set.join(", "), shown(predicate))
            }
            MutationAst::ApplyDeletedMask => write!(f, "APPLY DELETED MASK"),
            MutationAst::MaterializeColumn(column) => write!(f, "MATERIALIZE COLUMN {column}"),
            MutationAst::ClearColumn(column) => write!(f, "CLEAR COLUMN {column}"),
            MutationAst::MaterializeIndex(index) => write!(f, "MATERIALIZE INDEX {index}"),
        }
    }
}

/// `expr` as text ClickHouse's tokens read back unchanged: sqlparser writes
/// a string's backslashes bare, which ClickHouse reads as escapes.
fn shown(expr: &Expr) -> String {
    let mut expr = expr.clone();
    let _ = visit_expressions_mut(&mut expr, |e| {
        if let Expr::Value(value) = e
            && let Value::SingleQuotedString(text) = &mut value.value
        {
            *text = text.replace('\\', "\\\\");
        }
        ControlFlow::<()>::Continue(())
    });
    expr.to_string()
}

/// `ALTER TABLE t` followed by mutation commands.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterMutation {
    pub table: ObjectName,
    pub commands: Vec<MutationAst>,
}

/// Reads `sql` as `ALTER TABLE t DELETE | UPDATE ...`, or `None` if it is
/// another ALTER.
pub fn parse_alter_mutation(sql: &str) -> Result<Option<AlterMutation>> {
    let dialect = crate::dialect::StrataDialect;
    let mut parser = clickhouse_parser(&dialect, sql)?;
    if !parser.parse_keywords(&[Keyword::ALTER, Keyword::TABLE]) {
        return Ok(None);
    }
    let Ok(table) = parser.parse_object_name(false) else {
        return Ok(None);
    };
    if !matches!(
        parser.peek_token().token,
        Token::Word(ref w) if matches!(
            w.keyword,
            Keyword::DELETE | Keyword::UPDATE | Keyword::APPLY | Keyword::MATERIALIZE | Keyword::CLEAR
        )
    ) {
        return Ok(None);
    }
    let mut commands = vec![command(sql, &mut parser)?];
    while parser.consume_token(&Token::Comma) {
        commands.push(command(sql, &mut parser)?);
    }
    expect_end(sql, &mut parser)?;
    Ok(Some(AlterMutation { table, commands }))
}

fn command(sql: &str, parser: &mut Parser) -> Result<MutationAst> {
    let error =
        |e: datafusion::sql::sqlparser::parser::ParserError| syntax_error(sql, &e.to_string());
    if parser.parse_keyword(Keyword::DELETE) {
        refuse_in_partition(parser)?;
        parser.expect_keyword(Keyword::WHERE).map_err(error)?;
        let predicate = parser.parse_expr().map_err(error)?;
        return Ok(MutationAst::Delete { predicate });
    }
    if parser.parse_keywords(&[Keyword::MATERIALIZE, Keyword::INDEX]) {
        let index = parser.parse_identifier().map_err(error)?;
        refuse_in_partition(parser)?;
        return Ok(MutationAst::MaterializeIndex(index));
    }
    for (keyword, make) in [
        (
            Keyword::MATERIALIZE,
            MutationAst::MaterializeColumn as fn(Ident) -> MutationAst,
        ),
        (Keyword::CLEAR, MutationAst::ClearColumn),
    ] {
        if parser.parse_keyword(keyword) {
            parser.expect_keyword(Keyword::COLUMN).map_err(error)?;
            let column = parser.parse_identifier().map_err(error)?;
            refuse_in_partition(parser)?;
            return Ok(make(column));
        }
    }
    if parser.parse_keyword(Keyword::APPLY) {
        if !parse_words(parser, &["DELETED", "MASK"]) {
            return Err(syntax_error(sql, "Expected APPLY DELETED MASK"));
        }
        refuse_in_partition(parser)?;
        return Ok(MutationAst::ApplyDeletedMask);
    }
    if !parser.parse_keyword(Keyword::UPDATE) {
        let found = parser.peek_token().token;
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: expected DELETE or UPDATE, found {found} in {sql}"),
        ));
    }
    let mut assignments = Vec::new();
    loop {
        let column = parser.parse_identifier().map_err(error)?;
        parser.expect_token(&Token::Eq).map_err(error)?;
        let value = parser.parse_expr().map_err(error)?;
        assignments.push((column, value));
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    refuse_in_partition(parser)?;
    parser.expect_keyword(Keyword::WHERE).map_err(error)?;
    let predicate = parser.parse_expr().map_err(error)?;
    Ok(MutationAst::Update {
        assignments,
        predicate,
    })
}

/// Consumes the unquoted words `words` if they come next.
fn parse_words(parser: &mut Parser, words: &[&str]) -> bool {
    for word in words {
        match parser.peek_token().token {
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word) => {
                parser.next_token();
            }
            _ => return false,
        }
    }
    true
}

fn refuse_in_partition(parser: &mut Parser) -> Result<()> {
    if parser.parse_keywords(&[Keyword::IN, Keyword::PARTITION]) {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "IN PARTITION in a mutation is not supported yet",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_commands_and_shows_them_as_clickhouse_does() {
        let alter = parse_alter_mutation(
            "ALTER TABLE db.t UPDATE s = 'a\\'b\\\\', n = n + 1 WHERE k = 1, DELETE WHERE isNull(s)",
        )
        .unwrap()
        .unwrap();
        assert_eq!(alter.table.to_string(), "db.t");
        let shown: Vec<String> = alter.commands.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            shown,
            vec![
                "UPDATE s = 'a''b\\\\', n = n + 1 WHERE k = 1",
                "DELETE WHERE isNull(s)"
            ]
        );
        let again = parse_alter_mutation(&format!("ALTER TABLE db.t {}", shown[0]))
            .unwrap()
            .unwrap();
        assert_eq!(again.commands[0], alter.commands[0]);
        assert!(
            parse_alter_mutation("ALTER TABLE t DROP COLUMN c")
                .unwrap()
                .is_none()
        );
        assert!(parse_alter_mutation("SELECT 1").unwrap().is_none());
    }

    #[test]
    fn malformed_commands_are_syntax_errors() {
        for bad in [
            "ALTER TABLE t DELETE a = 1",
            "ALTER TABLE t UPDATE WHERE a = 1",
            "ALTER TABLE t UPDATE a = 1",
            "ALTER TABLE t DELETE WHERE a = 1, DROP COLUMN b",
            "ALTER TABLE t DELETE WHERE a = 1 junk",
        ] {
            assert_eq!(
                parse_alter_mutation(bad).unwrap_err().code,
                ErrorCode::SYNTAX_ERROR,
                "{bad}"
            );
        }
        assert_eq!(
            parse_alter_mutation("ALTER TABLE t DELETE IN PARTITION 1 WHERE a = 1")
                .unwrap_err()
                .code,
            ErrorCode::NOT_IMPLEMENTED
        );
    }
}
