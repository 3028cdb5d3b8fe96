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
//!   serialize.
//!
//! Everything else keeps DataFusion's hash aggregation, which `EXPLAIN`
//! shows as `AggregateExec`: for string keys with count, sum, min and max its
//! partial and final stages already merge in parallel by hash partition, and
//! it streams sorted input, holding one group at a time.

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

#[derive(Debug, Default)]
pub struct ChooseAggregation;

impl PhysicalOptimizerRule for ChooseAggregation {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, replacement)
    }

    fn name(&self) -> &str {
        "strata_choose_aggregation"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn replacement(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
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
        (None, None) if native => Method::Hash(Arc::new(Schema::new(fields))),
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
