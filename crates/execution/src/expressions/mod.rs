//! Physical expressions that evaluate hot shapes faster than DataFusion's
//! general ones, and the rewrite that puts them in place of those. Each
//! keeps the expression it replaces and falls back to it for inputs it
//! does not cover, so the rewrite never changes a result.

pub mod rule;
pub mod string_equality;

use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::common::Result;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_expr::PhysicalExpr;

/// `expr`, over rows of `schema`, with every shape a faster expression
/// covers replaced by it.
pub fn specialize(expr: Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Arc<dyn PhysicalExpr>> {
    Ok(expr
        .transform_up(|node| {
            Ok(
                match string_equality::StringEquality::matching(&node, schema)? {
                    Some(faster) => Transformed::yes(Arc::new(faster) as Arc<dyn PhysicalExpr>),
                    None => Transformed::no(node),
                },
            )
        })?
        .data)
}
