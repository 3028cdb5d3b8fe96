//! ClickHouse's rule for inserting into Nested columns: the arrays of one
//! structure (`n.a`, `n.b`, the columns `n Nested(a T, b U)` becomes) have
//! one length in each row, else the INSERT fails with
//! SIZES_OF_ARRAYS_DONT_MATCH before any row is written.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::statistics::{ChildStats, StatisticsArgs};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, replace_children_if_necessary,
};
use futures::StreamExt;
use strata_common::{ErrorCode, StrataError};

/// The array columns of one structure, by position in the inserted rows.
#[derive(Debug, Clone)]
struct Structure {
    name: String,
    columns: Vec<usize>,
}

/// Checks the rows an insert's sink receives.
#[derive(Debug)]
pub struct NestedSizesExec {
    input: Arc<dyn ExecutionPlan>,
    structures: Arc<Vec<Structure>>,
}

impl NestedSizesExec {
    /// `insert` (a sink over one input) with its input checked, when the
    /// rows it writes hold two or more arrays of one structure.
    pub fn wrap(insert: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        let children = insert.children();
        let [input] = children.as_slice() else {
            return Ok(insert);
        };
        let structures = structures(&input.schema());
        if structures.is_empty() {
            return Ok(insert);
        }
        let checked: Arc<dyn ExecutionPlan> = Arc::new(NestedSizesExec {
            input: Arc::clone(input),
            structures: Arc::new(structures),
        });
        replace_children_if_necessary(insert, vec![checked])
    }
}

/// Array columns grouped by the name before their last period, where a
/// group has two or more.
fn structures(schema: &SchemaRef) -> Vec<Structure> {
    let mut structures: Vec<Structure> = Vec::new();
    for (position, field) in schema.fields().iter().enumerate() {
        let (DataType::List(_) | DataType::LargeList(_), Some((name, _))) =
            (field.data_type(), field.name().rsplit_once('.'))
        else {
            continue;
        };
        match structures.iter_mut().find(|s| s.name == name) {
            Some(structure) => structure.columns.push(position),
            None => structures.push(Structure {
                name: name.to_string(),
                columns: vec![position],
            }),
        }
    }
    structures.retain(|s| s.columns.len() > 1);
    structures
}

fn check(batch: &RecordBatch, structures: &[Structure]) -> Result<()> {
    for structure in structures {
        let first = structure.columns[0];
        let lengths = array_lengths(batch.column(first));
        for &other in &structure.columns[1..] {
            if array_lengths(batch.column(other)) != lengths {
                let schema = batch.schema();
                return Err(StrataError::new(
                    ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                    format!(
                        "Elements '{}' and '{}' of Nested data structure '{}' (Array columns) have different array sizes.",
                        schema.field(first).name(),
                        schema.field(other).name(),
                        structure.name
                    ),
                )
                .into_datafusion());
            }
        }
    }
    Ok(())
}

/// Each row's array length (a NULL array has none).
fn array_lengths(column: &dyn Array) -> Vec<usize> {
    let lengths = |offsets: Vec<usize>| offsets.windows(2).map(|w| w[1] - w[0]).collect();
    match column.data_type() {
        DataType::LargeList(_) => lengths(
            column
                .as_list::<i64>()
                .offsets()
                .iter()
                .map(|&o| o as usize)
                .collect(),
        ),
        _ => lengths(
            column
                .as_list::<i32>()
                .offsets()
                .iter()
                .map(|&o| o as usize)
                .collect(),
        ),
    }
}

impl DisplayAs for NestedSizesExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "NestedSizesExec: structures={}", self.structures.len())
    }
}

impl ExecutionPlan for NestedSizesExec {
    fn name(&self) -> &str {
        "NestedSizesExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn child_stats_requests(&self, partition: Option<usize>) -> Vec<ChildStats> {
        vec![ChildStats::At(partition)]
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        _args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(Arc::clone(&input_stats[0]))
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(NestedSizesExec {
            input: children.remove(0),
            structures: Arc::clone(&self.structures),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let structures = Arc::clone(&self.structures);
        let checked = input.map(move |batch| {
            let batch = batch?;
            check(&batch, &structures)?;
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{ListArray, UInt8Array};
    use datafusion::arrow::datatypes::{Field, Int32Type, Schema};

    use super::*;

    fn lists(rows: &[&[i32]]) -> Arc<dyn Array> {
        Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
            rows.iter().map(|r| Some(r.iter().map(|v| Some(*v)))),
        ))
    }

    #[test]
    fn arrays_of_one_structure_must_have_one_length() {
        let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::UInt8, false),
            Field::new("n.a", list.clone(), false),
            Field::new("n.b", list.clone(), false),
            Field::new("m.a", list, false),
        ]));
        let structures = structures(&schema);
        assert_eq!(structures.len(), 1, "m has one array");
        let batch = |b: &[&[i32]]| {
            RecordBatch::try_new(
                Arc::clone(&schema),
                vec![
                    Arc::new(UInt8Array::from(vec![1, 2])),
                    lists(&[&[1, 2], &[]]),
                    lists(b),
                    lists(&[&[1], &[1, 2, 3]]),
                ],
            )
            .unwrap()
        };
        assert!(check(&batch(&[&[3, 4], &[]]), &structures).is_ok());
        let error = check(&batch(&[&[3], &[4]]), &structures).unwrap_err();
        assert!(
            error.to_string().contains("different array sizes"),
            "{error}"
        );
    }
}
