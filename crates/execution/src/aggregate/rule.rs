//! Chooses Strata's GROUP BY operator where it applies.
//!
//! The physical planner writes a GROUP BY as a final aggregate over a partial
//! one. Where the single key is 8 or 16 bits wide and every aggregate has a
//! groups accumulator, the pair becomes one `StrataAggregateExec` (dense
//! method, parallel merge). Everything else keeps DataFusion's hash
//! aggregation, which `EXPLAIN` shows as `AggregateExec`.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};

use super::dense_keys::DenseKeys;
use super::exec::DenseAggregateExec;

#[derive(Debug, Default)]
pub struct ChooseAggregation;

impl PhysicalOptimizerRule for ChooseAggregation {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            Ok(match dense_replacement(&node)? {
                Some(replacement) => Transformed::yes(replacement),
                None => Transformed::no(node),
            })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "strata_choose_aggregation"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn dense_replacement(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(last) = node.downcast_ref::<AggregateExec>() else {
        return Ok(None);
    };
    if !matches!(
        last.mode(),
        AggregateMode::Final | AggregateMode::FinalPartitioned
    ) {
        return Ok(None);
    }
    let Some(partial) = last.input().downcast_ref::<AggregateExec>() else {
        return Ok(None);
    };
    if *partial.mode() != AggregateMode::Partial || partial.limit_options().is_some() {
        return Ok(None);
    }
    let group_by = partial.group_expr();
    if !group_by.is_single() || group_by.expr().len() != 1 {
        return Ok(None);
    }
    let (key, key_name) = &group_by.expr()[0];
    let key_type = key.data_type(&partial.input_schema())?;
    let Some(keys) = DenseKeys::for_type(&key_type) else {
        return Ok(None);
    };
    let supported = partial
        .aggr_expr()
        .iter()
        .all(|a| a.groups_accumulator_supported() && !a.is_distinct() && a.order_bys().is_empty());
    if !supported {
        return Ok(None);
    }
    Ok(Some(Arc::new(DenseAggregateExec::new(
        Arc::clone(partial.input()),
        (Arc::clone(key), key_name.clone()),
        keys,
        partial.aggr_expr().to_vec(),
        partial.filter_expr().to_vec(),
        last.schema(),
    ))))
}
