//! `CONSTRAINT name CHECK expr` and `CONSTRAINT name ASSUME expr` in a
//! `CREATE TABLE` column list. A CHECK must hold for every inserted row
//! (the engine checks it); an ASSUME is a promise the optimizer may use,
//! which ClickHouse does not check, and Strata keeps without using.

use datafusion::sql::sqlparser::ast::{Expr, ObjectName};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::Result;

use crate::literal_text::expr_text;
use crate::parser::syntax_error;
use crate::skip_index::{alter_table_command, column_list_item, dropped_name, remaining};

#[derive(Debug, Clone, PartialEq)]
pub struct TableConstraint {
    pub name: String,
    /// An ASSUME constraint, not checked.
    pub assume: bool,
    pub expr: Expr,
}

impl TableConstraint {
    /// The declaration as SHOW CREATE TABLE prints it.
    pub fn definition(&self) -> String {
        let kind = if self.assume { "ASSUME" } else { "CHECK" };
        format!("CONSTRAINT {} {kind} {}", self.name, expr_text(&self.expr))
    }
}

fn is_word(token: Option<&Token>, word: &str) -> bool {
    matches!(token, Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// The significant tokens' positions in `tokens` from `i`.
fn significant(tokens: &[Token], i: usize) -> impl Iterator<Item = usize> + '_ {
    (i..tokens.len()).filter(|&j| !matches!(tokens[j], Token::Whitespace(_)))
}

/// Whether the column-list item starting at `i` declares a constraint:
/// `CONSTRAINT`, a name, then `CHECK` or `ASSUME` (a column may be named
/// `constraint`).
pub(crate) fn is_constraint_item(tokens: &[Token], i: usize) -> bool {
    let mut next = significant(tokens, i);
    let (Some(head), Some(_), Some(kind)) = (next.next(), next.next(), next.next()) else {
        return false;
    };
    is_word(tokens.get(head), "CONSTRAINT")
        && (is_word(tokens.get(kind), "CHECK") || is_word(tokens.get(kind), "ASSUME"))
}

/// Parses a constraint item (`CONSTRAINT` up to its comma), with
/// `parse_expr` reading the expression.
pub(crate) fn parse_constraint(
    sql: &str,
    item: &[Token],
    parse_expr: impl Fn(&str, &[Token]) -> Result<Expr>,
) -> Result<TableConstraint> {
    let positions: Vec<usize> = significant(item, 0).collect();
    let (Some(&name_at), Some(&kind_at)) = (positions.get(1), positions.get(2)) else {
        return Err(syntax_error(
            sql,
            "Expected a name and CHECK or ASSUME after CONSTRAINT",
        ));
    };
    let Token::Word(name) = &item[name_at] else {
        return Err(syntax_error(
            sql,
            "Expected the constraint's name after CONSTRAINT",
        ));
    };
    Ok(TableConstraint {
        name: name.value.clone(),
        assume: is_word(item.get(kind_at), "ASSUME"),
        expr: parse_expr(sql, &item[kind_at + 1..])?,
    })
}

/// `ALTER TABLE t ADD CONSTRAINT ...` or `DROP CONSTRAINT ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterConstraint {
    pub table: ObjectName,
    pub command: ConstraintCommand,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConstraintCommand {
    Add {
        constraint: TableConstraint,
        if_not_exists: bool,
    },
    Drop {
        name: String,
        if_exists: bool,
    },
}

/// Reads `ALTER TABLE t ADD CONSTRAINT [IF NOT EXISTS] name CHECK | ASSUME
/// expr` and `ALTER TABLE t DROP CONSTRAINT [IF EXISTS] name`; None for
/// any other statement.
pub fn parse_alter_constraint(sql: &str) -> Result<Option<AlterConstraint>> {
    let Some((mut parser, table, verb)) = alter_table_command(sql, &["ADD", "DROP"], "CONSTRAINT")?
    else {
        return Ok(None);
    };
    let command = match verb {
        "ADD" => {
            let if_not_exists =
                parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
            let item = column_list_item("CONSTRAINT", remaining(&mut parser));
            ConstraintCommand::Add {
                constraint: parse_constraint(sql, &item, crate::create_table::parse_expr)?,
                if_not_exists,
            }
        }
        _ => {
            let (name, if_exists) = dropped_name(sql, &mut parser)?;
            ConstraintCommand::Drop { name, if_exists }
        }
    };
    Ok(Some(AlterConstraint { table, command }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::create_table::split_create_table;

    #[test]
    fn constraints_leave_the_column_list() {
        let text = split_create_table(
            "CREATE TABLE t (a Int32, CONSTRAINT c1 CHECK a < 10, b String, CONSTRAINT c2 ASSUME length(b) > 0) ENGINE = Memory",
        )
        .unwrap();
        assert_eq!(text.statement, "CREATE TABLE t (a Int32, b String) ");
        let definitions: Vec<String> = text.constraints.iter().map(|c| c.definition()).collect();
        assert_eq!(
            definitions,
            [
                "CONSTRAINT c1 CHECK a < 10",
                "CONSTRAINT c2 ASSUME length(b) > 0"
            ]
        );
    }

    #[test]
    fn alter_commands_read_a_constraint_or_its_name() {
        let add =
            parse_alter_constraint("ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS c CHECK a != 7;")
                .unwrap()
                .unwrap();
        let ConstraintCommand::Add {
            constraint,
            if_not_exists: true,
        } = add.command
        else {
            panic!("an ADD: {add:?}");
        };
        assert_eq!(constraint.definition(), "CONSTRAINT c CHECK a <> 7");
        let drop = parse_alter_constraint("alter table db.t drop constraint c")
            .unwrap()
            .unwrap();
        assert_eq!(
            drop.command,
            ConstraintCommand::Drop {
                name: "c".into(),
                if_exists: false
            }
        );
        assert!(
            parse_alter_constraint("ALTER TABLE t DROP COLUMN c")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_column_named_constraint_stays() {
        let text = split_create_table("CREATE TABLE t (constraint UInt8, x UInt8) ENGINE = Memory")
            .unwrap();
        assert!(text.constraints.is_empty());
        assert!(
            text.statement.contains("constraint UInt8"),
            "{}",
            text.statement
        );
    }
}
