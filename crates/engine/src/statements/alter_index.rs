//! `ALTER TABLE t ADD INDEX | DROP INDEX | CLEAR INDEX`: a table's
//! data-skipping index declarations, edited in its definition. CLEAR has
//! nothing to do: parts keep the index's data, which stays true to their
//! rows (MATERIALIZE INDEX is a mutation, in `mutations`).

use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::EngineClause;
use strata_sql::skip_index::{AlterIndex, IndexCommand, IndexPosition, SkipIndex};

use crate::session::{Session, StatementOutcome};

impl Session {
    pub(super) async fn alter_index(&mut self, alter: AlterIndex) -> Result<StatementOutcome> {
        let kind = command_name(&alter.command);
        let table = self.merge_tree_to_alter(&alter.table, kind).await?;
        match alter.command {
            IndexCommand::Clear => {}
            command => {
                self.alter_definition(&table, |engine, _| edit_indexes(engine, command))
                    .await?
            }
        }
        self.done()
    }
}

fn command_name(command: &IndexCommand) -> &'static str {
    match command {
        IndexCommand::Add { .. } => "ADD_INDEX",
        IndexCommand::Drop { .. } => "DROP_INDEX",
        IndexCommand::Clear => "CLEAR_INDEX",
    }
}

/// Whether the edit changed the indexes.
fn edit_indexes(engine: &mut EngineClause, command: IndexCommand) -> Result<bool> {
    let indexes = &mut engine.indexes;
    let position =
        |indexes: &[SkipIndex], name: &str| indexes.iter().position(|index| index.name == name);
    match command {
        IndexCommand::Add {
            index,
            if_not_exists,
            position: at,
        } => {
            if position(indexes, &index.name).is_some() {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(StrataError::new(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!(
                        "Cannot add index {}: index with this name already exists",
                        index.name
                    ),
                ));
            }
            let at = match at {
                IndexPosition::Last => indexes.len(),
                IndexPosition::First => 0,
                IndexPosition::After(name) => {
                    position(indexes, &name).ok_or_else(|| wrong_index(&name, "insert after"))? + 1
                }
            };
            indexes.insert(at, index);
        }
        IndexCommand::Drop { name, if_exists } => match position(indexes, &name) {
            Some(at) => {
                indexes.remove(at);
            }
            None if if_exists => return Ok(false),
            None => return Err(wrong_index(&name, "drop")),
        },
        IndexCommand::Clear => return Ok(false),
    }
    Ok(true)
}

fn wrong_index(name: &str, what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Wrong index name. Cannot find index `{name}` to {what}"),
    )
}
