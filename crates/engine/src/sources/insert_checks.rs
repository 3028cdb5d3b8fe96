//! What every row an INSERT writes must satisfy, checked before the
//! table's sink receives it, so a failing INSERT writes no row of the
//! failing block:
//!
//! - the arrays of one Nested structure (`n.a`, `n.b`, the columns
//!   `n Nested(a T, b U)` becomes) have one length in each row, else
//!   SIZES_OF_ARRAYS_DONT_MATCH;
//! - each `CONSTRAINT name CHECK expr` of the table is true for each row,
//!   else VIOLATED_CONSTRAINT.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, Result, Statistics};
use datafusion::execution::session_state::SessionState;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_plan::statistics::{ChildStats, StatisticsArgs};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, replace_children_if_necessary,
};
use datafusion::sql::sqlparser::ast::{Expr as SqlExpr, ExprWithAlias};
use futures::StreamExt;
use strata_common::{ErrorCode, StrataError};
use strata_sql::constraints::TableConstraint;
use strata_sql::literal_text::{expr_text, quoted};

/// A CHECK constraint compiled over the inserted rows.
#[derive(Debug)]
struct Constraint {
    name: String,
    /// `db.table (uuid)`, as ClickHouse names the table in the error.
    table: String,
    /// The expression as the error shows it.
    text: String,
    expr: Arc<dyn PhysicalExpr>,
}

/// One thing each inserted block is checked for.
#[derive(Debug)]
enum Check {
    Sizes(Structure),
    Constraint(Constraint),
}

/// The array columns of one structure, by position in the inserted rows.
#[derive(Debug, Clone)]
struct Structure {
    name: String,
    columns: Vec<usize>,
}

/// Checks the rows an insert's sink receives.
#[derive(Debug)]
pub struct InsertChecksExec {
    input: Arc<dyn ExecutionPlan>,
    checks: Arc<Vec<Check>>,
}

/// The table an insert writes, as its checks need it.
#[derive(Default)]
pub struct InsertTarget {
    /// `db.table (uuid)`.
    pub name: String,
    /// The table's CHECK constraints, each with its expression rewritten
    /// to ClickHouse's meaning, as a SELECT's would be.
    pub constraints: Vec<(TableConstraint, SqlExpr)>,
}

impl InsertChecksExec {
    /// `insert` (a sink over one input) with its input checked, when the
    /// rows it writes have anything to check.
    pub fn wrap(
        insert: Arc<dyn ExecutionPlan>,
        target: InsertTarget,
        state: &SessionState,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let children = insert.children();
        let [input] = children.as_slice() else {
            return Ok(insert);
        };
        let schema = input.schema();
        let mut checks: Vec<Check> = structures(&schema).into_iter().map(Check::Sizes).collect();
        let rows = DFSchema::try_from(Arc::clone(&schema))?;
        for (constraint, expr) in target.constraints {
            checks.push(Check::Constraint(Constraint {
                name: constraint.name,
                table: target.name.clone(),
                text: expr_text(&constraint.expr),
                expr: compile(state, &rows, expr)?,
            }));
        }
        if checks.is_empty() {
            return Ok(insert);
        }
        let checked: Arc<dyn ExecutionPlan> = Arc::new(InsertChecksExec {
            input: Arc::clone(input),
            checks: Arc::new(checks),
        });
        replace_children_if_necessary(insert, vec![checked])
    }
}

/// A constraint's expression over the rows of `schema`.
pub fn compile(
    state: &SessionState,
    schema: &DFSchema,
    expr: SqlExpr,
) -> Result<Arc<dyn PhysicalExpr>> {
    let logical =
        state.create_logical_expr_from_sql_expr(ExprWithAlias { expr, alias: None }, schema)?;
    state.create_physical_expr(logical, schema)
}

/// Array columns grouped by the name before their last period, where a
/// group has two or more.
fn structures(schema: &SchemaRef) -> Vec<Structure> {
    let mut structures: Vec<Structure> = Vec::new();
    for (position, field) in schema.fields().iter().enumerate() {
        let (DataType::List(_) | DataType::LargeList(_), Some((name, _))) =
            (field.data_type(), field.name().rsplit_once('.'))
        else {
            continue;
        };
        match structures.iter_mut().find(|s| s.name == name) {
            Some(structure) => structure.columns.push(position),
            None => structures.push(Structure {
                name: name.to_string(),
                columns: vec![position],
            }),
        }
    }
    structures.retain(|s| s.columns.len() > 1);
    structures
}

fn check(batch: &RecordBatch, checks: &[Check], first_row: usize) -> Result<()> {
    for check in checks {
        match check {
            Check::Sizes(structure) => check_sizes(batch, structure)?,
            Check::Constraint(constraint) => check_constraint(batch, constraint, first_row)?,
        }
    }
    Ok(())
}

fn check_sizes(batch: &RecordBatch, structure: &Structure) -> Result<()> {
    let first = structure.columns[0];
    let lengths = array_lengths(batch.column(first));
    for &other in &structure.columns[1..] {
        if array_lengths(batch.column(other)) != lengths {
            let schema = batch.schema();
            return Err(StrataError::new(
                ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                format!(
                    "Elements '{}' and '{}' of Nested data structure '{}' (Array columns) have different array sizes.",
                    schema.field(first).name(),
                    schema.field(other).name(),
                    structure.name
                ),
            )
            .into_datafusion());
        }
    }
    Ok(())
}

/// The constraint's value for each row must be true (or a non-zero
/// number); `first_row` is the block's first row's number in the insert.
fn check_constraint(batch: &RecordBatch, constraint: &Constraint, first_row: usize) -> Result<()> {
    let values = constraint
        .expr
        .evaluate(batch)?
        .into_array(batch.num_rows())?;
    let violated = |detail: String| {
        StrataError::new(
            ErrorCode::VIOLATED_CONSTRAINT,
            format!(
                "Constraint `{}` for table {} is violated{detail}",
                constraint.name, constraint.table
            ),
        )
        .into_datafusion()
    };
    if values.null_count() > 0 {
        return Err(violated(format!(
            ". Expression: ({}).Constraint expression returns nullable column that contains null value.",
            constraint.text
        )));
    }
    let truth = match values.data_type() {
        DataType::Boolean => values,
        DataType::UInt8 => cast(&values, &DataType::Boolean)?,
        // A number written alone (`CHECK 1`) is a UInt8 constant in ClickHouse.
        t if t.is_integer() && constraint.text.trim().parse::<u8>().is_ok() => {
            cast(&values, &DataType::Boolean)?
        }
        _ => {
            return Err(StrataError::new(
                ErrorCode::UNSUPPORTED_METHOD,
                format!(
                    "Constraint `{}` does not return a value of type UInt8.",
                    constraint.name
                ),
            )
            .into_datafusion());
        }
    };
    let Some(row) = truth.as_boolean().iter().position(|v| v == Some(false)) else {
        return Ok(());
    };
    let schema = batch.schema();
    let mut columns: Vec<usize> = collect_columns(&constraint.expr)
        .iter()
        .map(|c| c.index())
        .collect();
    columns.sort_unstable();
    let shown: Vec<String> = columns
        .iter()
        .map(|&i| {
            let value = array_value_to_string(batch.column(i), row).unwrap_or_default();
            let value = match schema.field(i).data_type() {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => quoted(&value),
                _ => value,
            };
            format!("{} = {value}", schema.field(i).name())
        })
        .collect();
    Err(violated(format!(
        " at row {}. Expression: ({}). Column values: {}.",
        first_row + row + 1,
        constraint.text,
        shown.join(", ")
    )))
}

/// Each row's array length (a NULL array has none).
fn array_lengths(column: &dyn Array) -> Vec<usize> {
    let lengths = |offsets: Vec<usize>| offsets.windows(2).map(|w| w[1] - w[0]).collect();
    match column.data_type() {
        DataType::LargeList(_) => lengths(
            column
                .as_list::<i64>()
                .offsets()
                .iter()
                .map(|&o| o as usize)
                .collect(),
        ),
        _ => lengths(
            column
                .as_list::<i32>()
                .offsets()
                .iter()
                .map(|&o| o as usize)
                .collect(),
        ),
    }
}

impl DisplayAs for InsertChecksExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "InsertChecksExec: checks={}", self.checks.len())
    }
}

impl ExecutionPlan for InsertChecksExec {
    fn name(&self) -> &str {
        "InsertChecksExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn child_stats_requests(&self, partition: Option<usize>) -> Vec<ChildStats> {
        vec![ChildStats::At(partition)]
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        _args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(Arc::clone(&input_stats[0]))
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(InsertChecksExec {
            input: children.remove(0),
            checks: Arc::clone(&self.checks),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let checks = Arc::clone(&self.checks);
        let mut rows = 0;
        let checked = input.map(move |batch| {
            let batch = batch?;
            check(&batch, &checks, rows)?;
            rows += batch.num_rows();
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{ListArray, UInt8Array};
    use datafusion::arrow::datatypes::{Field, Int32Type, Schema};

    use super::*;

    fn lists(rows: &[&[i32]]) -> Arc<dyn Array> {
        Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
            rows.iter().map(|r| Some(r.iter().map(|v| Some(*v)))),
        ))
    }

    #[test]
    fn arrays_of_one_structure_must_have_one_length() {
        let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::UInt8, false),
            Field::new("n.a", list.clone(), false),
            Field::new("n.b", list.clone(), false),
            Field::new("m.a", list, false),
        ]));
        let checks: Vec<Check> = structures(&schema).into_iter().map(Check::Sizes).collect();
        assert_eq!(checks.len(), 1, "m has one array");
        let batch = |b: &[&[i32]]| {
            RecordBatch::try_new(
                Arc::clone(&schema),
                vec![
                    Arc::new(UInt8Array::from(vec![1, 2])),
                    lists(&[&[1, 2], &[]]),
                    lists(b),
                    lists(&[&[1], &[1, 2, 3]]),
                ],
            )
            .unwrap()
        };
        assert!(check(&batch(&[&[3, 4], &[]]), &checks, 0).is_ok());
        let error = check(&batch(&[&[3], &[4]]), &checks, 0).unwrap_err();
        assert!(
            error.to_string().contains("different array sizes"),
            "{error}"
        );
    }
}
