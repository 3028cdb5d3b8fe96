//! Reading a table: the selected granule ranges dealt out to parallel
//! streams, each reading only the projected columns, a few granules per
//! batch.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result as DfResult, ScalarValue, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::pruning::GranuleRange;
use super::virtual_columns::VirtualColumn;

/// Rows a scan aims to put in one batch, as ClickHouse's `max_block_size`.
pub const ROWS_PER_BATCH: usize = 65_536;

#[derive(Debug)]
pub struct MergeTreeScanExec {
    /// The table's name, for EXPLAIN.
    table: String,
    /// The projected columns as the table defines them.
    schema: SchemaRef,
    /// Values of columns added after some parts were written.
    fills: Arc<HashMap<String, ScalarValue>>,
    /// For each column of `schema`, the virtual column it is, if any.
    virtuals: Arc<Vec<Option<VirtualColumn>>>,
    /// Granule ranges for each output partition.
    streams: Vec<Vec<GranuleRange>>,
    /// Granules that pruning kept, and those it could have read.
    selected_granules: usize,
    total_granules: usize,
    properties: Arc<PlanProperties>,
}

impl MergeTreeScanExec {
    /// A scan of `ranges` split over at most `streams` parallel streams.
    /// Columns of `schema` named as one of `virtuals` are made from the
    /// parts, not read.
    pub fn new(
        table: String,
        schema: SchemaRef,
        fills: Arc<HashMap<String, ScalarValue>>,
        virtuals: &[VirtualColumn],
        ranges: Vec<GranuleRange>,
        total_granules: usize,
        streams: usize,
    ) -> Self {
        let virtuals = schema
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
        let split = split_ranges(ranges, streams.max(1));
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(split.len().max(1)),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        MergeTreeScanExec {
            table,
            schema,
            fills,
            virtuals: Arc::new(virtuals),
            streams: split,
            selected_granules,
            total_granules,
            properties,
        }
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
        )
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
        let mut statistics = Statistics::new_unknown(&self.schema);
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
        _context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let share = self.streams.get(partition).cloned().unwrap_or_default();
        let schema = Arc::clone(&self.schema);
        let chunks: Vec<GranuleRange> = share.into_iter().flat_map(chunk).collect();
        let stream_schema = Arc::clone(&schema);
        let fills = Arc::clone(&self.fills);
        let virtuals = Arc::clone(&self.virtuals);
        let batches = futures::stream::iter(chunks).map(move |range| {
            read_range(&stream_schema, &fills, &virtuals, &range)
                .map_err(StrataError::into_datafusion)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
    }
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

fn read_range(
    schema: &SchemaRef,
    fills: &HashMap<String, ScalarValue>,
    virtuals: &[Option<VirtualColumn>],
    range: &GranuleRange,
) -> Result<RecordBatch> {
    let rows = range.rows() as usize;
    let columns = schema
        .fields()
        .iter()
        .zip(virtuals)
        .map(|(field, virtual_column)| match virtual_column {
            Some(column) => Ok(column.array(&range.part, rows)),
            None => range
                .part
                .read_column(field, range.granules.clone(), fills.get(field.name())),
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| {
        StrataError::new(
            ErrorCode::LOGICAL_ERROR,
            format!("Reading part {}: {e}", range.part.name()),
        )
    })
}
