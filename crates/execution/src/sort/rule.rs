//! `ORDER BY ... LIMIT k` with a large `k` sorts externally.
//!
//! DataFusion answers a sort with a row limit by a top-k heap that holds `k`
//! rows and cannot spill: under a memory limit a large `k` fails where the
//! whole sort would finish. Past [`TOP_K_MAX_ROWS`] rows the heap's advantage
//! over a full sort is small anyway, so such a sort drops its limit, runs as
//! the external sort, and a limit on each of its partitions keeps the first
//! `k` rows (the merge above, if any, keeps its own limit).

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::limit::LocalLimitExec;
use datafusion::physical_plan::sorts::sort::SortExec;

/// Rows a top-k sort may keep; ClickHouse switches at a similar scale
/// (`max_bytes_before_external_sort` applies to its sort with a limit too).
pub const TOP_K_MAX_ROWS: usize = 1 << 20;

#[derive(Debug, Default)]
pub struct SortLargeLimitsExternally;

impl PhysicalOptimizerRule for SortLargeLimitsExternally {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, |node| {
            let Some(sort) = node.downcast_ref::<SortExec>() else {
                return Ok(None);
            };
            Ok(match sort.fetch() {
                Some(fetch) if fetch > TOP_K_MAX_ROWS => {
                    let full: Arc<dyn ExecutionPlan> = Arc::new(sort.with_fetch(None));
                    Some(Arc::new(LocalLimitExec::new(full, fetch)))
                }
                _ => None,
            })
        })
    }

    fn name(&self) -> &str {
        "strata_sort_large_limits_externally"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
