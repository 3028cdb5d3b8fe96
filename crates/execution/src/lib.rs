//! Strata's physical operators, for the work where DataFusion's general
//! operators leave speed on the table, and the physical optimizer rules that
//! put them in plans. Anything a rule does not match keeps DataFusion's
//! operator, so every query still runs.

pub mod aggregate;
pub mod expressions;
pub mod fill;
pub mod fixed_keys;
pub mod join;
pub mod lambda_indexes;
pub mod sort;
pub mod spill;

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;

/// Strata's rules, to run before DataFusion's own (they match the plan the
/// physical planner produced, before distribution is enforced).
pub fn physical_optimizer_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    vec![
        Arc::new(aggregate::rule::ChooseAggregation),
        Arc::new(join::rule::ChooseAsofJoin),
        Arc::new(join::rule::ChooseSemiJoin),
        Arc::new(sort::rule::OffsetBarriers),
    ]
}

/// Strata's rules to run after DataFusion's own, on the plan as it will run
/// (limits pushed into sorts, predicates in their final form).
pub fn final_physical_optimizer_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    vec![
        Arc::new(lambda_indexes::LambdaIndexes),
        Arc::new(join::rule::SpillingHashJoins),
        Arc::new(sort::rule::SortSpillingInOneStream),
        Arc::new(sort::rule::SortLargeLimitsExternally),
        Arc::new(expressions::rule::SpecializeFilters),
    ]
}

/// Rewrites `plan` bottom-up, putting `replacement(node)` where it gives one:
/// the shape of every Strata rule.
pub(crate) fn replace_nodes(
    plan: Arc<dyn ExecutionPlan>,
    replacement: impl Fn(&Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        Ok(match replacement(&node)? {
            Some(replacement) => Transformed::yes(replacement),
            None => Transformed::no(node),
        })
    })
    .map(|t| t.data)
}
