//! A mutation's condition and values with their subqueries run first, as
//! ClickHouse builds the sets of a mutation's `IN (SELECT ...)` before it
//! rewrites a part: each subquery that does not read the mutated row is run
//! once and replaced by its answer (`IN` by a list, `EXISTS` by a boolean,
//! a scalar subquery by its value), so the expression compiles to a
//! physical expression over the table's columns.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::execution::SessionState;
use datafusion::logical_expr::expr::{Exists, InList, InSubquery};
use datafusion::logical_expr::simplify::SimplifyContext;
use datafusion::logical_expr::{Expr, ExprSchemable, Subquery, lit};
use datafusion::optimizer::simplify_expressions::ExprSimplifier;
use datafusion::physical_plan::collect;
use strata_common::{Result, strata_err};

use crate::engine::task_context;

/// `expr` with every subquery replaced by its answer, then simplified as the
/// optimizer would (functions such as `coalesce` exist only in simplified
/// form at execution). `row` is the mutated table's row.
pub(super) async fn evaluated(expr: Expr, row: &DFSchema, state: &SessionState) -> Result<Expr> {
    let mut expr = expr;
    while let Some(subquery) = first_subquery(&expr)? {
        let answer = answer(&subquery, row, state).await?;
        expr = expr
            .transform_down(|e| match e == subquery {
                true => Ok(Transformed::new(
                    answer.clone(),
                    true,
                    TreeNodeRecursion::Jump,
                )),
                false => Ok(Transformed::no(e)),
            })?
            .data;
    }
    let context = SimplifyContext::builder()
        .with_schema(Arc::new(row.clone()))
        .with_config_options(Arc::clone(state.config().options()))
        .build();
    Ok(ExprSimplifier::new(context).simplify(expr)?)
}

/// The first subquery expression in `expr`, outermost first.
fn first_subquery(expr: &Expr) -> Result<Option<Expr>> {
    let mut found = None;
    expr.apply(|e| {
        if matches!(
            e,
            Expr::InSubquery(_) | Expr::Exists(_) | Expr::ScalarSubquery(_)
        ) {
            found = Some(e.clone());
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    Ok(found)
}

/// What a subquery expression stands for, its subquery run once.
async fn answer(expr: &Expr, row: &DFSchema, state: &SessionState) -> Result<Expr> {
    Ok(match expr {
        Expr::InSubquery(InSubquery {
            expr: probe,
            subquery,
            negated,
        }) => {
            let probe_type = probe.get_type(row)?;
            let mut list = Vec::new();
            for value in values(subquery, state).await? {
                // A NULL in the set matches nothing, as in ClickHouse.
                if !value.is_null() {
                    list.push(lit(value.cast_to(&probe_type)?));
                }
            }
            Expr::InList(InList::new(probe.clone(), list, *negated))
        }
        Expr::Exists(Exists { subquery, negated }) => {
            let rows = run(subquery, state).await?;
            let any = rows.iter().any(|batch| batch.num_rows() > 0);
            lit(any != *negated)
        }
        Expr::ScalarSubquery(subquery) => {
            let values = values(subquery, state).await?;
            match values.as_slice() {
                [] => lit(ScalarValue::try_from(
                    subquery.subquery.schema().field(0).data_type(),
                )?),
                [value] => lit(value.clone()),
                _ => {
                    return Err(strata_err!(
                        INCORRECT_RESULT_OF_SCALAR_SUBQUERY,
                        "Scalar subquery returned more than one row"
                    ));
                }
            }
        }
        other => return Err(strata_err!(LOGICAL_ERROR, "{other} is not a subquery")),
    })
}

/// The first column of the subquery's answer.
async fn values(subquery: &Subquery, state: &SessionState) -> Result<Vec<ScalarValue>> {
    let mut values = Vec::new();
    for batch in run(subquery, state).await? {
        let column = batch.column(0);
        for i in 0..batch.num_rows() {
            values.push(ScalarValue::try_from_array(column, i)?);
        }
    }
    Ok(values)
}

async fn run(subquery: &Subquery, state: &SessionState) -> Result<Vec<RecordBatch>> {
    if !subquery.outer_ref_columns.is_empty() {
        return Err(strata_err!(
            NOT_IMPLEMENTED,
            "A mutation's subquery cannot read the mutated row: correlated subqueries in ALTER TABLE ... UPDATE/DELETE and DELETE FROM are not supported"
        ));
    }
    let plan = state.optimize(&subquery.subquery)?;
    let physical = state.create_physical_plan(&plan).await?;
    Ok(collect(physical, task_context(state)).await?)
}
