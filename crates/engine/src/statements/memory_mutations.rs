//! Mutations of Memory tables: `ALTER TABLE t DELETE WHERE c` and `ALTER
//! TABLE t UPDATE a = e, ... WHERE c`, applied at once to the rows in RAM,
//! as ClickHouse's Memory engine applies them. The commands of one ALTER
//! run in order, each over the rows the one before left; the rows are held
//! for writing meanwhile, so an INSERT waits rather than being lost.
//!
//! Conditions and values are planned as for MergeTree mutations
//! ([`super::mutations`]); a NULL condition neither deletes nor updates.
//! The lightweight forms (`DELETE FROM`, `UPDATE ... SET`) are refused, as
//! ClickHouse refuses them for Memory tables.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{cast, filter_record_batch, not, prep_null_mask_filter};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::ObjectName;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::mutations::MutationAst;
use strata_storage::merge_tree::MutationKind;

use super::mutations::{cast_to_column, is_row_mask};
use crate::session::{Session, StatementOutcome};
use crate::sources::memory_table::MemoryTable;

/// One command, compiled over the table's columns.
enum MemoryMutation {
    Delete {
        predicate: Arc<dyn PhysicalExpr>,
    },
    Update {
        predicate: Arc<dyn PhysicalExpr>,
        assignments: Vec<(usize, Arc<dyn PhysicalExpr>)>,
    },
}

impl Session {
    pub(crate) async fn mutate_memory(
        &self,
        table: &MemoryTable,
        name: &ObjectName,
        commands: &[MutationAst],
        kind: MutationKind,
    ) -> Result<StatementOutcome> {
        if table.keyed().is_some() || table.engine_name() != "Memory" {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Table engine {} doesn't support mutations",
                    table.engine_name()
                ),
            ));
        }
        if kind == MutationKind::LightweightUpdate {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "Lightweight updates are not supported. Table with engine Memory doesn't support lightweight updates",
            ));
        }
        let mut compiled = Vec::with_capacity(commands.len());
        for command in commands {
            compiled.push(self.compile_memory_mutation(table, name, command).await?);
        }
        table
            .rewrite(|batches| {
                let mut rows = batches.to_vec();
                for command in &compiled {
                    rows = rows
                        .iter()
                        .map(|batch| command.apply(batch))
                        .collect::<Result<_>>()?;
                }
                Ok(rows)
            })
            .await?;
        let query = self.new_query(self.settings.clone());
        self.log_start(&query);
        Ok(StatementOutcome::Done(query))
    }

    async fn compile_memory_mutation(
        &self,
        table: &MemoryTable,
        name: &ObjectName,
        command: &MutationAst,
    ) -> Result<MemoryMutation> {
        use datafusion::catalog::TableProvider;
        let schema = table.schema();
        match command {
            MutationAst::Delete { predicate } => {
                let (_, predicate) = self.plan_exprs(&schema, name, &[], predicate).await?;
                Ok(MemoryMutation::Delete { predicate })
            }
            MutationAst::Update { assignments, .. } if is_row_mask(assignments)? => {
                let identity = table.identity();
                Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!(
                        "DELETE query is not supported for table {}",
                        identity.qualified_name()
                    ),
                ))
            }
            MutationAst::Update {
                assignments,
                predicate,
            } => {
                let mut columns = Vec::with_capacity(assignments.len());
                let mut values = Vec::with_capacity(assignments.len());
                for (column, value) in assignments {
                    let Ok(index) = schema.index_of(&column.value) else {
                        return Err(StrataError::new(
                            ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                            format!("There is no column `{}` in table", column.value),
                        ));
                    };
                    columns.push(index);
                    values.push(cast_to_column(value, schema.field(index))?);
                }
                let (values, predicate) =
                    self.plan_exprs(&schema, name, &values, predicate).await?;
                Ok(MemoryMutation::Update {
                    predicate,
                    assignments: columns.into_iter().zip(values).collect(),
                })
            }
            other => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Mutation {other} is not supported by Memory tables yet"),
            )),
        }
    }
}

impl MemoryMutation {
    /// The rows of `batch` after this command.
    fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        match self {
            MemoryMutation::Delete { predicate } => {
                let kept = not(&matches(predicate, batch)?)?;
                Ok(filter_record_batch(batch, &kept)?)
            }
            MemoryMutation::Update {
                predicate,
                assignments,
            } => {
                let chosen = matches(predicate, batch)?;
                let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
                // Every value reads the rows as they were before this command.
                for (index, value) in assignments {
                    let field = batch.schema_ref().field(*index).clone();
                    let new = value.evaluate(batch)?.into_array(batch.num_rows())?;
                    let new = cast(&new, field.data_type())?;
                    columns[*index] = zip(&chosen, &new, &batch.column(*index))?;
                }
                Ok(RecordBatch::try_new(batch.schema(), columns)?)
            }
        }
    }
}

/// The rows of `batch` where `predicate` holds; NULL counts as not.
fn matches(predicate: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<BooleanArray> {
    let value = predicate.evaluate(batch)?.into_array(batch.num_rows())?;
    let Some(mask) = value.as_any().downcast_ref::<BooleanArray>() else {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER,
            format!(
                "Illegal type {} of column for filter",
                strata_common::types::clickhouse_type_name(value.data_type(), false)
            ),
        ));
    };
    Ok(match mask.null_count() {
        0 => mask.clone(),
        _ => prep_null_mask_filter(mask),
    })
}
