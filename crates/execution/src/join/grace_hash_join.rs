//! Hash joins of every type (inner, left, right, full, and semi and anti
//! joins with a residual filter) that finish under any budget: a grace hash
//! join that runs DataFusion's own hash join one partition at a time.
//!
//! Each output partition joins its share of both inputs (both arrive hash
//! partitioned on the keys). The build side is gathered in memory; if it
//! ends small and within the join's threshold it is joined by one in-memory
//! hash join, as DataFusion would, at no other cost. Otherwise its rows are
//! split by the top bits of a hash of the keys into partitions. A large
//! build side that fits is deferred whole: each partition is joined alone
//! after the probe side has been gathered, with a table near the CPU caches
//! instead of one far larger. One that outgrows the threshold moves the
//! partitions holding the most to the spill store until the rest fit; those
//! left in memory are joined while the probe side streams past, and the
//! probe rows of the others go to the store beside their build rows. Each
//! deferred pair is then joined alone; a pair whose build rows still do not
//! fit is split again by the next bits of the hash, and one that a split
//! cannot divide (its keys are all equal) is joined in memory as it is.
//!
//! Joining partition by partition is exact for every join type: rows with
//! equal keys share a partition, so each partition's matches, and its
//! unmatched rows of either side, are the whole join's for those keys.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use datafusion::arrow::array::{BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{concat_batches, filter_record_batch, take_record_batch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::hash_utils::{RandomState, create_hashes};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{JoinType, Result, internal_err};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::physical_expr::expressions::cast as cast_expr;
use datafusion::physical_expr::{EquivalenceProperties, LexOrdering, PhysicalExpr};
use datafusion::physical_plan::execution_plan::Boundedness;
use datafusion::physical_plan::joins::utils::JoinOn;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet, Time,
};
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::physical_plan::stream::{
    RecordBatchReceiverStreamBuilder, RecordBatchStreamAdapter,
};
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, InputDistributionRequirements, PlanProperties,
};
use futures::{SinkExt, StreamExt};
use parking_lot::Mutex;
use tokio::sync::mpsc::Sender;

use super::hash_split::{MAX_PARTITIONS, Split};
use super::prepaid_pool::PrepaidPool;
use crate::spill::{BlockId, SpillConfig, SpillStore, decode_batch, encode_batch};

/// Partitions at the first split, at least.
const MIN_PARTITIONS: usize = 16;
/// Partitions when the build side's size is unknown.
const UNKNOWN_SIZE_PARTITIONS: usize = 64;
/// Bounds on the bytes of one stored block of a partition's rows.
const MIN_BLOCK_BYTES: usize = 64 << 10;
const MAX_BLOCK_BYTES: usize = 4 << 20;
/// What an in-memory hash join holds per build row beyond the rows' own
/// bytes, at most: its table's buckets at their emptiest (2.3 per row of 17
/// bytes with the control byte) and its chain entry (8 bytes).
const JOIN_TABLE_BYTES_PER_ROW: usize = 48;
/// A build side that will cost more than this once joined is joined one
/// partition at a time even when memory allows it whole: probing a table
/// far larger than the CPU caches costs a cache miss per row, which is
/// slower than gathering each partition's rows first.
const DEFER_BUILD_COST: usize = 64 << 20;
/// Build rows per partition the split aims at, for tables that stay near
/// the CPU caches.
const TABLE_TARGET_ROWS: usize = 1 << 17;
/// Probe rows of a partition are handed to its join in batches of about
/// this many rows.
const PROBE_BATCH_ROWS: usize = 8192;
/// The hash that picks partitions, seeded apart from the repartitioning
/// before the join and the hash table inside it, so its bits are not
/// already fixed within one input partition.
const PARTITION_HASH: RandomState = RandomState::with_seed(0x5354_5241_5441_4748);

/// A planner's `HashJoinExec`, made to spill.
#[derive(Debug)]
pub struct GraceHashJoinExec {
    join: Arc<HashJoinExec>,
    /// The join's keys, each pair cast to one type: the planner may leave
    /// them in different types (UInt32 against UInt64), which DataFusion's
    /// join compares only while its build keys are dense enough to index an
    /// array; equal values must also hash alike to share a partition.
    on: Arc<JoinOn>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl GraceHashJoinExec {
    /// Takes over `join`, which must pair its inputs' partitions (in
    /// `Partitioned` mode, or `CollectLeft` over one partition each), without
    /// NULL-aware semantics. Its output has no order (rows of deferred
    /// partitions come out after the others): the caller makes sure nothing
    /// relies on the order `join` produces.
    pub fn try_new(join: Arc<HashJoinExec>) -> Result<Self> {
        let single = |plan: &Arc<dyn ExecutionPlan>| {
            plan.properties().output_partitioning().partition_count() == 1
        };
        let paired = match join.partition_mode() {
            PartitionMode::Partitioned => true,
            PartitionMode::CollectLeft => single(join.left()) && single(join.right()),
            PartitionMode::Auto => false,
        };
        if !paired || join.null_aware {
            return internal_err!("GraceHashJoinExec cannot take over {}", join.name());
        }
        let left = join.left().schema();
        let right = join.right().schema();
        let mut on = Vec::with_capacity(join.on().len());
        for (l, r) in join.on() {
            let (left_type, right_type) = (l.data_type(&left)?, r.data_type(&right)?);
            let Some(common) = comparison_coercion(&left_type, &right_type) else {
                return internal_err!("join keys of types {left_type} and {right_type}");
            };
            on.push((
                cast_expr(Arc::clone(l), &left, common.clone())?,
                cast_expr(Arc::clone(r), &right, common)?,
            ));
        }
        let joined = join.properties();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(join.schema()),
            joined.output_partitioning().clone(),
            joined.emission_type,
            Boundedness::Bounded,
        ));
        Ok(GraceHashJoinExec {
            join,
            on: Arc::new(on),
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// The first split's partition count, when the build side's size is
    /// known: enough that each partition's rows are a quarter of the
    /// threshold and its table about [`TABLE_TARGET_ROWS`].
    fn partition_count(&self, partitions: usize, threshold: usize) -> usize {
        let Ok(statistics) =
            StatisticsContext::new().compute(self.join.left().as_ref(), &StatisticsArgs::new())
        else {
            return UNKNOWN_SIZE_PARTITIONS;
        };
        let known = |value: &Precision<usize>| match value {
            Precision::Exact(v) | Precision::Inexact(v) => Some(*v / partitions.max(1)),
            Precision::Absent => None,
        };
        let by_budget = known(&statistics.total_byte_size)
            .map(|bytes| bytes.saturating_mul(4) / threshold.max(1));
        let by_cache = known(&statistics.num_rows).map(|rows| rows / TABLE_TARGET_ROWS);
        match (by_budget, by_cache) {
            (None, None) => UNKNOWN_SIZE_PARTITIONS,
            (budget, cache) => budget
                .unwrap_or(0)
                .max(cache.unwrap_or(0))
                .next_power_of_two()
                .clamp(MIN_PARTITIONS, MAX_PARTITIONS),
        }
    }
}

impl DisplayAs for GraceHashJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let on: Vec<String> = self
            .join
            .on()
            .iter()
            .map(|(l, r)| format!("({l}, {r})"))
            .collect();
        write!(
            f,
            "GraceHashJoinExec: join_type={:?}, on=[{}]",
            self.join.join_type(),
            on.join(", ")
        )?;
        if let Some(filter) = self.join.filter() {
            write!(f, ", filter={}", filter.expression())?;
        }
        if let Some(projection) = &self.join.projection {
            write!(f, ", projection={:?}", projection.as_ref())?;
        }
        if let Some(fetch) = self.join.fetch() {
            write!(f, ", fetch={fetch}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for GraceHashJoinExec {
    fn name(&self) -> &str {
        "GraceHashJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![self.join.left(), self.join.right()]
    }

    fn input_distribution_requirements(&self) -> InputDistributionRequirements {
        self.join.input_distribution_requirements()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false, false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.join.apply_expressions(f)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let join = self.join.builder().with_new_children(children)?.build()?;
        Ok(Arc::new(GraceHashJoinExec::try_new(Arc::new(join))?))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn fetch(&self) -> Option<usize> {
        self.join.fetch()
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let partitions = self.properties.output_partitioning().partition_count();
        let spill = SpillConfig::of_task(&context);
        let threshold = spill.join_threshold(SpillConfig::memory_limit(&context), partitions);
        let build = self.join.left().execute(partition, Arc::clone(&context))?;
        let probe = self.join.right().execute(partition, Arc::clone(&context))?;
        let worker = Worker {
            join: Arc::clone(&self.join),
            on: Arc::clone(&self.on),
            reservation: MemoryConsumer::new(format!("GraceHashJoinExec[{partition}]"))
                .with_can_spill(true)
                .register(context.memory_pool()),
            store: Arc::new(SpillStore::new(
                Arc::clone(&spill),
                context.memory_pool(),
                (threshold as f64 * spill.warm_ratio) as usize,
            )),
            context,
            threshold,
            partitions: self.partition_count(partitions, threshold),
            held: Held::default(),
            joining: 0,
            metrics: JoinMetrics::new(&self.metrics, partition),
        };
        let mut builder = RecordBatchReceiverStreamBuilder::new(self.schema(), 2);
        let output = Output {
            tx: builder.tx(),
            baseline: BaselineMetrics::new(&self.metrics, partition),
            remaining: self.join.fetch(),
            done: Arc::new(AtomicBool::new(false)),
        };
        builder.spawn(async move { worker.run(build, probe, output).await });
        Ok(builder.build())
    }
}

struct JoinMetrics {
    /// Time spent partitioning rows; the in-memory joins keep their own.
    elapsed_compute: Time,
    spilled_partitions: Count,
    resplits: Count,
}

impl JoinMetrics {
    fn new(set: &ExecutionPlanMetricsSet, partition: usize) -> Self {
        JoinMetrics {
            elapsed_compute: MetricBuilder::new(set).elapsed_compute(partition),
            spilled_partitions: MetricBuilder::new(set).counter("spilled_partitions", partition),
            resplits: MetricBuilder::new(set).counter("resplit_partitions", partition),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Build,
    Probe,
}

/// Rows held in memory: the bytes of their arrays, and what they will cost
/// once joined ([`Worker::cost`]), which decides what fits and which the
/// worker reserves.
#[derive(Debug, Default, Clone, Copy)]
struct Held {
    bytes: usize,
    cost: usize,
}

impl Held {
    fn of(side: Side, batch: &RecordBatch) -> Self {
        Held {
            bytes: batch.get_array_memory_size(),
            cost: Worker::cost(side, batch),
        }
    }

    fn add(&mut self, other: Held) {
        self.bytes += other.bytes;
        self.cost += other.cost;
    }

    fn remove(&mut self, other: Held) {
        self.bytes -= other.bytes;
        self.cost -= other.cost;
    }
}

/// One side's rows of one partition: blocks in the store, then rows not
/// stored yet.
#[derive(Default)]
struct Rows {
    blocks: Vec<BlockId>,
    /// What the stored rows will cost in memory once joined.
    stored_cost: usize,
    pending: Vec<RecordBatch>,
    pending_held: Held,
}

impl Rows {
    /// What all the rows will cost in memory once joined.
    fn cost(&self) -> usize {
        self.stored_cost + self.pending_held.cost
    }

    fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.pending.is_empty()
    }
}

#[derive(Default)]
struct Part {
    build: Rows,
    probe: Rows,
    /// It is joined alone after the probe side ends, its rows in memory
    /// until pressure moves them to the store; once some are stored, the
    /// rest follow in blocks. A partition that is not deferred is joined
    /// while the probe side streams past.
    deferred: bool,
}

impl Part {
    fn rows(&mut self, side: Side) -> &mut Rows {
        match side {
            Side::Build => &mut self.build,
            Side::Probe => &mut self.probe,
        }
    }

    /// Whether some of its rows are in the store.
    fn is_stored(&self) -> bool {
        !self.build.blocks.is_empty() || !self.probe.blocks.is_empty()
    }

    fn pending_cost(&self) -> usize {
        self.build.pending_held.cost + self.probe.pending_held.cost
    }

    /// Whether joining this partition's rows can give any: an inner join
    /// needs rows on both sides, an outer join on its outer side.
    fn has_output(&self, join_type: JoinType) -> bool {
        let (build, probe) = (!self.build.is_empty(), !self.probe.is_empty());
        match join_type {
            JoinType::Inner | JoinType::LeftSemi | JoinType::RightSemi => build && probe,
            JoinType::Left | JoinType::LeftAnti => build,
            JoinType::Right | JoinType::RightAnti => probe,
            _ => build || probe,
        }
    }
}

/// The partitions of one split.
struct Partitioned {
    split: Split,
    parts: Vec<Part>,
    /// A stored partition's pending rows of one side are stored as a block
    /// once they reach this many bytes.
    block_bytes: usize,
}

impl Partitioned {
    fn new(split: Split, threshold: usize, all_deferred: bool) -> Self {
        let parts = (0..split.count())
            .map(|_| Part {
                deferred: all_deferred,
                ..Part::default()
            })
            .collect();
        Partitioned {
            split,
            parts,
            block_bytes: (threshold / (4 * split.count())).clamp(MIN_BLOCK_BYTES, MAX_BLOCK_BYTES),
        }
    }
}

struct Worker {
    join: Arc<HashJoinExec>,
    on: Arc<JoinOn>,
    context: Arc<TaskContext>,
    reservation: MemoryReservation,
    store: Arc<SpillStore>,
    threshold: usize,
    partitions: usize,
    /// Rows the worker holds: the build side while it is gathered, then
    /// partitions' rows not stored.
    held: Held,
    /// What the in-memory join running now costs: DataFusion's join
    /// reserves it on its own, and what the worker holds must leave it room.
    joining: usize,
    metrics: JoinMetrics,
}

impl Worker {
    fn schema(&self, side: Side) -> SchemaRef {
        match side {
            Side::Build => self.join.left().schema(),
            Side::Probe => self.join.right().schema(),
        }
    }

    /// Bytes `batch` costs in memory: a probe batch its own size; a build
    /// batch also the copy the join concatenates its build side into and
    /// the join's table.
    fn cost(side: Side, batch: &RecordBatch) -> usize {
        let bytes = batch.get_array_memory_size();
        match side {
            Side::Build => 2 * bytes + batch.num_rows() * JOIN_TABLE_BYTES_PER_ROW,
            Side::Probe => bytes,
        }
    }

    /// Whether what the worker holds will fit the threshold, less the warm
    /// tier and the join running now, once joined, and that cost fits the
    /// pool; reserves it if so, shrinking the warm tier when the pool is
    /// short.
    fn fits(&mut self) -> Result<bool> {
        let room = self
            .threshold
            .saturating_sub(self.store.warm_bytes())
            .saturating_sub(self.joining);
        if self.held.cost > room {
            return Ok(false);
        }
        self.reserve(self.held.cost)
    }

    /// Resizes the worker's reservation to `bytes`, shrinking the warm tier
    /// when the pool is short; whether it could.
    fn reserve(&mut self, bytes: usize) -> Result<bool> {
        if self.reservation.try_resize(bytes).is_ok() {
            return Ok(true);
        }
        let short = bytes.saturating_sub(self.reservation.size());
        self.store.shrink(short)?;
        Ok(self.reservation.try_resize(bytes).is_ok())
    }

    fn release(&mut self, held: Held) {
        self.held.remove(held);
        if self.reservation.size() > self.held.cost {
            self.reservation.resize(self.held.cost);
        }
    }

    /// Stops holding `held`, whose rows an in-memory join is about to take,
    /// and hands what was reserved for them to that join.
    fn hand_over(&mut self, held: Held) -> MemoryReservation {
        self.held.remove(held);
        let reserved = self.reservation.size().min(held.cost);
        self.reservation.split(reserved)
    }

    /// A reservation of `cost` bytes for a join of rows read back from the
    /// store, or an empty one if the pool is short (the join then asks the
    /// pool itself).
    fn prepay(&mut self, cost: usize) -> Result<MemoryReservation> {
        let held = self.reservation.size();
        Ok(if self.reserve(held + cost)? {
            self.reservation.split(cost)
        } else {
            self.reservation.new_empty()
        })
    }

    /// The partition of each row of `batch` at `split`.
    fn partitions_of(&self, split: Split, side: Side, batch: &RecordBatch) -> Result<Vec<usize>> {
        let keys = self
            .on
            .iter()
            .map(|(l, r)| {
                let key = if side == Side::Build { l } else { r };
                key.evaluate(batch)?.into_array(batch.num_rows())
            })
            .collect::<Result<Vec<_>>>()?;
        let mut hashes = vec![0u64; batch.num_rows()];
        create_hashes(&keys, &PARTITION_HASH, &mut hashes)?;
        Ok(hashes.into_iter().map(|hash| split.of(hash)).collect())
    }

    /// Adds the rows of `batch` whose partition `wanted` accepts to their
    /// partitions, storing what does not fit.
    fn add(
        &mut self,
        partitioned: &mut Partitioned,
        side: Side,
        batch: &RecordBatch,
        of_row: &[usize],
        wanted: impl Fn(&Part) -> bool,
    ) -> Result<()> {
        let compute = self.metrics.elapsed_compute.clone();
        let _timer = compute.timer();
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); partitioned.split.count()];
        for (row, &p) in of_row.iter().enumerate() {
            rows[p].push(row as u32);
        }
        for (p, rows) in rows.into_iter().enumerate() {
            if rows.is_empty() || !wanted(&partitioned.parts[p]) {
                continue;
            }
            let taken = if rows.len() == batch.num_rows() {
                batch.clone()
            } else {
                take_record_batch(batch, &UInt32Array::from(rows))?
            };
            let held = Held::of(side, &taken);
            let part = &mut partitioned.parts[p];
            let rows = part.rows(side);
            rows.pending.push(taken);
            rows.pending_held.add(held);
            let full_block =
                !rows.blocks.is_empty() && rows.pending_held.bytes >= partitioned.block_bytes;
            self.held.add(held);
            if full_block {
                self.store_pending(part, side, partitioned.block_bytes)?;
            }
        }
        self.keep_within(partitioned)
    }

    /// Stores partitions' rows until what the worker holds fits: the
    /// pending rows of partitions already stored first, then the deferred
    /// partition holding the most, then the one joined as the probe side
    /// streams that holds the most, which becomes deferred.
    fn keep_within(&mut self, partitioned: &mut Partitioned) -> Result<()> {
        let block_bytes = partitioned.block_bytes;
        self.store_until_fits(partitioned.parts.iter_mut().collect(), block_bytes)
    }

    /// [`Self::keep_within`] over any partitions (the deferred ones left
    /// to join), storing blocks of about `block_bytes`.
    fn store_until_fits(&mut self, mut parts: Vec<&mut Part>, block_bytes: usize) -> Result<()> {
        while !self.fits()? {
            let victim = parts
                .iter()
                .enumerate()
                .filter(|(_, part)| part.pending_cost() > 0)
                .max_by_key(|(_, part)| (part.is_stored(), part.deferred, part.pending_cost()))
                .map(|(p, _)| p);
            let Some(victim) = victim else {
                self.reservation.resize(self.held.cost);
                break;
            };
            let part = &mut *parts[victim];
            if !part.is_stored() {
                self.metrics.spilled_partitions.add(1);
            }
            part.deferred = true;
            self.store_pending(part, Side::Build, block_bytes)?;
            self.store_pending(part, Side::Probe, block_bytes)?;
        }
        Ok(())
    }

    /// Moves `side`'s pending rows of `part` into the store, in blocks of
    /// about `block_bytes`.
    fn store_pending(&mut self, part: &mut Part, side: Side, block_bytes: usize) -> Result<()> {
        let schema = self.schema(side);
        let rows = part.rows(side);
        let pending = std::mem::take(&mut rows.pending);
        let mut start = 0;
        while start < pending.len() {
            let mut end = start;
            let mut bytes = 0;
            while end < pending.len() && bytes < block_bytes {
                bytes += pending[end].get_array_memory_size();
                end += 1;
            }
            let block = concat_batches(&schema, &pending[start..end])?;
            rows.stored_cost += Self::cost(side, &block);
            rows.blocks.push(self.store.put(&encode_batch(&block)?)?);
            start = end;
        }
        let freed = std::mem::take(&mut rows.pending_held);
        self.release(freed);
        Ok(())
    }

    async fn run(
        mut self,
        mut build: SendableRecordBatchStream,
        probe: SendableRecordBatchStream,
        mut output: Output,
    ) -> Result<()> {
        let mut gathered = Vec::new();
        let mut partitioned: Option<Partitioned> = None;
        while let Some(batch) = build.next().await {
            let batch = batch?;
            if let Some(partitioned) = &mut partitioned {
                let of_row = self.partitions_of(partitioned.split, Side::Build, &batch)?;
                self.add(partitioned, Side::Build, &batch, &of_row, |_| true)?;
                continue;
            }
            self.held.add(Held::of(Side::Build, &batch));
            gathered.push(batch);
            let fits = self.fits()?;
            if !fits || self.held.cost > DEFER_BUILD_COST {
                let split = Split::first(self.partitions);
                // Without pressure, every partition is deferred (joined
                // alone later) and stays in memory until pressure comes.
                let mut started = Partitioned::new(split, self.threshold, fits);
                self.held = Held::default();
                for batch in std::mem::take(&mut gathered) {
                    let of_row = self.partitions_of(split, Side::Build, &batch)?;
                    self.add(&mut started, Side::Build, &batch, &of_row, |_| true)?;
                }
                partitioned = Some(started);
            }
        }
        drop(build);
        match partitioned {
            None => {
                let prepaid = self.hand_over(self.held);
                let joined = self.join_in_memory(gathered, probe, prepaid)?;
                output.forward(joined).await
            }
            Some(partitioned) => self.run_partitioned(partitioned, probe, output).await,
        }
    }

    async fn run_partitioned(
        mut self,
        mut partitioned: Partitioned,
        mut probe: SendableRecordBatchStream,
        mut output: Output,
    ) -> Result<()> {
        let block_bytes = partitioned.block_bytes;
        let mut hot_build = Vec::new();
        let mut hot_held = Held::default();
        for part in &mut partitioned.parts {
            if part.deferred {
                // A partition partly stored goes to the store whole; one
                // deferred without pressure stays in memory until pressure.
                if !part.build.blocks.is_empty() {
                    self.store_pending(part, Side::Build, block_bytes)?;
                }
            } else {
                hot_build.append(&mut part.build.pending);
                hot_held.add(std::mem::take(&mut part.build.pending_held));
            }
        }
        let (mut hot_probe, receiver) = futures::channel::mpsc::channel(2);
        let receiver = RecordBatchStreamAdapter::new(self.schema(Side::Probe), receiver);
        let prepaid = self.hand_over(hot_held);
        let joined = self.join_in_memory(hot_build, Box::pin(receiver), prepaid)?;
        self.joining = hot_held.cost;
        let done = Arc::clone(&output.done);
        let forwarded = output.forward(joined);
        let route = async {
            // The in-memory join may stop reading early (an inner join
            // whose build side is empty does); the deferred partitions still
            // need their probe rows.
            let mut hot_open = true;
            while let Some(batch) = probe.next().await {
                if done.load(Ordering::Relaxed) {
                    break;
                }
                let batch = batch?;
                let of_row = self.partitions_of(partitioned.split, Side::Probe, &batch)?;
                let hot: BooleanArray = of_row
                    .iter()
                    .map(|&p| Some(!partitioned.parts[p].deferred))
                    .collect();
                self.add(&mut partitioned, Side::Probe, &batch, &of_row, |part| {
                    part.deferred
                })?;
                let hot_rows = filter_record_batch(&batch, &hot)?;
                if hot_open && hot_rows.num_rows() > 0 {
                    hot_open = hot_probe.send(Ok(hot_rows)).await.is_ok();
                }
            }
            drop(hot_probe);
            Ok(())
        };
        futures::future::try_join(forwarded, route).await?;
        drop(probe);
        self.joining = 0;

        let join_type = *self.join.join_type();
        let mut tasks: Vec<(Split, Part, bool)> = partitioned
            .parts
            .into_iter()
            .filter(|part| part.deferred && part.has_output(join_type))
            .map(|part| (partitioned.split, part, true))
            .collect();
        while let Some((split, mut part, splittable)) = tasks.pop() {
            if output.is_done() {
                return Ok(());
            }
            // Split into enough pieces that each is about half the threshold.
            let pieces = (part.build.cost() / (self.threshold / 2).max(1))
                .next_power_of_two()
                .clamp(2, MAX_PARTITIONS);
            if part.build.cost() > self.threshold
                && splittable
                && let Some(next) = split.next(pieces)
            {
                let pieces = self.resplit(part, next)?;
                let divided = pieces.iter().filter(|p| !p.build.is_empty()).count() > 1;
                tasks.extend(
                    pieces
                        .into_iter()
                        .filter(|p| p.has_output(join_type))
                        .map(|p| (next, p, divided)),
                );
                continue;
            }
            let cost = part.build.cost();
            let build = self.read_all(&mut part.build)?;
            // The partitions still to join make room for this one's join.
            self.joining = cost;
            let waiting = tasks.iter_mut().map(|(_, part, _)| part).collect();
            self.store_until_fits(
                waiting,
                (self.threshold / 4).clamp(MIN_BLOCK_BYTES, MAX_BLOCK_BYTES),
            )?;
            let probe = self.stream_of(part.probe);
            let prepaid = self.prepay(cost)?;
            let joined = self.join_in_memory(build, probe, prepaid)?;
            output.forward(joined).await?;
            self.joining = 0;
        }
        Ok(())
    }

    /// Splits a deferred partition by the next bits of the hash into pieces
    /// whose rows are all stored.
    fn resplit(&mut self, mut part: Part, next: Split) -> Result<Vec<Part>> {
        self.metrics.resplits.add(1);
        let mut pieces = Partitioned::new(next, self.threshold, true);
        for side in [Side::Build, Side::Probe] {
            let rows = std::mem::take(part.rows(side));
            self.release(rows.pending_held);
            let store = Arc::clone(&self.store);
            let stored = rows
                .blocks
                .into_iter()
                .map(|id| store.take(id).and_then(decode_batch));
            for batch in stored.chain(rows.pending.into_iter().map(Ok)) {
                let batch = batch?;
                let of_row = self.partitions_of(next, side, &batch)?;
                self.add(&mut pieces, side, &batch, &of_row, |_| true)?;
            }
        }
        let block_bytes = pieces.block_bytes;
        for piece in &mut pieces.parts {
            self.store_pending(piece, Side::Build, block_bytes)?;
            self.store_pending(piece, Side::Probe, block_bytes)?;
        }
        Ok(pieces.parts)
    }

    /// Every row of `rows`, read back from the store.
    fn read_all(&mut self, rows: &mut Rows) -> Result<Vec<RecordBatch>> {
        let mut batches = Vec::with_capacity(rows.blocks.len() + rows.pending.len());
        for id in std::mem::take(&mut rows.blocks) {
            batches.push(decode_batch(self.store.take(id)?)?);
        }
        batches.append(&mut rows.pending);
        let held = std::mem::take(&mut rows.pending_held);
        self.release(held);
        Ok(batches)
    }

    /// The probe rows of a partition as a stream that reads its blocks back
    /// one at a time.
    fn stream_of(&mut self, rows: Rows) -> SendableRecordBatchStream {
        self.release(rows.pending_held);
        let schema = self.schema(Side::Probe);
        let store = Arc::clone(&self.store);
        let stored =
            futures::stream::iter(rows.blocks).map(move |id| store.take(id).and_then(decode_batch));
        // Rows gathered from many probe batches come in small pieces; the
        // join works per batch, so they go to it in batches of a useful size.
        let mut pieces = rows.pending.into_iter().peekable();
        let mut coalesced = Vec::new();
        while pieces.peek().is_some() {
            let mut batch = Vec::new();
            let mut count = 0;
            while count < PROBE_BATCH_ROWS
                && let Some(piece) = pieces.next()
            {
                count += piece.num_rows();
                batch.push(piece);
            }
            coalesced.push(concat_batches(&schema, &batch).map_err(Into::into));
        }
        Box::pin(RecordBatchStreamAdapter::new(
            schema,
            stored.chain(futures::stream::iter(coalesced)),
        ))
    }

    /// The planner's join over `build`, held in memory, and `probe`, with
    /// `prepaid` bytes reserved for it.
    fn join_in_memory(
        &self,
        build: Vec<RecordBatch>,
        probe: SendableRecordBatchStream,
        prepaid: MemoryReservation,
    ) -> Result<SendableRecordBatchStream> {
        let build = MemorySourceConfig::try_new_exec(&[build], self.schema(Side::Build), None)?;
        let probe = StreamingTableExec::try_new(
            self.schema(Side::Probe),
            vec![Arc::new(OnceStream::new(self.schema(Side::Probe), probe))],
            None,
            Vec::<LexOrdering>::new(),
            false,
            None,
        )?;
        let join = self
            .join
            .builder()
            .with_new_children(vec![build, Arc::new(probe)])?
            .with_on(self.on.as_ref().clone())
            .with_partition_mode(PartitionMode::CollectLeft)
            .reset_state()
            .build_exec()?;
        join.execute(0, PrepaidPool::context_with(&self.context, prepaid))
    }
}

/// Where a worker's joined rows go: the operator's stream, up to the join's
/// row limit.
struct Output {
    tx: Sender<Result<RecordBatch>>,
    baseline: BaselineMetrics,
    remaining: Option<usize>,
    /// Set once nothing more is wanted (the limit is reached or the reader
    /// is gone), for the probe side's router to stop too.
    done: Arc<AtomicBool>,
}

impl Output {
    fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// Sends the batches of `joined` on, until it ends or nothing more is
    /// wanted.
    async fn forward(&mut self, mut joined: SendableRecordBatchStream) -> Result<()> {
        while !self.is_done()
            && let Some(batch) = joined.next().await
        {
            let mut batch = batch?;
            if let Some(remaining) = &mut self.remaining {
                batch = batch.slice(0, batch.num_rows().min(*remaining));
                *remaining -= batch.num_rows();
            }
            self.baseline.output_rows().add(batch.num_rows());
            self.baseline.output_batches().add(1);
            let sent = self.tx.send(Ok(batch)).await.is_ok();
            if !sent || self.remaining == Some(0) {
                self.done.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

/// A stream handed to an in-memory join as its probe input, read once.
struct OnceStream {
    schema: SchemaRef,
    stream: Mutex<Option<SendableRecordBatchStream>>,
}

impl OnceStream {
    fn new(schema: SchemaRef, stream: SendableRecordBatchStream) -> Self {
        OnceStream {
            schema,
            stream: Mutex::new(Some(stream)),
        }
    }
}

impl fmt::Debug for OnceStream {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("OnceStream")
    }
}

impl PartitionStream for OnceStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _context: Arc<TaskContext>) -> SendableRecordBatchStream {
        match self.stream.lock().take() {
            Some(stream) => stream,
            None => Box::pin(RecordBatchStreamAdapter::new(
                Arc::clone(&self.schema),
                futures::stream::once(async { internal_err!("a join's probe stream read twice") }),
            )),
        }
    }
}
