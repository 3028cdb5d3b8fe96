//! `SELECT ... FROM t FINAL`: the table's rows as they will be once every
//! part of each partition has merged. Each partition's parts are read
//! whole, in block order (so a key's rows stay in insertion order), sorted
//! by the sorting key and combined by the engine's [`MergeMode`], with
//! what only FINAL does (ReplacingMergeTree's `is_deleted`). One partition
//! is held in memory at a time, reserved from the query's pool.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result as DfResult;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::stream;
use strata_common::error::StrataError;
use strata_common::events::{QueryEvents, Scoped};

use super::data_part::DataPart;
use super::scan::ReadCounter;
use super::table::MergeTreeTable;

#[derive(Debug)]
pub struct FinalScanExec {
    table_name: String,
    table: Arc<MergeTreeTable>,
    /// The parts read, grouped by partition.
    partitions: Vec<Vec<Arc<DataPart>>>,
    counter: Option<Arc<dyn ReadCounter>>,
    properties: Arc<PlanProperties>,
}

impl FinalScanExec {
    pub fn new(
        table_name: String,
        table: Arc<MergeTreeTable>,
        counter: Option<Arc<dyn ReadCounter>>,
    ) -> Self {
        let partitions = table.parts_by_partition().into_values().collect();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(table.schema())),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        FinalScanExec {
            table_name,
            table,
            partitions,
            counter,
            properties,
        }
    }
}

impl DisplayAs for FinalScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "FinalScanExec: table={}, partitions={}",
            self.table_name,
            self.partitions.len()
        )
    }
}

impl ExecutionPlan for FinalScanExec {
    fn name(&self) -> &str {
        "FinalScanExec"
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        _partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let schema: SchemaRef = Arc::clone(self.table.schema());
        let table = Arc::clone(&self.table);
        let counter = self.counter.clone();
        let reservation = MemoryConsumer::new(format!("FinalScanExec[{}]", self.table_name))
            .register(context.memory_pool());
        let partitions = self.partitions.clone().into_iter();
        let batches = stream::unfold(
            (partitions, reservation),
            move |(mut partitions, mut reservation)| {
                let table = Arc::clone(&table);
                let counter = counter.clone();
                async move {
                    let parts = partitions.next()?;
                    let result = final_rows(&table, &parts, counter.as_deref(), &mut reservation);
                    Some((result, (partitions, reservation)))
                }
            },
        );
        let query = context.session_config().get_extension::<QueryEvents>();
        let batches = Scoped::new(Box::pin(batches), query);
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
    }
}

/// One partition's rows combined as the engine combines them under FINAL.
fn final_rows(
    table: &MergeTreeTable,
    parts: &[Arc<DataPart>],
    counter: Option<&dyn ReadCounter>,
    reservation: &mut datafusion::execution::memory_pool::MemoryReservation,
) -> DfResult<datafusion::arrow::array::RecordBatch> {
    let mut batches = Vec::with_capacity(parts.len());
    for part in parts {
        let batch = table.read_all(part).map_err(StrataError::into_datafusion)?;
        if let Some(counter) = counter {
            counter.count(batch.num_rows() as u64, batch.columns())?;
        }
        reservation.try_grow(batch.get_array_memory_size())?;
        batches.push(batch);
    }
    let rows = concat_batches(table.schema(), &batches)?;
    drop(batches);
    let (sorted, keys) = table
        .keys()
        .sort_stable(&rows)
        .map_err(StrataError::into_datafusion)?;
    let combined = table
        .settings()
        .merge_mode
        .combine(&sorted, &keys, true)
        .map_err(StrataError::into_datafusion)?;
    reservation.free();
    Ok(combined)
}
