//! `ORDER BY k1 WITH FILL [FROM a] [TO b] [STEP s], k2 WITH FILL ...`: over
//! a sorted result, adds the rows ClickHouse's filling adds. The filled keys
//! form a *filling row* that walks through the key space in lexicographic
//! order: for each input row, the filling row steps (the last key that can
//! still move before its `TO`, else the first key that differs from the
//! input row) and each value it takes before reaching the input row is an
//! added row. `FROM` sets where a key starts (where each run of the keys
//! before it starts), `TO` (exclusive) where it stops, and after the last
//! row of a run, keys with a `TO` go on up to it. Keys not filled start at
//! the input row's value.
//!
//! Added rows copy the ORDER BY keys before the first filled one (filling
//! runs within each run of equal values of those, as ClickHouse's
//! `use_with_fill_by_sorting_prefix`), take `INTERPOLATE` columns from
//! their expressions over the previous row (added or not), and have every
//! other column at its type's default (NULL when Nullable).
//!
//! Keys are integers, floats, decimals, dates and times; a step of months
//! (`INTERVAL 1 MONTH`) moves dates by the calendar, each from the last.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use chrono::{DateTime, Months, NaiveDate};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, RecordBatch, UInt32Array, new_empty_array, new_null_array,
};
use datafusion::arrow::compute::{
    CastOptions, cast, cast_with_options, concat, concat_batches, interleave, take,
};
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

/// The clauses, with `FROM`, `TO` and `STEP` evaluated and `INTERPOLATE`
/// planned.
#[derive(Debug, Clone)]
pub struct FillOptions {
    /// The result columns of the ORDER BY keys before the first filled one.
    pub prefix: Vec<usize>,
    /// The filled keys, in ORDER BY order.
    pub keys: Vec<FillKeyOptions>,
    /// Result columns an added row computes from the previous row, with
    /// expressions over `interpolate_schema` (the result's columns).
    pub interpolate: Vec<(usize, Arc<dyn PhysicalExpr>)>,
    pub interpolate_schema: Option<SchemaRef>,
}

/// One filled key.
#[derive(Debug, Clone)]
pub struct FillKeyOptions {
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

impl Point {
    fn is_finite(self) -> bool {
        match self {
            Point::Int(_) => true,
            Point::Float(v) => v.is_finite(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Fixed(Point),
    Months(i32),
}

/// One filled key, checked over its type.
#[derive(Debug)]
struct FillKey {
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

impl FillKey {
    fn try_new(options: &FillKeyOptions, schema: &SchemaRef) -> Result<FillKey> {
        let field = schema.field(options.column);
        let key_type = field.data_type().clone();
        let type_name = strata_common::types::field_type_name(field);
        if !is_fillable(&key_type) {
            return Err(invalid(format!(
                "WITH FILL can be used only with numeric types, but is set for column {} of type {type_name}",
                field.name(),
            )));
        }
        let point = |value: &Option<ScalarValue>| -> Result<Option<Point>> {
            let Some(value) = value else { return Ok(None) };
            // A date or time bound must have the key's own type.
            let moment = |t: &DataType| match t {
                DataType::Date32 => Some(None),
                DataType::Timestamp(unit, _) => Some(Some(*unit)),
                _ => None,
            };
            if let Some(bound) = moment(&value.data_type())
                && moment(&key_type) != Some(bound)
            {
                return Err(invalid(format!(
                    "Incompatible types of WITH FILL expression values with column type {type_name}"
                )));
            }
            if key_type.is_unsigned_integer()
                && let Ok(ScalarValue::Int64(Some(v))) = value.cast_to(&DataType::Int64)
                && v < 0
            {
                return Err(invalid(format!(
                    "WITH FILL bound values cannot be negative for unsigned type {type_name}"
                )));
            }
            let array = cast(&value.to_array()?, &key_type)?;
            Ok(points(&array)?[0])
        };
        let step = step(options.step.as_ref(), &key_type, options.descending)?;
        check_direction(step, options.descending)?;
        let (from, to) = (point(&options.from)?, point(&options.to)?);
        match (from, to) {
            (Some(from), Some(to)) if !options.descending && to < from => Err(invalid(
                "WITH FILL TO value cannot be less than FROM value for sorting in ascending direction".to_string(),
            )),
            (Some(from), Some(to)) if options.descending && from < to => Err(invalid(
                "WITH FILL FROM value cannot be less than TO value for sorting in descending direction".to_string(),
            )),
            _ => Ok(FillKey {
                column: options.column,
                from,
                to,
                key_type,
                descending: options.descending,
                step,
            }),
        }
    }

    /// Whether `a` comes before `b` in the result's order.
    fn before(&self, a: Point, b: Point) -> bool {
        match self.descending {
            false => a < b,
            true => a > b,
        }
    }

    /// `before` where a missing value sorts first ascending, last
    /// descending, as ClickHouse compares a NULL field.
    fn before_or_missing(&self, a: Option<Point>, b: Option<Point>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => self.before(a, b),
            (None, Some(_)) => !self.descending,
            (Some(_), None) => self.descending,
            (None, None) => false,
        }
    }

    /// The value after `point`, which must move in the sort's direction.
    fn advance(&self, point: Point) -> Result<Point> {
        let next = match (point, self.step) {
            (Point::Int(a), Step::Fixed(Point::Int(s))) => Point::Int(a + s),
            (Point::Float(a), Step::Fixed(Point::Float(s))) => Point::Float(a + s),
            (Point::Int(a), Step::Months(months)) => {
                Point::Int(add_months(a, months, &self.key_type)?)
            }
            _ => return internal_err!("a WITH FILL step of another kind than its key"),
        };
        if !self.before(point, next) {
            return Err(invalid(
                "WITH FILL step does not advance in the sorting direction".to_string(),
            ));
        }
        Ok(next)
    }

    /// `point`, checked to fit the key's type before it is added.
    fn fitting(&self, point: Point) -> Result<Point> {
        let Point::Int(v) = point else {
            return Ok(point);
        };
        let fits = match &self.key_type {
            DataType::Int8 => i8::try_from(v).is_ok(),
            DataType::Int16 => i16::try_from(v).is_ok(),
            DataType::Int32 | DataType::Date32 => i32::try_from(v).is_ok(),
            DataType::Int64 | DataType::Timestamp(..) => i64::try_from(v).is_ok(),
            DataType::UInt8 => u8::try_from(v).is_ok(),
            DataType::UInt16 => u16::try_from(v).is_ok(),
            DataType::UInt32 => u32::try_from(v).is_ok(),
            DataType::UInt64 => u64::try_from(v).is_ok(),
            DataType::Decimal128(precision, _) => v.unsigned_abs() < 10u128.pow(*precision as u32),
            _ => true,
        };
        match fits {
            true => Ok(point),
            false => Err(invalid(format!(
                "WITH FILL generates the value {v} which is out of range of the ORDER BY column type {}",
                self.key_type
            ))),
        }
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

/// The key values of one row, in the filled keys' order; None where NULL
/// or not yet set.
type KeyRow = Vec<Option<Point>>;

/// Whether `a` comes before `b` on the first key where both have values
/// and they differ.
fn row_before(keys: &[FillKey], a: &KeyRow, b: &KeyRow) -> bool {
    for (key, (a, b)) in keys.iter().zip(a.iter().zip(b)) {
        if let (Some(a), Some(b)) = (a, b)
            && a != b
        {
            return key.before(*a, *b);
        }
    }
    false
}

/// Where a key must stop: its `TO` or the next input row's value,
/// whichever comes first.
fn border(key: &FillKey, next: Option<Point>) -> Option<Point> {
    match (key.to, next) {
        (None, next) => next,
        (to, None) => to,
        (Some(to), Some(next)) if key.before(to, next) => Some(to),
        (_, next) => next,
    }
}

/// The filling row: the key values last added or passed, walked towards
/// each input row.
struct FillingRow {
    keys: Vec<FillKey>,
    row: KeyRow,
    /// Whether `row` was added since it last changed.
    inserted: bool,
}

impl FillingRow {
    /// Keys from `at` on start at their `FROM`.
    fn start_from(&mut self, at: usize) {
        for (value, key) in self.row[at..].iter_mut().zip(&self.keys[at..]) {
            *value = key.from;
        }
    }

    /// Whether the first key with a value and a `TO` is still before it.
    fn within_bounds(&self) -> bool {
        let bounded =
            self.row
                .iter()
                .zip(&self.keys)
                .find_map(|(value, key)| match (value, key.to) {
                    (Some(value), Some(to)) => Some(key.before(*value, to)),
                    _ => None,
                });
        bounded.unwrap_or(true)
    }

    /// Whether any key has a `TO`, up to which a run goes on after its
    /// last row.
    fn bounded(&self) -> bool {
        self.keys.iter().any(|key| key.to.is_some())
    }

    /// Steps the row towards `next` (an input row, or all None after the
    /// last one); true when the new row is to be added. `changed` says
    /// whether the row moved.
    fn step(&mut self, next: &KeyRow, changed: &mut bool) -> Result<bool> {
        let moving = (0..self.row.len()).find(|&i| {
            self.row[i].is_some_and(|value| {
                border(&self.keys[i], next[i]).is_some_and(|border| value != border)
            })
        });
        let Some(at) = moving else { return Ok(false) };
        let key = &self.keys[at];
        let value = self.row[at].expect("the moving key has a value");
        if !value.is_finite() || next[at].is_some_and(|n| !n.is_finite()) {
            return Ok(false);
        }
        if next[at].is_some_and(|n| key.before(n, value))
            || key.to.is_some_and(|to| !key.before(value, to))
        {
            return Ok(false);
        }
        // A later key with room before its TO moves first.
        for later in (at + 1..self.row.len()).rev() {
            let key = &self.keys[later];
            let (Some(value), Some(to)) = (self.row[later], key.to) else {
                continue;
            };
            let stepped = key.advance(value)?;
            if key.before(stepped, to) {
                self.row[later] = Some(key.fitting(stepped)?);
                self.start_from(later + 1);
                *changed = true;
                return Ok(true);
            }
        }
        let stepped = key.advance(value)?;
        if next[at].is_some_and(|n| key.before(n, stepped))
            || key.to.is_some_and(|to| !key.before(stepped, to))
        {
            return Ok(false);
        }
        self.row[at] = Some(key.fitting(stepped)?);
        *changed = true;
        if Some(stepped) != next[at] {
            self.start_from(at + 1);
            return Ok(true);
        }
        // Reached the input row's key: the later keys start at FROM, or at
        // the input row's values, and the row is added if any is before.
        let mut before = false;
        for later in at + 1..self.row.len() {
            let key = &self.keys[later];
            let value = key.from.or(next[later]);
            self.row[later] = value;
            before |= (next[later].is_none() || key.before_or_missing(value, next[later]))
                && (key.to.is_none() || key.before_or_missing(value, key.to));
        }
        Ok(before)
    }
}

/// The fill operator over a single sorted partition.
#[derive(Debug)]
pub struct FillExec {
    input: Arc<dyn ExecutionPlan>,
    options: FillOptions,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl FillExec {
    pub fn try_new(input: Arc<dyn ExecutionPlan>, options: FillOptions) -> Result<Self> {
        if input.properties().output_partitioning().partition_count() != 1 {
            return internal_err!("WITH FILL reads one sorted partition");
        }
        let schema = input.schema();
        keys(&options, &schema)?;
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(FillExec {
            input,
            options,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }
}

fn keys(options: &FillOptions, schema: &SchemaRef) -> Result<Vec<FillKey>> {
    options
        .keys
        .iter()
        .map(|key| FillKey::try_new(key, schema))
        .collect()
}

impl DisplayAs for FillExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let columns: Vec<usize> = self.options.keys.iter().map(|k| k.column).collect();
        write!(f, "FillExec: columns={columns:?}")
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
        let schema = self.input.schema();
        let prefix_fields = self
            .options
            .prefix
            .iter()
            .map(|&c| SortField::new(schema.field(c).data_type().clone()))
            .collect();
        let keys = keys(&self.options, &schema)?;
        let width = keys.len();
        Ok(Box::pin(FillStream {
            input: self.input.execute(0, context)?,
            options: self.options.clone(),
            prefix: RowConverter::new(prefix_fields)?,
            filling: FillingRow {
                keys,
                row: vec![None; width],
                inserted: false,
            },
            seen: vec![None; width],
            previous: Previous::Default,
            carried: None,
            done: false,
            metrics: BaselineMetrics::new(&self.metrics, 0),
        }))
    }
}

/// An added row: its keys, the input row whose prefix it copies, and its
/// interpolated values.
struct Added {
    keys: KeyRow,
    prefix_row: usize,
    interpolated: Vec<ArrayRef>,
}

/// One batch's output in order: rows of the input (source 0) and added
/// rows (source 1).
struct Output {
    rows: RecordBatch,
    order: Vec<(usize, usize)>,
    added: Vec<Added>,
}

impl Output {
    fn new(rows: RecordBatch) -> Self {
        Output {
            rows,
            order: Vec::new(),
            added: Vec::new(),
        }
    }
}

/// The row before the next added one, which INTERPOLATE reads.
enum Previous {
    /// None yet: every column at its default.
    Default,
    /// A row of the batch being filled.
    Input(usize),
    Added(RecordBatch),
}

struct FillStream {
    input: SendableRecordBatchStream,
    options: FillOptions,
    prefix: RowConverter,
    filling: FillingRow,
    /// The keys of the last input row (all None after a run's end).
    seen: KeyRow,
    previous: Previous,
    /// The last row of the previous batch: the current run's prefix.
    carried: Option<RecordBatch>,
    done: bool,
    metrics: BaselineMetrics,
}

impl FillStream {
    /// `batch` with the rows its runs lack added.
    fn fill(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let carried = self.carried.take();
        let first = usize::from(carried.is_some());
        if carried.is_some() {
            self.previous = Previous::Input(0);
        }
        let rows = match carried {
            Some(last) => concat_batches(&batch.schema(), [&last, &batch])?,
            None => batch,
        };
        let prefixes = self.prefix_rows(&rows)?;
        let keys = self
            .filling
            .keys
            .iter()
            .map(|key| points(rows.column(key.column)))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Output::new(rows);
        for row in first..out.rows.num_rows() {
            let new_run = row == 0
                || prefixes
                    .as_ref()
                    .is_some_and(|p| p.row(row) != p.row(row - 1));
            let values: KeyRow = keys.iter().map(|column| column[row]).collect();
            if new_run {
                if row > 0 {
                    self.finish_run(&mut out, row - 1)?;
                }
                self.start_run(&mut out, row, &values)?;
            }
            self.take_row(&mut out, row, values)?;
        }
        let last = out.rows.num_rows() - 1;
        self.carried = Some(out.rows.slice(last, 1));
        assemble(&out, &self.options, &self.filling.keys)
    }

    /// At a run's first row: keys take the row's values up to the first
    /// whose `FROM` differs, which starts there with the keys after it
    /// (added at once when before the row).
    fn start_run(&mut self, out: &mut Output, row: usize, values: &KeyRow) -> Result<()> {
        for at in 0..values.len() {
            let key = &self.filling.keys[at];
            match key.from {
                Some(from) if Some(from) != values[at] => {
                    let before = values[at].is_some_and(|v| key.before(from, v));
                    self.filling.start_from(at);
                    self.filling.inserted = false;
                    if before {
                        self.add(out, row)?;
                    }
                    return Ok(());
                }
                _ => self.filling.row[at] = values[at],
            }
        }
        Ok(())
    }

    /// The rows the filling row passes on its way to `values`, then the
    /// input row itself.
    fn take_row(&mut self, out: &mut Output, row: usize, values: KeyRow) -> Result<()> {
        let keys = &self.filling.keys;
        let behind = row_before(keys, &self.seen, &self.filling.row);
        self.seen = values;
        // The row started at FROM after input rows before it: added once.
        if behind
            && row_before(&self.filling.keys, &self.filling.row, &self.seen)
            && self.filling.within_bounds()
        {
            self.add(out, row)?;
        }
        let next = self.seen.clone();
        let mut changed = false;
        while self.filling.step(&next, &mut changed)? {
            self.add(out, row)?;
            changed = false;
        }
        if changed {
            self.filling.inserted = false;
        }
        out.order.push((0, row));
        if !self.options.interpolate.is_empty() {
            self.previous = Previous::Input(row);
        }
        Ok(())
    }

    /// After a run's last row (`prefix_row`): keys with a `TO` go on up to
    /// it.
    fn finish_run(&mut self, out: &mut Output, prefix_row: usize) -> Result<()> {
        let unseen = self.seen.iter().all(Option::is_none);
        let pending = (row_before(&self.filling.keys, &self.seen, &self.filling.row)
            && !self.filling.inserted)
            || (unseen && self.filling.row.iter().any(Option::is_some));
        self.seen.iter_mut().for_each(|value| *value = None);
        if !self.filling.bounded() || !self.filling.within_bounds() {
            return Ok(());
        }
        if pending {
            self.add(out, prefix_row)?;
        }
        let next = self.seen.clone();
        let mut changed = false;
        while self.filling.step(&next, &mut changed)? {
            self.add(out, prefix_row)?;
        }
        if changed {
            self.filling.inserted = false;
        }
        Ok(())
    }

    /// Adds the filling row, copying `prefix_row`'s prefix.
    fn add(&mut self, out: &mut Output, prefix_row: usize) -> Result<()> {
        let interpolated = self.interpolated(out)?;
        let added = Added {
            keys: self.filling.row.clone(),
            prefix_row,
            interpolated,
        };
        if !self.options.interpolate.is_empty() {
            let columns = added_columns(
                &out.rows,
                std::slice::from_ref(&added),
                &self.options,
                &self.filling.keys,
            )?;
            self.previous = Previous::Added(RecordBatch::try_new(out.rows.schema(), columns)?);
        }
        out.order.push((1, out.added.len()));
        out.added.push(added);
        self.filling.inserted = true;
        Ok(())
    }

    /// The INTERPOLATE columns of the next added row, from the previous row.
    fn interpolated(&self, out: &Output) -> Result<Vec<ArrayRef>> {
        let Some(input_schema) = &self.options.interpolate_schema else {
            return Ok(Vec::new());
        };
        let previous = match &self.previous {
            Previous::Default => default_row(&out.rows.schema())?,
            Previous::Input(row) => out.rows.slice(*row, 1),
            Previous::Added(batch) => batch.clone(),
        };
        let strict = CastOptions {
            safe: false,
            ..Default::default()
        };
        let columns = previous
            .columns()
            .iter()
            .zip(input_schema.fields())
            .map(|(column, field)| cast_with_options(column, field.data_type(), &strict))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let input = RecordBatch::try_new(Arc::clone(input_schema), columns)?;
        let schema = out.rows.schema();
        self.options
            .interpolate
            .iter()
            .map(|(column, expr)| {
                let value = expr.evaluate(&input)?.into_array(1)?;
                Ok(cast_with_options(
                    &value,
                    schema.field(*column).data_type(),
                    &strict,
                )?)
            })
            .collect()
    }

    /// The prefix keys of `rows`, comparable; none without a prefix.
    fn prefix_rows(&self, rows: &RecordBatch) -> Result<Option<Rows>> {
        if self.options.prefix.is_empty() {
            return Ok(None);
        }
        let columns: Vec<ArrayRef> = self
            .options
            .prefix
            .iter()
            .map(|&c| Arc::clone(rows.column(c)))
            .collect();
        Ok(Some(self.prefix.convert_columns(&columns)?))
    }

    /// After the last batch: the last run's rows up to `TO`; with no input
    /// at all, the rows from `FROM` to `TO`.
    fn finish(&mut self) -> Result<Option<RecordBatch>> {
        let last = match self.carried.take() {
            Some(last) => last,
            None => {
                self.filling.start_from(0);
                self.filling.inserted = false;
                default_row(&self.input.schema())?
            }
        };
        if !self.options.interpolate.is_empty() {
            self.previous = Previous::Input(0);
        }
        let mut out = Output::new(last);
        self.finish_run(&mut out, 0)?;
        if out.added.is_empty() {
            return Ok(None);
        }
        assemble(&out, &self.options, &self.filling.keys).map(Some)
    }
}

/// One row of `schema` with every column at its default (NULL when
/// Nullable).
fn default_row(schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| default_column(field, 1))
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
}

fn default_column(field: &datafusion::arrow::datatypes::Field, rows: usize) -> Result<ArrayRef> {
    match field.is_nullable() {
        true => Ok(new_null_array(field.data_type(), rows)),
        false => strata_common::types::field_default_value(field)?.to_array_of_size(rows),
    }
}

/// The columns of `added`, in the schema of `rows`.
fn added_columns(
    rows: &RecordBatch,
    added: &[Added],
    options: &FillOptions,
    keys: &[FillKey],
) -> Result<Vec<ArrayRef>> {
    let schema = rows.schema();
    let prefix_rows = UInt32Array::from_iter_values(added.iter().map(|a| a.prefix_row as u32));
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        let column = if let Some(k) = keys.iter().position(|key| key.column == index) {
            key_column(field, added.iter().map(|a| a.keys[k]), &keys[k])?
        } else if let Some(i) = options.interpolate.iter().position(|(c, _)| *c == index) {
            let values: Vec<&dyn Array> =
                added.iter().map(|a| a.interpolated[i].as_ref()).collect();
            match values.is_empty() {
                true => new_empty_array(field.data_type()),
                false => concat(&values)?,
            }
        } else if options.prefix.contains(&index) {
            take(rows.column(index), &prefix_rows, None)?
        } else {
            default_column(field, added.len())?
        };
        columns.push(column);
    }
    Ok(columns)
}

/// A filled key's column: each value, or the default where it has none.
fn key_column(
    field: &datafusion::arrow::datatypes::Field,
    values: impl Iterator<Item = Option<Point>>,
    key: &FillKey,
) -> Result<ArrayRef> {
    let missing = match field.is_nullable() {
        true => ScalarValue::try_from(field.data_type())?,
        false => strata_common::types::field_default_value(field)?,
    };
    let scalars = values
        .map(|value| value.map_or_else(|| Ok(missing.clone()), |point| key.scalar(point)))
        .collect::<Result<Vec<_>>>()?;
    match scalars.is_empty() {
        true => Ok(new_empty_array(field.data_type())),
        false => Ok(cast(
            &ScalarValue::iter_to_array(scalars)?,
            field.data_type(),
        )?),
    }
}

/// The output batch: the input rows and the added rows, in `out`'s order.
fn assemble(out: &Output, options: &FillOptions, keys: &[FillKey]) -> Result<RecordBatch> {
    let added = added_columns(&out.rows, &out.added, options, keys)?;
    let columns = out
        .rows
        .columns()
        .iter()
        .zip(&added)
        .map(|(rows, added)| interleave(&[rows.as_ref(), added.as_ref()], &out.order))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(out.rows.schema(), columns)?)
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
