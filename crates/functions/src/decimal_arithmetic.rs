//! ClickHouse's `+ - * /` on Decimals, and on a Decimal with an integer.
//!
//! The result keeps the widest Decimal operand's width (Decimal32, 64 or 128,
//! shown as precision 9, 18 or 38; an integer operand does not widen it).
//! Its scale is the larger scale for `+` and `-`, the sum of the scales for
//! `*`, and the dividend's for `/` (the divisor's when the dividend is an
//! integer); a divisor with a larger scale than the dividend's is refused.
//! Division truncates toward zero, and a result that overflows the width's
//! integer is an error, as in ClickHouse. With a float the result is Float64.
//! Decimal256 and `%` keep DataFusion's arithmetic.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Decimal128Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, exec_err};
use strata_common::{ErrorCode, StrataError};

use crate::arithmetic::ArithmeticOp;
use crate::decimal_conversion::width_limit;

/// The largest precision of each width ClickHouse has for Decimals in 128
/// bits: Decimal32, Decimal64, Decimal128.
const WIDTHS: [u8; 3] = [9, 18, 38];

/// An operand as a Decimal: its scale, and its width's precision when it is
/// a Decimal (an integer takes the other operand's width).
fn decimal_shape(t: &DataType) -> Option<(Option<u8>, i8)> {
    match t {
        DataType::Decimal128(precision, scale) => {
            let width = WIDTHS.into_iter().find(|w| precision <= w)?;
            Some((Some(width), *scale))
        }
        t if t.is_integer() || matches!(t, DataType::Boolean | DataType::Null) => Some((None, 0)),
        _ => None,
    }
}

/// ClickHouse's result type for `op` over Decimals; None when neither
/// operand is a Decimal in 128 bits, or for an operation DataFusion keeps.
pub(crate) fn result_type(
    op: ArithmeticOp,
    left: &DataType,
    right: &DataType,
) -> Option<Result<DataType>> {
    let is_decimal = |t: &DataType| matches!(t, DataType::Decimal128(..));
    if !is_decimal(left) && !is_decimal(right) {
        return None;
    }
    let is_float = |t: &DataType| matches!(t, DataType::Float32 | DataType::Float64);
    if is_float(left) || is_float(right) {
        return matches!(
            op,
            ArithmeticOp::Plus
                | ArithmeticOp::Minus
                | ArithmeticOp::Multiply
                | ArithmeticOp::Divide
        )
        .then_some(Ok(DataType::Float64));
    }
    let (l_width, l_scale) = decimal_shape(left)?;
    let (r_width, r_scale) = decimal_shape(right)?;
    let precision = l_width.max(r_width).expect("one operand is a Decimal");
    let scale = match op {
        ArithmeticOp::Plus | ArithmeticOp::Minus => l_scale.max(r_scale),
        ArithmeticOp::Multiply => l_scale + r_scale,
        ArithmeticOp::Divide if l_width.is_none() => r_scale,
        ArithmeticOp::Divide if r_scale > l_scale => {
            return Some(Err(out_of_bound(
                "Decimal result's scale is less than argument's one".to_string(),
            )));
        }
        ArithmeticOp::Divide => l_scale,
        _ => return None,
    };
    if scale as u8 > precision {
        return Some(Err(out_of_bound(format!(
            "Scale {scale} is out of bounds (max scale: {precision})"
        ))));
    }
    Some(Ok(DataType::Decimal128(precision, scale)))
}

/// `op` over two arrays, into a Decimal128 of `precision` and `scale`.
pub(crate) fn evaluate(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &ArrayRef,
    precision: u8,
    scale: i8,
) -> Result<ArrayRef> {
    let (l_scale, left) = raw_values(left)?;
    let (r_scale, right) = raw_values(right)?;
    let limit = width_limit(precision);
    // The powers of ten that bring the operands to the result's scale,
    // found once for the whole array.
    let (l_factor, r_factor) = match op {
        ArithmeticOp::Plus | ArithmeticOp::Minus => (
            power_of_ten(scale - l_scale)?,
            power_of_ten(scale - r_scale)?,
        ),
        ArithmeticOp::Multiply => (1, 1),
        ArithmeticOp::Divide => (power_of_ten(scale - l_scale + r_scale)?, 1),
        other => {
            return exec_err!("{} has no Decimal arithmetic of its own", other.name());
        }
    };
    let mut out = Vec::with_capacity(left.len());
    for (a, b) in left.iter().zip(right.iter()) {
        let (Some(a), Some(b)) = (a, b) else {
            out.push(None);
            continue;
        };
        let (a, b) = match (a.checked_mul(l_factor), b.checked_mul(r_factor)) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err(overflow()),
        };
        let value = match op {
            ArithmeticOp::Plus => a.checked_add(b),
            ArithmeticOp::Minus => a.checked_sub(b),
            ArithmeticOp::Multiply => a.checked_mul(b),
            _ if b == 0 => {
                return Err(
                    StrataError::new(ErrorCode::ILLEGAL_DIVISION, "Division by zero")
                        .into_datafusion(),
                );
            }
            _ => a.checked_div(b),
        };
        match value {
            Some(v) if v.unsigned_abs() <= limit => out.push(Some(v)),
            _ => return Err(overflow()),
        }
    }
    let result = Decimal128Array::from(out).with_precision_and_scale(precision, scale)?;
    Ok(Arc::new(result))
}

/// The values of a Decimal or integer array as 128-bit integers, with their
/// scale.
fn raw_values(array: &ArrayRef) -> Result<(i8, Decimal128Array)> {
    match array.data_type() {
        DataType::Decimal128(_, scale) => Ok((*scale, array.as_primitive().clone())),
        _ => {
            let whole = cast::cast(array, &DataType::Decimal128(38, 0))?;
            Ok((0, whole.as_primitive().clone()))
        }
    }
}

/// Ten to the power `shift`, the factor for `shift` more decimal places.
fn power_of_ten(shift: i8) -> Result<i128> {
    debug_assert!(
        shift >= 0,
        "results never have fewer places than an operand"
    );
    10i128.checked_pow(shift as u32).ok_or_else(overflow)
}

fn overflow() -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::DECIMAL_OVERFLOW, "Decimal math overflow").into_datafusion()
}

fn out_of_bound(message: String) -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, message).into_datafusion()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(op: ArithmeticOp, left: DataType, right: DataType) -> DataType {
        result_type(op, &left, &right).unwrap().unwrap()
    }

    #[test]
    fn result_types_match_clickhouse() {
        use ArithmeticOp::*;
        use DataType::*;
        assert_eq!(typed(Multiply, Decimal128(9, 2), Int64), Decimal128(9, 2));
        assert_eq!(
            typed(Plus, Decimal128(9, 2), Decimal128(38, 5)),
            Decimal128(38, 5)
        );
        assert_eq!(
            typed(Multiply, Decimal128(9, 5), Decimal128(18, 5)),
            Decimal128(18, 10)
        );
        assert_eq!(typed(Divide, Int32, Decimal128(9, 2)), Decimal128(9, 2));
        assert_eq!(
            typed(Divide, Decimal128(9, 4), Decimal128(9, 2)),
            Decimal128(9, 4)
        );
        assert_eq!(typed(Plus, Decimal128(9, 2), Float32), Float64);
        assert!(
            result_type(Divide, &Decimal128(9, 2), &Decimal128(9, 3)).is_some_and(|r| r.is_err())
        );
        assert!(result_type(Modulo, &Decimal128(9, 2), &Int32).is_none());
    }

    #[test]
    fn division_truncates_and_overflow_is_an_error() {
        let left: ArrayRef = Arc::new(
            Decimal128Array::from(vec![700, -700])
                .with_precision_and_scale(9, 2)
                .unwrap(),
        );
        let right: ArrayRef = Arc::new(datafusion::arrow::array::Int8Array::from(vec![3, 3]));
        let out = evaluate(ArithmeticOp::Divide, &left, &right, 9, 2).unwrap();
        let out = out.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>();
        assert_eq!(out.values().to_vec(), vec![233, -233]);
        let big: ArrayRef = Arc::new(
            Decimal128Array::from(vec![900_000_000])
                .with_precision_and_scale(9, 3)
                .unwrap(),
        );
        assert!(evaluate(ArithmeticOp::Multiply, &big, &big, 9, 6).is_err());
    }
}
