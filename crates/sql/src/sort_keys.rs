//! DataFusion's `eliminate_duplicated_expr` rule drops the ORDER BY keys that
//! a unique key before them determines, by the plan's functional
//! dependencies. Its Unnest keeps its input's, so a key unique before it (a
//! GROUP BY key under ARRAY JOIN or `arrayJoin`) still reads as unique over
//! the rows it repeats, and `ORDER BY k, v` sorted by `k` alone. Strata's
//! rule ([`SortKeysKept`]) drops only repeated keys of a sort and leaves
//! every other plan to DataFusion's.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::tree_node::Transformed;
use datafusion::logical_expr::{LogicalPlan, Sort};
use datafusion::optimizer::optimizer::ApplyOrder;
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

#[derive(Debug)]
pub struct SortKeysKept {
    datafusion_rule: Arc<dyn OptimizerRule + Send + Sync>,
}

impl SortKeysKept {
    pub const NAME: &'static str = "eliminate_duplicated_expr";

    /// DataFusion's rule, for the plans other than sorts.
    pub fn new(datafusion_rule: Arc<dyn OptimizerRule + Send + Sync>) -> Self {
        debug_assert_eq!(datafusion_rule.name(), Self::NAME);
        SortKeysKept { datafusion_rule }
    }
}

impl OptimizerRule for SortKeysKept {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        self.datafusion_rule.apply_order()
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Sort(sort) = plan else {
            return self.datafusion_rule.rewrite(plan, config);
        };
        let keys = sort.expr.len();
        let mut seen = HashSet::new();
        let expr: Vec<_> = sort
            .expr
            .into_iter()
            .filter(|key| seen.insert(key.expr.clone()))
            .collect();
        let changed = expr.len() != keys;
        let sort = LogicalPlan::Sort(Sort {
            expr,
            input: sort.input,
            fetch: sort.fetch,
        });
        Ok(match changed {
            true => Transformed::yes(sort),
            false => Transformed::no(sort),
        })
    }
}
