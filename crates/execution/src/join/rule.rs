//! Puts [`HybridSemiJoinExec`] where the planner wrote a hash semi or anti
//! join: every one without a residual filter, a row limit or NULL-aware
//! `NOT IN` semantics, which keep DataFusion's `HashJoinExec`.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{JoinType, NullEquality, Result};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::HashJoinExec;

use super::hybrid_semi_join::{HybridSemiJoinExec, SemiJoinKind};

#[derive(Debug, Default)]
pub struct ChooseSemiJoin;

impl PhysicalOptimizerRule for ChooseSemiJoin {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            Ok(match replacement(&node)? {
                Some(replacement) => Transformed::yes(replacement),
                None => Transformed::no(node),
            })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "strata_choose_semi_join"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn replacement(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(join) = node.downcast_ref::<HashJoinExec>() else {
        return Ok(None);
    };
    if join.filter().is_some() || join.null_aware || node.fetch().is_some() {
        return Ok(None);
    }
    let (kind, probe_is_left) = match join.join_type() {
        JoinType::LeftSemi => (SemiJoinKind::Semi, true),
        JoinType::LeftAnti => (SemiJoinKind::Anti, true),
        JoinType::RightSemi => (SemiJoinKind::Semi, false),
        JoinType::RightAnti => (SemiJoinKind::Anti, false),
        _ => return Ok(None),
    };
    let (probe, build, on) = if probe_is_left {
        (join.left(), join.right(), join.on().to_vec())
    } else {
        let swapped = join
            .on()
            .iter()
            .map(|(l, r)| (Arc::clone(r), Arc::clone(l)))
            .collect();
        (join.right(), join.left(), swapped)
    };
    let nulls_equal = join.null_equality() == NullEquality::NullEqualsNull;
    let projection = join.projection.as_ref().map(|p| p.to_vec());
    match HybridSemiJoinExec::try_new(
        Arc::clone(probe),
        Arc::clone(build),
        on,
        kind,
        nulls_equal,
        projection,
    ) {
        Ok(exec) => Ok(Some(Arc::new(exec))),
        // Keys of different types: DataFusion's join compares them.
        Err(_) => Ok(None),
    }
}
