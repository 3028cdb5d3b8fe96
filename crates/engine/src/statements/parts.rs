//! Statements on a MergeTree table's parts: `ALTER TABLE ... DETACH |
//! ATTACH | DROP | MOVE PART | PARTITION`, `ALTER TABLE ... DROP DETACHED PART |
//! PARTITION` and `CHECK TABLE`. The storage side is
//! `strata_storage::merge_tree::table::detached`.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, StringArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, Partition, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::part_statements::{CheckTable, MoveDestination, PartAction, PartOperation};
use strata_storage::merge_tree::MergeTreeTable;
use strata_storage::merge_tree::keys::WHOLE_TABLE_PARTITION;

use crate::session::{Session, StatementOutcome, UserTable};
use crate::sources::merge_tree_table::MergeTreeProvider;

/// A part or every part of a partition.
enum Target {
    Part(String),
    Partition(String),
}

impl Session {
    /// `ALTER TABLE t ATTACH | DETACH | DROP | DROP DETACHED` a part or partition.
    pub(super) async fn part_operation(
        &mut self,
        operation: PartOperation,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let table = self.merge_tree(&operation.table, "partitioning").await?;
        let data = &table.data;
        match (
            operation.action,
            self.target(data, &operation.partition).await?,
        ) {
            (PartAction::Detach, Target::Part(part)) => data.detach_part(&part)?,
            (PartAction::Detach, Target::Partition(id)) => {
                for part in data.snapshot().iter() {
                    if part.part.name.partition_id == id {
                        data.detach_part(&part.name())?;
                    }
                }
            }
            (PartAction::Attach, Target::Part(part)) => {
                data.attach_part(&part)?;
            }
            (PartAction::Attach, Target::Partition(id)) => {
                // Only parts detached by DETACH: broken ones keep their prefix.
                for part in data.detached_parts()? {
                    let matches = part.reason.is_empty()
                        && part.part.as_ref().is_some_and(|p| p.partition_id == id);
                    if matches {
                        data.attach_part(&part.name)?;
                    }
                }
            }
            (PartAction::Drop, Target::Part(part)) => {
                if data.drop_parts(|p| p.to_string() == part)?.is_empty() {
                    return Err(StrataError::new(
                        ErrorCode::NO_SUCH_DATA_PART,
                        format!("No part {part} in committed state"),
                    ));
                }
            }
            (PartAction::Drop, Target::Partition(id)) => {
                data.drop_parts(|p| p.partition_id == id)?;
            }
            (PartAction::DropDetached, target) => self.drop_detached(data, target)?,
            (PartAction::AttachFrom(source), Target::Partition(id)) => {
                let source = self.merge_tree(&source, "partitioning").await?;
                data.check_same_structure(&source.data)?;
                data.copy_partition_from(&source.data, &id, false)?;
            }
            (PartAction::ReplaceFrom(source), Target::Partition(id)) => {
                let source = self.merge_tree(&source, "partitioning").await?;
                data.check_same_structure(&source.data)?;
                data.copy_partition_from(&source.data, &id, true)?;
            }
            (PartAction::Move(MoveDestination::Table(to)), Target::Partition(id)) => {
                let to = self.merge_tree(&to, "partitioning").await?;
                to.data.check_same_structure(data)?;
                let copied = to.data.copy_partition_from(data, &id, false)?;
                data.drop_parts(|name| copied.contains(&name.to_string()))?;
            }
            (
                PartAction::AttachFrom(_)
                | PartAction::ReplaceFrom(_)
                | PartAction::Move(MoveDestination::Table(_)),
                Target::Part(_),
            ) => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "Parts are copied between tables by partition: use PARTITION, not PART",
                ));
            }
            (PartAction::Move(destination), target) => move_parts(data, &destination, target)?,
        }
        self.done()
    }

    /// Removing detached data needs `allow_drop_detached`, as in ClickHouse:
    /// it deletes data for good.
    fn drop_detached(&self, data: &MergeTreeTable, target: Target) -> Result<()> {
        if !self.settings.allow_drop_detached() {
            return Err(StrataError::new(
                ErrorCode::SUPPORT_IS_DISABLED,
                "Cannot execute query: DROP DETACHED PART is disabled (see allow_drop_detached setting)",
            ));
        }
        match target {
            Target::Part(part) => data.drop_detached_part(&part),
            Target::Partition(id) => {
                for part in data.detached_parts()? {
                    if part.part.as_ref().is_some_and(|p| p.partition_id == id) {
                        data.drop_detached_part(&part.name)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// `CHECK TABLE`: every file of the active parts against its checksum.
    /// A row per part, or with `check_query_single_value_result = 1` one
    /// row `result`, 1 if every part passed.
    pub(super) async fn check_table(&mut self, check: CheckTable) -> Result<StatementOutcome> {
        let table = match self.user_table(&check.table).await? {
            UserTable::MergeTree(table) => table,
            other => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!(
                        "Check query is not supported for {} storage",
                        other.engine_name()
                    ),
                ));
            }
        };
        let target = match &check.partition {
            Some(partition) => Some(self.target(&table.data, partition).await?),
            None => None,
        };
        let mut checks = match target {
            None => table.data.check_parts(None),
            Some(Target::Partition(id)) => table.data.check_parts(Some(&id)),
            Some(Target::Part(name)) => {
                let mut checks = table.data.check_parts(None);
                checks.retain(|c| c.name == name);
                if checks.is_empty() {
                    let (database, table) = self.table_name(&check.table)?;
                    return Err(StrataError::new(
                        ErrorCode::NO_SUCH_DATA_PART,
                        format!(
                            "No such data part '{name}' to check in table '{database}.{table}'"
                        ),
                    ));
                }
                checks
            }
        };
        checks.sort_by(|a, b| a.name.cmp(&b.name));
        let passed: Vec<u8> = checks.iter().map(|c| u8::from(c.error.is_none())).collect();
        let batch = if self.settings.check_query_single_value_result() {
            let schema = Schema::new(vec![Field::new("result", DataType::UInt8, false)]);
            let all = u8::from(passed.iter().all(|&p| p == 1));
            RecordBatch::try_new(
                Arc::new(schema),
                vec![Arc::new(UInt8Array::from(vec![all]))],
            )?
        } else {
            let schema = Schema::new(vec![
                Field::new("part_path", DataType::Utf8, false),
                Field::new("is_passed", DataType::UInt8, false),
                Field::new("message", DataType::Utf8, false),
            ]);
            let paths: Vec<String> = checks.iter().map(|c| c.name.clone()).collect();
            let messages: Vec<String> = checks
                .iter()
                .map(|c| {
                    c.error
                        .as_ref()
                        .map_or(String::new(), |e| e.message.clone())
                })
                .collect();
            RecordBatch::try_new(
                Arc::new(schema),
                vec![
                    Arc::new(StringArray::from(paths)),
                    Arc::new(UInt8Array::from(passed)),
                    Arc::new(StringArray::from(messages)),
                ],
            )?
        };
        self.rows(batch.schema(), vec![batch])
    }

    async fn target(&self, data: &MergeTreeTable, partition: &Partition) -> Result<Target> {
        match partition {
            Partition::Part(Expr::Value(value)) => match &value.value {
                Value::SingleQuotedString(name) => Ok(Target::Part(name.clone())),
                other => Err(part_name_expected(&other.to_string())),
            },
            Partition::Part(other) => Err(part_name_expected(&other.to_string())),
            other => Ok(Target::Partition(self.partition_id(data, other).await?)),
        }
    }

    /// The partition id `PARTITION p` names: `ID 'id'`, or the partition
    /// key's value, a tuple for a key of several expressions (`tuple()` for
    /// none), whose id is computed as an insert computes it.
    pub(super) async fn partition_id(
        &self,
        data: &MergeTreeTable,
        partition: &Partition,
    ) -> Result<String> {
        let expr = match partition {
            Partition::Identifier(id) => return Ok(id.value.clone()),
            Partition::Expr(expr) => expr,
            other => {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("{other} names no partition"),
                ));
            }
        };
        let fields: Vec<Option<Expr>> = match expr {
            Expr::Tuple(items) => items.iter().cloned().map(Some).collect(),
            Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("tuple") => {
                let FunctionArguments::List(list) = &f.args else {
                    return Ok(WHOLE_TABLE_PARTITION.to_string());
                };
                list.args
                    .iter()
                    .map(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(Some(e.clone())),
                        other => Err(StrataError::new(
                            ErrorCode::INVALID_PARTITION_VALUE,
                            format!("{other} is not a partition value"),
                        )),
                    })
                    .collect::<Result<_>>()?
            }
            other => vec![Some(other.clone())],
        };
        let given: Vec<&Option<Expr>> = fields.iter().collect();
        let values = self
            .constants(&given, &self.settings)
            .await?
            .into_iter()
            .flatten()
            .collect::<Vec<_>>();
        data.keys().partition_id_of(data.schema(), &values)
    }

    pub(super) async fn merge_tree(
        &self,
        name: &ObjectName,
        what: &str,
    ) -> Result<Arc<MergeTreeProvider>> {
        match self.user_table(name).await? {
            UserTable::MergeTree(table) => Ok(table),
            other => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Table engine {} doesn't support {what}",
                    other.engine_name()
                ),
            )),
        }
    }
}

/// `MOVE PART | PARTITION ... TO DISK | VOLUME`.
fn move_parts(data: &MergeTreeTable, destination: &MoveDestination, target: Target) -> Result<()> {
    let disk = match destination {
        MoveDestination::Disk(name) => data.policy_disk(name)?,
        MoveDestination::Volume(name) => data.policy_volume_disk(name)?,
        MoveDestination::Table(_) => unreachable!("moves to a table are copies"),
    };
    match target {
        Target::Part(part) => data.move_part(&part, &disk),
        Target::Partition(id) => data.move_partition(&id, &disk),
    }
}

fn part_name_expected(found: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("A part is named by a string literal, got {found}"),
    )
}
