//! Strata's GROUP BY operator: one table per input partition, built
//! concurrently, then a parallel merge; one output partition. The method
//! (dense array, packed fixed-width keys or general hash table) is fixed when
//! the plan is made, from the key types, and `EXPLAIN` shows it.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::error::DataFusionError;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::{StreamExt, TryStreamExt};

use super::dense_keys::DenseKeys;
use super::dense_table::{self, DenseTable};
use super::fixed_table::{self, FixedTable};
use super::group_states::GroupRows;
use super::hash_table::{self, HashTable};
use super::merge::run_workers;
use super::spill::{Merged, SpillMetrics, SpilledGroups, SpilledPartition, partition_count};
use crate::fixed_keys::{FixedKeys, WordWidth};
use crate::spill::{SpillConfig, SpillStore};

/// How rows find their group.
#[derive(Debug, Clone)]
pub enum Method {
    /// One key of at most 16 bits, whose value is its slot in an array.
    Dense(DenseKeys),
    /// Integer, boolean and date keys packed into a 64- or 128-bit word.
    Fixed(FixedKeys),
    /// Any keys, interned in a hash table; the schema is the keys'.
    Hash(SchemaRef),
}

impl Method {
    fn name(&self) -> &'static str {
        match self {
            Method::Dense(keys) => keys.method_name(),
            Method::Fixed(keys) => keys.method_name(),
            Method::Hash(_) => "hash",
        }
    }
}

/// One input partition's table.
enum Table {
    Dense(DenseTable),
    Fixed64(FixedTable<u64>),
    Fixed128(FixedTable<u128>),
    Hash(HashTable),
}

impl Table {
    fn new(method: &Method, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(match method {
            Method::Dense(keys) => Table::Dense(DenseTable::new(*keys, aggregates)?),
            Method::Fixed(keys) => match keys.width() {
                WordWidth::Bits64 => Table::Fixed64(FixedTable::new(keys.clone(), aggregates)?),
                WordWidth::Bits128 => Table::Fixed128(FixedTable::new(keys.clone(), aggregates)?),
            },
            Method::Hash(key_schema) => Table::Hash(HashTable::new(key_schema, aggregates)?),
        })
    }

    fn update(
        &mut self,
        key_columns: &[ArrayRef],
        arguments: &[Vec<ArrayRef>],
        filters: &[Option<BooleanArray>],
    ) -> Result<()> {
        match self {
            Table::Dense(t) => t.update(&key_columns[0], arguments, filters),
            Table::Fixed64(t) => t.update(key_columns, arguments, filters),
            Table::Fixed128(t) => t.update(key_columns, arguments, filters),
            Table::Hash(t) => t.update(key_columns, arguments, filters),
        }
    }

    fn size(&self) -> usize {
        match self {
            Table::Dense(t) => t.size(),
            Table::Fixed64(t) => t.size(),
            Table::Fixed128(t) => t.size(),
            Table::Hash(t) => t.size(),
        }
    }

    /// The groups as key and state columns, for a spill.
    fn into_states(self) -> Result<GroupRows> {
        match self {
            Table::Dense(_) => internal_err!("dense GROUP BY tables never spill"),
            Table::Fixed64(t) => t.into_states(),
            Table::Fixed128(t) => t.into_states(),
            Table::Hash(t) => t.into_states(),
        }
    }

    /// Groups the table moved to hash partitions ([`super::flushed`]).
    fn flushed_groups(&self) -> usize {
        match self {
            Table::Fixed64(t) => t.flushed_groups(),
            Table::Fixed128(t) => t.flushed_groups(),
            Table::Dense(_) | Table::Hash(_) => 0,
        }
    }

    /// Whether the table has split into buckets.
    fn is_two_level(&self) -> bool {
        match self {
            Table::Fixed64(t) => t.is_two_level(),
            Table::Fixed128(t) => t.is_two_level(),
            Table::Dense(_) | Table::Hash(_) => false,
        }
    }
}

/// A plan's tables, all of its method's kind.
macro_rules! tables_of_kind {
    ($tables:expr, $kind:path) => {
        $tables
            .into_iter()
            .map(|table| match table {
                $kind(table) => table,
                _ => unreachable!("a plan builds tables of its method's kind"),
            })
            .collect()
    };
}

/// Merges the partitions' tables into result batches.
fn merge(
    method: &Method,
    tables: Vec<Table>,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    match method {
        Method::Dense(keys) => {
            let tables = tables_of_kind!(tables, Table::Dense);
            dense_table::merge_parallel(tables, *keys, aggregates, schema, workers)
        }
        Method::Fixed(keys) => match keys.width() {
            WordWidth::Bits64 => {
                let tables = tables_of_kind!(tables, Table::Fixed64);
                fixed_table::merge_parallel(tables, keys, aggregates, schema, workers)
            }
            WordWidth::Bits128 => {
                let tables = tables_of_kind!(tables, Table::Fixed128);
                fixed_table::merge_parallel(tables, keys, aggregates, schema, workers)
            }
        },
        Method::Hash(key_schema) => {
            let tables = tables_of_kind!(tables, Table::Hash);
            hash_table::merge_parallel(tables, key_schema, aggregates, schema, workers)
        }
    }
}

#[derive(Debug)]
pub struct StrataAggregateExec {
    input: Arc<dyn ExecutionPlan>,
    /// The GROUP BY expressions and their output names.
    keys: Vec<(Arc<dyn PhysicalExpr>, String)>,
    method: Method,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl StrataAggregateExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        keys: Vec<(Arc<dyn PhysicalExpr>, String)>,
        method: Method,
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
        assert!(!keys.is_empty(), "a GROUP BY has keys");
        assert!(
            !matches!(method, Method::Dense(_)) || keys.len() == 1,
            "the dense method takes one key"
        );
        StrataAggregateExec {
            input,
            keys,
            method,
            aggregates,
            filters,
            schema,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl DisplayAs for StrataAggregateExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let aggregates: Vec<&str> = self.aggregates.iter().map(|a| a.name()).collect();
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(|(expr, name)| format!("{expr} as {name}"))
            .collect();
        write!(
            f,
            "StrataAggregateExec: method={}, keys=[{}], aggr=[{}], merge=parallel",
            self.method.name(),
            keys.join(", "),
            aggregates.join(", ")
        )
    }
}

/// Everything a partition's build task needs, cheap to clone.
#[derive(Clone)]
struct BuildSpec {
    keys: Vec<Arc<dyn PhysicalExpr>>,
    method: Method,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
    /// Where a table goes past `spill_threshold` bytes; `None` for dense
    /// tables, which are always small.
    spill: Option<Arc<SpilledGroups>>,
    spill_threshold: usize,
}

async fn build_table(
    spec: BuildSpec,
    mut input: SendableRecordBatchStream,
    context: Arc<TaskContext>,
    partition: usize,
    metrics: BaselineMetrics,
) -> Result<(Table, MemoryReservation)> {
    let reservation = MemoryConsumer::new(format!("StrataAggregate[{partition}]"))
        .with_can_spill(spec.spill.is_some())
        .register(context.memory_pool());
    let mut table = Table::new(&spec.method, &spec.aggregates)?;
    reservation.try_resize(table.size())?;
    while let Some(batch) = input.next().await {
        let batch = batch?;
        let timer = metrics.elapsed_compute().timer();
        let key_columns = spec
            .keys
            .iter()
            .map(|k| k.evaluate(&batch)?.into_array(batch.num_rows()))
            .collect::<Result<Vec<ArrayRef>>>()?;
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
        table.update(&key_columns, &arguments, &filters)?;
        let size = table.size();
        match &spec.spill {
            Some(spill) if size > spec.spill_threshold || reservation.try_resize(size).is_err() => {
                let full =
                    std::mem::replace(&mut table, Table::new(&spec.method, &spec.aggregates)?);
                spill.put(full.into_states()?)?;
                reservation.try_resize(table.size())?;
            }
            Some(_) => {}
            None => reservation.try_resize(size)?,
        }
        timer.done();
    }
    // The states stay reserved until the merge has consumed them.
    Ok((table, reservation))
}

fn join_error(error: tokio::task::JoinError) -> DataFusionError {
    DataFusionError::ExecutionJoin(Box::new(error))
}

impl StrataAggregateExec {
    /// The store this execution's tables spill into, and the bytes all of
    /// them may hold before they do.
    fn spill_target(&self, context: &TaskContext, workers: usize) -> (Arc<SpilledGroups>, usize) {
        let config = SpillConfig::of_task(context);
        let limit = SpillConfig::memory_limit(context);
        let threshold = config.group_by_threshold(limit);
        let estimated_rows = StatisticsContext::new()
            .compute(self.input.as_ref(), &StatisticsArgs::new())
            .ok()
            .and_then(|s| s.num_rows.get_value().copied());
        let store = SpillStore::new(
            Arc::clone(&config),
            context.memory_pool(),
            (threshold as f64 * config.warm_ratio) as usize,
        );
        let groups = SpilledGroups::new(
            store,
            Arc::clone(context.memory_pool()),
            partition_count(estimated_rows, threshold, workers),
            threshold / workers.max(1),
            SpillMetrics {
                spilled_tables: MetricBuilder::new(&self.metrics).counter("spilled_tables", 0),
                spilled_bytes: MetricBuilder::new(&self.metrics).spilled_bytes(0),
                resplit_partitions: MetricBuilder::new(&self.metrics)
                    .counter("resplit_partitions", 0),
            },
        );
        (Arc::new(groups), threshold)
    }
}

/// The final rows of a spilled GROUP BY: its partitions merged `workers` at
/// a time, each wave's rows sent before the next starts, so only a wave's
/// partitions are in memory. The pieces of a partition split during its
/// merge are merged next, before the other partitions.
fn merge_spilled(
    spill: Arc<SpilledGroups>,
    key_schema: SchemaRef,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    schema: SchemaRef,
    workers: usize,
) -> impl futures::Stream<Item = Result<RecordBatch>> + Send {
    let pending: VecDeque<SpilledPartition> = spill.take_partitions().into();
    futures::stream::try_unfold(pending, move |mut pending| {
        let spill = Arc::clone(&spill);
        let key_schema = Arc::clone(&key_schema);
        let aggregates = aggregates.clone();
        let schema = Arc::clone(&schema);
        async move {
            let wave: Vec<SpilledPartition> = (0..workers.max(1))
                .map_while(|_| pending.pop_front())
                .collect();
            if wave.is_empty() {
                return Ok::<_, DataFusionError>(None);
            }
            let merged = SpawnedTask::spawn_blocking(move || {
                run_workers(wave, |partition| {
                    spill.merge(partition, &key_schema, &aggregates, &schema)
                })
            })
            .join_unwind()
            .await
            .map_err(join_error)??;
            let mut batches = Vec::new();
            let mut pieces = Vec::new();
            for outcome in merged {
                match outcome {
                    Merged::Rows(batch) => batches.push(Ok(batch)),
                    Merged::Split(split) => pieces.extend(split),
                }
            }
            for piece in pieces.into_iter().rev() {
                pending.push_front(piece);
            }
            Ok(Some((futures::stream::iter(batches), pending)))
        }
    })
    .try_flatten()
}

impl ExecutionPlan for StrataAggregateExec {
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
        let keys = self.keys.iter().map(|(key, _)| Arc::clone(key));
        let arguments = self.aggregates.iter().flat_map(|a| a.expressions());
        let filters = self.filters.iter().flatten().cloned();
        for expression in keys.chain(arguments).chain(filters) {
            if f(&expression)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(StrataAggregateExec::new(
            children.remove(0),
            self.keys.clone(),
            self.method.clone(),
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
        let input_partitions = self
            .input
            .properties()
            .output_partitioning()
            .partition_count();
        let workers = context.session_config().target_partitions();
        let spill = match self.method {
            Method::Dense(_) => None,
            Method::Fixed(_) | Method::Hash(_) => Some(self.spill_target(&context, workers)),
        };
        let spec = BuildSpec {
            keys: self.keys.iter().map(|(k, _)| Arc::clone(k)).collect(),
            method: self.method.clone(),
            aggregates: self.aggregates.clone(),
            filters: self.filters.clone(),
            spill_threshold: spill.as_ref().map_or(usize::MAX, |(_, threshold)| {
                threshold / input_partitions.max(1)
            }),
            spill: spill.map(|(groups, _)| groups),
        };
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
        let two_level_tables = MetricBuilder::new(&self.metrics).counter("two_level_tables", 0);
        let flushed_groups = MetricBuilder::new(&self.metrics).counter("flushed_groups", 0);
        let output_rows = MetricBuilder::new(&self.metrics).output_rows(0);
        let schema = Arc::clone(&self.schema);
        let aggregates = self.aggregates.clone();
        let method = self.method.clone();
        let spill = spec.spill.clone();
        let key_schema = Arc::new(
            self.schema
                .project(&(0..self.keys.len()).collect::<Vec<_>>())?,
        );
        let merged = async move {
            let mut tables = Vec::with_capacity(builds.len());
            let mut reservations = Vec::with_capacity(builds.len());
            for build in builds {
                let (table, reservation) = build.join_unwind().await.map_err(join_error)??;
                two_level_tables.add(usize::from(table.is_two_level()));
                flushed_groups.add(table.flushed_groups());
                tables.push(table);
                reservations.push(reservation);
            }
            if let Some(spill) = spill.filter(|s| s.has_spilled()) {
                let rest = Arc::clone(&spill);
                SpawnedTask::spawn_blocking(move || {
                    run_workers(tables, |table| rest.put(table.into_states()?))
                })
                .join_unwind()
                .await
                .map_err(join_error)??;
                drop(reservations);
                let partitions = merge_spilled(spill, key_schema, aggregates, schema, workers)
                    .inspect_ok(move |batch| output_rows.add(batch.num_rows()));
                return Ok(partitions.boxed());
            }
            let merge_schema = Arc::clone(&schema);
            let batches = SpawnedTask::spawn_blocking(move || {
                let timer = merge_time.timer();
                let batches = merge(&method, tables, &aggregates, &merge_schema, workers);
                timer.done();
                batches
            })
            .join_unwind()
            .await
            .map_err(join_error)??;
            drop(reservations);
            output_rows.add(batches.iter().map(RecordBatch::num_rows).sum());
            Ok::<_, DataFusionError>(futures::stream::iter(batches.into_iter().map(Ok)).boxed())
        };
        let stream = futures::stream::once(merged).try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            stream,
        )))
    }
}
