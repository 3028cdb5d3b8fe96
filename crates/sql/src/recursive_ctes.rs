//! `WITH RECURSIVE`: both terms of a recursive CTE produce the columns of
//! its work table, as planned. Strata's rewrites type literals narrowly
//! (`1` is UInt8) and arithmetic as ClickHouse does (`n + 1` is UInt16), so
//! after them the static term, the recursive term and the work table the
//! recursive term reads may each have other types; the terms are cast back
//! to the work table's, which the recursive term's reads were planned with.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DFSchema, DFSchemaRef, Result};
use datafusion::logical_expr::expr_rewriter::coerce_plan_expr_for_schema;
use datafusion::logical_expr::{LogicalPlan, RecursiveQuery};

/// `query` with its terms cast to its work table's column types, where
/// they differ.
pub fn cast_terms(query: RecursiveQuery) -> Result<Transformed<LogicalPlan>> {
    let Some(work_table) = work_table_schema(&query)? else {
        return Ok(Transformed::no(LogicalPlan::RecursiveQuery(query)));
    };
    let types = |schema: &DFSchemaRef| {
        schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect::<Vec<_>>()
    };
    let expected = types(&work_table);
    if types(query.static_term.schema()) == expected
        && types(query.recursive_term.schema()) == expected
    {
        return Ok(Transformed::no(LogicalPlan::RecursiveQuery(query)));
    }
    let cast = |term: Arc<LogicalPlan>| -> Result<Arc<LogicalPlan>> {
        let term = Arc::unwrap_or_clone(term);
        Ok(Arc::new(coerce_plan_expr_for_schema(term, &work_table)?))
    };
    let query = RecursiveQuery::try_new(
        query.name,
        cast(query.static_term)?,
        cast(query.recursive_term)?,
        query.is_distinct,
    )?;
    Ok(Transformed::yes(LogicalPlan::RecursiveQuery(query)))
}

/// The schema of the work table the recursive term reads, if it reads it.
fn work_table_schema(query: &RecursiveQuery) -> Result<Option<DFSchemaRef>> {
    let mut found = None;
    query.recursive_term.apply(|node| {
        if let LogicalPlan::TableScan(scan) = node
            && scan.table_name.table() == query.name
        {
            found = Some(DFSchema::try_from(scan.source.schema()).map(Arc::new));
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    found.transpose()
}
