//! Puts every lambda parameter back at its place in the rows its lambda
//! sees. DataFusion's physical planner gives a lambda's parameter `p_i` the
//! index `w + i`, `w` the width of the rows the lambda's expression reads
//! (the input's columns, then the parameters of the lambdas around it).
//! Its projection rules later move expressions over narrower or wider
//! inputs (two projections merged, one pushed under a sort) and shift the
//! indices of columns but not those of parameters: `arrayMap(x -> x + c,
//! a)` over an input that gained a column read that column as `x`.
//!
//! [`LambdaIndexes`] runs after DataFusion's rules and gives each
//! parameter the index its name has in its scope, over the input each
//! `ProjectionExec` and `FilterExec` has at the end; an expression already
//! right comes back as it was.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::{Result, tree_node::TreeNode};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{LambdaExpr, LambdaVariable};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};

#[derive(Debug, Default)]
pub struct LambdaIndexes;

impl PhysicalOptimizerRule for LambdaIndexes {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, |node| {
            if let Some(projection) = node.downcast_ref::<ProjectionExec>() {
                return repaired_projection(projection);
            }
            if let Some(filter) = node.downcast_ref::<FilterExec>() {
                return repaired_filter(filter);
            }
            Ok(None)
        })
    }

    fn name(&self) -> &str {
        "strata_lambda_indexes"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn repaired_projection(projection: &ProjectionExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let width = projection.input().schema().fields().len();
    let mut changed = false;
    let mut exprs = Vec::with_capacity(projection.expr().len());
    for item in projection.expr() {
        let expr = repaired(&item.expr, width, &[])?;
        changed |= !Arc::ptr_eq(&expr, &item.expr);
        exprs.push(ProjectionExpr {
            expr,
            alias: item.alias.clone(),
        });
    }
    if !changed {
        return Ok(None);
    }
    let rebuilt = ProjectionExec::try_new_with_schema_metadata(
        exprs,
        Arc::clone(projection.input()),
        projection.schema().as_ref(),
    )?;
    Ok(Some(Arc::new(rebuilt)))
}

fn repaired_filter(filter: &FilterExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let width = filter.input().schema().fields().len();
    let predicate = repaired(filter.predicate(), width, &[])?;
    if Arc::ptr_eq(&predicate, filter.predicate()) {
        return Ok(None);
    }
    let rebuilt = FilterExecBuilder::from(filter)
        .with_predicate(predicate)
        .build()?;
    Ok(Some(Arc::new(rebuilt)))
}

/// `expr`, read over rows `width` wide, with each lambda parameter at the
/// index its name has in `scope` (innermost last); `expr` itself when
/// nothing moved.
fn repaired(
    expr: &Arc<dyn PhysicalExpr>,
    width: usize,
    scope: &[(String, usize)],
) -> Result<Arc<dyn PhysicalExpr>> {
    if scope.is_empty() && !has_lambda(expr)? {
        return Ok(Arc::clone(expr));
    }
    if let Some(lambda) = expr.downcast_ref::<LambdaExpr>() {
        let mut inner: Vec<(String, usize)> = scope.to_vec();
        inner.extend(
            lambda
                .params()
                .iter()
                .enumerate()
                .map(|(i, name)| (name.clone(), width + i)),
        );
        let body = repaired(lambda.body(), width + lambda.params().len(), &inner)?;
        if Arc::ptr_eq(&body, lambda.body()) {
            return Ok(Arc::clone(expr));
        }
        return Ok(Arc::new(LambdaExpr::try_new(
            lambda.params().to_vec(),
            body,
        )?));
    }
    if let Some(variable) = expr.downcast_ref::<LambdaVariable>() {
        let place = scope
            .iter()
            .rev()
            .find(|(name, _)| name == variable.name())
            .map(|(_, index)| *index);
        return Ok(match place {
            Some(index) if index != variable.index() => {
                Arc::new(LambdaVariable::new(index, Arc::clone(variable.field())))
            }
            _ => Arc::clone(expr),
        });
    }
    let children = expr.children();
    let mut changed = false;
    let mut repaired_children = Vec::with_capacity(children.len());
    for child in children {
        let repaired_child = repaired(child, width, scope)?;
        changed |= !Arc::ptr_eq(&repaired_child, child);
        repaired_children.push(repaired_child);
    }
    match changed {
        true => Arc::clone(expr).with_new_children(repaired_children),
        false => Ok(Arc::clone(expr)),
    }
}

fn has_lambda(expr: &Arc<dyn PhysicalExpr>) -> Result<bool> {
    expr.exists(|node| Ok(node.downcast_ref::<LambdaExpr>().is_some()))
}
