//! `numbers(N)`, `numbers(start, N)`, `numbers(start, N, step)`,
//! `numbers_mt(N)`, `zeros(N)`, `generate_series(start, stop[, step])` and
//! the unbounded `system.numbers`.
//!
//! Batches are generated on demand, never materialized, so `numbers(1e9)` costs
//! one block of memory. The source declares that `number` ascends within each
//! partition, which lets the optimizer skip sorts and use merge-based operators.
//! `numbers_mt` splits its range into one contiguous partition per thread.
//! Filters on `number` narrow what is generated ([`number_ranges`]). The
//! forms with a step are a projection over consecutive numbers.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_trait::async_trait;
use datafusion::arrow::array::{
    ArrayRef, RecordBatch, RecordBatchOptions, UInt8Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::view::ViewTable;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, ScalarValue, Statistics, plan_err};
use datafusion::datasource::provider_as_source;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    Expr, LogicalPlanBuilder, TableProviderFilterPushDown, TableType, col, lit,
};
use datafusion::physical_expr::{
    EquivalenceProperties, LexOrdering, PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::coop::make_cooperative;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType, SchedulingType};
use datafusion::physical_plan::expressions::Column;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties, RecordBatchStream,
};
use futures::Stream;
use strata_common::{ErrorCode, StrataError};

use super::number_ranges;
use crate::query_context::QueryContext;

/// What the source generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// `number UInt64`, counting up.
    Numbers,
    /// `zero UInt8`, always 0.
    Zeros,
}

impl Generator {
    fn schema(self) -> SchemaRef {
        Arc::new(Schema::new(vec![match self {
            Generator::Numbers => Field::new("number", DataType::UInt64, false),
            Generator::Zeros => Field::new("zero", DataType::UInt8, false),
        }]))
    }

    /// Bytes ClickHouse counts as read per row.
    fn row_bytes(self) -> u64 {
        match self {
            Generator::Numbers => 8,
            Generator::Zeros => 1,
        }
    }
}

/// A table of generated rows: `start..start+count` (`count` None means unbounded).
#[derive(Debug, Clone)]
pub struct NumbersTable {
    generator: Generator,
    start: u64,
    count: Option<u64>,
    /// `numbers_mt`: split into `max_threads` partitions.
    multithreaded: bool,
}

impl NumbersTable {
    pub fn new(generator: Generator, start: u64, count: Option<u64>, multithreaded: bool) -> Self {
        NumbersTable {
            generator,
            start,
            count,
            multithreaded,
        }
    }
}

#[async_trait]
impl TableProvider for NumbersTable {
    fn schema(&self) -> SchemaRef {
        self.generator.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    /// Filters on `number` are read for the rows they allow (see
    /// [`number_ranges`]); they still run above the scan.
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|filter| match self.generator {
                Generator::Numbers if number_ranges::ranges_of(filter).is_some() => {
                    TableProviderFilterPushDown::Inexact
                }
                _ => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let partitions = if self.multithreaded {
            state.config().target_partitions().max(1)
        } else {
            1
        };
        let selected = match self.generator {
            Generator::Numbers => self.selected(filters),
            Generator::Zeros => None,
        };
        let ranges = match selected {
            Some(selected) => split_ranges(&selected, partitions),
            None => {
                let count = match (self.count, limit) {
                    (Some(c), Some(l)) => Some(c.min(l as u64)),
                    (c, None) => c,
                    (None, Some(l)) => Some(l as u64),
                };
                split_range(self.start, count, partitions)
                    .into_iter()
                    .map(|range| vec![range])
                    .collect()
            }
        };
        let total: Option<u64> = ranges.iter().flatten().map(|(_, count)| *count).sum();
        if let (Some(total), Some(query)) = (total, state.config().get_extension::<QueryContext>())
        {
            query.add_rows_to_read(total);
        }
        let with_column = projection.is_none_or(|p| !p.is_empty());
        Ok(Arc::new(NumbersExec::new(
            self.generator,
            ranges,
            with_column,
            state.config().batch_size(),
        )))
    }
}

impl NumbersTable {
    /// The table's rows the filters allow, as ascending `(first, count)`
    /// ranges; None where the filters restrict nothing, or the table's
    /// range wraps past the largest UInt64.
    fn selected(&self, filters: &[Expr]) -> Option<Vec<(u64, u64)>> {
        let allowed = number_ranges::allowed(filters)?;
        let start = u128::from(self.start);
        let end = self
            .count
            .map_or(number_ranges::END, |count| start + u128::from(count));
        if end > number_ranges::END {
            return None;
        }
        let selected = number_ranges::intersection(&[(start, end)], &allowed);
        // The whole UInt64 range does not fit a count: read it unfiltered.
        selected
            .into_iter()
            .map(|(low, high)| Some((u64::try_from(low).ok()?, u64::try_from(high - low).ok()?)))
            .collect()
    }
}

/// Splits ascending `(first, count)` ranges over `parts` partitions of
/// near-equal row counts, each partition's ranges ascending.
fn split_ranges(ranges: &[(u64, u64)], parts: usize) -> Vec<Vec<(u64, Option<u64>)>> {
    let parts = parts.max(1) as u64;
    let total: u64 = ranges.iter().map(|(_, count)| count).sum();
    let mut out = Vec::with_capacity(parts as usize);
    let mut pending = ranges.iter().copied();
    let mut current = pending.next();
    for i in 0..parts {
        let mut share = total / parts + u64::from(i < total % parts);
        let mut partition = Vec::new();
        while share > 0 {
            let Some((first, count)) = current else {
                break;
            };
            let taken = count.min(share);
            partition.push((first, Some(taken)));
            share -= taken;
            current = if taken == count {
                pending.next()
            } else {
                Some((first + taken, count - taken))
            };
        }
        out.push(partition);
    }
    debug_assert!(current.is_none(), "every selected row has a partition");
    out
}

/// Splits `start..start+count` into `parts` contiguous ranges of near-equal size.
fn split_range(start: u64, count: Option<u64>, parts: usize) -> Vec<(u64, Option<u64>)> {
    match count {
        None => vec![(start, None)],
        Some(count) => {
            let parts = parts.max(1) as u64;
            let base = count / parts;
            let extra = count % parts;
            let mut next = start;
            (0..parts)
                .map(|i| {
                    let len = base + u64::from(i < extra);
                    let range = (next, Some(len));
                    next = next.wrapping_add(len);
                    range
                })
                .collect()
        }
    }
}

/// Per partition, the ranges it generates in order: `(first, count)`, a
/// count of None for no end.
type PartitionRanges = Vec<Vec<(u64, Option<u64>)>>;

#[derive(Debug)]
pub struct NumbersExec {
    generator: Generator,
    ranges: PartitionRanges,
    with_column: bool,
    block_size: usize,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl NumbersExec {
    fn new(
        generator: Generator,
        ranges: PartitionRanges,
        with_column: bool,
        block_size: usize,
    ) -> Self {
        let schema = if with_column {
            generator.schema()
        } else {
            Arc::new(Schema::empty())
        };
        let mut equivalence = EquivalenceProperties::new(Arc::clone(&schema));
        if with_column && generator == Generator::Numbers {
            let column: Arc<dyn PhysicalExpr> = Arc::new(Column::new("number", 0));
            if let Some(ordering) = LexOrdering::new(vec![PhysicalSortExpr::new_default(column)]) {
                equivalence.add_ordering(ordering);
            }
        }
        // Declared bounded even for `system.numbers`: as in ClickHouse, a query over
        // it runs until a LIMIT, `max_execution_time` or cancellation stops it.
        let properties = PlanProperties::new(
            equivalence,
            Partitioning::UnknownPartitioning(ranges.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        )
        .with_scheduling_type(SchedulingType::Cooperative);
        NumbersExec {
            generator,
            ranges,
            with_column,
            block_size: block_size.max(1),
            schema,
            properties: Arc::new(properties),
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl DisplayAs for NumbersExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let total: Option<u64> = self.ranges.iter().flatten().map(|(_, c)| *c).sum();
        match total {
            Some(total) => write!(
                f,
                "NumbersExec: {:?}, rows={total}, partitions={}",
                self.generator,
                self.ranges.len()
            ),
            None => write!(f, "NumbersExec: {:?}, unbounded", self.generator),
        }
    }
}

impl ExecutionPlan for NumbersExec {
    fn name(&self) -> &str {
        "NumbersExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    /// The exact row count, so operators above can size themselves (a semi
    /// join picks its partition count from its build side's size).
    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        let ranges = match args.partition() {
            Some(p) => &self.ranges[p..=p],
            None => &self.ranges[..],
        };
        let rows = ranges
            .iter()
            .flatten()
            .map(|(_, count)| count.map(|c| c as usize))
            .sum::<Option<usize>>();
        let mut statistics = Statistics::new_unknown(&self.schema);
        if let Some(rows) = rows {
            statistics.num_rows = Precision::Exact(rows);
        }
        Ok(Arc::new(statistics))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let ranges = self.ranges[partition].iter().copied().collect();
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let query = context.session_config().get_extension::<QueryContext>();
        // Yields to the runtime between batches: a generator is never
        // pending, and an aggregate over it would otherwise hold its worker
        // thread until the query ends (starving every other task there).
        Ok(make_cooperative(Box::pin(NumbersStream {
            generator: self.generator,
            ranges,
            with_column: self.with_column,
            block_size: self.block_size as u64,
            schema: Arc::clone(&self.schema),
            query,
            baseline: Some(baseline),
        })))
    }
}

struct NumbersStream {
    generator: Generator,
    /// What is left to generate: `(next, remaining)`, in order.
    ranges: VecDeque<(u64, Option<u64>)>,
    with_column: bool,
    block_size: u64,
    schema: SchemaRef,
    query: Option<Arc<QueryContext>>,
    baseline: Option<BaselineMetrics>,
}

impl NumbersStream {
    /// Rows the next batch holds: a block, or what is left when less.
    fn next_batch_rows(&self) -> u64 {
        let mut rows = 0u64;
        for (_, remaining) in &self.ranges {
            rows = rows.saturating_add(remaining.unwrap_or(self.block_size));
            if rows >= self.block_size {
                return self.block_size;
            }
        }
        rows
    }

    fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        if let Some(query) = &self.query {
            if let Err(e) = query.check() {
                return Some(Err(e));
            }
        }
        // A batch fills from as many ranges as it takes (`IN` lists give
        // ranges of one row), its values written once into one buffer.
        let numbers = self.with_column && self.generator == Generator::Numbers;
        let capacity = if numbers { self.next_batch_rows() } else { 0 };
        let mut values: Vec<u64> = Vec::with_capacity(capacity as usize);
        let mut rows = 0u64;
        while rows < self.block_size {
            let Some((next, remaining)) = self.ranges.front_mut() else {
                break;
            };
            let taken = match *remaining {
                Some(r) => r.min(self.block_size - rows),
                None => self.block_size - rows,
            };
            if numbers {
                let first = *next;
                values.extend((0..taken).map(|i| first.wrapping_add(i)));
            }
            *next = next.wrapping_add(taken);
            rows += taken;
            if let Some(r) = remaining {
                *r -= taken;
                if *r == 0 {
                    self.ranges.pop_front();
                }
            }
        }
        if rows == 0 {
            return None;
        }
        debug_assert!(!numbers || values.len() == values.capacity());
        if let Some(query) = &self.query
            && let Err(e) = query.add_read(rows, rows * self.generator.row_bytes())
        {
            return Some(Err(e));
        }
        let columns: Vec<ArrayRef> = if !self.with_column {
            vec![]
        } else {
            match self.generator {
                Generator::Numbers => vec![Arc::new(UInt64Array::from(values))],
                Generator::Zeros => vec![Arc::new(UInt8Array::from(vec![0u8; rows as usize]))],
            }
        };
        let options = RecordBatchOptions::new().with_row_count(Some(rows as usize));
        Some(
            RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
                .map_err(Into::into),
        )
    }
}

impl Stream for NumbersStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let started = std::time::Instant::now();
        let batch = self.next_batch();
        if let Some(baseline) = &self.baseline {
            baseline.elapsed_compute().add_duration(started.elapsed());
        }
        let poll = Poll::Ready(batch);
        match &self.baseline {
            Some(baseline) => baseline.record_poll(poll),
            None => poll,
        }
    }
}

impl RecordBatchStream for NumbersStream {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

/// The table functions `numbers`, `numbers_mt` and `zeros`.
#[derive(Debug)]
pub struct NumbersFunction {
    name: &'static str,
    generator: Generator,
    multithreaded: bool,
}

impl NumbersFunction {
    pub fn all() -> Vec<NumbersFunction> {
        vec![
            NumbersFunction {
                name: "numbers",
                generator: Generator::Numbers,
                multithreaded: false,
            },
            NumbersFunction {
                name: "numbers_mt",
                generator: Generator::Numbers,
                multithreaded: true,
            },
            NumbersFunction {
                name: "zeros",
                generator: Generator::Zeros,
                multithreaded: false,
            },
            NumbersFunction {
                name: "zeros_mt",
                generator: Generator::Zeros,
                multithreaded: true,
            },
        ]
    }

    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A constant argument as ClickHouse accepts it: an integer, or a float that is
/// a whole number (`1e9`, `1000000000.`).
fn count_argument(function: &str, expr: &Expr) -> Result<u64> {
    let bad = || {
        Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal argument {expr} of table function {function}: the value is not representable as UInt64"),
        )
        .into_datafusion())
    };
    let Expr::Literal(value, _) = expr else {
        return bad();
    };
    match value {
        ScalarValue::Int64(Some(v)) if *v >= 0 => Ok(*v as u64),
        ScalarValue::UInt64(Some(v)) => Ok(*v),
        ScalarValue::Float64(Some(v))
            if v.is_finite() && *v >= 0.0 && v.fract() == 0.0 && *v < 1.8e19 =>
        {
            Ok(*v as u64)
        }
        ScalarValue::Decimal128(Some(v), _, scale) => {
            let divisor = 10i128.pow(u32::try_from(*scale).unwrap_or(0));
            if *v >= 0 && v % divisor == 0 {
                Ok((v / divisor) as u64)
            } else {
                bad()
            }
        }
        _ => bad(),
    }
}

impl TableFunctionImpl for NumbersFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let exprs = args.exprs();
        let (start, count) = match exprs {
            // Without arguments, as endless as system.numbers and system.zeros.
            [] => (0, None),
            [count] => (0, Some(count_argument(self.name, count)?)),
            [start, count] if self.generator == Generator::Numbers => (
                count_argument(self.name, start)?,
                Some(count_argument(self.name, count)?),
            ),
            [start, count, step] if self.generator == Generator::Numbers => {
                let step = count_argument(self.name, step)?;
                if step == 0 {
                    return Err(bad_step(self.name, "a positive number"));
                }
                let (start, count) = (
                    count_argument(self.name, start)?,
                    count_argument(self.name, count)?,
                );
                return stepped(
                    start,
                    count.div_ceil(step),
                    step,
                    "number",
                    self.multithreaded,
                );
            }
            _ => {
                return plan_err!(
                    "Table function {} takes {} arguments, got {}",
                    self.name,
                    if self.generator == Generator::Numbers {
                        "0, 1, 2 or 3"
                    } else {
                        "0 or 1"
                    },
                    exprs.len()
                );
            }
        };
        Ok(Arc::new(NumbersTable::new(
            self.generator,
            start,
            count,
            self.multithreaded,
        )))
    }
}

/// `generate_series(start, stop[, step])`, also `generateSeries`: the numbers
/// from `start` to `stop`, both included, `step` apart, in a column named
/// after the function.
#[derive(Debug)]
pub struct SeriesFunction;

impl SeriesFunction {
    pub const NAME: &'static str = "generate_series";
    pub const ALIAS: &'static str = "generateSeries";
}

impl TableFunctionImpl for SeriesFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let name = Self::NAME;
        let (start, stop, step) = match args.exprs() {
            [start, stop] => (count_argument(name, start)?, count_argument(name, stop)?, 1),
            [start, stop, step] => (
                count_argument(name, start)?,
                count_argument(name, stop)?,
                count_argument(name, step)?,
            ),
            exprs => {
                return Err(StrataError::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!(
                        "Table function '{name}' takes 2 or 3 arguments (start, stop[, step]), got {}",
                        exprs.len()
                    ),
                )
                .into_datafusion());
            }
        };
        if step == 0 {
            return Err(bad_step(name, "a non-zero number"));
        }
        // `generate_series(0, 18446744073709551615)` stops one short rather than overflow.
        let count = match stop.checked_sub(start) {
            Some(span) => (span / step).saturating_add(1),
            None => 0,
        };
        stepped(start, count, step, name, false)
    }
}

fn bad_step(function: &str, wanted: &str) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Table function '{function}' requires step to be {wanted}"),
    )
    .into_datafusion()
}

/// `count` numbers from `start`, `step` apart, in a column named `column`.
fn stepped(
    start: u64,
    count: u64,
    step: u64,
    column: &str,
    multithreaded: bool,
) -> Result<Arc<dyn TableProvider>> {
    let numbers = NumbersTable::new(Generator::Numbers, 0, Some(count), multithreaded);
    let plan = LogicalPlanBuilder::scan("numbers", provider_as_source(Arc::new(numbers)), None)?
        .project(vec![(col("number") * lit(step) + lit(start)).alias(column)])?
        .build()?;
    Ok(Arc::new(ViewTable::new(plan, None)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_evenly_and_cover_everything() {
        let ranges = split_range(10, Some(10), 3);
        assert_eq!(ranges, vec![(10, Some(4)), (14, Some(3)), (17, Some(3))]);
        assert_eq!(
            split_range(0, Some(2), 4)
                .iter()
                .map(|r| r.1.unwrap())
                .sum::<u64>(),
            2
        );
        assert_eq!(split_range(5, None, 4), vec![(5, None)]);
    }

    #[test]
    fn stream_stops_exactly_at_the_end() {
        let mut stream = NumbersStream {
            generator: Generator::Numbers,
            ranges: VecDeque::from([(3, Some(10))]),
            with_column: true,
            block_size: 4,
            schema: Generator::Numbers.schema(),
            query: None,
            baseline: None,
        };
        let sizes: Vec<usize> = std::iter::from_fn(|| stream.next_batch())
            .map(|b| b.unwrap().num_rows())
            .collect();
        assert_eq!(sizes, vec![4, 4, 2]);
    }

    #[test]
    fn selected_ranges_split_by_rows() {
        let parts = split_ranges(&[(5, 1), (10, 4), (100, 1)], 2);
        assert_eq!(
            parts,
            vec![
                vec![(5, Some(1)), (10, Some(2))],
                vec![(12, Some(2)), (100, Some(1))]
            ]
        );
        let table = NumbersTable::new(Generator::Numbers, 10, Some(1_000_000_000_000), false);
        let filter = datafusion::logical_expr::col("number").in_list(
            vec![
                datafusion::logical_expr::lit(5u64),
                datafusion::logical_expr::lit(123u64),
            ],
            false,
        );
        assert_eq!(table.selected(&[filter]), Some(vec![(123, 1)]));
    }
}
