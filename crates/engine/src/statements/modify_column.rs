//! A table's columns as an ALTER edits them, and the edits ClickHouse
//! writes as `MODIFY COLUMN`, `COMMENT COLUMN` and `MODIFY COMMENT`.
//! `MODIFY COLUMN` replaces the properties it names (type, default,
//! comment, codec) and keeps the others, as ClickHouse does.

use datafusion::arrow::datatypes::Field;
use datafusion::sql::sqlparser::ast::ColumnOption;
use strata_common::types::{field_type_name, parse_clickhouse_type};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::alter_columns::{AlterCommand, ColumnChange, ColumnProperty};
use strata_sql::literal_text::type_text;
use strata_storage::compression::CodecChain;

use crate::table_definition::{ColumnExtras, ColumnKind};

/// One table's columns as an ALTER edits them.
pub(super) struct Columns {
    pub fields: Vec<Field>,
    pub extras: Vec<ColumnExtras>,
    /// A rename this ALTER makes: (old, new).
    pub renamed: Option<(String, String)>,
    /// A column whose type this ALTER changes, as it was.
    pub retyped: Option<Field>,
    /// The table's comment.
    pub comment: Option<String>,
}

impl Columns {
    pub fn position(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name() == name)
    }

    /// Applies one of ClickHouse's own commands; false if it changes
    /// nothing (`IF EXISTS` on a missing column).
    pub fn edit(&mut self, command: AlterCommand) -> Result<bool> {
        let missing = |name: &str, message: &str| {
            StrataError::new(
                ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK,
                format!("{message} `{name}`"),
            )
        };
        match command {
            AlterCommand::TableComment(text) => {
                self.comment = Some(text);
            }
            AlterCommand::Comment {
                column,
                if_exists,
                text,
            } => {
                let Some(at) = self.position(&column.value) else {
                    return match if_exists {
                        true => Ok(false),
                        false => Err(missing(
                            &column.value,
                            "Wrong column name. Cannot find column",
                        )),
                    };
                };
                self.extras[at].comment = Some(text);
            }
            AlterCommand::Modify {
                column,
                if_exists,
                change,
            } => {
                let Some(at) = self.position(&column.value) else {
                    return match if_exists {
                        true => Ok(false),
                        false => Err(missing(&column.value, "Wrong column. Cannot find column")),
                    };
                };
                match change {
                    ColumnChange::Remove(property) => self.remove(at, property)?,
                    ColumnChange::Set {
                        data_type,
                        options,
                        codec,
                    } => {
                        if let Some(data_type) = data_type {
                            self.retype(
                                at,
                                parse_clickhouse_type(&type_text(&data_type))?
                                    .field(column.value.clone()),
                            )?;
                        }
                        set_options(&mut self.extras[at], options)?;
                        if let Some(codec) = codec {
                            let column_type = field_type_name(&self.fields[at]);
                            let chain = CodecChain::parse(&codec, &column_type)?;
                            self.extras[at].codec = Some(chain.sql());
                        }
                    }
                }
            }
            AlterCommand::Standard(_) => {
                unreachable!("sqlparser's commands are applied by edit_columns")
            }
        }
        Ok(true)
    }

    /// Gives column `at` the type of `field`, keeping what it was to convert
    /// its data from.
    fn retype(&mut self, at: usize, field: Field) -> Result<()> {
        let old = &self.fields[at];
        if old.data_type() == field.data_type()
            && old.is_nullable() == field.is_nullable()
            && old.metadata() == field.metadata()
        {
            return Ok(());
        }
        if old.is_nullable() && !field.is_nullable() {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Cannot convert column '{}' from nullable type {} to non-nullable type {}",
                    old.name(),
                    field_type_name(old),
                    field_type_name(&field)
                ),
            ));
        }
        if self.retyped.is_some() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "One ALTER changes the type of one column at most for now",
            ));
        }
        self.retyped = Some(old.clone());
        self.fields[at] = field;
        Ok(())
    }

    /// `MODIFY COLUMN c REMOVE property`: an error if the column has none.
    fn remove(&mut self, at: usize, property: ColumnProperty) -> Result<()> {
        let extra = &mut self.extras[at];
        let has = match property {
            ColumnProperty::Default => {
                extra.kind == ColumnKind::Ordinary && extra.default.is_some()
            }
            ColumnProperty::Materialized => extra.kind == ColumnKind::Materialized,
            ColumnProperty::Alias => extra.kind == ColumnKind::Alias,
            ColumnProperty::Comment => extra.comment.is_some(),
            ColumnProperty::Codec => extra.codec.is_some(),
        };
        if !has {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Column `{}` doesn't have {}, cannot remove it",
                    self.fields[at].name(),
                    property.keyword()
                ),
            ));
        }
        match property {
            ColumnProperty::Comment => extra.comment = None,
            ColumnProperty::Codec => extra.codec = None,
            ColumnProperty::Alias => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "Removing ALIAS, which makes a stored column of a computed one, is not supported yet",
                ));
            }
            ColumnProperty::Default | ColumnProperty::Materialized => {
                extra.kind = ColumnKind::Ordinary;
                extra.default = None;
            }
        }
        Ok(())
    }
}

/// The default kind and comment `options` give, replacing the column's.
fn set_options(extra: &mut ColumnExtras, options: Vec<ColumnOption>) -> Result<()> {
    for option in options {
        match option {
            ColumnOption::Default(expr) => {
                extra.kind = ColumnKind::Ordinary;
                extra.default = Some(expr);
            }
            ColumnOption::Materialized(expr) => {
                extra.kind = ColumnKind::Materialized;
                extra.default = Some(expr);
            }
            ColumnOption::Comment(text) => extra.comment = Some(text),
            ColumnOption::Null | ColumnOption::NotNull => {}
            other => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("MODIFY COLUMN ... {other} is not supported yet"),
                ));
            }
        }
    }
    Ok(())
}
