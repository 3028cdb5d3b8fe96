//! Puts the faster expressions into every `FilterExec`'s predicate. It runs
//! after DataFusion's rules, which rebuild predicates (column indices move as
//! projections are pushed down) and would turn them back into the originals.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};

use super::specialize;

#[derive(Debug, Default)]
pub struct SpecializeFilters;

impl PhysicalOptimizerRule for SpecializeFilters {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, |node| {
            let Some(filter) = node.downcast_ref::<FilterExec>() else {
                return Ok(None);
            };
            let predicate = specialize(
                Arc::clone(filter.predicate()),
                filter.input().schema().as_ref(),
            )?;
            if Arc::ptr_eq(&predicate, filter.predicate()) {
                return Ok(None);
            }
            let rebuilt = FilterExecBuilder::from(filter)
                .with_predicate(predicate)
                .build()?;
            Ok(Some(Arc::new(rebuilt) as Arc<dyn ExecutionPlan>))
        })
    }

    fn name(&self) -> &str {
        "strata_specialize_filters"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{binary, col, lit};
    use datafusion::physical_plan::empty::EmptyExec;

    use super::*;
    use crate::expressions::string_equality::StringEquality;

    #[test]
    fn a_filter_on_string_equality_gets_the_faster_predicate() {
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let predicate =
            binary(col("s", &schema).unwrap(), Operator::Eq, lit("x"), &schema).unwrap();
        let filter: Arc<dyn ExecutionPlan> = Arc::new(
            FilterExec::try_new(predicate, Arc::new(EmptyExec::new(Arc::clone(&schema)))).unwrap(),
        );
        let optimized = SpecializeFilters
            .optimize(filter, &ConfigOptions::default())
            .unwrap();
        let filter = optimized.downcast_ref::<FilterExec>().unwrap();
        assert!(
            filter
                .predicate()
                .downcast_ref::<StringEquality>()
                .is_some()
        );
    }
}
