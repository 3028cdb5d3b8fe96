//! DataFusion's physical `CASE` decides whether a nullable `THEN` branch is
//! reachable by evaluating its `WHEN` condition on a dummy one-row batch. A
//! condition that reads no column but calls a volatile function (`rand()`,
//! `rowNumberInAllBlocks()`) runs there for real: a draw that comes out
//! false declares the result non-nullable, and the query then fails when a
//! row takes the `NULL` branch (or a counting function skips rows).
//!
//! [`VolatileCaseNullability`] rewrites such a branch so that no condition
//! is evaluated at planning: `CASE WHEN c THEN t ELSE e END` with `t`
//! nullable and `e` not becomes `CASE WHEN c IS NOT TRUE THEN e ELSE t END`,
//! the same rows (a NULL condition takes `e` either way), with the nullable
//! side in `ELSE`, whose nullability is read from its type alone. Several
//! branches nest, one `CASE` per branch, from the last.

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::Case;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan};
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

#[derive(Debug, Default)]
pub struct VolatileCaseNullability;

impl OptimizerRule for VolatileCaseNullability {
    fn name(&self) -> &str {
        "volatile_case_nullability"
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        plan.transform_up(|plan| {
            let [input] = plan.inputs()[..] else {
                return Ok(Transformed::no(plan));
            };
            let schema = input.schema().clone();
            let names = NamePreserver::new(&plan);
            let rewritten = plan.map_expressions(|expr| {
                let name = names.save(&expr);
                let rewritten = expr.transform_up(|expr| match expr {
                    Expr::Case(case) => rewrite_case(case, &schema),
                    other => Ok(Transformed::no(other)),
                })?;
                Ok(rewritten.update_data(|expr| name.restore(expr)))
            })?;
            match rewritten.transformed {
                true => rewritten.data.recompute_schema().map(Transformed::yes),
                false => Ok(rewritten),
            }
        })
    }
}

fn rewrite_case(case: Case, schema: &DFSchema) -> Result<Transformed<Expr>> {
    if case.expr.is_some() || !needs_rewrite(&case, schema)? {
        return Ok(Transformed::no(Expr::Case(case)));
    }
    let result_type = Expr::Case(case.clone()).get_type(schema)?;
    let mut otherwise = match case.else_expr {
        Some(e) => *e,
        None => Expr::Literal(ScalarValue::try_new_null(&result_type)?, None),
    };
    for (when, then) in case.when_then_expr.into_iter().rev() {
        let flip = flips(&when, &then, &otherwise, schema)?;
        let (when, then, e) = match flip {
            true => (Box::new(Expr::IsNotTrue(when)), Box::new(otherwise), then),
            false => (when, then, Box::new(otherwise)),
        };
        otherwise = Expr::Case(Case {
            expr: None,
            when_then_expr: vec![(when, then)],
            else_expr: Some(e),
        });
    }
    Ok(Transformed::yes(otherwise))
}

/// Whether some branch, seen with the branches after it as its `ELSE`, flips.
fn needs_rewrite(case: &Case, schema: &DFSchema) -> Result<bool> {
    let mut else_nullable = match &case.else_expr {
        Some(e) => e.nullable(schema)?,
        None => true,
    };
    for (when, then) in case.when_then_expr.iter().rev() {
        let then_nullable = then.nullable(schema)?;
        if then_nullable && !else_nullable && evaluated_at_planning(when, then)? {
            return Ok(true);
        }
        else_nullable |= then_nullable;
    }
    Ok(false)
}

fn flips(when: &Expr, then: &Expr, otherwise: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(
        then.nullable(schema)?
            && !otherwise.nullable(schema)?
            && evaluated_at_planning(when, then)?,
    )
}

/// Whether DataFusion's reachability check would run a volatile function:
/// it replaces `then` inside `when` by NULL (the `WHEN x IS NOT NULL THEN x`
/// pattern) and evaluates what is left, which fails, harmlessly, on a
/// column reference.
fn evaluated_at_planning(when: &Expr, then: &Expr) -> Result<bool> {
    let then = certainly_null_core(then);
    let left = when
        .clone()
        .transform_down(|e| match &e == then {
            true => Ok(Transformed::yes(Expr::Literal(ScalarValue::Null, None))),
            false => Ok(Transformed::no(e)),
        })?
        .data;
    Ok(left.is_volatile() && left.column_refs().is_empty())
}

/// The expression inside the wrappers that are NULL exactly when it is, as
/// DataFusion unwraps them.
fn certainly_null_core(expr: &Expr) -> &Expr {
    match expr {
        Expr::Not(e) | Expr::Negative(e) => certainly_null_core(e),
        Expr::Cast(cast) => certainly_null_core(&cast.expr),
        _ => expr,
    }
}
