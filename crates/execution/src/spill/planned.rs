//! What the physical planner's rules know of a query's memory: the spill
//! thresholds, so a rule can choose the operator that finishes within them
//! over a faster one that cannot spill, when the input's estimated size says
//! it will not fit.
//!
//! Rules see only DataFusion's `ConfigOptions`, so the thresholds travel as
//! one of its extensions, set per query by the engine.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::{ConfigExtension, ConfigOptions};
use datafusion::common::extensions_options;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};

extensions_options! {
    /// A query's spill thresholds, in bytes; `usize::MAX` where none applies.
    pub struct PlannedThresholds {
        /// Bytes an ORDER BY's buffered rows may hold before they spill.
        pub sort_bytes: usize, default = usize::MAX
        /// Bytes a GROUP BY's tables may hold before they spill.
        pub group_by_bytes: usize, default = usize::MAX
    }
}

impl ConfigExtension for PlannedThresholds {
    const PREFIX: &'static str = "strata_thresholds";
}

impl PlannedThresholds {
    /// The thresholds in `config`, or none where the query set none.
    pub fn of(config: &ConfigOptions) -> PlannedThresholds {
        config
            .extensions
            .get::<PlannedThresholds>()
            .cloned()
            .unwrap_or_default()
    }
}

/// Bytes assumed for a value whose width varies (strings, lists).
const VARIABLE_WIDTH_BYTES: usize = 32;

/// The estimated bytes of `plan`'s output as Arrow arrays, from its row
/// count estimate and its columns' widths; None when no estimate exists.
pub fn estimated_bytes(plan: &Arc<dyn ExecutionPlan>) -> Option<usize> {
    let width: usize = plan
        .schema()
        .fields()
        .iter()
        .map(|field| value_width(field.data_type()))
        .sum();
    Some(estimated_rows(plan)?.saturating_mul(width.max(1)))
}

/// `plan`'s estimated row count, if its statistics give one.
pub fn estimated_rows(plan: &Arc<dyn ExecutionPlan>) -> Option<usize> {
    StatisticsContext::new()
        .compute(plan.as_ref(), &StatisticsArgs::new())
        .ok()?
        .num_rows
        .get_value()
        .copied()
}

/// The bytes one value of `data_type` takes, assumed for variable widths.
pub fn value_width(data_type: &DataType) -> usize {
    match data_type {
        DataType::Boolean => 1,
        other => other.primitive_width().unwrap_or(VARIABLE_WIDTH_BYTES),
    }
}
