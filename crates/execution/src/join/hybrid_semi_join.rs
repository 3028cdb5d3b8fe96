//! Semi and anti joins (INTERSECT, EXCEPT, `IN`, and `NOT EXISTS`-style anti
//! joins without NULL awareness) as a hybrid hash join that spills by
//! partition.
//!
//! Each output partition joins its share of both inputs (both arrive hash
//! partitioned on the keys). The build side becomes a set of distinct keys,
//! split into partitions by the top bits of the keys' hash. A partition is
//! either hot (a table in memory; its probe rows are answered as they come)
//! or deferred (its keys and probe rows are gathered and joined in a pass of
//! its own). A hot partition is deferred when its table outgrows the CPU
//! caches, since a probe that misses the cache on every row is slower than
//! gathering the rows first; a large build side starts deferred. Under memory
//! pressure, deferred partitions' gathered data goes to the spill store,
//! largest first, then hot partitions follow, largest first, so what stays in
//! memory is what is used next. A deferred partition whose keys still do not
//! fit is split again by the next bits of the hash.
//!
//! Only distinct keys are held in tables, so heavy skew or all-equal keys on
//! the build side cost one entry; on the probe side they cost gathered or
//! spilled bytes, never a table. For ClickHouse's INTERSECT ALL and EXCEPT
//! ALL an entry also counts its key's build rows, and each probe row that
//! matches uses one of them up ([`Multiplicity::Counted`]).

use std::collections::HashMap;
use std::fmt;
use std::mem::size_of;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::{concat_batches, filter_record_batch, take_record_batch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::row::SortField;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{
    EquivalenceProperties, Partitioning, PhysicalExpr, PhysicalExprRef,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, PlanProperties,
};
use futures::StreamExt;
use strata_common::readable::readable_size;
use strata_common::{ErrorCode, StrataError};
use tokio::sync::mpsc::Sender;

use super::hash_split::{MAX_PARTITIONS, Split};
use super::set_keys::{BuildSetHasher, KeyEncoder, RowKey, SetKey};
use crate::fixed_keys::{FixedKeys, WordWidth};
use crate::spill::{BlockId, SpillConfig, SpillStore, decode_batch, encode_batch};

/// Partitions at the first split, at least.
const MIN_PARTITIONS: usize = 8;
/// Keys per spilled build block.
const BLOCK_KEYS: usize = 1 << 16;
/// Keys inserted into a deferred partition's table between checks of its size.
const INSERT_CHUNK: usize = 4096;
/// Probe rows per spilled block, about.
const BLOCK_ROWS: usize = 1 << 16;
/// A hot partition's table larger than this is deferred: probing a table
/// far bigger than the CPU caches costs a cache miss per row, so its keys and
/// probe rows are gathered and joined later, one cache-sized table at a time.
const TABLE_TARGET_BYTES: usize = 4 << 20;
/// A build side estimated above this many bytes of tables per instance
/// starts deferred.
const HOT_BUILD_BYTES: usize = TABLE_TARGET_BYTES * MIN_PARTITIONS;

/// Which rows of the probe side come out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemiJoinKind {
    /// Rows whose key is in the build side (INTERSECT, `IN`).
    Semi,
    /// Rows whose key is not (EXCEPT, `NOT IN` over non-NULL keys).
    Anti,
}

/// How many probe rows one build row answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplicity {
    /// Any number: a key's presence decides (`IN`, `EXISTS`).
    Presence,
    /// One: INTERSECT ALL keeps a row min(l, r) times and EXCEPT ALL
    /// max(l - r, 0) times, as ClickHouse's multiset operations do.
    Counted,
}

/// What a table holds per key: nothing when presence decides, the build
/// rows not yet used up when they are counted.
trait Copies: Default + Send + Sync + 'static {
    fn add(&mut self);
    /// Uses up one build row; false when none is left.
    fn take(&mut self) -> bool;
    /// The build rows the entry stands for, when its keys are gathered again.
    fn count(&self) -> usize;
}

impl Copies for () {
    fn add(&mut self) {}

    fn take(&mut self) -> bool {
        true
    }

    fn count(&self) -> usize {
        1
    }
}

impl Copies for u64 {
    fn add(&mut self) {
        *self += 1;
    }

    fn take(&mut self) -> bool {
        let left = *self > 0;
        *self -= u64::from(left);
        left
    }

    fn count(&self) -> usize {
        usize::try_from(*self).expect("a count of rows held in memory fits usize")
    }
}

/// The plan-time description both the operator and its streams share.
#[derive(Debug)]
struct Spec {
    kind: SemiJoinKind,
    multiplicity: Multiplicity,
    probe_keys: Vec<PhysicalExprRef>,
    build_keys: Vec<PhysicalExprRef>,
    /// NULL keys match each other (set operations) or nothing (`IN`).
    nulls_equal: bool,
    /// Probe columns that come out.
    projection: Option<Vec<usize>>,
    key_kind: KeyKind,
}

#[derive(Debug, Clone)]
enum KeyKind {
    Packed(FixedKeys),
    Rows(Vec<SortField>),
}

impl KeyKind {
    fn name(&self) -> &'static str {
        match self {
            KeyKind::Packed(keys) => match keys.width() {
                WordWidth::Bits64 => "key64",
                WordWidth::Bits128 => "keys128",
            },
            KeyKind::Rows(_) => "rows",
        }
    }

    fn encoder(&self) -> Result<KeyEncoder> {
        Ok(match self {
            KeyKind::Packed(keys) => KeyEncoder::Packed(keys.clone()),
            KeyKind::Rows(fields) => KeyEncoder::rows(fields.clone())?,
        })
    }

    fn slot_bytes(&self, multiplicity: Multiplicity) -> usize {
        fn slot<K>(multiplicity: Multiplicity) -> usize {
            match multiplicity {
                Multiplicity::Presence => slot_bytes::<K, ()>(),
                Multiplicity::Counted => slot_bytes::<K, u64>(),
            }
        }
        match self {
            KeyKind::Packed(keys) => match keys.width() {
                WordWidth::Bits64 => slot::<u64>(multiplicity),
                WordWidth::Bits128 => slot::<u128>(multiplicity),
            },
            KeyKind::Rows(_) => slot::<RowKey>(multiplicity),
        }
    }
}

/// Bytes of one entry of a table, and of one gathered key.
fn slot_bytes<K, C>() -> usize {
    size_of::<(K, C)>()
}

#[derive(Debug)]
pub struct HybridSemiJoinExec {
    probe: Arc<dyn ExecutionPlan>,
    build: Arc<dyn ExecutionPlan>,
    spec: Arc<Spec>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl HybridSemiJoinExec {
    /// `on` pairs a probe key with a build key; their types must be equal.
    pub fn try_new(
        probe: Arc<dyn ExecutionPlan>,
        build: Arc<dyn ExecutionPlan>,
        on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
        (kind, multiplicity): (SemiJoinKind, Multiplicity),
        nulls_equal: bool,
        projection: Option<Vec<usize>>,
    ) -> Result<Self> {
        let probe_schema = probe.schema();
        let build_schema = build.schema();
        let mut types = Vec::with_capacity(on.len());
        for (p, b) in &on {
            let probe_type = p.data_type(&probe_schema)?;
            let build_type = b.data_type(&build_schema)?;
            if probe_type != build_type {
                return internal_err!("semi join keys of types {probe_type} and {build_type}");
            }
            let nullable = p.nullable(&probe_schema)? || b.nullable(&build_schema)?;
            types.push((probe_type, nullable));
        }
        let key_kind = match FixedKeys::for_types(&types) {
            Some(keys) => KeyKind::Packed(keys),
            None => KeyKind::Rows(
                types
                    .iter()
                    .map(|(t, _)| SortField::new(t.clone()))
                    .collect(),
            ),
        };
        let schema = match &projection {
            Some(columns) => Arc::new(probe_schema.project(columns)?),
            None => probe_schema,
        };
        let partitions = probe.properties().output_partitioning().partition_count();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        let (probe_keys, build_keys) = on.into_iter().unzip();
        Ok(HybridSemiJoinExec {
            probe,
            build,
            spec: Arc::new(Spec {
                kind,
                multiplicity,
                probe_keys,
                build_keys,
                nulls_equal,
                projection,
                key_kind,
            }),
            schema,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }
}

impl DisplayAs for HybridSemiJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let on: Vec<String> = self
            .spec
            .probe_keys
            .iter()
            .zip(&self.spec.build_keys)
            .map(|(p, b)| format!("({p}, {b})"))
            .collect();
        write!(
            f,
            "HybridSemiJoinExec: kind={:?}, multiplicity={:?}, keys={}, on=[{}], nulls_equal={}",
            self.spec.kind,
            self.spec.multiplicity,
            self.spec.key_kind.name(),
            on.join(", "),
            self.spec.nulls_equal
        )?;
        if let Some(projection) = &self.spec.projection {
            write!(f, ", projection={projection:?}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for HybridSemiJoinExec {
    fn name(&self) -> &str {
        "HybridSemiJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.probe, &self.build]
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![
            Distribution::KeyPartitioned(self.spec.probe_keys.clone()),
            Distribution::KeyPartitioned(self.spec.build_keys.clone()),
        ]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        for expression in self.spec.probe_keys.iter().chain(&self.spec.build_keys) {
            if f(expression)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let build = children.remove(1);
        let probe = children.remove(0);
        let on = self
            .spec
            .probe_keys
            .iter()
            .cloned()
            .zip(self.spec.build_keys.iter().cloned())
            .collect();
        Ok(Arc::new(HybridSemiJoinExec::try_new(
            probe,
            build,
            on,
            (self.spec.kind, self.spec.multiplicity),
            self.spec.nulls_equal,
            self.spec.projection.clone(),
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
        let partitions = self
            .probe
            .properties()
            .output_partitioning()
            .partition_count();
        let build_partitions = self
            .build
            .properties()
            .output_partitioning()
            .partition_count();
        if partitions != build_partitions {
            return internal_err!(
                "HybridSemiJoinExec: {partitions} probe partitions against {build_partitions} build partitions"
            );
        }
        let spill = SpillConfig::of_task(&context);
        let limit = SpillConfig::memory_limit(&context);
        let threshold = spill.join_threshold(limit, partitions);
        let estimated_build = StatisticsContext::new()
            .compute(self.build.as_ref(), &StatisticsArgs::new())
            .ok()
            .and_then(|s| s.num_rows.get_value().copied())
            .map(|rows| {
                let slot = self.spec.key_kind.slot_bytes(self.spec.multiplicity);
                rows / partitions.max(1) * (slot + 1) * 8 / 7
            });
        let worker = Worker {
            spec: Arc::clone(&self.spec),
            probe_schema: self.probe.schema(),
            reservation: MemoryConsumer::new(format!("HybridSemiJoinExec[{partition}]"))
                .with_can_spill(true)
                .register(context.memory_pool()),
            store: SpillStore::new(
                Arc::clone(&spill),
                context.memory_pool(),
                (threshold as f64 * spill.warm_ratio) as usize,
            ),
            threshold,
            partitions: partition_count(estimated_build, threshold),
            start_deferred: estimated_build.is_some_and(|bytes| bytes > HOT_BUILD_BYTES),
            hot_bytes: 0,
            pending_bytes: 0,
            metrics: WorkerMetrics::new(&self.metrics, partition),
        };
        let build = self.build.execute(partition, Arc::clone(&context))?;
        let probe = self.probe.execute(partition, context)?;
        let mut builder = RecordBatchReceiverStreamBuilder::new(Arc::clone(&self.schema), 2);
        let tx = builder.tx();
        builder.spawn(async move {
            let wide = |keys: &FixedKeys| keys.width() == WordWidth::Bits128;
            match (&worker.spec.key_kind, worker.spec.multiplicity) {
                (KeyKind::Packed(keys), Multiplicity::Presence) if wide(keys) => {
                    worker.run::<u128, ()>(build, probe, tx).await
                }
                (KeyKind::Packed(keys), Multiplicity::Counted) if wide(keys) => {
                    worker.run::<u128, u64>(build, probe, tx).await
                }
                (KeyKind::Packed(_), Multiplicity::Presence) => {
                    worker.run::<u64, ()>(build, probe, tx).await
                }
                (KeyKind::Packed(_), Multiplicity::Counted) => {
                    worker.run::<u64, u64>(build, probe, tx).await
                }
                (KeyKind::Rows(_), Multiplicity::Presence) => {
                    worker.run::<RowKey, ()>(build, probe, tx).await
                }
                (KeyKind::Rows(_), Multiplicity::Counted) => {
                    worker.run::<RowKey, u64>(build, probe, tx).await
                }
            }
        });
        Ok(builder.build())
    }
}

/// The first split's partition count, when the build side's size is known:
/// enough that each partition's table is about [`TABLE_TARGET_BYTES`] and a
/// small share of the threshold.
fn partition_count(estimated_build_bytes: Option<usize>, threshold: usize) -> usize {
    let Some(bytes) = estimated_build_bytes else {
        return 64;
    };
    let by_cache = bytes / TABLE_TARGET_BYTES;
    let by_budget = bytes.saturating_mul(4) / threshold.max(1);
    by_cache
        .max(by_budget)
        .next_power_of_two()
        .clamp(MIN_PARTITIONS, MAX_PARTITIONS)
}

struct WorkerMetrics {
    baseline: BaselineMetrics,
    spilled_partitions: Count,
    resplits: Count,
}

impl WorkerMetrics {
    fn new(set: &ExecutionPlanMetricsSet, partition: usize) -> Self {
        WorkerMetrics {
            baseline: BaselineMetrics::new(set, partition),
            spilled_partitions: MetricBuilder::new(set).counter("spilled_partitions", partition),
            resplits: MetricBuilder::new(set).counter("resplit_partitions", partition),
        }
    }
}

type KeyTable<K, C> = HashMap<K, C, BuildSetHasher>;

/// Adds keys to a table, reserving as `HashSet::extend` does.
fn insert_all<K: SetKey, C: Copies>(
    table: &mut KeyTable<K, C>,
    keys: impl ExactSizeIterator<Item = K>,
) {
    let extra = if table.is_empty() {
        keys.len()
    } else {
        keys.len().div_ceil(2)
    };
    table.reserve(extra);
    for key in keys {
        table.entry(key).or_default().add();
    }
}

/// A table's keys gathered again, each as often as the build rows it counts.
fn gathered<K: SetKey, C: Copies>(
    entries: impl Iterator<Item = (K, C)>,
) -> impl Iterator<Item = K> {
    entries.flat_map(|(key, copies)| std::iter::repeat_n(key, copies.count()))
}

/// Bytes a set's table takes: its buckets (a slot and a control byte each,
/// at most 7/8 of them usable) and what its keys own.
fn table_bytes(buckets: usize, slot: usize, heap: usize) -> usize {
    buckets * (slot + 1) + heap
}

fn buckets_for(capacity: usize) -> usize {
    if capacity == 0 {
        0
    } else {
        (capacity * 8 / 7).next_power_of_two()
    }
}

/// One partition of the build side during the first pass.
enum BuildPart<K, C> {
    /// A table of the keys; probe rows are answered as they come.
    Hot { set: KeyTable<K, C>, heap: usize },
    /// Keys and probe rows gathered for a pass of their own.
    Deferred(ColdPart<K>),
}

/// A deferred partition: what it gathered in memory, and what went to the
/// spill store when memory ran short.
struct ColdPart<K> {
    build_blocks: Vec<BlockId>,
    pending_keys: Vec<K>,
    pending_key_bytes: usize,
    /// Keys gathered, duplicates included: a bound on the table it needs.
    key_count: usize,
    probe_blocks: Vec<BlockId>,
    pending_rows: Vec<RecordBatch>,
    pending_row_bytes: usize,
}

impl<K> ColdPart<K> {
    fn new() -> Self {
        ColdPart {
            build_blocks: Vec::new(),
            pending_keys: Vec::new(),
            pending_key_bytes: 0,
            key_count: 0,
            probe_blocks: Vec::new(),
            pending_rows: Vec::new(),
            pending_row_bytes: 0,
        }
    }

    fn pending_bytes(&self) -> usize {
        self.pending_key_bytes + self.pending_row_bytes
    }

    fn has_probe_rows(&self) -> bool {
        !self.pending_rows.is_empty() || !self.probe_blocks.is_empty()
    }
}

/// A deferred partition to join alone, at a given split depth.
struct Task<K> {
    split: Split,
    part: ColdPart<K>,
}

struct Worker {
    spec: Arc<Spec>,
    probe_schema: SchemaRef,
    reservation: MemoryReservation,
    store: SpillStore,
    threshold: usize,
    partitions: usize,
    /// The build side is known to be large: every partition gathers its
    /// keys from the start rather than filling a table it would outgrow.
    start_deferred: bool,
    /// Bytes of the hot partitions' tables.
    hot_bytes: usize,
    /// Bytes of deferred partitions' keys and rows held in memory.
    pending_bytes: usize,
    metrics: WorkerMetrics,
}

/// NULL keys that match nothing: the rows to leave out of the build and to
/// answer at once on the probe side.
fn null_rows(columns: &[ArrayRef], nulls_equal: bool) -> Option<NullBuffer> {
    if nulls_equal {
        return None;
    }
    columns.iter().fold(None, |acc, c| {
        NullBuffer::union(acc.as_ref(), c.logical_nulls().as_ref())
    })
}

/// The deferred partition holding the most bytes in memory, if any does.
fn largest_pending<'a, K: 'a>(
    parts: impl Iterator<Item = &'a mut ColdPart<K>>,
) -> Option<&'a mut ColdPart<K>> {
    parts
        .filter(|part| part.pending_bytes() > 0)
        .max_by_key(|part| part.pending_bytes())
}

fn deferred<K, C>(parts: &mut [BuildPart<K, C>]) -> impl Iterator<Item = &mut ColdPart<K>> {
    parts.iter_mut().filter_map(|part| match part {
        BuildPart::Deferred(cold) => Some(cold),
        BuildPart::Hot { .. } => None,
    })
}

impl Worker {
    fn memory(&self) -> usize {
        self.hot_bytes + self.pending_bytes
    }

    fn keys<K: SetKey>(
        &self,
        expressions: &[PhysicalExprRef],
        encoder: &KeyEncoder,
        batch: &RecordBatch,
    ) -> Result<(Vec<K>, Option<NullBuffer>)> {
        let columns = expressions
            .iter()
            .map(|e| e.evaluate(batch)?.into_array(batch.num_rows()))
            .collect::<Result<Vec<_>>>()?;
        let nulls = null_rows(&columns, self.spec.nulls_equal);
        Ok((K::extract(encoder, &columns)?, nulls))
    }

    /// Whether a probe row with this key comes out; a counted match uses
    /// up one build row.
    fn answer<K: SetKey, C: Copies>(&self, set: &mut KeyTable<K, C>, key: &K) -> bool {
        let matched = set.get_mut(key).is_some_and(Copies::take);
        matched == (self.spec.kind == SemiJoinKind::Semi)
    }

    /// Sets the reservation to `bytes` if the threshold, less the warm tier,
    /// allows it and the pool has it, shrinking the warm tier when the pool
    /// is short. False when there is no room.
    fn fits(&mut self, bytes: usize) -> Result<bool> {
        if bytes > self.threshold.saturating_sub(self.store.warm_bytes()) {
            return Ok(false);
        }
        if self.reservation.try_resize(bytes).is_ok() {
            return Ok(true);
        }
        let short = bytes.saturating_sub(self.reservation.size());
        self.store.shrink(short)?;
        Ok(self.reservation.try_resize(bytes).is_ok())
    }

    /// Frees memory one step: stores the deferred partition holding the
    /// most, else moves the largest hot partition other than `keep` down.
    /// False when nothing is left to free.
    fn relieve<K: SetKey, C: Copies>(
        &mut self,
        parts: &mut [BuildPart<K, C>],
        keep: Option<usize>,
    ) -> Result<bool> {
        if let Some(cold) = largest_pending(deferred(parts)) {
            self.store_pending(cold)?;
            return Ok(true);
        }
        let slot = slot_bytes::<K, C>();
        let largest = parts
            .iter()
            .enumerate()
            .filter_map(|(i, part)| match part {
                BuildPart::Hot { set, heap } if Some(i) != keep => {
                    Some((i, table_bytes(buckets_for(set.capacity()), slot, *heap)))
                }
                _ => None,
            })
            .filter(|&(_, bytes)| bytes > 0)
            .max_by_key(|&(_, bytes)| bytes);
        match largest {
            Some((victim, _)) => {
                self.move_down(parts, victim)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Frees memory until what the worker holds fits, or nothing is left to
    /// free; then holds what it must.
    fn keep_within<K: SetKey, C: Copies>(&mut self, parts: &mut [BuildPart<K, C>]) -> Result<()> {
        while !self.fits(self.memory())? {
            if !self.relieve(parts, None)? {
                self.reservation.resize(self.memory());
                break;
            }
        }
        Ok(())
    }

    async fn run<K: SetKey, C: Copies>(
        mut self,
        mut build: SendableRecordBatchStream,
        mut probe: SendableRecordBatchStream,
        tx: Sender<Result<RecordBatch>>,
    ) -> Result<()> {
        let compute = self.metrics.baseline.elapsed_compute().clone();
        let encoder = self.spec.key_kind.encoder()?;
        let split = Split::first(self.partitions);
        let mut parts: Vec<BuildPart<K, C>> = (0..split.count())
            .map(|_| match self.start_deferred {
                true => BuildPart::Deferred(ColdPart::new()),
                false => BuildPart::Hot {
                    set: KeyTable::default(),
                    heap: 0,
                },
            })
            .collect();

        while let Some(batch) = build.next().await {
            let batch = batch?;
            let timer = compute.timer();
            let (keys, nulls) = self.keys::<K>(&self.spec.build_keys, &encoder, &batch)?;
            let mut scattered: Vec<Vec<K>> = (0..split.count()).map(|_| Vec::new()).collect();
            for (row, key) in keys.into_iter().enumerate() {
                if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                    continue;
                }
                scattered[split.of(key.partition_hash())].push(key);
            }
            for (p, keys) in scattered.into_iter().enumerate() {
                if !keys.is_empty() {
                    self.add_keys(&mut parts, p, keys)?;
                }
            }
            timer.done();
        }
        drop(build);

        while let Some(batch) = probe.next().await {
            let batch = batch?;
            let timer = compute.timer();
            let (keys, nulls) = self.keys::<K>(&self.spec.probe_keys, &encoder, &batch)?;
            let mut keep = Vec::with_capacity(keys.len());
            let mut deferred_rows: Vec<Vec<u32>> = (0..split.count()).map(|_| Vec::new()).collect();
            for (row, key) in keys.iter().enumerate() {
                if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                    keep.push(self.spec.kind == SemiJoinKind::Anti);
                    continue;
                }
                let p = split.of(key.partition_hash());
                match &mut parts[p] {
                    BuildPart::Hot { set, .. } => keep.push(self.answer(set, key)),
                    BuildPart::Deferred(_) => {
                        keep.push(false);
                        deferred_rows[p].push(row as u32);
                    }
                }
            }
            for (p, rows) in deferred_rows.into_iter().enumerate() {
                if rows.is_empty() {
                    continue;
                }
                let rows = take_record_batch(&batch, &UInt32Array::from(rows))?;
                let BuildPart::Deferred(cold) = &mut parts[p] else {
                    return internal_err!("probe rows kept for hot partition {p}");
                };
                let bytes = rows.get_array_memory_size();
                cold.pending_row_bytes += bytes;
                cold.pending_rows.push(rows);
                self.pending_bytes += bytes;
            }
            self.keep_within(&mut parts)?;
            let kept = self.kept(&batch, keep)?;
            timer.done();
            if let Some(kept) = kept
                && tx.send(Ok(kept)).await.is_err()
            {
                return Ok(());
            }
        }
        drop(probe);

        let mut tasks = Vec::new();
        for part in parts {
            match part {
                BuildPart::Hot { .. } => {}
                BuildPart::Deferred(cold) if cold.has_probe_rows() => {
                    tasks.push(Task { split, part: cold })
                }
                // Nothing to answer: the keys go.
                BuildPart::Deferred(cold) => self.discard(cold)?,
            }
        }
        self.hot_bytes = 0;
        self.reservation.resize(self.memory());
        let mut set = KeyTable::default();
        while let Some(task) = tasks.pop() {
            if !self
                .join_deferred::<K, C>(task, &mut set, &encoder, &tx, &mut tasks)
                .await?
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Adds build keys to partition `p`. A hot partition takes them while its
    /// table stays small and fits, after moving other partitions down if
    /// needed; otherwise it is deferred and gathers them.
    fn add_keys<K: SetKey, C: Copies>(
        &mut self,
        parts: &mut [BuildPart<K, C>],
        p: usize,
        keys: Vec<K>,
    ) -> Result<()> {
        let slot = slot_bytes::<K, C>();
        if let BuildPart::Hot { set, heap } = &parts[p] {
            let added_heap: usize = keys.iter().map(SetKey::heap_bytes).sum();
            let buckets = buckets_for(set.capacity());
            let before = table_bytes(buckets, slot, *heap);
            let needed = set.len() + keys.len();
            let grown = if needed > set.capacity() {
                buckets_for(needed).max(buckets * 2)
            } else {
                buckets
            };
            let after = table_bytes(grown, slot, *heap + added_heap);
            // A growing table holds its old buckets until the move ends.
            let transient = if grown > buckets { before } else { 0 };
            let mut stays_hot = after <= TABLE_TARGET_BYTES;
            while stays_hot && !self.fits(self.memory() - before + after + transient)? {
                stays_hot = self.relieve(parts, Some(p))?;
            }
            if stays_hot {
                let BuildPart::Hot { set, heap } = &mut parts[p] else {
                    unreachable!("relieving keeps partition {p} hot");
                };
                insert_all(set, keys.into_iter());
                *heap += added_heap;
                self.hot_bytes += table_bytes(buckets_for(set.capacity()), slot, *heap);
                self.hot_bytes -= before;
                self.reservation.resize(self.memory());
                return Ok(());
            }
            self.defer(parts, p)?;
        }
        let BuildPart::Deferred(cold) = &mut parts[p] else {
            unreachable!("a partition that is not hot is deferred");
        };
        let bytes = keys.len() * slot + keys.iter().map(SetKey::heap_bytes).sum::<usize>();
        cold.pending_key_bytes += bytes;
        cold.key_count += keys.len();
        cold.pending_keys.extend(keys);
        self.pending_bytes += bytes;
        self.keep_within(parts)
    }

    /// Defers hot partition `p`, its keys kept in memory.
    fn defer<K: SetKey, C: Copies>(
        &mut self,
        parts: &mut [BuildPart<K, C>],
        p: usize,
    ) -> Result<()> {
        let cold = BuildPart::Deferred(ColdPart::new());
        let BuildPart::Hot { set, heap } = std::mem::replace(&mut parts[p], cold) else {
            return internal_err!("partition {p} deferred twice");
        };
        let slot = slot_bytes::<K, C>();
        self.hot_bytes -= table_bytes(buckets_for(set.capacity()), slot, heap);
        let BuildPart::Deferred(cold) = &mut parts[p] else {
            unreachable!("just replaced");
        };
        cold.pending_keys = gathered(set.into_iter()).collect();
        cold.key_count = cold.pending_keys.len();
        cold.pending_key_bytes = cold.key_count * slot
            + cold
                .pending_keys
                .iter()
                .map(SetKey::heap_bytes)
                .sum::<usize>();
        self.pending_bytes += cold.pending_key_bytes;
        self.reservation.resize(self.memory());
        Ok(())
    }

    /// Moves hot partition `p` into the spill store.
    fn move_down<K: SetKey, C: Copies>(
        &mut self,
        parts: &mut [BuildPart<K, C>],
        p: usize,
    ) -> Result<()> {
        self.defer(parts, p)?;
        self.metrics.spilled_partitions.add(1);
        let BuildPart::Deferred(cold) = &mut parts[p] else {
            unreachable!("just deferred");
        };
        self.store_pending(cold)
    }

    /// Puts what a deferred partition holds in memory into the spill store.
    fn store_pending<K: SetKey>(&mut self, cold: &mut ColdPart<K>) -> Result<()> {
        for chunk in cold.pending_keys.chunks(BLOCK_KEYS) {
            let mut bytes = Vec::new();
            K::encode(chunk, &mut bytes);
            cold.build_blocks.push(self.store.put(&bytes)?);
        }
        cold.pending_keys = Vec::new();
        let mut start = 0;
        while start < cold.pending_rows.len() {
            let mut end = start;
            let mut rows = 0;
            while end < cold.pending_rows.len() && rows < BLOCK_ROWS {
                rows += cold.pending_rows[end].num_rows();
                end += 1;
            }
            let block = concat_batches(&self.probe_schema, &cold.pending_rows[start..end])?;
            cold.probe_blocks
                .push(self.store.put(&encode_batch(&block)?)?);
            start = end;
        }
        cold.pending_rows.clear();
        self.pending_bytes -= cold.pending_bytes();
        cold.pending_key_bytes = 0;
        cold.pending_row_bytes = 0;
        self.reservation.resize(self.memory());
        Ok(())
    }

    /// Drops a deferred partition and whatever it stored.
    fn discard<K>(&mut self, cold: ColdPart<K>) -> Result<()> {
        self.pending_bytes -= cold.pending_key_bytes + cold.pending_row_bytes;
        for block in cold.build_blocks.into_iter().chain(cold.probe_blocks) {
            self.store.take(block)?;
        }
        Ok(())
    }

    /// The kept rows of `batch`, projected; `None` when no row is kept.
    fn kept(&self, batch: &RecordBatch, keep: Vec<bool>) -> Result<Option<RecordBatch>> {
        let mask = BooleanArray::from(keep);
        if mask.true_count() == 0 {
            return Ok(None);
        }
        let kept = filter_record_batch(batch, &mask)?;
        let kept = match &self.spec.projection {
            Some(columns) => kept.project(columns)?,
            None => kept,
        };
        self.metrics.baseline.record_output(kept.num_rows());
        Ok(Some(kept))
    }

    /// Joins one deferred partition alone, or splits it again when its keys
    /// do not fit. False when the consumer has gone (a LIMIT was reached or
    /// the query was cancelled).
    async fn join_deferred<K: SetKey, C: Copies>(
        &mut self,
        task: Task<K>,
        set: &mut KeyTable<K, C>,
        encoder: &KeyEncoder,
        tx: &Sender<Result<RecordBatch>>,
        tasks: &mut Vec<Task<K>>,
    ) -> Result<bool> {
        let compute = self.metrics.baseline.elapsed_compute().clone();
        let timer = compute.timer();
        let slot = slot_bytes::<K, C>();
        let Task { split, mut part } = task;
        // One table serves every deferred partition in turn, sized once for
        // the keys a partition may bring when that fits: a table that doubles
        // its way up, or a fresh one per partition, costs rehashing and the
        // kernel's zeroing of new pages.
        set.clear();
        let sized = table_bytes(buckets_for(part.key_count.max(set.capacity())), slot, 0);
        while !self.fits(self.memory() + sized)? {
            let others = tasks.iter_mut().map(|t| &mut t.part);
            let Some(cold) = largest_pending(others.chain(std::iter::once(&mut part))) else {
                break;
            };
            self.store_pending(cold)?;
        }
        if self.fits(self.memory() + sized)? {
            set.reserve(part.key_count);
        } else {
            *set = KeyTable::default();
        }
        let mut heap = 0usize;
        let mut table = table_bytes(buckets_for(set.capacity()), slot, 0);
        let in_memory = std::mem::take(&mut part.pending_keys);
        self.pending_bytes -= part.pending_key_bytes;
        part.pending_key_bytes = 0;
        let mut blocks = std::mem::take(&mut part.build_blocks).into_iter();
        let mut source = in_memory.into_iter();
        loop {
            // Small steps, so a table is sized by the distinct keys it holds,
            // not by a block full of repeats.
            let chunk: Vec<K> = source.by_ref().take(INSERT_CHUNK).collect();
            if chunk.is_empty() {
                match blocks.next() {
                    Some(block) => {
                        source = K::decode(&self.store.take(block)?)?.into_iter();
                        continue;
                    }
                    None => break,
                }
            }
            let added_heap: usize = chunk.iter().map(SetKey::heap_bytes).sum();
            let buckets = buckets_for(set.capacity());
            let needed = set.len() + chunk.len();
            let grown = if needed > set.capacity() {
                buckets_for(needed).max(buckets * 2)
            } else {
                buckets
            };
            let transient = if grown > buckets {
                buckets * (slot + 1)
            } else {
                0
            };
            let table_wanted = table_bytes(grown, slot, heap + added_heap) + transient;
            // What other partitions gathered in memory goes to the store
            // before this one is split.
            while !self.fits(self.memory() + table_wanted)? {
                let others = tasks.iter_mut().map(|t| &mut t.part);
                let Some(cold) = largest_pending(others.chain(std::iter::once(&mut part))) else {
                    break;
                };
                self.store_pending(cold)?;
            }
            if !self.fits(self.memory() + table_wanted)? {
                let Some(next) = split.next(MAX_PARTITIONS) else {
                    return Err(DataFusionError::External(Box::new(StrataError::new(
                        ErrorCode::MEMORY_LIMIT_EXCEEDED,
                        format!(
                            "A partition of a semi join does not fit its spill threshold of {} after every split of its keys' hash: raise max_bytes_before_external_join or max_memory_usage",
                            readable_size(self.threshold as f64)
                        ),
                    ))));
                };
                self.metrics.resplits.add(1);
                let mut keys = chunk;
                keys.extend(source);
                keys.extend(gathered(set.drain()));
                *set = KeyTable::default();
                self.reservation.resize(self.memory());
                let remaining: Vec<BlockId> = blocks.collect();
                let resplit = self.resplit::<K, C>(next, keys, remaining, part, encoder)?;
                tasks.extend(resplit);
                timer.done();
                return Ok(true);
            }
            insert_all(set, chunk.into_iter());
            heap += added_heap;
            table = table_bytes(buckets_for(set.capacity()), slot, heap);
            self.reservation.resize(self.memory() + table);
        }
        let pending_rows = std::mem::take(&mut part.pending_rows);
        self.pending_bytes -= part.pending_row_bytes;
        part.pending_row_bytes = 0;
        self.reservation.resize(self.memory() + table);
        timer.done();
        let stored = part.probe_blocks.into_iter().map(Some);
        for batch in pending_rows
            .into_iter()
            .map(Ok)
            .chain(stored.map(|block| decode_batch(self.store.take(block.expect("stored"))?)))
        {
            let batch = batch?;
            let timer = compute.timer();
            let (keys, _) = self.keys::<K>(&self.spec.probe_keys, encoder, &batch)?;
            let keep = keys.iter().map(|key| self.answer(set, key)).collect();
            let kept = self.kept(&batch, keep)?;
            timer.done();
            if let Some(kept) = kept
                && tx.send(Ok(kept)).await.is_err()
            {
                return Ok(false);
            }
        }
        self.reservation.resize(self.memory() + table);
        Ok(true)
    }

    /// Splits a partition's keys and probe rows by the next bits of the hash
    /// into new tasks, storing each piece as it fills.
    fn resplit<K: SetKey, C: Copies>(
        &mut self,
        split: Split,
        keys: Vec<K>,
        build_blocks: Vec<BlockId>,
        mut part: ColdPart<K>,
        encoder: &KeyEncoder,
    ) -> Result<Vec<Task<K>>> {
        let slot = slot_bytes::<K, C>();
        let piece_limit = (self.threshold / (4 * split.count())).max(64 << 10);
        let mut pieces: Vec<ColdPart<K>> = (0..split.count()).map(|_| ColdPart::new()).collect();
        let mut place = |this: &mut Worker, keys: Vec<K>| -> Result<()> {
            for key in keys {
                let piece = &mut pieces[split.of(key.partition_hash())];
                let bytes = slot + key.heap_bytes();
                piece.pending_key_bytes += bytes;
                piece.key_count += 1;
                piece.pending_keys.push(key);
                this.pending_bytes += bytes;
                if piece.pending_key_bytes >= piece_limit {
                    this.store_pending(piece)?;
                }
            }
            Ok(())
        };
        place(self, keys)?;
        for block in build_blocks {
            let keys = K::decode(&self.store.take(block)?)?;
            place(self, keys)?;
        }
        let pending_rows = std::mem::take(&mut part.pending_rows);
        self.pending_bytes -= part.pending_row_bytes;
        let stored = part.probe_blocks.into_iter();
        let mut batches: Vec<Result<RecordBatch>> = pending_rows.into_iter().map(Ok).collect();
        for block in stored {
            batches.push(self.store.take(block).and_then(decode_batch));
        }
        for batch in batches {
            let batch = batch?;
            let (keys, _) = self.keys::<K>(&self.spec.probe_keys, encoder, &batch)?;
            let mut rows: Vec<Vec<u32>> = (0..split.count()).map(|_| Vec::new()).collect();
            for (row, key) in keys.iter().enumerate() {
                rows[split.of(key.partition_hash())].push(row as u32);
            }
            for (p, rows) in rows.into_iter().enumerate() {
                if rows.is_empty() {
                    continue;
                }
                let piece = &mut pieces[p];
                let rows = take_record_batch(&batch, &UInt32Array::from(rows))?;
                let bytes = rows.get_array_memory_size();
                piece.pending_row_bytes += bytes;
                piece.pending_rows.push(rows);
                self.pending_bytes += bytes;
                if piece.pending_row_bytes >= piece_limit {
                    self.store_pending(piece)?;
                }
            }
        }
        let mut tasks = Vec::new();
        for mut piece in pieces {
            self.store_pending(&mut piece)?;
            if piece.has_probe_rows() {
                tasks.push(Task { split, part: piece });
            } else {
                self.discard(piece)?;
            }
        }
        Ok(tasks)
    }
}
