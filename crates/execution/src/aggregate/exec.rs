//! The dense GROUP BY operator: one table per input partition, built
//! concurrently, then a parallel merge; one output partition.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::{StreamExt, TryStreamExt};

use super::dense_keys::DenseKeys;
use super::dense_table::{DenseTable, FinishedTable, merge_parallel};

#[derive(Debug)]
pub struct DenseAggregateExec {
    input: Arc<dyn ExecutionPlan>,
    key: Arc<dyn PhysicalExpr>,
    key_name: String,
    keys: DenseKeys,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl DenseAggregateExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        key: (Arc<dyn PhysicalExpr>, String),
        keys: DenseKeys,
        aggregates: Vec<Arc<AggregateFunctionExpr>>,
        filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
        schema: SchemaRef,
    ) -> Self {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        DenseAggregateExec {
            input,
            key: key.0,
            key_name: key.1,
            keys,
            aggregates,
            filters,
            schema,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl DisplayAs for DenseAggregateExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let aggregates: Vec<&str> = self.aggregates.iter().map(|a| a.name()).collect();
        write!(
            f,
            "StrataAggregateExec: method={}, key={} as {}, aggr=[{}], merge=parallel",
            self.keys.method_name(),
            self.key,
            self.key_name,
            aggregates.join(", ")
        )
    }
}

/// Everything a partition's build task needs, cheap to clone.
#[derive(Clone)]
struct BuildSpec {
    key: Arc<dyn PhysicalExpr>,
    keys: DenseKeys,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
}

async fn build_table(
    spec: BuildSpec,
    mut input: SendableRecordBatchStream,
    context: Arc<TaskContext>,
    partition: usize,
    metrics: BaselineMetrics,
) -> Result<(FinishedTable, MemoryReservation)> {
    let reservation = MemoryConsumer::new(format!("StrataAggregate[{partition}]"))
        .register(context.memory_pool());
    let mut table = DenseTable::new(spec.keys, &spec.aggregates)?;
    reservation.try_resize(table.size())?;
    while let Some(batch) = input.next().await {
        let batch = batch?;
        let timer = metrics.elapsed_compute().timer();
        let key_column = spec.key.evaluate(&batch)?.into_array(batch.num_rows())?;
        let arguments = spec
            .aggregates
            .iter()
            .map(|a| {
                a.expressions()
                    .iter()
                    .map(|e| e.evaluate(&batch)?.into_array(batch.num_rows()))
                    .collect::<Result<Vec<ArrayRef>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        let filters = spec
            .filters
            .iter()
            .map(|f| {
                f.as_ref()
                    .map(|f| -> Result<BooleanArray> {
                        Ok(f.evaluate(&batch)?
                            .into_array(batch.num_rows())?
                            .as_boolean()
                            .clone())
                    })
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        table.update(&key_column, &arguments, &filters)?;
        reservation.try_resize(table.size())?;
        timer.done();
    }
    // The states stay reserved until the merge has consumed them.
    Ok((table.finish(), reservation))
}

fn join_error(error: tokio::task::JoinError) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::ExecutionJoin(Box::new(error))
}

impl ExecutionPlan for DenseAggregateExec {
    fn name(&self) -> &str {
        "StrataAggregateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        let mut recursion = f(&self.key)?;
        for aggregate in &self.aggregates {
            for expression in aggregate.expressions() {
                if recursion == TreeNodeRecursion::Stop {
                    return Ok(recursion);
                }
                recursion = f(&expression)?;
            }
        }
        for filter in self.filters.iter().flatten() {
            if recursion == TreeNodeRecursion::Stop {
                return Ok(recursion);
            }
            recursion = f(filter)?;
        }
        Ok(recursion)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(DenseAggregateExec::new(
            children.remove(0),
            (Arc::clone(&self.key), self.key_name.clone()),
            self.keys,
            self.aggregates.clone(),
            self.filters.clone(),
            Arc::clone(&self.schema),
        )))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        assert_eq!(partition, 0, "StrataAggregateExec has one output partition");
        let spec = BuildSpec {
            key: Arc::clone(&self.key),
            keys: self.keys,
            aggregates: self.aggregates.clone(),
            filters: self.filters.clone(),
        };
        let input_partitions = self
            .input
            .properties()
            .output_partitioning()
            .partition_count();
        let mut builds = Vec::with_capacity(input_partitions);
        for p in 0..input_partitions {
            let stream = self.input.execute(p, Arc::clone(&context))?;
            let metrics = BaselineMetrics::new(&self.metrics, p);
            builds.push(SpawnedTask::spawn(build_table(
                spec.clone(),
                stream,
                Arc::clone(&context),
                p,
                metrics,
            )));
        }
        let merge_time = MetricBuilder::new(&self.metrics).subset_time("merge_time", 0);
        let output_rows = MetricBuilder::new(&self.metrics).output_rows(0);
        let workers = context.session_config().target_partitions();
        let schema = Arc::clone(&self.schema);
        let aggregates = self.aggregates.clone();
        let keys = self.keys;
        let merged = async move {
            let mut tables = Vec::with_capacity(builds.len());
            let mut reservations = Vec::with_capacity(builds.len());
            for build in builds {
                let (table, reservation) = build.join_unwind().await.map_err(join_error)??;
                tables.push(table);
                reservations.push(reservation);
            }
            let merge_schema = Arc::clone(&schema);
            let batches = SpawnedTask::spawn_blocking(move || {
                let timer = merge_time.timer();
                let batches = merge_parallel(tables, keys, &aggregates, &merge_schema, workers);
                timer.done();
                batches
            })
            .join_unwind()
            .await
            .map_err(join_error)??;
            drop(reservations);
            output_rows.add(batches.iter().map(RecordBatch::num_rows).sum());
            Ok::<_, datafusion::error::DataFusionError>(futures::stream::iter(
                batches.into_iter().map(Ok),
            ))
        };
        let stream = futures::stream::once(merged).try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            stream,
        )))
    }
}
