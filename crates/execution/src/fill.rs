//! `ORDER BY k WITH FILL [FROM a] [TO b] [STEP s]`: over a sorted result,
//! adds a row for each value of the sequence `a, a + s, a + 2s, ...` (from
//! the first row's value without `FROM`) that no row has, up to the last
//! row or to `b` (exclusive). A row whose key equals the sequence's next
//! value takes its place. Added rows copy the ORDER BY keys before `k`
//! (filling runs within each run of equal values of those, as ClickHouse's
//! `use_with_fill_by_sorting_prefix`) and have every other column at its
//! type's default (NULL when Nullable).
//!
//! Keys are integers, floats, decimals, dates and times; a step of months
//! (`INTERVAL 1 MONTH`) moves dates by the calendar, each from the last.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use chrono::{DateTime, Months, NaiveDate};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch, new_null_array};
use datafusion::arrow::compute::{cast, concat_batches, interleave, take};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Float64Type, Int64Type, IntervalMonthDayNano, SchemaRef, TimeUnit,
    UInt64Type,
};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::execution::{RecordBatchStream, SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, Partitioning, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::{Stream, StreamExt};
use strata_common::{ErrorCode, StrataError};

/// The clause, with `FROM`, `TO` and `STEP` evaluated.
#[derive(Debug, Clone)]
pub struct FillOptions {
    /// The result columns of the ORDER BY keys before the filled one.
    pub prefix: Vec<usize>,
    pub column: usize,
    pub descending: bool,
    pub from: Option<ScalarValue>,
    pub to: Option<ScalarValue>,
    pub step: Option<ScalarValue>,
}

/// A key value, in the key type's own units (days, the timestamp's unit,
/// a decimal's scaled integer).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Point {
    Int(i128),
    Float(f64),
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Fixed(Point),
    Months(i32),
}

/// The checked clause over one key type.
#[derive(Debug)]
struct Filling {
    prefix: Vec<usize>,
    column: usize,
    key_type: DataType,
    descending: bool,
    from: Option<Point>,
    to: Option<Point>,
    step: Step,
}

fn invalid(message: String) -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, message).into_datafusion()
}

impl Filling {
    fn try_new(options: FillOptions, schema: &SchemaRef) -> Result<Filling> {
        let field = schema.field(options.column);
        let key_type = field.data_type().clone();
        if !is_fillable(&key_type) {
            return Err(invalid(format!(
                "WITH FILL can be used only with numeric types, but is set for column {} of type {}",
                field.name(),
                strata_common::types::field_type_name(field)
            )));
        }
        let point = |value: Option<ScalarValue>| -> Result<Option<Point>> {
            let Some(value) = value else { return Ok(None) };
            let array = cast(&value.to_array()?, &key_type)?;
            Ok(points(&array)?[0])
        };
        let step = step(options.step.as_ref(), &key_type, options.descending)?;
        check_direction(step, options.descending)?;
        Ok(Filling {
            prefix: options.prefix,
            column: options.column,
            from: point(options.from)?,
            to: point(options.to)?,
            key_type,
            descending: options.descending,
            step,
        })
    }

    /// Whether `a` comes before `b` in the result's order.
    fn before(&self, a: Point, b: Point) -> bool {
        match self.descending {
            false => a < b,
            true => a > b,
        }
    }

    fn advance(&self, point: Point) -> Result<Point> {
        let next = match (point, self.step) {
            (Point::Int(a), Step::Fixed(Point::Int(s))) => Point::Int(a + s),
            (Point::Float(a), Step::Fixed(Point::Float(s))) => Point::Float(a + s),
            (Point::Int(a), Step::Months(months)) => {
                Point::Int(add_months(a, months, &self.key_type)?)
            }
            _ => return internal_err!("a WITH FILL step of another kind than its key"),
        };
        if next == point {
            return Err(invalid(
                "WITH FILL STEP is too small to move the key".to_string(),
            ));
        }
        Ok(next)
    }

    fn scalar(&self, point: Point) -> Result<ScalarValue> {
        let value = match point {
            Point::Int(v) => match &self.key_type {
                DataType::Date32 => ScalarValue::Date32(Some(v as i32)),
                DataType::Timestamp(unit, zone) => timestamp(v as i64, unit, zone.clone()),
                DataType::Decimal128(precision, scale) => {
                    ScalarValue::Decimal128(Some(v), *precision, *scale)
                }
                DataType::UInt64 => ScalarValue::UInt64(Some(v as u64)),
                other => ScalarValue::Int64(Some(v as i64)).cast_to(other)?,
            },
            Point::Float(v) => ScalarValue::Float64(Some(v)).cast_to(&self.key_type)?,
        };
        Ok(value)
    }
}

fn is_fillable(data_type: &DataType) -> bool {
    data_type.is_integer()
        || data_type.is_floating()
        || matches!(
            data_type,
            DataType::Date32 | DataType::Timestamp(..) | DataType::Decimal128(..)
        )
}

fn timestamp(value: i64, unit: &TimeUnit, zone: Option<Arc<str>>) -> ScalarValue {
    match unit {
        TimeUnit::Second => ScalarValue::TimestampSecond(Some(value), zone),
        TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(value), zone),
        TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(value), zone),
        TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(Some(value), zone),
    }
}

/// Units of a timestamp type per second.
fn per_second(unit: &TimeUnit) -> i128 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// The step in the key's units: one unit (a day, a second) in the sort's
/// direction without one; a number counts days for dates and seconds for
/// times.
fn step(step: Option<&ScalarValue>, key_type: &DataType, descending: bool) -> Result<Step> {
    let amount = match step {
        None if descending => -1.0,
        None => 1.0,
        Some(ScalarValue::IntervalMonthDayNano(Some(interval))) => {
            return interval_step(*interval, key_type);
        }
        Some(value) if value.data_type().is_numeric() => {
            match value.cast_to(&DataType::Float64)? {
                ScalarValue::Float64(Some(amount)) => amount,
                _ => return Err(invalid("WITH FILL STEP must not be NULL".to_string())),
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "WITH FILL STEP must be a number or an interval, not {other}"
            )));
        }
    };
    let scaled = |units: i128| Step::Fixed(Point::Int((amount * units as f64).round() as i128));
    Ok(match key_type {
        DataType::Float32 | DataType::Float64 => Step::Fixed(Point::Float(amount)),
        DataType::Date32 => scaled(1),
        DataType::Timestamp(unit, _) => scaled(per_second(unit)),
        DataType::Decimal128(_, scale) => scaled(10i128.pow(*scale as u32)),
        _ => scaled(1),
    })
}

fn interval_step(interval: IntervalMonthDayNano, key_type: &DataType) -> Result<Step> {
    let nanos = interval.days as i128 * 86_400_000_000_000 + interval.nanoseconds as i128;
    let fixed = match key_type {
        DataType::Date32 if interval.nanoseconds == 0 => interval.days as i128,
        DataType::Timestamp(unit, _) => nanos / (1_000_000_000 / per_second(unit)),
        _ => {
            return Err(invalid(format!(
                "WITH FILL STEP of an interval needs a date or time key, not {key_type}"
            )));
        }
    };
    match (interval.months, fixed) {
        (0, fixed) => Ok(Step::Fixed(Point::Int(fixed))),
        (months, 0) => Ok(Step::Months(months)),
        _ => Err(invalid(
            "WITH FILL STEP mixing months with days or time is not supported".to_string(),
        )),
    }
}

fn check_direction(step: Step, descending: bool) -> Result<()> {
    let sign = match step {
        Step::Fixed(Point::Int(s)) => s.signum() as i32,
        Step::Fixed(Point::Float(s)) if s > 0.0 => 1,
        Step::Fixed(Point::Float(s)) if s < 0.0 => -1,
        Step::Fixed(Point::Float(_)) => 0,
        Step::Months(m) => m.signum(),
    };
    match (sign, descending) {
        (0, _) => Err(invalid("WITH FILL STEP value cannot be zero".to_string())),
        (-1, false) => Err(invalid(
            "WITH FILL STEP value cannot be negative for sorting in ascending direction"
                .to_string(),
        )),
        (1, true) => Err(invalid(
            "WITH FILL STEP value cannot be positive for sorting in descending direction"
                .to_string(),
        )),
        _ => Ok(()),
    }
}

/// `value` (days, or a timestamp in its unit) moved by `months` on the calendar.
fn add_months(value: i128, months: i32, key_type: &DataType) -> Result<i128> {
    let shift = |date: NaiveDate| match months >= 0 {
        true => date.checked_add_months(Months::new(months as u32)),
        false => date.checked_sub_months(Months::new(months.unsigned_abs())),
    };
    let out_of_range = || invalid("WITH FILL went past the dates it can show".to_string());
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("the epoch is a date");
    match key_type {
        DataType::Date32 => {
            let date = epoch + chrono::Duration::days(value as i64);
            let moved = shift(date).ok_or_else(out_of_range)?;
            Ok((moved - epoch).num_days() as i128)
        }
        DataType::Timestamp(unit, _) => {
            let units = per_second(unit);
            let (seconds, rest) = (value.div_euclid(units), value.rem_euclid(units));
            let moment = DateTime::from_timestamp(seconds as i64, 0).ok_or_else(out_of_range)?;
            let date = shift(moment.date_naive()).ok_or_else(out_of_range)?;
            let moved = date.and_time(moment.time()).and_utc().timestamp() as i128;
            Ok(moved * units + rest)
        }
        _ => internal_err!("a month step on a key that is not a date"),
    }
}

/// Each value of a key column as a point; None where NULL.
fn points(array: &ArrayRef) -> Result<Vec<Option<Point>>> {
    Ok(match array.data_type() {
        DataType::Float32 | DataType::Float64 => cast(array, &DataType::Float64)?
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| v.map(Point::Float))
            .collect(),
        DataType::UInt64 => array
            .as_primitive::<UInt64Type>()
            .iter()
            .map(|v| v.map(|v| Point::Int(v as i128)))
            .collect(),
        DataType::Decimal128(..) => array
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(Point::Int))
            .collect(),
        _ => cast(array, &DataType::Int64)?
            .as_primitive::<Int64Type>()
            .iter()
            .map(|v| v.map(|v| Point::Int(v as i128)))
            .collect(),
    })
}

/// The fill operator over a single sorted partition.
#[derive(Debug)]
pub struct FillExec {
    input: Arc<dyn ExecutionPlan>,
    options: FillOptions,
    filling: Arc<Filling>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl FillExec {
    pub fn try_new(input: Arc<dyn ExecutionPlan>, options: FillOptions) -> Result<Self> {
        if input.properties().output_partitioning().partition_count() != 1 {
            return internal_err!("WITH FILL reads one sorted partition");
        }
        let schema = input.schema();
        let filling = Arc::new(Filling::try_new(options.clone(), &schema)?);
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(FillExec {
            input,
            options,
            filling,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }
}

impl DisplayAs for FillExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "FillExec: column={}", self.options.column)
    }
}

impl ExecutionPlan for FillExec {
    fn name(&self) -> &str {
        "FillExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(FillExec::try_new(
            children.remove(0),
            self.options.clone(),
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
            return internal_err!("FillExec has one partition, not {partition}");
        }
        let prefix_fields = self
            .filling
            .prefix
            .iter()
            .map(|&c| SortField::new(self.input.schema().field(c).data_type().clone()))
            .collect();
        Ok(Box::pin(FillStream {
            input: self.input.execute(0, context)?,
            filling: Arc::clone(&self.filling),
            prefix: RowConverter::new(prefix_fields)?,
            carried: None,
            next: None,
            done: false,
            metrics: BaselineMetrics::new(&self.metrics, 0),
        }))
    }
}

/// One batch's output in order: rows of the input (source 0) and added
/// rows (source 1), each added row with its value and the input row whose
/// prefix it copies.
#[derive(Default)]
struct Output {
    order: Vec<(usize, usize)>,
    added: Vec<(Point, usize)>,
}

impl Output {
    fn keep(&mut self, row: usize) {
        self.order.push((0, row));
    }

    fn add(&mut self, value: Point, prefix_row: usize) {
        self.order.push((1, self.added.len()));
        self.added.push((value, prefix_row));
    }
}

struct FillStream {
    input: SendableRecordBatchStream,
    filling: Arc<Filling>,
    prefix: RowConverter,
    /// The last row of the previous batch: the current run's prefix.
    carried: Option<RecordBatch>,
    /// The sequence's next value in the current run.
    next: Option<Point>,
    done: bool,
    metrics: BaselineMetrics,
}

impl FillStream {
    /// `batch` with the rows its runs lack added.
    fn fill(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let carried = self.carried.take();
        let first = usize::from(carried.is_some());
        let rows = match carried {
            Some(last) => concat_batches(&batch.schema(), [&last, &batch])?,
            None => batch,
        };
        let prefixes = self.prefix_rows(&rows)?;
        let keys = points(rows.column(self.filling.column))?;
        let mut out = Output::default();
        for row in first..rows.num_rows() {
            let same_run = prefixes
                .as_ref()
                .is_none_or(|p| row > 0 && p.row(row) == p.row(row - 1));
            if row == 0 || !same_run {
                if row > 0 {
                    self.finish_run(&mut out, row - 1)?;
                }
                self.next = self.filling.from;
            }
            self.take_row(&mut out, row, keys[row])?;
        }
        self.carried = Some(rows.slice(rows.num_rows() - 1, 1));
        assemble(&rows, &out, &self.filling)
    }

    /// Rows up to `key` that the run lacks, then the row itself.
    fn take_row(&mut self, out: &mut Output, row: usize, key: Option<Point>) -> Result<()> {
        if let Some(key) = key {
            let mut next = self.next.unwrap_or(key);
            while self.filling.before(next, key) {
                out.add(next, row);
                next = self.filling.advance(next)?;
            }
            if next == key {
                next = self.filling.advance(next)?;
            }
            self.next = Some(next);
        }
        out.keep(row);
        Ok(())
    }

    /// The rows from the run's next value up to `TO`.
    fn finish_run(&mut self, out: &mut Output, prefix_row: usize) -> Result<()> {
        let (Some(to), Some(mut next)) = (self.filling.to, self.next) else {
            return Ok(());
        };
        while self.filling.before(next, to) {
            out.add(next, prefix_row);
            next = self.filling.advance(next)?;
        }
        self.next = Some(next);
        Ok(())
    }

    /// The prefix keys of `rows`, comparable; none without a prefix.
    fn prefix_rows(&self, rows: &RecordBatch) -> Result<Option<Rows>> {
        if self.filling.prefix.is_empty() {
            return Ok(None);
        }
        let columns: Vec<ArrayRef> = self
            .filling
            .prefix
            .iter()
            .map(|&c| Arc::clone(rows.column(c)))
            .collect();
        Ok(Some(self.prefix.convert_columns(&columns)?))
    }

    /// After the last batch: the last run's rows up to `TO`.
    fn finish(&mut self) -> Result<Option<RecordBatch>> {
        let Some(last) = self.carried.take() else {
            return Ok(None);
        };
        let mut out = Output::default();
        self.finish_run(&mut out, 0)?;
        if out.added.is_empty() {
            return Ok(None);
        }
        assemble(&last, &out, &self.filling).map(Some)
    }
}

/// The output batch: `rows` and the added rows, in `out`'s order.
fn assemble(rows: &RecordBatch, out: &Output, filling: &Filling) -> Result<RecordBatch> {
    let schema = rows.schema();
    let added = out.added.len();
    let prefix_rows = datafusion::arrow::array::UInt32Array::from_iter_values(
        out.added.iter().map(|&(_, row)| row as u32),
    );
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        let filled: ArrayRef = if index == filling.column {
            let values = out
                .added
                .iter()
                .map(|&(point, _)| filling.scalar(point))
                .collect::<Result<Vec<_>>>()?;
            match values.is_empty() {
                true => new_null_array(field.data_type(), 0),
                false => ScalarValue::iter_to_array(values)?,
            }
        } else if filling.prefix.contains(&index) {
            take(rows.column(index), &prefix_rows, None)?
        } else if field.is_nullable() {
            new_null_array(field.data_type(), added)
        } else {
            strata_common::types::field_default_value(field)?.to_array_of_size(added)?
        };
        let sources: [&dyn Array; 2] = [rows.column(index).as_ref(), filled.as_ref()];
        columns.push(interleave(&sources, &out.order)?);
    }
    Ok(RecordBatch::try_new(schema, columns)?)
}

impl Stream for FillStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        loop {
            let polled = match self.input.poll_next_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(polled) => polled,
            };
            let result = match polled {
                Some(Ok(batch)) if batch.num_rows() == 0 => continue,
                Some(Ok(batch)) => self.fill(batch).map(Some),
                Some(Err(error)) => Err(error),
                None => {
                    self.done = true;
                    self.finish()
                }
            };
            let poll = match result {
                Ok(Some(batch)) => Some(Ok(batch)),
                Ok(None) => None,
                Err(error) => {
                    self.done = true;
                    Some(Err(error))
                }
            };
            return self.metrics.record_poll(Poll::Ready(poll));
        }
    }
}

impl RecordBatchStream for FillStream {
    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }
}
