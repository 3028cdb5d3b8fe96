//! `join_use_nulls = 0`, ClickHouse's default: where an outer join finds no
//! row on one side, that side's columns take their type's default (0, '')
//! rather than NULL, and keep their non-Nullable type. A column that was
//! Nullable stays so, and its default is NULL anyway.
//!
//! Each LEFT, RIGHT or FULL join gets a projection over it that reads the
//! joined side's non-Nullable columns through `coalesce(column, default)`,
//! under the same qualified names.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{Column, Result};
use datafusion::functions::core::expr_fn::coalesce;
use datafusion::logical_expr::{Expr, JoinType, LogicalPlan, Projection, lit};

/// `node` with its joined side's columns at their defaults, if it is an
/// outer join that leaves some of them NULL.
pub fn fill_defaults(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Join(join) = &node else {
        return Ok(Transformed::no(node));
    };
    let left_columns = join.left.schema().fields().len();
    let (left_filled, right_filled) = match join.join_type {
        JoinType::Left => (false, true),
        JoinType::Right => (true, false),
        JoinType::Full => (true, true),
        _ => return Ok(Transformed::no(node)),
    };
    let sides = [join.left.schema(), join.right.schema()];
    let mut changed = false;
    let mut exprs = Vec::with_capacity(join.schema.fields().len());
    for (i, (qualifier, field)) in join.schema.iter().enumerate() {
        let (side, index, filled) = match i < left_columns {
            true => (0, i, left_filled),
            false => (1, i - left_columns, right_filled),
        };
        let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
        let input = sides[side].field(index);
        // Columns with metadata (UUID, Date32, ...) keep NULL: coalesce
        // would drop what makes them those types.
        let default = match filled && !input.is_nullable() && input.metadata().is_empty() {
            true => strata_common::types::default_value(field.data_type()).ok(),
            false => None,
        };
        exprs.push(match default {
            Some(default) => {
                changed = true;
                coalesce(vec![column, lit(default)])
                    .alias_qualified(qualifier.cloned(), field.name())
            }
            None => column,
        });
    }
    if !changed {
        return Ok(Transformed::no(node));
    }
    let projection = Projection::try_new(exprs, Arc::new(node))?;
    Ok(Transformed::yes(LogicalPlan::Projection(projection)))
}
