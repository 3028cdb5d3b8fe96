//! The `MergeTree` table engine as DataFusion sees it: scans that read only
//! the needed columns of the parts and granules a filter can match, and
//! inserts that become parts, all visible together when the INSERT ends.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{DFSchema, Result, Statistics};
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::metrics::MetricsSet;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use futures::StreamExt;
use strata_common::events::{self, Event};
use strata_common::{ErrorCode, StrataError};
use strata_execution::expressions::specialize;
use strata_storage::cache::CacheRead;
use strata_storage::disk::file_cache::CacheUse;
use strata_storage::merge_tree::{
    DataPart, FinalScanExec, GranuleRange, MergeTreeScanExec, MergeTreeTable, ReadCounter,
    RemovalList, ScanColumns, ScanFilter, Summaries, VirtualColumn, select_granules,
    table_statistics, virtual_columns,
};

use parking_lot::RwLock;

use crate::instance::Instance;
use crate::query_context::QueryContext;
use crate::sources::sampling::SamplingKey;
use crate::table_definition::TableIdentity;
use crate::table_engine::TableEngine;

#[derive(Debug)]
pub struct MergeTreeProvider {
    identity: RwLock<TableIdentity>,
    pub data: Arc<MergeTreeTable>,
    /// The engine the table was created with (MergeTree, ReplacingMergeTree, Log...).
    pub engine: TableEngine,
    /// `DEFAULT` expressions by column, for inserts that leave columns out.
    defaults: HashMap<String, Expr>,
    /// `SAMPLE BY`, where the table has one.
    sampling: Option<SamplingKey>,
    background: Arc<Background>,
}

/// A table's background threads: at most one merging and one mutating.
#[derive(Debug, Default)]
struct Background {
    /// Set while a background merge of the table runs.
    merging: AtomicBool,
    /// Set while a background thread runs the table's mutations.
    mutating: AtomicBool,
    /// Set while a thread waits to try failed mutations again.
    retrying: AtomicBool,
    /// Set while a background thread applies the table's TTL rules and
    /// moves by free space.
    expiring: AtomicBool,
    /// Set when that work was asked for while it ran: it runs once more.
    expiring_again: AtomicBool,
}

/// How often a table with TTL rules checks whether a rule's time came
/// without an insert to prompt it.
const TTL_CHECK_INTERVAL: Duration = Duration::from_secs(30);

impl MergeTreeProvider {
    pub fn new(
        identity: TableIdentity,
        engine: TableEngine,
        data: MergeTreeTable,
        defaults: HashMap<String, Expr>,
    ) -> Self {
        let provider = MergeTreeProvider {
            identity: RwLock::new(identity),
            data: Arc::new(data),
            engine,
            defaults,
            sampling: None,
            background: Arc::default(),
        };
        if provider.data.has_ttl() || provider.data.moves_by_space() {
            watch_ttl(&provider.data, &provider.background);
        }
        provider
    }

    pub fn with_sampling(mut self, sampling: Option<SamplingKey>) -> Self {
        self.sampling = sampling;
        self
    }

    pub fn sampling(&self) -> Option<&SamplingKey> {
        self.sampling.as_ref()
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }

    /// Retires this table object for good (ALTER, DROP): later inserts fail,
    /// and no merge runs or starts once this returns.
    pub fn close(&self) {
        self.data.close();
        let background = &self.background;
        for flag in [
            &background.merging,
            &background.mutating,
            &background.expiring,
        ] {
            while flag.swap(true, Ordering::AcqRel) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// Runs pending mutations in the background (see [`schedule_mutations`]).
    pub fn schedule_mutations(&self) {
        schedule_mutations(&self.data, &self.background);
    }

    /// Runs pending mutations now, on this thread; when one fails it is
    /// also tried again later in the background (see [`retry_mutations`]).
    pub fn run_mutations(&self) -> strata_common::Result<()> {
        let result = self.data.run_mutations();
        if result.is_err() {
            retry_mutations(&self.data, &self.background, MUTATION_RETRY_FIRST);
        }
        result
    }

    /// Applies the TTL rules whose time came, now, on this thread: after
    /// MODIFY TTL and before OPTIMIZE, as ClickHouse materializes TTL.
    pub fn apply_ttl_now(&self) -> strata_common::Result<()> {
        while self.background.expiring.swap(true, Ordering::AcqRel) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let applied = self.data.apply_ttl(unix_now());
        self.background.expiring.store(false, Ordering::Release);
        applied.map(|_| ())
    }

    /// Rows and bytes on disk of the active parts, for system.tables.
    pub fn totals(&self) -> (u64, u64) {
        let parts = self.data.snapshot();
        (
            parts.iter().map(|p| p.part.rows).sum(),
            parts.iter().map(|p| p.part.bytes_on_disk()).sum(),
        )
    }

    /// OPTIMIZE TABLE: merges the parts of each partition (or of
    /// `partition_id` only) once; with `final_`, down to one part per
    /// partition, rewriting a partition's single part too, as ClickHouse does.
    /// The merges keep one of rows equal in the `deduplicate` columns.
    pub fn optimize(
        &self,
        partition_id: Option<&str>,
        final_: bool,
        deduplicate: Option<&[usize]>,
    ) -> strata_common::Result<()> {
        if self.data.merges_stopped() {
            return Err(strata_common::StrataError::new(
                strata_common::ErrorCode::ABORTED,
                "Cancelled merging parts",
            ));
        }
        if final_ {
            // Parts merge only once they reflect the same mutations.
            self.run_mutations()?;
        }
        let at_once = self.data.settings().max_parts_to_merge_at_once.max(2);
        for (id, parts) in self.data.parts_by_partition() {
            if partition_id.is_some_and(|wanted| wanted != id) {
                continue;
            }
            if !final_ {
                if parts.len() >= 2 {
                    self.data
                        .merge_deduplicating(&parts[..parts.len().min(at_once)], deduplicate)?;
                }
                continue;
            }
            let mut current = parts;
            loop {
                let merged = self
                    .data
                    .merge_deduplicating(&current[..current.len().min(at_once)], deduplicate)?;
                if current.len() <= at_once && merged {
                    break;
                }
                if !merged {
                    // A background merge holds some of these parts; its
                    // result is merged on the next round.
                    std::thread::sleep(Duration::from_millis(5));
                }
                current = self
                    .data
                    .parts_by_partition()
                    .remove(&id)
                    .unwrap_or_default();
                if current.is_empty() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// `SELECT ... FINAL`: each partition's rows combined as the engine
    /// combines them, then the query's filters and projection (a filter on
    /// a column the combination changes must see the combined rows).
    fn scan_final(
        &self,
        state: &dyn Session,
        query: Option<Arc<QueryContext>>,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if !self.engine.supports_final() {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_FINAL,
                format!("Storage {} doesn't support FINAL", self.engine.name()),
            )
            .into_datafusion());
        }
        let counter = query.map(|q| q as Arc<dyn ReadCounter>);
        let name = self.identity.read().qualified_name();
        let mut plan: Arc<dyn ExecutionPlan> =
            Arc::new(FinalScanExec::new(name, Arc::clone(&self.data), counter));
        let schema = self.data.schema();
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        if let Some(condition) = conjunction(filters.iter().cloned()) {
            let predicate = state.create_physical_expr(condition, &df_schema)?;
            plan = Arc::new(FilterExec::try_new(predicate, plan)?);
        }
        if let Some(columns) = projection {
            let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = columns
                .iter()
                .map(|&i| {
                    let name = schema.field(i).name().clone();
                    (
                        Arc::new(Column::new(&name, i)) as Arc<dyn PhysicalExpr>,
                        name,
                    )
                })
                .collect();
            plan = Arc::new(ProjectionExec::try_new(exprs, plan)?);
        }
        Ok(plan)
    }

    /// A scan of `schema` (the table's columns followed by `virtuals`)
    /// returning the `projection` columns of the rows that pass `filters`.
    fn scan_with(
        &self,
        state: &dyn Session,
        schema: &SchemaRef,
        virtuals: &[VirtualColumn],
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mut read: Vec<usize> = match projection {
            Some(columns) => columns.clone(),
            None => (0..schema.fields().len()).collect(),
        };
        let returned = read.len();
        let (pruning, filter) = match conjunction(filters.iter().cloned()) {
            Some(expr) => {
                let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
                let pruning = state.create_physical_expr(expr.clone(), &df_schema)?;
                let mut filter_columns: Vec<usize> = collect_columns(&pruning)
                    .iter()
                    .map(|c| c.index())
                    .collect();
                filter_columns.sort_unstable();
                let mut positions = Vec::with_capacity(filter_columns.len());
                for &column in &filter_columns {
                    let position = read.iter().position(|&c| c == column).unwrap_or_else(|| {
                        read.push(column);
                        read.len() - 1
                    });
                    positions.push(position);
                }
                let filter_schema = schema.project(&filter_columns)?;
                let predicate = specialize(
                    state
                        .create_physical_expr(expr, &DFSchema::try_from(filter_schema.clone())?)?,
                    &filter_schema,
                )?;
                (
                    Some(pruning),
                    Some(ScanFilter {
                        predicate,
                        columns: positions,
                    }),
                )
            }
            None => (None, None),
        };
        let parts = self.data.snapshot();
        let total_granules = parts.iter().map(|p| p.granules()).sum();
        let selection = select_granules(
            schema,
            self.data.keys(),
            virtuals,
            &parts,
            pruning.as_ref(),
            Summaries::Written,
        )
        .map_err(StrataError::into_datafusion)?;
        let ranges = &selection.ranges;
        count_selected(ranges);
        let columns = ScanColumns {
            read: Arc::new(schema.project(&read)?),
            returned,
        };
        let query = state.config().get_extension::<QueryContext>();
        let selected_rows: u64 = ranges.iter().map(GranuleRange::rows).sum();
        if let Some(query) = &query {
            query.add_rows_to_read(selected_rows);
        }
        let cache = cache_read(state, ranges, selected_rows, &columns.read);
        let prefetch = query
            .as_ref()
            .is_none_or(|query| query.settings.remote_filesystem_read_prefetch());
        let counter = query.map(|query| query as Arc<dyn ReadCounter>);
        // The Log family reads in insertion order, as one stream.
        let streams = match self.engine.is_log() {
            true => 1,
            false => state.config().target_partitions(),
        };
        Ok(Arc::new(MergeTreeScanExec::new(
            self.identity.read().qualified_name(),
            columns,
            filter,
            counter,
            cache,
            Arc::clone(self.data.past()),
            virtuals,
            selection,
            (parts.len(), total_granules),
            streams,
            prefetch,
        )))
    }
}

#[async_trait]
impl TableProvider for MergeTreeProvider {
    fn schema(&self) -> SchemaRef {
        Arc::clone(self.data.schema())
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.defaults.get(column)
    }

    /// Rows and the primary key's span, for the join order's estimates.
    fn statistics(&self) -> Option<Statistics> {
        Some(table_statistics(&self.data))
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // The scan applies filters itself (and chooses granules by them),
        // except volatile ones, which must run once per row.
        Ok(filters
            .iter()
            .map(|filter| {
                if filter.is_volatile() {
                    TableProviderFilterPushDown::Unsupported
                } else {
                    TableProviderFilterPushDown::Exact
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let query = state.config().get_extension::<QueryContext>();
        let identity = self.identity();
        let final_setting = |q: &QueryContext| q.settings.r#final() && self.engine.supports_final();
        if query
            .as_ref()
            .is_some_and(|q| q.reads_final(&identity.database, &identity.name) || final_setting(q))
        {
            return self.scan_final(state, query, projection, filters);
        }
        self.scan_with(state, self.data.schema(), &[], projection, filters)
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if insert_op != InsertOp::Append {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("{insert_op} into a MergeTree table is not supported"),
            )
            .into_datafusion());
        }
        let sink = MergeTreeSink {
            data: Arc::clone(&self.data),
            background: Arc::clone(&self.background),
            name: self.identity.read().qualified_name(),
        };
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }
}

/// A MergeTree table with its virtual columns after its own, for a query
/// that names them; read-only, so an INSERT never sees the extra columns.
#[derive(Debug)]
pub struct WithVirtualColumns {
    table: Arc<MergeTreeProvider>,
    schema: SchemaRef,
    virtuals: Vec<VirtualColumn>,
}

impl WithVirtualColumns {
    pub fn new(table: Arc<MergeTreeProvider>) -> Self {
        let own = table.data.schema();
        let virtuals = virtual_columns(own);
        let fields = own
            .fields()
            .iter()
            .cloned()
            .chain(virtuals.iter().map(|column| Arc::new(column.field())));
        let schema = Arc::new(Schema::new_with_metadata(
            fields.collect::<Vec<_>>(),
            own.metadata().clone(),
        ));
        WithVirtualColumns {
            table,
            schema,
            virtuals,
        }
    }

    /// The virtual columns' names, which `SELECT *` leaves out.
    pub fn virtual_names(&self) -> Vec<String> {
        self.virtuals.iter().map(|c| c.name().to_string()).collect()
    }
}

#[async_trait]
impl TableProvider for WithVirtualColumns {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        self.table.table_type()
    }

    fn statistics(&self) -> Option<Statistics> {
        let mut statistics = self.table.statistics()?;
        let unknown = Statistics::unknown_column(&self.schema);
        statistics
            .column_statistics
            .extend(unknown.into_iter().skip(statistics.column_statistics.len()));
        Some(statistics)
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.table.supports_filters_pushdown(filters)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.table
            .scan_with(state, &self.schema, &self.virtuals, projection, filters)
    }
}

/// How a scan of `ranges` (`rows` rows) reading `columns` uses the data cache: the tiers
/// the query's settings name, adding to them only when the scan is within
/// `merge_tree_max_rows_to_use_cache` and `merge_tree_max_bytes_to_use_cache`
/// (its bytes are the selected granules' share of each column's file).
fn cache_read(
    state: &dyn Session,
    ranges: &[GranuleRange],
    rows: u64,
    columns: &Schema,
) -> Option<CacheRead> {
    let instance = state.config().get_extension::<Instance>()?;
    let query = state.config().get_extension::<QueryContext>()?;
    let settings = &query.settings;
    // The bytes are only worked out for a scan small enough by its rows.
    let admit = rows <= settings.merge_tree_max_rows_to_use_cache()
        && selected_bytes(ranges, columns) <= settings.merge_tree_max_bytes_to_use_cache();
    Some(CacheRead {
        cache: Arc::clone(&instance.cache),
        hot: settings.use_uncompressed_cache(),
        warm: settings.use_page_cache_for_disks_without_file_cache(),
        admit,
        files: if !settings.enable_filesystem_cache() {
            CacheUse::Bypass
        } else if settings.read_from_filesystem_cache_if_exists_otherwise_bypass_cache() {
            CacheUse::IfExists
        } else {
            CacheUse::Fill
        },
    })
}

/// The selected granules' share of each read column's file, over `ranges`.
fn selected_bytes(ranges: &[GranuleRange], columns: &Schema) -> u64 {
    ranges
        .iter()
        .map(|range| {
            let part = &range.part.part;
            let column_bytes: u64 = columns
                .fields()
                .iter()
                .map(|f| part.column_data_bytes(f.name()))
                .sum();
            column_bytes * range.granules.len() as u64 / part.granules.len().max(1) as u64
        })
        .sum()
}

/// Counts what a scan chose to read: parts, granules (marks) and rows.
fn count_selected(ranges: &[GranuleRange]) {
    let mut parts: Vec<&Arc<DataPart>> = ranges.iter().map(|r| &r.part).collect();
    parts.dedup_by(|a, b| Arc::ptr_eq(a, b));
    events::add(Event::SelectedParts, parts.len() as u64);
    events::add(
        Event::SelectedMarks,
        ranges.iter().map(|r| r.granules.len() as u64).sum(),
    );
    events::add(
        Event::SelectedRows,
        ranges.iter().map(GranuleRange::rows).sum(),
    );
}

impl MergeTreeProvider {
    /// `SYSTEM STOP | START MERGES`: starting looks for a merge at once.
    pub fn set_merges_stopped(&self, stopped: bool) {
        self.data.set_merges_stopped(stopped);
        if !stopped {
            schedule_merge(&self.data, &self.background);
        }
    }
}

/// Starts a background merge if the selector finds one and none runs for
/// this table; it goes on while the selector finds more.
fn schedule_merge(data: &Arc<MergeTreeTable>, background: &Arc<Background>) {
    let Some(sources) = data.next_merge() else {
        return;
    };
    if background.merging.swap(true, Ordering::AcqRel) {
        return;
    }
    let data = Arc::clone(data);
    let background = Arc::clone(background);
    std::thread::spawn(move || {
        let mut next = Some(sources);
        loop {
            while let Some(sources) = next {
                // A failed background merge leaves the parts as they were.
                if data.merge(&sources).is_err() {
                    background.merging.store(false, Ordering::Release);
                    return;
                }
                next = data.next_merge();
            }
            background.merging.store(false, Ordering::Release);
            // An insert that committed just before the flag dropped found it
            // set and left its merge to this thread.
            next = data.next_merge();
            if next.is_none() || background.merging.swap(true, Ordering::AcqRel) {
                return;
            }
        }
    });
}

/// Runs the table's pending mutations on a background thread unless one
/// already does. A mutation that fails stays pending with its reason shown
/// in system.mutations and is tried again later (see [`retry_mutations`]).
fn schedule_mutations(data: &Arc<MergeTreeTable>, background: &Arc<Background>) {
    start_mutations(data, background, MUTATION_RETRY_FIRST);
}

/// The wait before a failed mutation is tried again, doubled after each
/// failure up to the second: a remote disk that was down or memory that was
/// short may be back.
const MUTATION_RETRY_FIRST: Duration = Duration::from_secs(1);
const MUTATION_RETRY_MAX: Duration = Duration::from_secs(60);

fn start_mutations(
    data: &Arc<MergeTreeTable>,
    background: &Arc<Background>,
    retry_after: Duration,
) {
    if !data.has_mutation_work() || background.mutating.swap(true, Ordering::AcqRel) {
        return;
    }
    let data = Arc::clone(data);
    let background = Arc::clone(background);
    std::thread::spawn(move || {
        loop {
            let result = data.run_mutations();
            background.mutating.store(false, Ordering::Release);
            if result.is_err() {
                retry_mutations(&data, &background, retry_after);
                return;
            }
            // Work that arrived as the flag dropped was left to this thread.
            if !data.has_mutation_work() || background.mutating.swap(true, Ordering::AcqRel) {
                return;
            }
        }
    });
}

/// Runs the table's mutations again `after` a failure, unless a thread
/// already waits to, while the table object lives and is open; the table
/// is not held meanwhile.
fn retry_mutations(data: &Arc<MergeTreeTable>, background: &Arc<Background>, after: Duration) {
    if background.retrying.swap(true, Ordering::AcqRel) {
        return;
    }
    let data = Arc::downgrade(data);
    let background = Arc::downgrade(background);
    std::thread::spawn(move || {
        std::thread::sleep(after);
        let (Some(data), Some(background)) = (data.upgrade(), background.upgrade()) else {
            return;
        };
        background.retrying.store(false, Ordering::Release);
        if !data.is_closed() {
            start_mutations(&data, &background, (after * 2).min(MUTATION_RETRY_MAX));
        }
    });
}

/// Applies the table's TTL rules, then its policy's `move_factor`, on a
/// background thread unless one already does; a failure leaves the parts
/// as they were until the next try.
fn schedule_ttl(data: &Arc<MergeTreeTable>, background: &Arc<Background>) {
    if !data.has_ttl() && !data.moves_by_space() {
        return;
    }
    background.expiring_again.store(true, Ordering::Release);
    if background.expiring.swap(true, Ordering::AcqRel) {
        return;
    }
    let data = Arc::clone(data);
    let background = Arc::clone(background);
    std::thread::spawn(move || {
        loop {
            background.expiring_again.store(false, Ordering::Release);
            apply_ttl_and_moves(&data);
            background.expiring.store(false, Ordering::Release);
            // Asked for again while this ran (an insert's new part), unless
            // another thread took the work as the flag dropped.
            if !background.expiring_again.load(Ordering::Acquire)
                || background.expiring.swap(true, Ordering::AcqRel)
            {
                return;
            }
        }
    });
}

fn apply_ttl_and_moves(data: &MergeTreeTable) {
    if let Err(error) = data.apply_ttl(unix_now()) {
        log::warn!("TTL of {}: {error}", data.dir().display());
    }
    if data.moves_by_space()
        && let Err(error) = data.apply_move_factor()
    {
        log::warn!("Moves by free space of {}: {error}", data.dir().display());
    }
}

/// Checks the table's TTL rules every [`TTL_CHECK_INTERVAL`] while the
/// table object lives and is open.
fn watch_ttl(data: &Arc<MergeTreeTable>, background: &Arc<Background>) {
    let data = Arc::downgrade(data);
    let background = Arc::downgrade(background);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(TTL_CHECK_INTERVAL);
            let (Some(data), Some(background)) = (data.upgrade(), background.upgrade()) else {
                return;
            };
            if data.is_closed() {
                return;
            }
            schedule_ttl(&data, &background);
        }
    });
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Gathers inserted rows into blocks of `max_insert_block_size` rows and
/// writes each as parts; the parts become visible together at the end, or
/// are removed if any block fails.
struct MergeTreeSink {
    data: Arc<MergeTreeTable>,
    background: Arc<Background>,
    name: String,
}

impl fmt::Debug for MergeTreeSink {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "MergeTreeSink({})", self.name)
    }
}

impl DisplayAs for MergeTreeSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "MergeTreeSink: table={}", self.name)
    }
}

type BlockWrite = tokio::task::JoinHandle<strata_common::Result<Vec<Arc<DataPart>>>>;

impl MergeTreeSink {
    /// Starts writing one block's parts on a blocking thread.
    fn spawn_write(&self, insert: &Arc<RemovalList>, batches: Vec<RecordBatch>) -> BlockWrite {
        let data = Arc::clone(&self.data);
        let insert = Arc::clone(insert);
        // The block's writes count for the inserting query.
        let query = events::current();
        tokio::task::spawn_blocking(move || {
            events::in_scope(query.as_ref(), || {
                // The planner's literal typing can leave a narrower type than the column's.
                let batches = batches
                    .iter()
                    .map(|batch| conform(batch, data.schema()))
                    .collect::<strata_common::Result<Vec<_>>>()?;
                let block = concat_batches(data.schema(), &batches)?;
                drop(batches);
                data.write(&insert, &block)
            })
        })
    }
}

/// The parts a finished block write produced, or why it failed.
async fn finish_write(write: BlockWrite) -> Result<Vec<Arc<DataPart>>> {
    write
        .await
        .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, format!("Insert task failed: {e}")))
        .and_then(|parts| parts)
        .map_err(StrataError::into_datafusion)
}

/// `batch` with its columns cast to the table's types, by position.
fn conform(batch: &RecordBatch, schema: &SchemaRef) -> strata_common::Result<RecordBatch> {
    if batch.num_columns() != schema.fields().len() {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_COLUMNS_DOESNT_MATCH,
            format!(
                "Inserted rows have {} columns, the table has {}",
                batch.num_columns(),
                schema.fields().len()
            ),
        ));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                Ok(Arc::clone(column))
            } else {
                Ok(datafusion::arrow::compute::cast(column, field.data_type())?)
            }
        })
        .collect::<strata_common::Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
}

#[async_trait]
impl DataSink for MergeTreeSink {
    fn metrics(&self) -> Option<MetricsSet> {
        None
    }

    fn schema(&self) -> &SchemaRef {
        self.data.schema()
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let query = context.session_config().get_extension::<QueryContext>();
        let block_rows = query.as_ref().map_or(1_048_449, |q| {
            q.settings.max_insert_block_size().max(1) as usize
        });
        // Blocks are sorted, compressed and written while the next ones
        // arrive, up to one per thread at a time.
        let writers = context.session_config().target_partitions().max(1);
        let insert = Arc::new(self.data.begin_insert());
        let mut in_flight: VecDeque<BlockWrite> = VecDeque::new();
        let mut written: Vec<Arc<DataPart>> = Vec::new();
        let mut pending: Vec<RecordBatch> = Vec::new();
        let mut pending_rows = 0usize;
        let mut total = 0u64;
        let mut inserted_bytes = 0u64;
        let mut result: Result<()> = async {
            while let Some(batch) = data.next().await {
                let batch = batch?;
                pending_rows += batch.num_rows();
                total += batch.num_rows() as u64;
                inserted_bytes += batch.get_array_memory_size() as u64;
                pending.push(batch);
                if pending_rows >= block_rows {
                    pending_rows = 0;
                    in_flight.push_back(self.spawn_write(&insert, std::mem::take(&mut pending)));
                    while in_flight.len() >= writers {
                        let oldest = in_flight.pop_front().expect("a write in flight");
                        written.extend(finish_write(oldest).await?);
                    }
                }
            }
            if !pending.is_empty() {
                in_flight.push_back(self.spawn_write(&insert, std::mem::take(&mut pending)));
            }
            Ok(())
        }
        .await;
        // Every started write ends before the insert does, so a failure
        // removes all of the insert's parts.
        for write in in_flight {
            match finish_write(write).await {
                Ok(parts) => written.extend(parts),
                Err(error) => {
                    if result.is_ok() {
                        result = Err(error);
                    }
                }
            }
        }
        if let Err(error) = result {
            self.data.discard(&insert, written);
            return Err(error);
        }
        let bytes: u64 = written.iter().map(|p| p.part.bytes_on_disk()).sum();
        self.data
            .commit(&insert, written)
            .map_err(StrataError::into_datafusion)?;
        if let Some(query) = &query {
            query.add_written(total, bytes);
        }
        events::add(Event::InsertedRows, total);
        events::add(Event::InsertedBytes, inserted_bytes);
        schedule_merge(&self.data, &self.background);
        // An insert that took its block numbers before a mutation did
        // commits after it: its parts still need that mutation.
        schedule_mutations(&self.data, &self.background);
        schedule_ttl(&self.data, &self.background);
        Ok(total)
    }
}
