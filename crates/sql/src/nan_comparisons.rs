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
//! A side may be NaN when it is a float and not a number literal. A side
//! that reads a subquery is not repeated in a guard: its NaN becomes -NaN,
//! which Arrow orders below every value.
//!
//! A Decimal compared with a float compares as Float64, as in ClickHouse
//! (`toDecimal64(0.07, 2) <= 0.06 + 0.01` is 0); DataFusion would cast the
//! float to a Decimal, rounding it, and fail on NaN.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::functions::math::expr_fn::{isnan, nanvl};
use datafusion::logical_expr::{Between, BinaryExpr, Expr, ExprSchemable, Operator, cast};

/// `expr` guarded where it compares floats one of which may be NaN.
pub fn ieee_comparison(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let floats = decimals_as_floats(expr, schema);
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = &floats.data else {
        return Ok(floats);
    };
    let expr = floats.data.clone();
    let (left_nan, right_nan) = (may_be_nan(left, schema), may_be_nan(right, schema));
    let not_nan = |side: &Expr| Expr::Not(Box::new(isnan(side.clone())));
    if let Some(guarded) = subquery_without_nan(&expr, left_nan, right_nan, schema) {
        return Ok(Transformed::yes(guarded));
    }
    let guard = match op {
        Operator::Gt | Operator::GtEq if left_nan => not_nan(left),
        Operator::Lt | Operator::LtEq if right_nan => not_nan(right),
        Operator::Eq if left_nan && right_nan => not_nan(left),
        Operator::NotEq if left_nan && right_nan => {
            let either = isnan((**left).clone());
            return Ok(Transformed::yes(expr.or(either)));
        }
        _ => return Ok(Transformed::new_transformed(expr, floats.transformed)),
    };
    Ok(Transformed::yes(expr.and(guard)))
}

/// An order comparison whose side that may be NaN is a subquery, with that
/// side's NaN turned into -NaN, which Arrow orders below every value, so
/// that the comparison is false as IEEE's is. A guard beside the comparison
/// would repeat the subquery, and DataFusion would run it twice.
fn subquery_without_nan(
    expr: &Expr,
    left_nan: bool,
    right_nan: bool,
    schema: &DFSchema,
) -> Option<Expr> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = expr else {
        return None;
    };
    let reads_subquery = |e: &Expr| {
        e.exists(|e| Ok(matches!(e, Expr::ScalarSubquery(_))))
            .unwrap_or(false)
    };
    let below_all = |side: &Expr| {
        let negative_nan = match side.get_type(schema).ok()? {
            DataType::Float64 => ScalarValue::Float64(Some(-f64::NAN)),
            DataType::Float32 => ScalarValue::Float32(Some(-f32::NAN)),
            _ => return None,
        };
        Some(Box::new(nanvl(
            side.clone(),
            Expr::Literal(negative_nan, None),
        )))
    };
    let (left, right) = match op {
        Operator::Gt | Operator::GtEq if left_nan && reads_subquery(left) => {
            (below_all(left)?, right.clone())
        }
        Operator::Lt | Operator::LtEq if right_nan && reads_subquery(right) => {
            (left.clone(), below_all(right)?)
        }
        _ => return None,
    };
    Some(Expr::BinaryExpr(BinaryExpr {
        left,
        op: *op,
        right,
    }))
}

/// A comparison (or BETWEEN) of a Decimal with a float, its Decimals cast to Float64.
fn decimals_as_floats(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    let decimal = |e: &Expr| e.get_type(schema).is_ok_and(|t| t.is_decimal());
    let floating = |e: &Expr| e.get_type(schema).is_ok_and(|t| t.is_floating());
    let float = |e: Box<Expr>| Box::new(cast(*e, DataType::Float64));
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if crate::plan_rewrite::is_comparison(op) =>
        {
            let (left, right) = if decimal(&left) && floating(&right) {
                (float(left), right)
            } else if floating(&left) && decimal(&right) {
                (left, float(right))
            } else {
                return Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }));
            };
            Transformed::yes(Expr::BinaryExpr(BinaryExpr { left, op, right }))
        }
        Expr::Between(Between {
            expr,
            negated,
            low,
            high,
        }) if decimal(&expr) && (floating(&low) || floating(&high)) => {
            Transformed::yes(Expr::Between(Between {
                expr: float(expr),
                negated,
                low,
                high,
            }))
        }
        expr => Transformed::no(expr),
    }
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
