//! Sorts shaped to finish under a memory limit.
//!
//! - `ORDER BY ... LIMIT k` with a large `k` sorts externally. DataFusion
//!   answers a sort with a row limit by a top-k heap that holds `k` rows and
//!   cannot spill: under a memory limit a large `k` fails where the whole
//!   sort would finish. Past [`TOP_K_MAX_ROWS`] rows the heap's advantage over
//!   a full sort is small anyway, so such a sort drops its limit, runs as the
//!   external sort, and a limit on each of its partitions keeps the first `k`
//!   rows (the merge above, if any, keeps its own limit).
//! - A sort of several partitions whose input is estimated past the sort
//!   threshold sorts in one stream. Each partition's external sort ends by
//!   merging its runs while the merge of the partitions above them starts,
//!   and none of these merges can spill: under a tight limit together they
//!   need more than is left, and the query fails in some runs and not in
//!   others. One sort spills the same runs and merges them once. Sorts that
//!   fit in memory keep sorting in parallel.
//! - An OFFSET inside the plan (under a subquery's alias) sits behind an
//!   [`OffsetBarrierExec`], so that no sort above it moves under it.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};

use super::offset_barrier::OffsetBarrierExec;
use crate::spill::planned::{PlannedThresholds, estimated_bytes};

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

#[derive(Debug, Default)]
pub struct OffsetBarriers;

impl PhysicalOptimizerRule for OffsetBarriers {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // The query's own OFFSET has nothing above it to push down.
        let Some(root) = plan.downcast_ref::<GlobalLimitExec>() else {
            return guard_offsets(plan);
        };
        let input = guard_offsets(Arc::clone(root.input()))?;
        Ok(Arc::new(GlobalLimitExec::new(
            input,
            root.skip(),
            root.fetch(),
        )))
    }

    fn name(&self) -> &str {
        "strata_offset_barriers"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn guard_offsets(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    crate::replace_nodes(plan, |node| {
        Ok(match node.downcast_ref::<GlobalLimitExec>() {
            Some(limit) if limit.skip() > 0 => {
                Some(Arc::new(OffsetBarrierExec::new(Arc::clone(node))))
            }
            _ => None,
        })
    })
}

#[derive(Debug, Default)]
pub struct SortSpillingInOneStream;

impl PhysicalOptimizerRule for SortSpillingInOneStream {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let threshold = PlannedThresholds::of(config).sort_bytes;
        crate::replace_nodes(plan, |node| {
            let Some(merge) = node.downcast_ref::<SortPreservingMergeExec>() else {
                return Ok(None);
            };
            let Some(sort) = merge.input().downcast_ref::<SortExec>() else {
                return Ok(None);
            };
            let top_k = sort.fetch().is_some_and(|k| k <= TOP_K_MAX_ROWS);
            let input = sort.input();
            if top_k
                || !sort.preserve_partitioning()
                || input.output_partitioning().partition_count() < 2
                || estimated_bytes(input).is_none_or(|bytes| bytes <= threshold)
            {
                return Ok(None);
            }
            let one_stream: Arc<dyn ExecutionPlan> =
                Arc::new(CoalescePartitionsExec::new(Arc::clone(input)));
            let sort = SortExec::new(sort.expr().clone(), one_stream).with_fetch(merge.fetch());
            Ok(Some(Arc::new(sort)))
        })
    }

    fn name(&self) -> &str {
        "strata_sort_spilling_in_one_stream"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
