//! `ASOF [LEFT] JOIN`: each left row meets at most one right row, among
//! those with equal keys the one whose ASOF value is nearest the left row's
//! on the side the inequality allows (for `left >= right`, the greatest not
//! above it); among right rows with that same value, the first the right
//! side produced, as ClickHouse picks. An ASOF LEFT JOIN keeps a left row
//! that meets none, with NULL right columns.
//!
//! Build: the right side, read once for all partitions, is held as one
//! batch in reserved memory, its row numbers sorted by (key, value, row
//! number) and indexed by key. Probe: each left batch looks its rows' keys
//! up and binary-searches the values, then takes the matched right rows.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{concat_batches, take};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::row::{Row, RowConverter, Rows, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{JoinType, Result, internal_err};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{
    Distribution, EquivalenceProperties, Partitioning, PhysicalExpr, PhysicalExprRef,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::joins::utils::build_join_schema;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, execute_stream,
};
use futures::{StreamExt, TryStreamExt};

use strata_functions::asof::AsofOp;
use tokio::sync::OnceCell;

/// The inequality: `left op right`, each side an expression over its input.
#[derive(Debug, Clone)]
pub struct AsofInequality {
    pub left: PhysicalExprRef,
    pub right: PhysicalExprRef,
    pub op: AsofOp,
}

#[derive(Debug)]
pub struct AsofJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
    inequality: AsofInequality,
    join_type: JoinType,
    /// The output's columns, of the joined (left then right) columns.
    projection: Option<Vec<usize>>,
    joined_schema: SchemaRef,
    properties: Arc<PlanProperties>,
    /// The right side, built by the first partition to need it.
    built: Arc<OnceCell<Arc<Built>>>,
    metrics: ExecutionPlanMetricsSet,
}

impl AsofJoinExec {
    pub fn try_new(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
        inequality: AsofInequality,
        join_type: JoinType,
        projection: Option<Vec<usize>>,
    ) -> Result<Self> {
        if !matches!(join_type, JoinType::Inner | JoinType::Left) {
            return internal_err!("an ASOF join is INNER or LEFT, not {join_type}");
        }
        let (joined, _) = build_join_schema(&left.schema(), &right.schema(), &join_type);
        let joined_schema = Arc::new(joined);
        let schema = match &projection {
            Some(columns) => Arc::new(joined_schema.project(columns)?),
            None => Arc::clone(&joined_schema),
        };
        let partitions = left.properties().output_partitioning().partition_count();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(AsofJoinExec {
            left,
            right,
            on,
            inequality,
            join_type,
            projection,
            joined_schema,
            properties,
            built: Arc::new(OnceCell::new()),
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }
}

impl DisplayAs for AsofJoinExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let on: Vec<String> = self.on.iter().map(|(l, r)| format!("({l}, {r})")).collect();
        write!(
            f,
            "AsofJoinExec: join_type={}, on=[{}], asof={} {:?} {}",
            self.join_type,
            on.join(", "),
            self.inequality.left,
            self.inequality.op,
            self.inequality.right
        )
    }
}

impl ExecutionPlan for AsofJoinExec {
    fn name(&self) -> &str {
        "AsofJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.left, &self.right]
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![
            Distribution::UnspecifiedDistribution,
            Distribution::SinglePartition,
        ]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false, false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        let mut recursion = TreeNodeRecursion::Continue;
        let expressions = self
            .on
            .iter()
            .flat_map(|(l, r)| [l, r])
            .chain([&self.inequality.left, &self.inequality.right]);
        for expr in expressions {
            recursion = f(expr)?;
            if recursion == TreeNodeRecursion::Stop {
                break;
            }
        }
        Ok(recursion)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let right = children.remove(1);
        let left = children.remove(0);
        Ok(Arc::new(AsofJoinExec::try_new(
            left,
            right,
            self.on.clone(),
            self.inequality.clone(),
            self.join_type,
            self.projection.clone(),
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
        let probe = Probe {
            keys: self.on.iter().map(|(l, _)| Arc::clone(l)).collect(),
            value: Arc::clone(&self.inequality.left),
            op: self.inequality.op,
            keep_unmatched: self.join_type == JoinType::Left,
            projection: self.projection.clone(),
            joined_schema: Arc::clone(&self.joined_schema),
            metrics: BaselineMetrics::new(&self.metrics, partition),
        };
        let left = self.left.execute(partition, Arc::clone(&context))?;
        let cell = Arc::clone(&self.built);
        let right = Arc::clone(&self.right);
        let right_keys: Vec<PhysicalExprRef> = self.on.iter().map(|(_, r)| Arc::clone(r)).collect();
        let right_value = Arc::clone(&self.inequality.right);
        let joined = async move {
            let built = cell
                .get_or_try_init(|| build(right, right_keys, right_value, context))
                .await?;
            let built = Arc::clone(built);
            Result::<_>::Ok(left.map(move |batch| probe.join(&built, batch?)))
        };
        let stream = futures::stream::once(joined).try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            stream,
        )))
    }
}

/// The right side, sorted and indexed.
struct Built {
    batch: RecordBatch,
    /// Converts keys to the row format the index is keyed by.
    keys: RowConverter,
    /// Converts ASOF values to the row format they are compared in.
    values: RowConverter,
    value_rows: Rows,
    /// Right row numbers with non-NULL keys and values, by (key, value, row).
    order: Vec<u32>,
    /// Each key's run in `order`.
    runs: HashMap<Box<[u8]>, Range<usize>>,
    _reservation: MemoryReservation,
}

async fn build(
    right: Arc<dyn ExecutionPlan>,
    keys: Vec<PhysicalExprRef>,
    value: PhysicalExprRef,
    context: Arc<TaskContext>,
) -> Result<Arc<Built>> {
    let reservation = MemoryConsumer::new("AsofJoinExec").register(context.memory_pool());
    let schema = right.schema();
    let mut input = execute_stream(right, context)?;
    let mut batches = Vec::new();
    while let Some(batch) = input.next().await {
        let batch = batch?;
        reservation.try_grow(batch.get_array_memory_size())?;
        batches.push(batch);
    }
    // The copy in one batch is reserved before the pieces are let go.
    let batch = concat_batches(&schema, &batches)?;
    reservation.try_grow(batch.get_array_memory_size())?;
    reservation.shrink(batches.iter().map(RecordBatch::get_array_memory_size).sum());
    drop(batches);
    let key_arrays = evaluate(&keys, &batch)?;
    let value_array = value.evaluate(&batch)?.into_array(batch.num_rows())?;
    let key_converter = converter(&key_arrays)?;
    let value_converter = converter(std::slice::from_ref(&value_array))?;
    let key_rows = key_converter.convert_columns(&key_arrays)?;
    let value_rows = value_converter.convert_columns(std::slice::from_ref(&value_array))?;
    let mut order: Vec<u32> = (0..batch.num_rows() as u32)
        .filter(|&r| !is_null(&key_arrays, r as usize) && value_array.is_valid(r as usize))
        .collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        (key_rows.row(a), value_rows.row(a), a).cmp(&(key_rows.row(b), value_rows.row(b), b))
    });
    let mut runs: HashMap<Box<[u8]>, Range<usize>> = HashMap::new();
    let mut start = 0;
    for end in 1..=order.len() {
        let key = key_rows.row(order[start] as usize);
        if end == order.len() || key_rows.row(order[end] as usize) != key {
            runs.insert(key.as_ref().into(), start..end);
            start = end;
        }
    }
    reservation.try_grow(
        key_rows.size()
            + value_rows.size()
            + order.len() * size_of::<u32>()
            + runs.len() * (size_of::<Range<usize>>() + 32),
    )?;
    drop(key_rows);
    Ok(Arc::new(Built {
        batch,
        keys: key_converter,
        values: value_converter,
        value_rows,
        order,
        runs,
        _reservation: reservation,
    }))
}

fn evaluate(exprs: &[PhysicalExprRef], batch: &RecordBatch) -> Result<Vec<ArrayRef>> {
    exprs
        .iter()
        .map(|e| e.evaluate(batch)?.into_array(batch.num_rows()))
        .collect()
}

fn converter(arrays: &[ArrayRef]) -> Result<RowConverter> {
    let fields = arrays
        .iter()
        .map(|a| SortField::new(a.data_type().clone()))
        .collect();
    Ok(RowConverter::new(fields)?)
}

fn is_null(arrays: &[ArrayRef], row: usize) -> bool {
    arrays.iter().any(|a| a.is_null(row))
}

impl fmt::Debug for Built {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "Built({} rows, {} keys)",
            self.order.len(),
            self.runs.len()
        )
    }
}

impl Built {
    /// The right row `left_value` meets among `run` (a key's rows).
    fn nearest(&self, run: &[u32], left_value: Row<'_>, op: AsofOp) -> Option<u32> {
        let value = |r: &u32| self.value_rows.row(*r as usize);
        let found = match op {
            AsofOp::Le => run.partition_point(|r| value(r) < left_value),
            AsofOp::Lt => run.partition_point(|r| value(r) <= left_value),
            AsofOp::Ge | AsofOp::Gt => {
                let below = match op {
                    AsofOp::Ge => run.partition_point(|r| value(r) <= left_value),
                    _ => run.partition_point(|r| value(r) < left_value),
                };
                // The first of the right rows with the greatest such value.
                let best = value(run.get(below.checked_sub(1)?)?);
                run.partition_point(|r| value(r) < best)
            }
        };
        run.get(found).copied()
    }
}

#[derive(Clone)]
struct Probe {
    keys: Vec<PhysicalExprRef>,
    value: PhysicalExprRef,
    op: AsofOp,
    keep_unmatched: bool,
    projection: Option<Vec<usize>>,
    joined_schema: SchemaRef,
    metrics: BaselineMetrics,
}

impl Probe {
    fn join(&self, built: &Built, batch: RecordBatch) -> Result<RecordBatch> {
        let timer = self.metrics.elapsed_compute().timer();
        let key_arrays = evaluate(&self.keys, &batch)?;
        let value_array = self.value.evaluate(&batch)?.into_array(batch.num_rows())?;
        let key_rows = built.keys.convert_columns(&key_arrays)?;
        let value_rows = built
            .values
            .convert_columns(std::slice::from_ref(&value_array))?;
        let mut left_rows: Vec<u32> = Vec::with_capacity(batch.num_rows());
        let mut right_rows: Vec<Option<u32>> = Vec::with_capacity(batch.num_rows());
        for row in 0..batch.num_rows() {
            let matched = match is_null(&key_arrays, row) || value_array.is_null(row) {
                true => None,
                false => built.runs.get(key_rows.row(row).as_ref()).and_then(|run| {
                    built.nearest(&built.order[run.clone()], value_rows.row(row), self.op)
                }),
            };
            if matched.is_some() || self.keep_unmatched {
                left_rows.push(row as u32);
                right_rows.push(matched);
            }
        }
        let left_rows = UInt32Array::from(left_rows);
        let right_rows = UInt32Array::from(right_rows);
        let mut columns = Vec::with_capacity(self.joined_schema.fields().len());
        for column in batch.columns() {
            columns.push(take(column, &left_rows, None)?);
        }
        for column in built.batch.columns() {
            columns.push(take(column, &right_rows, None)?);
        }
        let joined = RecordBatch::try_new(Arc::clone(&self.joined_schema), columns)?;
        let output = match &self.projection {
            Some(columns) => joined.project(columns)?,
            None => joined,
        };
        timer.done();
        self.metrics.record_output(output.num_rows());
        Ok(output)
    }
}
