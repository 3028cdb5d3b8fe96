//! `ALTER TABLE t ADD CONSTRAINT | DROP CONSTRAINT`: a MergeTree table's
//! constraints, edited in its definition. An added CHECK applies to later
//! inserts; rows already stored are not checked, as in ClickHouse.

use datafusion::catalog::TableProvider;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::constraints::{AlterConstraint, ConstraintCommand, TableConstraint};

use crate::session::{Session, StatementOutcome};

impl Session {
    pub(super) async fn alter_constraint(
        &mut self,
        alter: AlterConstraint,
    ) -> Result<StatementOutcome> {
        let kind = match alter.command {
            ConstraintCommand::Add { .. } => "ADD_CONSTRAINT",
            ConstraintCommand::Drop { .. } => "DROP_CONSTRAINT",
        };
        let table = self.merge_tree_to_alter(&alter.table, kind).await?;
        if let ConstraintCommand::Add { constraint, .. } = &alter.command {
            self.check_constraints(std::slice::from_ref(constraint), &table.schema())?;
        }
        self.alter_definition(&table, |_, constraints| {
            edit_constraints(constraints, alter.command)
        })
        .await?;
        self.done()
    }
}

/// Whether the edit changed the constraints.
fn edit_constraints(
    constraints: &mut Vec<TableConstraint>,
    command: ConstraintCommand,
) -> Result<bool> {
    let position = |constraints: &[TableConstraint], name: &str| {
        constraints.iter().position(|c| c.name == name)
    };
    match command {
        ConstraintCommand::Add {
            constraint,
            if_not_exists,
        } => {
            if position(constraints, &constraint.name).is_some() {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(StrataError::new(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!(
                        "Cannot add constraint {}: constraint with this name already exists",
                        constraint.name
                    ),
                ));
            }
            constraints.push(constraint);
        }
        ConstraintCommand::Drop { name, if_exists } => match position(constraints, &name) {
            Some(at) => {
                constraints.remove(at);
            }
            None if if_exists => return Ok(false),
            None => {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Wrong constraint name. Cannot find constraint `{name}` to drop"),
                ));
            }
        },
    }
    Ok(true)
}
