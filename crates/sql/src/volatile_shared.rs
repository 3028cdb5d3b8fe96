//! ClickHouse computes an expression once per row however often a query
//! writes it, random ones included: `rand() = rand()` is 1, and `WITH
//! rand(1) AS r SELECT r != r` is 0 (`rand(1)` and `rand(2)` are how a
//! query asks for two draws). DataFusion evaluates each occurrence.
//!
//! [`SharedVolatileCalls`] gives a plan node (projection, aggregate,
//! filter) whose expressions repeat a volatile call of constant arguments a
//! projection under it that computes the call once, as a column the
//! occurrences then read. Two readers keep DataFusion from inlining it back.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column, Result};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{Expr, LogicalPlan, Projection, Volatility};
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

/// The column a shared call is computed as, suffixed with its number.
const SHARED_COLUMN: &str = "__strata_shared_volatile_";

#[derive(Debug, Default)]
pub struct SharedVolatileCalls;

impl OptimizerRule for SharedVolatileCalls {
    fn name(&self) -> &str {
        "shared_volatile_calls"
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        plan.transform_up(share_in_node)
    }
}

fn share_in_node(plan: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    if !matches!(
        plan,
        LogicalPlan::Projection(_) | LogicalPlan::Aggregate(_) | LogicalPlan::Filter(_)
    ) {
        return Ok(Transformed::no(plan));
    }
    let shared = repeated_calls(&plan.expressions())?;
    if shared.is_empty() {
        return Ok(Transformed::no(plan));
    }
    let input = plan.inputs()[0].clone();
    let mut below: Vec<Expr> = input
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    let mut columns = HashMap::new();
    for (i, call) in shared.into_iter().enumerate() {
        let name = format!("{SHARED_COLUMN}{i}");
        below.push(call.clone().alias(&name));
        columns.insert(call, Expr::Column(Column::from_name(name)));
    }
    let below = LogicalPlan::Projection(Projection::try_new(below, Arc::new(input.clone()))?);
    let names = NamePreserver::new(&plan);
    let exprs = plan
        .expressions()
        .into_iter()
        .map(|expr| {
            let name = names.save(&expr);
            let replaced = expr.transform_down(|e| match columns.get(&e) {
                Some(column) => Ok(Transformed::new(
                    column.clone(),
                    true,
                    TreeNodeRecursion::Jump,
                )),
                None => Ok(Transformed::no(e)),
            })?;
            Ok(name.restore(replaced.data))
        })
        .collect::<Result<Vec<_>>>()?;
    let rewritten = plan.with_new_exprs(exprs, vec![below])?;
    if !matches!(rewritten, LogicalPlan::Filter(_)) {
        return Ok(Transformed::yes(rewritten));
    }
    // A filter passes its input's columns on: the shared ones stop here.
    let kept = input
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect::<Vec<_>>();
    let above = Projection::try_new(kept, Arc::new(rewritten))?;
    Ok(Transformed::yes(LogicalPlan::Projection(above)))
}

/// The volatile calls of constant arguments that `exprs` make more than once.
fn repeated_calls(exprs: &[Expr]) -> Result<Vec<Expr>> {
    let mut counts: Vec<(Expr, usize)> = Vec::new();
    for expr in exprs {
        expr.apply(|e| {
            if !is_shareable(e) {
                return Ok(TreeNodeRecursion::Continue);
            }
            match counts.iter_mut().find(|(seen, _)| seen == e) {
                Some((_, n)) => *n += 1,
                None => counts.push((e.clone(), 1)),
            }
            Ok(TreeNodeRecursion::Jump)
        })?;
    }
    Ok(counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(e, _)| e)
        .collect())
}

fn is_shareable(expr: &Expr) -> bool {
    let Expr::ScalarFunction(call) = expr else {
        return false;
    };
    call.func.signature().volatility == Volatility::Volatile
        && call.args.iter().all(|a| matches!(a, Expr::Literal(..)))
}
