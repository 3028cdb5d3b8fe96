//! A semi or anti join of two inputs already sorted on one integer key (as
//! `numbers()` is): both are read once, side by side, holding one block of
//! each, so its memory does not grow with its inputs. Counted (INTERSECT ALL,
//! EXCEPT ALL), a match moves past the build row it used.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::compute::{SortOptions, filter_record_batch};
use datafusion::arrow::datatypes::{
    DataType, Date32Type, Int8Type, Int16Type, Int32Type, Int64Type, SchemaRef, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{
    EquivalenceProperties, LexRequirement, OrderingRequirements, Partitioning, PhysicalExpr,
    PhysicalExprRef, PhysicalSortExpr, PhysicalSortRequirement,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, PlanProperties,
};
use futures::StreamExt;

use super::hybrid_semi_join::{Multiplicity, SemiJoinKind};

/// Key types whose values compare as integers.
pub fn is_mergeable_key(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Date32
    )
}

/// Whether `plan` has one partition sorted ascending on `key`.
pub fn sorted_on(plan: &Arc<dyn ExecutionPlan>, key: &PhysicalExprRef) -> Result<bool> {
    if plan.properties().output_partitioning().partition_count() != 1 {
        return Ok(false);
    }
    plan.properties()
        .equivalence_properties()
        .ordering_satisfy([PhysicalSortExpr::new_default(Arc::clone(key))])
}

/// One block's keys as integers that order as the values do.
fn integer_keys(array: &ArrayRef) -> Result<Vec<i128>> {
    if array.null_count() > 0 {
        return internal_err!("a merge semi join key holds NULL");
    }
    macro_rules! widen {
        ($t:ty) => {
            array
                .as_primitive::<$t>()
                .values()
                .iter()
                .map(|&v| i128::from(v))
                .collect()
        };
    }
    Ok(match array.data_type() {
        DataType::Int8 => widen!(Int8Type),
        DataType::Int16 => widen!(Int16Type),
        DataType::Int32 => widen!(Int32Type),
        DataType::Int64 => widen!(Int64Type),
        DataType::UInt8 => widen!(UInt8Type),
        DataType::UInt16 => widen!(UInt16Type),
        DataType::UInt32 => widen!(UInt32Type),
        DataType::UInt64 => widen!(UInt64Type),
        DataType::Date32 => widen!(Date32Type),
        other => return internal_err!("merge semi join key of type {other}"),
    })
}

#[derive(Debug)]
pub struct MergeSemiJoinExec {
    probe: Arc<dyn ExecutionPlan>,
    build: Arc<dyn ExecutionPlan>,
    probe_key: PhysicalExprRef,
    build_key: PhysicalExprRef,
    kind: SemiJoinKind,
    multiplicity: Multiplicity,
    projection: Option<Vec<usize>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl MergeSemiJoinExec {
    pub fn try_new(
        probe: Arc<dyn ExecutionPlan>,
        build: Arc<dyn ExecutionPlan>,
        (probe_key, build_key): (PhysicalExprRef, PhysicalExprRef),
        (kind, multiplicity): (SemiJoinKind, Multiplicity),
        projection: Option<Vec<usize>>,
    ) -> Result<Self> {
        let probe_schema = probe.schema();
        let schema = match &projection {
            Some(columns) => Arc::new(probe_schema.project(columns)?),
            None => probe_schema,
        };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(MergeSemiJoinExec {
            probe,
            build,
            probe_key,
            build_key,
            kind,
            multiplicity,
            projection,
            schema,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }
}

impl DisplayAs for MergeSemiJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "MergeSemiJoinExec: kind={:?}, multiplicity={:?}, on=[({}, {})]",
            self.kind, self.multiplicity, self.probe_key, self.build_key
        )?;
        if let Some(projection) = &self.projection {
            write!(f, ", projection={projection:?}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for MergeSemiJoinExec {
    fn name(&self) -> &str {
        "MergeSemiJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.probe, &self.build]
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::SinglePartition, Distribution::SinglePartition]
    }

    fn required_input_ordering(&self) -> Vec<Option<OrderingRequirements>> {
        [&self.probe_key, &self.build_key]
            .into_iter()
            .map(|key| {
                LexRequirement::new([PhysicalSortRequirement::new(
                    Arc::clone(key),
                    Some(SortOptions::default()),
                )])
                .map(OrderingRequirements::new)
            })
            .collect()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false, false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        if f(&self.probe_key)? == TreeNodeRecursion::Stop {
            return Ok(TreeNodeRecursion::Stop);
        }
        f(&self.build_key)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let build = children.remove(1);
        let probe = children.remove(0);
        Ok(Arc::new(MergeSemiJoinExec::try_new(
            probe,
            build,
            (Arc::clone(&self.probe_key), Arc::clone(&self.build_key)),
            (self.kind, self.multiplicity),
            self.projection.clone(),
        )?))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return internal_err!("MergeSemiJoinExec has one partition, not {partition}");
        }
        let mut probe = self.probe.execute(0, Arc::clone(&context))?;
        let mut build = self.build.execute(0, context)?;
        let (probe_key, build_key) = (Arc::clone(&self.probe_key), Arc::clone(&self.build_key));
        let semi = self.kind == SemiJoinKind::Semi;
        let counted = self.multiplicity == Multiplicity::Counted;
        let projection = self.projection.clone();
        let metrics = BaselineMetrics::new(&self.metrics, 0);
        let mut builder = RecordBatchReceiverStreamBuilder::new(Arc::clone(&self.schema), 2);
        let tx = builder.tx();
        builder.spawn(async move {
            // The build side's current block and the first key not yet passed.
            let mut keys: Vec<i128> = Vec::new();
            let mut at = 0usize;
            let mut build_done = false;
            while let Some(batch) = probe.next().await {
                let batch = batch?;
                let probe_keys =
                    integer_keys(&probe_key.evaluate(&batch)?.into_array(batch.num_rows())?)?;
                let mut keep = Vec::with_capacity(probe_keys.len());
                for &key in &probe_keys {
                    // Both sides ascend: skip the build keys below this one.
                    at += keys[at..].partition_point(|&b| b < key);
                    while at == keys.len() && !build_done {
                        match build.next().await {
                            Some(block) => {
                                let block = block?;
                                keys = integer_keys(
                                    &build_key.evaluate(&block)?.into_array(block.num_rows())?,
                                )?;
                                at = keys.partition_point(|&b| b < key);
                            }
                            None => build_done = true,
                        }
                    }
                    let found = at < keys.len() && keys[at] == key;
                    at += usize::from(found && counted);
                    keep.push(found == semi);
                }
                let _timer = metrics.elapsed_compute().timer();
                let mask = BooleanArray::from(keep);
                if mask.true_count() == 0 {
                    continue;
                }
                let kept = filter_record_batch(&batch, &mask)?;
                let kept = match &projection {
                    Some(columns) => kept.project(columns)?,
                    None => kept,
                };
                metrics.record_output(kept.num_rows());
                if tx.send(Ok(kept)).await.is_err() {
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{RecordBatch, UInt64Array};
    use datafusion::arrow::datatypes::{Field, Schema};
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::physical_expr::expressions::Column;
    use datafusion::physical_plan::collect;
    use datafusion::prelude::SessionContext;

    /// One partition of `blocks`, each a batch, ascending as the join needs.
    fn sorted(blocks: &[&[u64]]) -> Arc<dyn ExecutionPlan> {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::UInt64, false)]));
        let batches = blocks
            .iter()
            .map(|keys| {
                let column = Arc::new(UInt64Array::from(keys.to_vec()));
                RecordBatch::try_new(Arc::clone(&schema), vec![column]).unwrap()
            })
            .collect::<Vec<_>>();
        MemorySourceConfig::try_new_exec(&[batches], schema, None).unwrap()
    }

    async fn kept(
        kind: (SemiJoinKind, Multiplicity),
        probe: &[&[u64]],
        build: &[&[u64]],
    ) -> Vec<u64> {
        let key: PhysicalExprRef = Arc::new(Column::new("k", 0));
        let join = MergeSemiJoinExec::try_new(
            sorted(probe),
            sorted(build),
            (key.clone(), key),
            kind,
            None,
        )
        .unwrap();
        let batches = collect(Arc::new(join), SessionContext::new().task_ctx())
            .await
            .unwrap();
        batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<UInt64Type>().values().to_vec())
            .collect()
    }

    #[tokio::test]
    async fn counted_matches_use_up_build_rows_across_blocks() {
        // Probe: 1 three times, 2 twice, 3 once. Build: 1 four times, across
        // two blocks, 2 once, 4 once.
        let probe: &[&[u64]] = &[&[1, 1, 1, 2], &[2, 3]];
        let build: &[&[u64]] = &[&[1, 1], &[1, 1, 2], &[4]];
        let semi = (SemiJoinKind::Semi, Multiplicity::Counted);
        let anti = (SemiJoinKind::Anti, Multiplicity::Counted);
        assert_eq!(kept(semi, probe, build).await, [1, 1, 1, 2]);
        assert_eq!(kept(anti, probe, build).await, [2, 3]);
        let semi = (SemiJoinKind::Semi, Multiplicity::Presence);
        let anti = (SemiJoinKind::Anti, Multiplicity::Presence);
        assert_eq!(kept(semi, probe, build).await, [1, 1, 1, 2, 2]);
        assert_eq!(kept(anti, probe, build).await, [3]);
        // More probe copies than build copies, the last in a later block.
        let probe: &[&[u64]] = &[&[5, 5], &[5, 5, 6]];
        let build: &[&[u64]] = &[&[5], &[5, 5]];
        let semi = (SemiJoinKind::Semi, Multiplicity::Counted);
        let anti = (SemiJoinKind::Anti, Multiplicity::Counted);
        assert_eq!(kept(semi, probe, build).await, [5, 5, 5]);
        assert_eq!(kept(anti, probe, build).await, [5, 6]);
    }
}
