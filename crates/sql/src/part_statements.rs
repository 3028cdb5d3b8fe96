//! ClickHouse statements on a table's parts, which sqlparser reads only in
//! part or not at all: `CHECK TABLE t [PARTITION p | PART 'name']`,
//! `ALTER TABLE t ATTACH | DETACH | DROP | DROP DETACHED PART 'name' |
//! PARTITION p`
//! (`p` an expression or `ID 'id'`), `ALTER TABLE t MOVE PART | PARTITION
//! ... TO DISK 'd' | TO VOLUME 'v' | TO TABLE t2` and `ALTER TABLE t ATTACH |
//! REPLACE PARTITION p FROM t2`. Each is read with sqlparser's own
//! parser, word by word, so names and literals are read as everywhere else.

use datafusion::sql::sqlparser::ast::{Expr, ObjectName, Partition};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::{ErrorCode, Result, StrataError};

/// `CHECK TABLE`: the table and, if given, the partition or part.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckTable {
    pub table: ObjectName,
    pub partition: Option<Partition>,
}

/// What an `ALTER TABLE` on parts does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartAction {
    Attach,
    Detach,
    Drop,
    DropDetached,
    Move(MoveDestination),
    /// `ATTACH PARTITION p FROM t2`: copies of `t2`'s parts join the table.
    AttachFrom(ObjectName),
    /// `REPLACE PARTITION p FROM t2`: the partition's parts become copies
    /// of `t2`'s.
    ReplaceFrom(ObjectName),
}

/// Where `MOVE PART | PARTITION` puts the parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveDestination {
    Disk(String),
    Volume(String),
    /// Another table of the same structure (a partition only).
    Table(ObjectName),
}

/// `ALTER TABLE t ATTACH | DETACH | DROP | DROP DETACHED` a part or a partition.
#[derive(Debug, Clone, PartialEq)]
pub struct PartOperation {
    pub table: ObjectName,
    pub action: PartAction,
    pub partition: Partition,
}

/// Reads `sql` as `CHECK TABLE ...`, or `None` if it starts otherwise.
pub fn parse_check_table(sql: &str) -> Result<Option<CheckTable>> {
    let dialect = ClickHouseDialect {};
    let mut parser = tokens(&dialect, sql)?;
    if !parser.parse_keywords(&[Keyword::CHECK, Keyword::TABLE]) {
        return Ok(None);
    }
    let table = parser.parse_object_name(false).map_err(|e| error(sql, e))?;
    let partition = if parser.peek_token().token == Token::EOF {
        None
    } else {
        Some(part_or_partition(sql, &mut parser)?)
    };
    end(sql, &mut parser)?;
    Ok(Some(CheckTable { table, partition }))
}

/// Reads `sql` as `ALTER TABLE t ATTACH | REPLACE | DETACH | DROP [DETACHED]
/// | MOVE ...`, or `None` if it is another ALTER.
pub fn parse_part_operation(sql: &str) -> Result<Option<PartOperation>> {
    let dialect = ClickHouseDialect {};
    let mut parser = tokens(&dialect, sql)?;
    if !parser.parse_keywords(&[Keyword::ALTER, Keyword::TABLE]) {
        return Ok(None);
    }
    let Ok(table) = parser.parse_object_name(false) else {
        return Ok(None);
    };
    let verb = if parser.parse_keyword(Keyword::ATTACH) {
        Verb::Attach
    } else if parser.parse_keyword(Keyword::REPLACE) {
        Verb::Replace
    } else if parse_word(&mut parser, "DETACH") {
        Verb::Detach
    } else if parser.parse_keyword(Keyword::DROP) {
        if parse_word(&mut parser, "DETACHED") {
            Verb::DropDetached
        } else if matches!(
            parser.peek_token().token,
            Token::Word(ref w) if matches!(w.keyword, Keyword::PART | Keyword::PARTITION)
        ) {
            Verb::Drop
        } else {
            return Ok(None);
        }
    } else if parse_word(&mut parser, "MOVE") {
        Verb::Move
    } else {
        return Ok(None);
    };
    let partition = part_or_partition(sql, &mut parser)?;
    let action = match verb {
        Verb::Attach if parser.parse_keyword(Keyword::FROM) => {
            PartAction::AttachFrom(table_name(sql, &mut parser)?)
        }
        Verb::Attach => PartAction::Attach,
        Verb::Replace if parser.parse_keyword(Keyword::FROM) => {
            PartAction::ReplaceFrom(table_name(sql, &mut parser)?)
        }
        Verb::Replace => return Err(syntax(sql, "Expected FROM after REPLACE PARTITION")),
        Verb::Detach => PartAction::Detach,
        Verb::Drop => PartAction::Drop,
        Verb::DropDetached => PartAction::DropDetached,
        Verb::Move => PartAction::Move(move_destination(sql, &mut parser)?),
    };
    end(sql, &mut parser)?;
    Ok(Some(PartOperation {
        table,
        action,
        partition,
    }))
}

/// The word an ALTER on parts starts with, before its part or partition.
enum Verb {
    Attach,
    Replace,
    Detach,
    Drop,
    DropDetached,
    Move,
}

fn tokens<'a>(dialect: &'a ClickHouseDialect, sql: &str) -> Result<Parser<'a>> {
    Parser::new(dialect)
        .try_with_sql(sql)
        .map_err(|e| error(sql, e))
}

/// Consumes the unquoted word `word` if it comes next (one sqlparser has no keyword for).
pub(crate) fn parse_word(parser: &mut Parser, word: &str) -> bool {
    match parser.peek_token().token {
        Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word) => {
            parser.next_token();
            true
        }
        _ => false,
    }
}

/// `PART 'name'`, `PARTITION ID 'id'` or `PARTITION expr`.
fn part_or_partition(sql: &str, parser: &mut Parser) -> Result<Partition> {
    if parser.parse_keyword(Keyword::PART) {
        let name = parser.parse_expr().map_err(|e| error(sql, e))?;
        return Ok(Partition::Part(name));
    }
    if !parser.parse_keyword(Keyword::PARTITION) {
        return Err(syntax(sql, "Expected PART or PARTITION"));
    }
    if parser.parse_keyword(Keyword::ID) {
        let id = parser.parse_identifier().map_err(|e| error(sql, e));
        return match id {
            Ok(id) => Ok(Partition::Identifier(id)),
            Err(_) => Err(syntax(sql, "Expected the partition id as a string")),
        };
    }
    let value: Expr = parser.parse_expr().map_err(|e| error(sql, e))?;
    Ok(Partition::Expr(value))
}

/// `TO DISK 'name'` or `TO VOLUME 'name'`.
fn move_destination(sql: &str, parser: &mut Parser) -> Result<MoveDestination> {
    if !parser.parse_keyword(Keyword::TO) {
        return Err(syntax(sql, "Expected TO DISK or TO VOLUME"));
    }
    let kind: fn(String) -> MoveDestination = if parse_word(parser, "DISK") {
        MoveDestination::Disk
    } else if parse_word(parser, "VOLUME") {
        MoveDestination::Volume
    } else if parser.parse_keyword(Keyword::TABLE) {
        return Ok(MoveDestination::Table(table_name(sql, parser)?));
    } else {
        return Err(syntax(sql, "Expected TO DISK or TO VOLUME"));
    };
    match parser.next_token().token {
        Token::SingleQuotedString(name) => Ok(kind(name)),
        other => Err(syntax(
            sql,
            &format!("Expected the disk or volume name as a string, found: {other}"),
        )),
    }
}

fn table_name(sql: &str, parser: &mut Parser) -> Result<ObjectName> {
    parser.parse_object_name(false).map_err(|e| error(sql, e))
}

fn end(sql: &str, parser: &mut Parser) -> Result<()> {
    while parser.consume_token(&Token::SemiColon) {}
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(syntax(
            sql,
            &format!("Expected end of query, found: {}", next.token),
        ));
    }
    Ok(())
}

fn error(sql: &str, error: impl std::fmt::Display) -> StrataError {
    syntax(sql, &error.to_string())
}

fn syntax(sql: &str, what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::SYNTAX_ERROR,
        format!("Syntax error: failed at {sql:?}: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_table_reads_its_forms() {
        let check = parse_check_table("CHECK TABLE db.t").unwrap().unwrap();
        assert_eq!(check.table.to_string(), "db.t");
        assert_eq!(check.partition, None);
        let check = parse_check_table("check table t PART 'all_1_1_0'")
            .unwrap()
            .unwrap();
        assert_eq!(check.partition.unwrap().to_string(), "PART 'all_1_1_0'");
        let check = parse_check_table("CHECK TABLE t PARTITION ID '2024'")
            .unwrap()
            .unwrap();
        assert!(matches!(check.partition, Some(Partition::Identifier(_))));
        assert!(parse_check_table("SELECT 1").unwrap().is_none());
        assert_eq!(
            parse_check_table("CHECK TABLE t junk").unwrap_err().code,
            ErrorCode::SYNTAX_ERROR
        );
    }

    #[test]
    fn part_operations_read_parts_and_partitions() {
        let operation = parse_part_operation("ALTER TABLE t DROP DETACHED PART 'broken_all_1_1_0'")
            .unwrap()
            .unwrap();
        assert_eq!(operation.table.to_string(), "t");
        assert_eq!(operation.action, PartAction::DropDetached);
        assert_eq!(operation.partition.to_string(), "PART 'broken_all_1_1_0'");
        let operation = parse_part_operation("alter table db.t attach partition id 'all'")
            .unwrap()
            .unwrap();
        assert_eq!(operation.action, PartAction::Attach);
        assert!(matches!(operation.partition, Partition::Identifier(_)));
        let operation = parse_part_operation("ALTER TABLE t DETACH PARTITION tuple()")
            .unwrap()
            .unwrap();
        assert_eq!(operation.action, PartAction::Detach);
        let operation = parse_part_operation("ALTER TABLE t MOVE PART 'all_1_1_0' TO DISK 's3'")
            .unwrap()
            .unwrap();
        assert_eq!(
            operation.action,
            PartAction::Move(MoveDestination::Disk("s3".to_string()))
        );
        let operation = parse_part_operation("alter table t move partition 2024 to volume 'cold'")
            .unwrap()
            .unwrap();
        assert_eq!(
            operation.action,
            PartAction::Move(MoveDestination::Volume("cold".to_string()))
        );
        assert_eq!(
            parse_part_operation("ALTER TABLE t MOVE PARTITION 1 TO DISK s3")
                .unwrap_err()
                .code,
            ErrorCode::SYNTAX_ERROR
        );
        assert!(
            parse_part_operation("ALTER TABLE t DROP COLUMN c")
                .unwrap()
                .is_none()
        );
        assert_eq!(
            parse_part_operation("ALTER TABLE t DETACH COLUMN c")
                .unwrap_err()
                .code,
            ErrorCode::SYNTAX_ERROR
        );
    }
}
