//! Floats compare as IEEE 754 says, as in ClickHouse: `nan = nan` is false,
//! `nan != nan` true, and NaN is neither less nor greater than any number.
//! Arrow's comparison kernels order floats totally, NaN above every number
//! and equal to itself, so a comparison that may meet a NaN is guarded:
//!
//! - `a > b`, `a >= b`: false where `a` is NaN (where only `b` is, Arrow
//!   already says false);
//! - `a < b`, `a <= b`: false where `b` is NaN;
//! - `a = b` and `a != b`: only two NaNs compare wrongly, so the guard is
//!   added only where both sides may be NaN.
//!
//! A side may be NaN when it is a float and not a number literal.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::functions::math::expr_fn::isnan;
use datafusion::logical_expr::{BinaryExpr, Expr, ExprSchemable, Operator};

/// `expr` guarded where it compares floats one of which may be NaN.
pub fn ieee_comparison(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = &expr else {
        return Ok(Transformed::no(expr));
    };
    let (left_nan, right_nan) = (may_be_nan(left, schema), may_be_nan(right, schema));
    let not_nan = |side: &Expr| Expr::Not(Box::new(isnan(side.clone())));
    let guard = match op {
        Operator::Gt | Operator::GtEq if left_nan => not_nan(left),
        Operator::Lt | Operator::LtEq if right_nan => not_nan(right),
        Operator::Eq if left_nan && right_nan => not_nan(left),
        Operator::NotEq if left_nan && right_nan => {
            let either = isnan((**left).clone());
            return Ok(Transformed::yes(expr.or(either)));
        }
        _ => return Ok(Transformed::no(expr)),
    };
    Ok(Transformed::yes(expr.and(guard)))
}

fn may_be_nan(expr: &Expr, schema: &DFSchema) -> bool {
    let float = matches!(
        expr.get_type(schema),
        Ok(DataType::Float16 | DataType::Float32 | DataType::Float64)
    );
    let number = match expr {
        Expr::Literal(ScalarValue::Float64(Some(v)), _) => !v.is_nan(),
        Expr::Literal(ScalarValue::Float32(Some(v)), _) => !v.is_nan(),
        Expr::Literal(..) => true,
        _ => false,
    };
    float && !number
}
