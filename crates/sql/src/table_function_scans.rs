//! Scans of table functions named apart.
//!
//! DataFusion names every scan of a table function `name()`, whatever its
//! arguments, and compares scans by name, not by source. So
//! `(SELECT count() FROM numbers(2))` and `(SELECT count() FROM numbers(5))`
//! were one common subexpression, and the second answered as the first.
//! Each such scan gets a name of its own under an alias of the old name, so
//! the columns above keep their qualifier.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::tree_node::Transformed;
use datafusion::logical_expr::{LogicalPlan, SubqueryAlias, TableScan, TableScanBuilder};

/// `plan` with each table function scan (in subqueries too) named apart.
pub fn name_apart(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut scans = 0usize;
    let renamed = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::TableScan(scan) = &node else {
            return Ok(Transformed::no(node));
        };
        if !is_table_function(scan) {
            return Ok(Transformed::no(node));
        }
        scans += 1;
        let name = format!("{}#{scans}", scan.table_name.table());
        let apart = TableScanBuilder::new(name, Arc::clone(&scan.source))
            .with_projection(scan.projection.clone())
            .with_filters(scan.filters.clone())
            .with_fetch(scan.fetch)
            .build()?;
        let alias = SubqueryAlias::try_new(
            Arc::new(LogicalPlan::TableScan(apart)),
            scan.table_name.clone(),
        )?;
        Ok(Transformed::yes(LogicalPlan::SubqueryAlias(alias)))
    })?;
    Ok(renamed.data)
}

/// DataFusion's planner names a table function's scan `name()`, unqualified.
fn is_table_function(scan: &TableScan) -> bool {
    scan.table_name.schema().is_none() && scan.table_name.table().ends_with("()")
}
