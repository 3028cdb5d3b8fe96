//! Counts the rows and bytes a table source reads into the query's
//! counters: by wrapping sources that do not count by themselves, and for
//! those that do, as their [`ReadCounter`].

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch};
use datafusion::common::Result;
use datafusion::common::Statistics;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::statistics::{ChildStats, StatisticsArgs};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;

use strata_common::events;
use strata_storage::merge_tree::ReadCounter;

use crate::query_context::QueryContext;

/// Uncompressed bytes of the data in a batch, as ClickHouse counts bytes read.
pub fn data_bytes(batch: &RecordBatch) -> u64 {
    columns_bytes(batch.columns())
}

fn columns_bytes(columns: &[ArrayRef]) -> u64 {
    columns
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
        .sum()
}

/// Sources that filter as they read (MergeTree) count what they read here.
impl ReadCounter for QueryContext {
    fn count(&self, rows: u64, columns: &[ArrayRef]) -> Result<()> {
        self.check()?;
        self.add_read(rows, columns_bytes(columns))
    }
}

#[derive(Debug)]
pub struct CountingExec {
    input: Arc<dyn ExecutionPlan>,
}

impl CountingExec {
    pub fn new(input: Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> {
        Arc::new(CountingExec { input })
    }
}

impl DisplayAs for CountingExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "CountingExec")
    }
}

impl ExecutionPlan for CountingExec {
    fn name(&self) -> &str {
        "CountingExec"
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

    /// The source's own estimates: counting changes no rows.
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
        Ok(CountingExec::new(children.remove(0)))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let query = context.session_config().get_extension::<QueryContext>();
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let scope = query.as_ref().map(|query| Arc::clone(&query.events));
        let counted = events::Scoped::new(input, scope).map(move |batch| {
            let batch = batch?;
            if let Some(query) = &query {
                query.check()?;
                query.add_read(batch.num_rows() as u64, data_bytes(&batch))?;
            }
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, counted)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{StringArray, UInt64Array};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    #[test]
    fn counts_data_bytes_of_slices() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::UInt64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(UInt64Array::from(vec![1, 2, 3, 4])),
                Arc::new(StringArray::from(vec!["a", "bb", "", "ccc"])),
            ],
        )
        .unwrap();
        assert_eq!(data_bytes(&batch), 4 * 8 + 5 * 4 + 6);
        assert_eq!(data_bytes(&batch.slice(0, 2)), 2 * 8 + 3 * 4 + 3);
    }
}
