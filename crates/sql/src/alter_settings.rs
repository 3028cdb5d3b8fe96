//! `ALTER TABLE t MODIFY SETTING name = value, ...` and `ALTER TABLE t RESET
//! SETTING name, ...`: a table's own settings, edited in its definition.

use datafusion::sql::sqlparser::ast::ObjectName;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::Result;

use crate::create_table::{parse_setting, split_on_commas};
use crate::parser::syntax_error;

#[derive(Debug, Clone, PartialEq)]
pub enum SettingsCommand {
    /// Settings given a value, in the order written.
    Modify(Vec<(String, String)>),
    /// Settings back to their defaults.
    Reset(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AlterSettings {
    pub table: ObjectName,
    pub command: SettingsCommand,
}

/// The statement as an [`AlterSettings`], or None when it is another one.
pub fn parse_alter_settings(sql: &str) -> Result<Option<AlterSettings>> {
    let Some((mut parser, table, verb)) =
        crate::skip_index::alter_table_command(sql, &["MODIFY", "RESET"], "SETTING")?
    else {
        return Ok(None);
    };
    let rest: Vec<Token> = std::iter::from_fn(|| {
        let token = parser.next_token().token;
        (!matches!(token, Token::EOF | Token::SemiColon)).then_some(token)
    })
    .collect();
    let pieces = split_on_commas(&rest);
    let command = if verb == "MODIFY" {
        let settings = pieces
            .into_iter()
            .map(|piece| parse_setting(sql, piece))
            .collect::<Result<Vec<_>>>()?;
        SettingsCommand::Modify(settings)
    } else {
        let names = pieces
            .into_iter()
            .map(|piece| match significant(piece).as_slice() {
                [Token::Word(name)] => Ok(name.value.clone()),
                _ => Err(syntax_error(
                    sql,
                    "Expected a setting name in RESET SETTING",
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        SettingsCommand::Reset(names)
    };
    Ok(Some(AlterSettings { table, command }))
}

fn significant(tokens: &[Token]) -> Vec<&Token> {
    tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modify_and_reset_name_their_settings() {
        let modify = parse_alter_settings("ALTER TABLE t MODIFY SETTING a = 1, b = 'x'")
            .unwrap()
            .unwrap();
        assert_eq!(
            modify.command,
            SettingsCommand::Modify(vec![
                ("a".to_string(), "1".to_string()),
                ("b".to_string(), "x".to_string())
            ])
        );
        let reset = parse_alter_settings("ALTER TABLE db.t RESET SETTING a, b;")
            .unwrap()
            .unwrap();
        assert_eq!(reset.table.to_string(), "db.t");
        assert_eq!(
            reset.command,
            SettingsCommand::Reset(vec!["a".to_string(), "b".to_string()])
        );
        assert!(parse_alter_settings("ALTER TABLE t MODIFY SETTING a").is_err());
        assert!(
            parse_alter_settings("ALTER TABLE t MODIFY TTL d")
                .unwrap()
                .is_none()
        );
    }
}
