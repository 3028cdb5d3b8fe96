//! ClickHouse sorts NaN beside NULL: after every number where NULLs go last
//! (`ORDER BY x`, `ORDER BY x DESC`), before every number under `NULLS
//! FIRST`, and between the numbers and the NULLs themselves. Arrow orders
//! floats totally, NaN above every number (and `-nan` below), so a float key
//! `x` is sorted as `x` with its NaNs read as NULL, and, where `x` may itself
//! be NULL, the rows so tied are ordered NaN nearest the numbers.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::functions::math::expr_fn::isnan;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, Sort, SortExpr, when};

/// `node`, where it is a sort by float keys, sorting their NaNs beside NULLs.
pub fn beside_nulls(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Sort(sort) = node else {
        return Ok(Transformed::no(node));
    };
    let schema = sort.input.schema();
    if !sort.expr.iter().any(|key| is_float(&key.expr, schema)) {
        return Ok(Transformed::no(LogicalPlan::Sort(sort)));
    }
    let mut keys = Vec::with_capacity(sort.expr.len() + 1);
    for key in sort.expr {
        if !is_float(&key.expr, schema) {
            keys.push(key);
            continue;
        }
        let nullable = key.expr.nullable(schema)?;
        let value = key.expr.clone();
        keys.push(SortExpr {
            expr: when(isnan(value.clone()), Expr::Literal(ScalarValue::Null, None))
                .otherwise(value.clone())?,
            ..key
        });
        if nullable {
            // Among the rows read as NULL, the NaNs sit nearest the numbers.
            keys.push(SortExpr {
                expr: value.is_null(),
                asc: !key.nulls_first,
                nulls_first: false,
            });
        }
    }
    Ok(Transformed::yes(LogicalPlan::Sort(Sort {
        expr: keys,
        ..sort
    })))
}

fn is_float(expr: &Expr, schema: &DFSchema) -> bool {
    matches!(
        expr.get_type(schema),
        Ok(DataType::Float16 | DataType::Float32 | DataType::Float64)
    ) && !matches!(expr, Expr::Literal(..))
}
