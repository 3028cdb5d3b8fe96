//! Reading a table: the selected granule ranges dealt out to parallel
//! streams, each reading only the columns the query needs, a few granules
//! per batch. The query's filter runs inside the scan, as ClickHouse's
//! PREWHERE: its columns are read first, and the other columns only for
//! the granules where some row passes, so a selective filter on one column
//! leaves the others mostly unread.

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::{and, filter_record_batch, prep_null_mask_filter};
use datafusion::arrow::datatypes::{Fields, Schema, SchemaRef};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result as DfResult, Statistics};
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::coop::make_cooperative;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType, SchedulingType};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;
use futures::stream::BoxStream;
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, QueryEvents, Scoped};

use super::data_part::PastColumns;
use super::pruning::{GranuleRange, PruningReport, Selection};
use super::virtual_columns::VirtualColumn;
use crate::cache::CacheRead;

/// Rows a scan aims to put in one batch, as ClickHouse's `max_block_size`.
pub const ROWS_PER_BATCH: usize = 65_536;

/// Compressed bytes a scan of parts on a remote disk keeps in flight, split
/// between its streams: each chunk read ahead is a request in flight while
/// the consumer works, and an object store answers in tens of milliseconds,
/// so a scan needs a few dozen of them to run at the speed of its CPUs.
pub const REMOTE_READ_AHEAD_BYTES: u64 = 32 << 20;

/// Chunks a stream reads ahead at least (a wide table's chunks are large)
/// and at most (a narrow one's are small; more brought nothing measurable).
pub const REMOTE_READ_AHEAD_CHUNKS: RangeInclusive<usize> = 2..=16;

/// Columns of one chunk a stream reads at once from a remote disk.
pub const REMOTE_COLUMNS_IN_FLIGHT: usize = 8;

/// Told what a scan reads as it reads it: ClickHouse's rows and bytes read,
/// counted before the filter drops any row. An error (a cancelled query)
/// stops the scan.
pub trait ReadCounter: fmt::Debug + Send + Sync {
    fn count(&self, rows: u64, columns: &[ArrayRef]) -> DfResult<()>;
}

/// The query's filter as the scan applies it.
#[derive(Debug, Clone)]
pub struct ScanFilter {
    /// The conjunction of the filters, over the columns of `columns`, in that order.
    pub predicate: Arc<dyn PhysicalExpr>,
    /// Where the predicate's columns are among the scan's read columns.
    pub columns: Vec<usize>,
}

/// The columns a scan reads and returns.
#[derive(Debug, Clone)]
pub struct ScanColumns {
    /// Columns to read as the table defines them: those returned, then
    /// those only the filter needs.
    pub read: SchemaRef,
    /// How many leading columns of `read` the scan returns.
    pub returned: usize,
}

#[derive(Debug)]
pub struct MergeTreeScanExec {
    /// The table's name, for EXPLAIN.
    table: String,
    /// Reads chunks for every stream.
    reader: Arc<ChunkReader>,
    /// Granule ranges for each output partition.
    streams: Vec<Vec<GranuleRange>>,
    /// Whether streams that read remote parts read ahead
    /// (`remote_filesystem_read_prefetch`).
    prefetch: bool,
    /// Granules that pruning kept, and those it could have read.
    selected_granules: usize,
    total_granules: usize,
    /// Parts read, and those the table had when the scan was planned.
    selected_parts: usize,
    total_parts: usize,
    /// How each pruning step narrowed the read.
    report: PruningReport,
    properties: Arc<PlanProperties>,
}

impl MergeTreeScanExec {
    /// A scan of `ranges` split over at most `streams` parallel streams.
    /// Columns named as one of `virtuals` are made from the parts, not read.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        table: String,
        columns: ScanColumns,
        filter: Option<ScanFilter>,
        counter: Option<Arc<dyn ReadCounter>>,
        cache: Option<CacheRead>,
        past: Arc<PastColumns>,
        virtuals: &[VirtualColumn],
        selection: Selection,
        totals: (usize, usize),
        streams: usize,
        prefetch: bool,
    ) -> Self {
        let Selection { ranges, report } = selection;
        let (total_parts, total_granules) = totals;
        assert!(
            columns.returned <= columns.read.fields().len(),
            "returned columns are read columns"
        );
        if let Some(filter) = &filter {
            assert!(
                filter
                    .columns
                    .iter()
                    .all(|&c| c < columns.read.fields().len()),
                "the filter reads read columns"
            );
        }
        let schema = Arc::new(Schema::new_with_metadata(
            columns.read.fields()[..columns.returned].to_vec(),
            columns.read.metadata().clone(),
        ));
        let virtuals = columns
            .read
            .fields()
            .iter()
            .map(|field| {
                virtuals
                    .iter()
                    .copied()
                    .find(|column| column.name() == field.name())
            })
            .collect();
        let selected_granules = ranges.iter().map(|r| r.granules.len()).sum();
        let selected_parts = ranges
            .iter()
            .map(|r| Arc::as_ptr(&r.part))
            .collect::<std::collections::HashSet<_>>()
            .len();
        let split = split_ranges(ranges, streams.max(1));
        let properties = Arc::new(
            PlanProperties::new(
                EquivalenceProperties::new(Arc::clone(&schema)),
                Partitioning::UnknownPartitioning(split.len().max(1)),
                EmissionType::Incremental,
                Boundedness::Bounded,
            )
            .with_scheduling_type(SchedulingType::Cooperative),
        );
        MergeTreeScanExec {
            table,
            reader: Arc::new(ChunkReader {
                schema,
                columns,
                filter,
                counter,
                cache,
                past,
                virtuals,
            }),
            streams: split,
            prefetch,
            selected_granules,
            total_granules,
            selected_parts,
            total_parts,
            report,
            properties,
        }
    }

    /// The table's name, as EXPLAIN shows it.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Parts and granules read, of those the table had.
    pub fn selected(&self) -> ((usize, usize), (usize, usize)) {
        (
            (self.selected_parts, self.total_parts),
            (self.selected_granules, self.total_granules),
        )
    }

    pub fn report(&self) -> &PruningReport {
        &self.report
    }
}

/// Deals `ranges` into `streams` shares of about equal granule counts,
/// splitting a range where a share fills up.
fn split_ranges(ranges: Vec<GranuleRange>, streams: usize) -> Vec<Vec<GranuleRange>> {
    let total: usize = ranges.iter().map(|r| r.granules.len()).sum();
    if total == 0 {
        return vec![Vec::new()];
    }
    let streams = streams.min(total);
    let per_stream = total.div_ceil(streams);
    let mut shares = vec![Vec::new()];
    let mut room = per_stream;
    for range in ranges {
        let mut start = range.granules.start;
        while start < range.granules.end {
            if room == 0 {
                shares.push(Vec::new());
                room = per_stream;
            }
            let end = range.granules.end.min(start + room);
            room -= end - start;
            shares.last_mut().expect("a share").push(GranuleRange {
                part: Arc::clone(&range.part),
                granules: start..end,
            });
            start = end;
        }
    }
    shares
}

impl DisplayAs for MergeTreeScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let columns: Vec<&str> = self
            .reader
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        write!(
            f,
            "MergeTreeScanExec: table={}, columns=[{}], granules={}/{}",
            self.table,
            columns.join(", "),
            self.selected_granules,
            self.total_granules
        )?;
        if let Some(filter) = &self.reader.filter {
            write!(f, ", prewhere={}", filter.predicate)?;
        }
        Ok(())
    }
}

impl ExecutionPlan for MergeTreeScanExec {
    fn name(&self) -> &str {
        "MergeTreeScanExec"
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

    /// The rows of the selected granules: at most what the scan returns,
    /// exact when no filter drops rows within them.
    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> DfResult<Arc<Statistics>> {
        let streams = match args.partition() {
            Some(p) => self.streams.get(p..=p).unwrap_or_default(),
            None => &self.streams[..],
        };
        let rows: u64 = streams.iter().flatten().map(GranuleRange::rows).sum();
        let mut statistics = Statistics::new_unknown(&self.reader.schema);
        statistics.num_rows = Precision::Inexact(rows as usize);
        Ok(Arc::new(statistics))
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let share = self.streams.get(partition).cloned().unwrap_or_default();
        let chunks: Vec<GranuleRange> = share.into_iter().flat_map(chunk).collect();
        let query = context.session_config().get_extension::<QueryEvents>();
        let remote = chunks.iter().any(is_remote);
        let batches = match self.prefetch && remote {
            true => {
                let columns = self.reader.columns.read.fields();
                let depth = read_ahead_depth(&chunks, columns, self.streams.len());
                read_ahead(Arc::clone(&self.reader), chunks, depth, query.clone())
            }
            false => {
                let reader = Arc::clone(&self.reader);
                futures::stream::iter(chunks)
                    .filter_map(move |range| {
                        let read = reader.read(&range);
                        async move { read.transpose() }
                    })
                    .boxed()
            }
        };
        let batches = Scoped::new(batches, query);
        // Reads are synchronous: yield between chunks so a long scan shares
        // its worker thread (see NumbersExec).
        Ok(make_cooperative(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.reader.schema),
            batches,
        ))))
    }
}

/// Chunks one of `streams` streams reads ahead: its share of
/// [`REMOTE_READ_AHEAD_BYTES`] over the compressed bytes of `columns` in
/// its average chunk (a part's column bytes spread evenly over its rows).
fn read_ahead_depth(chunks: &[GranuleRange], columns: &Fields, streams: usize) -> usize {
    let bytes: u64 = chunks
        .iter()
        .map(|range| {
            let part = &range.part.part;
            let column_bytes: u64 = columns
                .iter()
                .map(|field| part.column_data_bytes(field.name()))
                .sum();
            column_bytes * range.rows() / part.rows.max(1)
        })
        .sum();
    let per_chunk = (bytes / chunks.len().max(1) as u64).max(1);
    let share = REMOTE_READ_AHEAD_BYTES / streams.max(1) as u64;
    let depth = usize::try_from(share / per_chunk).unwrap_or(usize::MAX);
    depth.clamp(
        *REMOTE_READ_AHEAD_CHUNKS.start(),
        *REMOTE_READ_AHEAD_CHUNKS.end(),
    )
}

/// The batches of `chunks`, each read on a blocking thread, up to `depth`
/// at once, returned in order.
fn read_ahead(
    reader: Arc<ChunkReader>,
    chunks: Vec<GranuleRange>,
    depth: usize,
    query: Option<Arc<QueryEvents>>,
) -> BoxStream<'static, DfResult<RecordBatch>> {
    futures::stream::iter(chunks)
        .map(move |range| {
            let (reader, query) = (Arc::clone(&reader), query.clone());
            tokio::task::spawn_blocking(move || {
                events::in_scope(query.as_ref(), || reader.read(&range))
            })
        })
        .buffered(depth)
        .filter_map(|joined| async move {
            match joined {
                Ok(read) => read.transpose(),
                Err(error) => Some(Err(DataFusionError::External(Box::new(error)))),
            }
        })
        .boxed()
}

/// `range` cut into pieces of about [`ROWS_PER_BATCH`] rows.
fn chunk(range: GranuleRange) -> Vec<GranuleRange> {
    let mut pieces = Vec::new();
    let mut start = range.granules.start;
    while start < range.granules.end {
        let mut end = start;
        let mut rows = 0u64;
        while end < range.granules.end && (rows == 0 || rows < ROWS_PER_BATCH as u64) {
            rows += range.part.part.granules[end];
            end += 1;
        }
        pieces.push(GranuleRange {
            part: Arc::clone(&range.part),
            granules: start..end,
        });
        start = end;
    }
    pieces
}

/// Reads a scan's chunks: the filter's columns, then the rest where rows
/// pass.
#[derive(Debug)]
struct ChunkReader {
    /// The returned columns.
    schema: SchemaRef,
    columns: ScanColumns,
    filter: Option<ScanFilter>,
    counter: Option<Arc<dyn ReadCounter>>,
    cache: Option<CacheRead>,
    /// How parts written under an earlier definition read a column.
    past: Arc<PastColumns>,
    /// For each read column, the virtual column it is, if any.
    virtuals: Vec<Option<VirtualColumn>>,
}

impl ChunkReader {
    /// The rows of `range` that pass the filter, or `None` if none does.
    fn read(&self, range: &GranuleRange) -> DfResult<Option<RecordBatch>> {
        let exists = range
            .part
            .row_exists(range.granules.clone())
            .map_err(StrataError::into_datafusion)?;
        let Some(filter) = &self.filter else {
            let returned: Vec<usize> = (0..self.columns.returned).collect();
            let columns = self
                .read_columns(&returned, range)
                .map_err(StrataError::into_datafusion)?;
            self.count(range.rows(), &columns)?;
            let batch = self.batch(range, columns)?;
            return match exists {
                Some(exists) => Ok(Some(filter_record_batch(&batch, &exists)?)),
                None => Ok(Some(batch)),
            };
        };
        let rows = range.rows() as usize;
        let filter_columns = self
            .read_columns(&filter.columns, range)
            .map_err(StrataError::into_datafusion)?;
        self.count(rows as u64, &filter_columns)?;
        let filter_fields: Vec<_> = filter
            .columns
            .iter()
            .map(|&c| Arc::clone(&self.columns.read.fields()[c]))
            .collect();
        let filter_batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(filter_fields)),
            filter_columns.clone(),
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        let mask = filter.predicate.evaluate(&filter_batch)?.into_array(rows)?;
        let Some(mask) = mask.as_any().downcast_ref::<BooleanArray>() else {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER,
                format!(
                    "Illegal type {} of column for filter. Must be UInt8 or Nullable(UInt8).",
                    mask.data_type()
                ),
            )
            .into_datafusion());
        };
        let mask = match mask.null_count() {
            0 => mask.clone(),
            _ => prep_null_mask_filter(mask),
        };
        // Rows a lightweight DELETE masked pass no filter.
        let mask = match &exists {
            Some(exists) => and(&mask, exists)?,
            None => mask,
        };
        let (Some(first), Some(last)) = (
            mask.values().set_indices().next(),
            mask.values().set_indices().last(),
        ) else {
            return Ok(None);
        };
        // Only the granules from the first passing row's to the last's.
        let passing = passing_granules(range, first, last);
        let offset = (range.part.part.granules[range.granules.start..passing.granules.start]
            .iter()
            .sum::<u64>()) as usize;
        let length = passing.rows() as usize;
        let mut columns: Vec<Option<ArrayRef>> = vec![None; self.columns.read.fields().len()];
        for (&column, array) in filter.columns.iter().zip(filter_columns) {
            columns[column] = Some(array.slice(offset, length));
        }
        let unread: Vec<usize> = (0..self.columns.returned)
            .filter(|&column| columns[column].is_none())
            .collect();
        let rest = self
            .read_columns(&unread, &passing)
            .map_err(StrataError::into_datafusion)?;
        for (&column, array) in unread.iter().zip(&rest) {
            columns[column] = Some(Arc::clone(array));
        }
        self.count(0, &rest)?;
        let returned = columns
            .into_iter()
            .take(self.columns.returned)
            .map(|column| column.expect("every returned column was read"))
            .collect();
        let batch = self.batch(&passing, returned)?;
        let mask = mask.slice(offset, length);
        if mask.true_count() == length {
            return Ok(Some(batch));
        }
        Ok(Some(filter_record_batch(&batch, &mask)?))
    }

    /// `columns` of `range`; from a remote disk up to
    /// [`REMOTE_COLUMNS_IN_FLIGHT`] at once, each on a thread of its own,
    /// so that their requests are in flight together.
    fn read_columns(&self, columns: &[usize], range: &GranuleRange) -> Result<Vec<ArrayRef>> {
        if columns.len() < 2 || !is_remote(range) {
            return columns
                .iter()
                .map(|&column| self.read_column(column, range))
                .collect();
        }
        let query = events::current();
        let mut arrays = Vec::with_capacity(columns.len());
        for group in columns.chunks(REMOTE_COLUMNS_IN_FLIGHT) {
            let read: Result<Vec<ArrayRef>> = std::thread::scope(|scope| {
                let reads: Vec<_> = group
                    .iter()
                    .map(|&column| {
                        let query = query.clone();
                        scope.spawn(move || {
                            events::in_scope(query.as_ref(), || self.read_column(column, range))
                        })
                    })
                    .collect();
                reads
                    .into_iter()
                    .map(|read| {
                        read.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            });
            arrays.extend(read?);
        }
        Ok(arrays)
    }

    fn read_column(&self, column: usize, range: &GranuleRange) -> Result<ArrayRef> {
        let field = &self.columns.read.fields()[column];
        match self.virtuals[column] {
            Some(virtual_column) => Ok(virtual_column.array(&range.part, range.rows() as usize)),
            None => range.part.read_column(
                field,
                range.granules.clone(),
                &self.past,
                self.cache.as_ref(),
            ),
        }
    }

    fn count(&self, rows: u64, columns: &[ArrayRef]) -> DfResult<()> {
        match &self.counter {
            Some(counter) => counter.count(rows, columns),
            None => Ok(()),
        }
    }

    fn batch(&self, range: &GranuleRange, columns: Vec<ArrayRef>) -> DfResult<RecordBatch> {
        RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(range.rows() as usize)),
        )
        .map_err(|e| {
            StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                format!("Reading part {}: {e}", range.part.name()),
            )
            .into_datafusion()
        })
    }
}

fn is_remote(range: &GranuleRange) -> bool {
    range
        .part
        .part
        .objects()
        .is_some_and(|objects| objects.is_remote())
}

/// The granules of `range` holding its rows `first` to `last`.
fn passing_granules(range: &GranuleRange, first: usize, last: usize) -> GranuleRange {
    let mut start = range.granules.start;
    let mut end = range.granules.start;
    let mut row = 0usize;
    for granule in range.granules.clone() {
        let next = row + range.part.part.granules[granule] as usize;
        if first >= next {
            start = granule + 1;
        }
        if last >= row {
            end = granule + 1;
        }
        row = next;
    }
    GranuleRange {
        part: Arc::clone(&range.part),
        granules: start..end,
    }
}
