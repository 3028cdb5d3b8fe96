//! Chooses Strata's GROUP BY operator where it applies.
//!
//! The physical planner writes a GROUP BY as a final aggregate over a partial
//! one. Where every aggregate has a groups accumulator, the pair becomes one
//! `StrataAggregateExec`:
//! - with the dense method when the single key is 8 or 16 bits wide;
//! - otherwise, when the input is not sorted on the keys, with the packed
//!   method when the keys fit in 128 bits;
//! - and with the hash method when they do not but some aggregate has
//!   in-place states (the `uniq` family), whose merge DataFusion would
//!   serialize, or when the input's estimated size is past the GROUP BY's
//!   spill threshold: DataFusion's final stage cannot spill, Strata's can.
//!
//! Everything else keeps DataFusion's hash aggregation, which `EXPLAIN`
//! shows as `AggregateExec`: for string keys with count, sum, min and max its
//! partial and final stages already merge in parallel by hash partition
//! (about twice as fast as Strata's hash method on 1e7 distinct strings),
//! and it streams sorted input, holding one group at a time.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};

use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::physical_plan::InputOrderMode;
use strata_functions::aggregate::native::native_groups;

use super::dense_keys::DenseKeys;
use super::exec::{Method, StrataAggregateExec};
use crate::fixed_keys::FixedKeys;
use crate::spill::planned::{PlannedThresholds, estimated_rows, value_width};

#[derive(Debug, Default)]
pub struct ChooseAggregation;

/// Bytes assumed for one aggregate's state in a group.
const STATE_BYTES: usize = 16;

/// Whether a GROUP BY of `keys` with `aggregates` over `input` may outgrow
/// `threshold`: it would if every row were a group of its own.
fn may_spill(
    input: &Arc<dyn ExecutionPlan>,
    keys: &[Field],
    aggregates: usize,
    threshold: usize,
) -> bool {
    let group_bytes = keys
        .iter()
        .map(|key| value_width(key.data_type()))
        .sum::<usize>()
        + aggregates * STATE_BYTES;
    estimated_rows(input).is_some_and(|rows| rows.saturating_mul(group_bytes) > threshold)
}

impl PhysicalOptimizerRule for ChooseAggregation {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let threshold = PlannedThresholds::of(config).group_by_bytes;
        crate::replace_nodes(plan, |node| replacement(node, threshold))
    }

    fn name(&self) -> &str {
        "strata_choose_aggregation"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Strata's aggregate for `node`, a final aggregate over a partial one, where
/// it applies; `threshold` is the bytes the GROUP BY may hold before spilling.
fn replacement(
    node: &Arc<dyn ExecutionPlan>,
    threshold: usize,
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
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
    if !group_by.is_single() || group_by.expr().is_empty() {
        return Ok(None);
    }
    let supported = partial
        .aggr_expr()
        .iter()
        .all(|a| a.groups_accumulator_supported() && !a.is_distinct() && a.order_bys().is_empty());
    if !supported {
        return Ok(None);
    }
    let input_schema = partial.input_schema();
    let keys = group_by.expr().to_vec();
    let fields = keys
        .iter()
        .map(|(expr, name)| {
            Ok(Field::new(
                name,
                expr.data_type(&input_schema)?,
                expr.nullable(&input_schema)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    // Sorted input keeps DataFusion's streaming aggregation, which holds one
    // group at a time.
    let unordered = *partial.input_order_mode() == InputOrderMode::Linear;
    let native = partial
        .aggr_expr()
        .iter()
        .any(|a| native_groups(a.fun()).is_some());
    let types: Vec<(DataType, bool)> = fields
        .iter()
        .map(|f| (f.data_type().clone(), f.is_nullable()))
        .collect();
    let dense = match types.as_slice() {
        [(data_type, _)] => DenseKeys::for_type(data_type),
        _ => None,
    };
    let method = match (dense, FixedKeys::for_types(&types)) {
        (Some(dense), _) => Method::Dense(dense),
        _ if !unordered => return Ok(None),
        (None, Some(fixed)) => Method::Fixed(fixed),
        (None, None)
            if native
                || may_spill(
                    partial.input(),
                    &fields,
                    partial.aggr_expr().len(),
                    threshold,
                ) =>
        {
            Method::Hash(Arc::new(Schema::new(fields)))
        }
        (None, None) => return Ok(None),
    };
    Ok(Some(Arc::new(StrataAggregateExec::new(
        Arc::clone(partial.input()),
        keys,
        method,
        partial.aggr_expr().to_vec(),
        partial.filter_expr().to_vec(),
        last.schema(),
    ))))
}
