//! ClickHouse's `+ - * /` on Decimals, and on a Decimal with an integer.
//!
//! The result keeps the widest Decimal operand's width (Decimal32, 64 or 128,
//! shown as precision 9, 18 or 38; an integer operand does not widen it).
//! Its scale is the larger scale for `+` and `-`, the sum of the scales for
//! `*`, and the dividend's for `/` (the divisor's when the dividend is an
//! integer); a divisor with a larger scale than the dividend's is refused.
//! Division truncates toward zero, and a result that overflows the width's
//! integer is an error, as in ClickHouse. With a float the result is Float64.
//! `intDiv` truncates the exact quotient into a signed integer as wide as the
//! dividend (Int32 for Decimal32; Int64 also stands in for Int128).
//! Decimal256 and `%` keep DataFusion's arithmetic.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, Int64Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::compute::try_binary;
use datafusion::arrow::datatypes::{ArrowNativeTypeOp, DataType};
use datafusion::arrow::error::ArrowError;
use datafusion::common::{Result, ScalarValue, exec_err};
use datafusion::logical_expr::ColumnarValue;
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
/// operand is a Decimal in 128 bits (or a Decimal256 with a float), or for
/// an operation DataFusion keeps.
pub(crate) fn result_type(
    op: ArithmeticOp,
    left: &DataType,
    right: &DataType,
) -> Option<Result<DataType>> {
    let is_decimal = |t: &DataType| matches!(t, DataType::Decimal128(..));
    let is_wide = |t: &DataType| matches!(t, DataType::Decimal256(..));
    let is_float = |t: &DataType| matches!(t, DataType::Float32 | DataType::Float64);
    // A Decimal256 with a float is a Float64 too; other Decimal256
    // arithmetic is DataFusion's.
    let wide_with_float = (is_wide(left) || is_wide(right)) && (is_float(left) || is_float(right));
    if !is_decimal(left) && !is_decimal(right) && !wide_with_float {
        return None;
    }
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
    if matches!(op, ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero) {
        return Some(Ok(match (l_width, left) {
            (Some(9), _) => DataType::Int32,
            (Some(_), _) => DataType::Int64,
            (None, left) => crate::arithmetic::int_type(true, left.primitive_width()? as u8),
        }));
    }
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

/// An operand's unscaled values: a column, or one value for every row.
enum Operand {
    Column(Decimal128Array),
    Constant(i128),
}

/// `op` over two operands, into a Decimal128 of `precision` and `scale`;
/// None when a constant operand is NULL (then every row is).
pub(crate) fn evaluate(
    op: ArithmeticOp,
    left: &ColumnarValue,
    right: &ColumnarValue,
    precision: u8,
    scale: i8,
) -> Result<Option<Decimal128Array>> {
    let narrow = op != ArithmeticOp::Divide
        && precision <= WIDTHS[1]
        && fits_64_bits(&left.data_type())
        && fits_64_bits(&right.data_type());
    let (Some((l_scale, left)), Some((r_scale, right))) = (operand(left)?, operand(right)?) else {
        return Ok(None);
    };
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
    // A result of up to 18 digits (Decimal32 or 64) of operands that fit
    // computes in 64 bits: a checked 128-bit multiply costs several times
    // more. Division scales its dividend up, so it keeps 128 bits.
    let result = if narrow {
        let narrow = |factor: i128| i64::try_from(factor).map_err(|_| overflow());
        let (l_factor, r_factor) = (narrow(l_factor)?, narrow(r_factor)?);
        if let Some(result) = wrapping_narrow(op, &left, &right, l_factor, r_factor, limit) {
            return Ok(Some(result.with_precision_and_scale(precision, scale)?));
        }
        apply(&left, &right, checked::<i64>(op, l_factor, r_factor, limit))
    } else {
        apply(
            &left,
            &right,
            checked::<i128>(op, l_factor, r_factor, limit),
        )
    };
    let result = result.map_err(|error| match error {
        ArrowError::DivideByZero => {
            StrataError::new(ErrorCode::ILLEGAL_DIVISION, "Division by zero").into_datafusion()
        }
        _ => overflow(),
    })?;
    Ok(Some(result.with_precision_and_scale(precision, scale)?))
}

/// `intDiv` or `intDivOrZero` with a Decimal operand: the quotient of the
/// exact values truncated toward zero, in `result`'s integer type. None when
/// a constant operand is NULL.
pub(crate) fn int_div(
    op: ArithmeticOp,
    left: &ColumnarValue,
    right: &ColumnarValue,
    result: &DataType,
) -> Result<Option<ArrayRef>> {
    let (Some((l_scale, left)), Some((r_scale, right))) = (operand(left)?, operand(right)?) else {
        return Ok(None);
    };
    let scale = l_scale.max(r_scale);
    let (l_factor, r_factor) = (
        power_of_ten(scale - l_scale)?,
        power_of_ten(scale - r_scale)?,
    );
    let or_zero = op == ArithmeticOp::IntDivOrZero;
    let quotients = apply(&left, &right, |a, b| {
        let (a, b) = (a.mul_checked(l_factor)?, b.mul_checked(r_factor)?);
        match b {
            0 if or_zero => Ok(0),
            _ => a.div_checked(b),
        }
    })
    .map_err(|error| match error {
        ArrowError::DivideByZero => {
            StrataError::new(ErrorCode::ILLEGAL_DIVISION, "Division by zero").into_datafusion()
        }
        _ => overflow(),
    })?;
    // Wraps into the result's width, as ClickHouse's integer conversion does.
    let wide: Int64Array = quotients.unary(|q| q as i64);
    Ok(Some(crate::int_cast::narrow_from_i64(&wide, result)?))
}

/// Whether every unscaled value of `t` fits in an i64.
fn fits_64_bits(t: &DataType) -> bool {
    match t {
        DataType::Decimal128(precision, _) => *precision <= WIDTHS[1],
        DataType::UInt64 => false,
        t => t.is_integer() || matches!(t, DataType::Boolean | DataType::Null),
    }
}

/// `op` on unscaled values computed in `T`, the operands scaled by their
/// factors, the result checked against the width's `limit`.
fn checked<T>(
    op: ArithmeticOp,
    l_factor: T,
    r_factor: T,
    limit: u128,
) -> impl Fn(i128, i128) -> std::result::Result<i128, ArrowError>
where
    T: ArrowNativeTypeOp + TryFrom<i128> + Into<i128>,
{
    let too_big = || ArrowError::ArithmeticOverflow(String::new());
    move |a, b| {
        let a = T::try_from(a)
            .map_err(|_| too_big())?
            .mul_checked(l_factor)?;
        let b = T::try_from(b)
            .map_err(|_| too_big())?
            .mul_checked(r_factor)?;
        let value: i128 = match op {
            ArithmeticOp::Plus => a.add_checked(b)?,
            ArithmeticOp::Minus => a.sub_checked(b)?,
            ArithmeticOp::Multiply => a.mul_checked(b)?,
            _ => a.div_checked(b)?,
        }
        .into();
        if value.unsigned_abs() <= limit {
            Ok(value)
        } else {
            Err(too_big())
        }
    }
}

/// `+`, `-` or `*` in 64 bits over columns, without a branch per row: each
/// value computed wrapping, with one flag for an operand past 64 bits, an
/// overflow or a result past `limit`. None when the flag is up (perhaps
/// only from a NULL's placeholder value), for the checked path to redo the
/// rows one by one and report the overflow.
fn wrapping_narrow(
    op: ArithmeticOp,
    left: &Operand,
    right: &Operand,
    l_factor: i64,
    r_factor: i64,
    limit: u128,
) -> Option<Decimal128Array> {
    let limit = u64::try_from(limit).ok()?;
    let compute = move |a: i64, b: i64| -> (i64, bool) {
        let (a, scaled_a) = a.overflowing_mul(l_factor);
        let (b, scaled_b) = b.overflowing_mul(r_factor);
        let (value, overflowed) = match op {
            ArithmeticOp::Plus => a.overflowing_add(b),
            ArithmeticOp::Minus => a.overflowing_sub(b),
            _ => a.overflowing_mul(b),
        };
        (value, scaled_a | scaled_b | overflowed)
    };
    if !matches!(
        op,
        ArithmeticOp::Plus | ArithmeticOp::Minus | ArithmeticOp::Multiply
    ) {
        return None;
    }
    let mut bad = false;
    let mut row = |a: i128, b: i128| {
        let (a64, b64) = (a as i64, b as i64);
        let (value, overflowed) = compute(a64, b64);
        bad |= (i128::from(a64) != a)
            | (i128::from(b64) != b)
            | overflowed
            | (value.unsigned_abs() > limit);
        i128::from(value)
    };
    let (values, nulls): (Vec<i128>, _) = match (left, right) {
        (Operand::Column(l), Operand::Column(r)) => (
            l.values()
                .iter()
                .zip(r.values())
                .map(|(&a, &b)| row(a, b))
                .collect(),
            NullBuffer::union(l.nulls(), r.nulls()),
        ),
        (Operand::Column(l), &Operand::Constant(b)) => (
            l.values().iter().map(|&a| row(a, b)).collect(),
            l.nulls().cloned(),
        ),
        (&Operand::Constant(a), Operand::Column(r)) => (
            r.values().iter().map(|&b| row(a, b)).collect(),
            r.nulls().cloned(),
        ),
        (Operand::Constant(_), Operand::Constant(_)) => return None,
    };
    (!bad).then(|| Decimal128Array::new(values.into(), nulls))
}

/// `f` over every row; rows where an operand is NULL are skipped, so a
/// NULL's placeholder value never divides by zero.
fn apply(
    left: &Operand,
    right: &Operand,
    f: impl Fn(i128, i128) -> std::result::Result<i128, ArrowError>,
) -> std::result::Result<Decimal128Array, ArrowError> {
    match (left, right) {
        (Operand::Column(l), Operand::Column(r)) => try_binary(l, r, f),
        (Operand::Column(l), Operand::Constant(b)) => l.try_unary(|a| f(a, *b)),
        (Operand::Constant(a), Operand::Column(r)) => r.try_unary(|b| f(*a, b)),
        (Operand::Constant(a), Operand::Constant(b)) => Ok(Decimal128Array::from(vec![f(*a, *b)?])),
    }
}

/// An operand's scale and unscaled values, a Decimal or an integer (scale
/// 0); None for a NULL constant.
fn operand(value: &ColumnarValue) -> Result<Option<(i8, Operand)>> {
    let whole = DataType::Decimal128(38, 0);
    Ok(match value {
        ColumnarValue::Array(array) => match array.data_type() {
            DataType::Decimal128(_, scale) => {
                Some((*scale, Operand::Column(array.as_primitive().clone())))
            }
            _ => {
                let whole = cast::cast(array, &whole)?;
                Some((0, Operand::Column(whole.as_primitive().clone())))
            }
        },
        ColumnarValue::Scalar(scalar) => {
            let scalar = match scalar {
                ScalarValue::Decimal128(..) => scalar.clone(),
                _ => scalar.cast_to(&whole)?,
            };
            match scalar {
                ScalarValue::Decimal128(Some(v), _, scale) => Some((scale, Operand::Constant(v))),
                _ => None,
            }
        }
    })
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
    use std::sync::Arc;

    use datafusion::arrow::array::ArrayRef;

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
        let (left, right) = (ColumnarValue::Array(left), ColumnarValue::Array(right));
        let out = evaluate(ArithmeticOp::Divide, &left, &right, 9, 2).unwrap();
        assert_eq!(out.unwrap().values().to_vec(), vec![233, -233]);
        let three = ColumnarValue::Scalar(ScalarValue::Int8(Some(3)));
        let out = evaluate(ArithmeticOp::Divide, &left, &three, 9, 2).unwrap();
        assert_eq!(out.unwrap().values().to_vec(), vec![233, -233]);
        let null = ColumnarValue::Scalar(ScalarValue::Int8(None));
        assert!(
            evaluate(ArithmeticOp::Plus, &left, &null, 9, 2)
                .unwrap()
                .is_none()
        );
        let zero = ColumnarValue::Scalar(ScalarValue::Int8(Some(0)));
        assert!(evaluate(ArithmeticOp::Divide, &left, &zero, 9, 2).is_err());
        let big: ArrayRef = Arc::new(
            Decimal128Array::from(vec![900_000_000])
                .with_precision_and_scale(9, 3)
                .unwrap(),
        );
        let big = ColumnarValue::Array(big);
        assert!(evaluate(ArithmeticOp::Multiply, &big, &big, 9, 6).is_err());
    }

    #[test]
    fn the_branch_free_path_agrees_with_the_checked_one() {
        let decimals = |values: Vec<Option<i128>>| -> ColumnarValue {
            let array = Decimal128Array::from(values)
                .with_precision_and_scale(15, 2)
                .unwrap();
            ColumnarValue::Array(Arc::new(array))
        };
        let column: Vec<Option<i128>> = (0..1000)
            .map(|i: i128| (i % 7 != 3).then_some((i * 7_919 % 20_011 - 10_000) * 97))
            .collect();
        let (left, right) = (
            decimals(column.clone()),
            decimals(column.into_iter().rev().collect()),
        );
        let one = ColumnarValue::Scalar(ScalarValue::Int64(Some(1)));
        for op in [
            ArithmeticOp::Plus,
            ArithmeticOp::Minus,
            ArithmeticOp::Multiply,
        ] {
            let scale = if op == ArithmeticOp::Multiply { 4 } else { 2 };
            for (l, r) in [(&left, &right), (&one, &right), (&left, &one)] {
                let fast = evaluate(op, l, r, 18, scale).unwrap().unwrap();
                let (l_scale, lo) = operand(l).unwrap().unwrap();
                let (r_scale, ro) = operand(r).unwrap().unwrap();
                let factor = |from: i8| 10i64.pow((scale - from) as u32);
                let (lf, rf) = match op {
                    ArithmeticOp::Multiply => (1, 1),
                    _ => (factor(l_scale), factor(r_scale)),
                };
                let limit = width_limit(18);
                let slow = apply(&lo, &ro, checked::<i64>(op, lf, rf, limit))
                    .unwrap()
                    .with_precision_and_scale(18, scale)
                    .unwrap();
                // Equal as arrays: what a NULL row holds does not count.
                assert_eq!(fast, slow, "{op:?}");
            }
        }
        // A NULL row's placeholder that would overflow is no error; a value
        // that overflows is one.
        let huge = 10i128.pow(15) - 1;
        let with_null = ColumnarValue::Array(Arc::new(
            Decimal128Array::new(vec![huge, 5].into(), Some(vec![false, true].into()))
                .with_precision_and_scale(15, 2)
                .unwrap(),
        ));
        let product = evaluate(ArithmeticOp::Multiply, &with_null, &with_null, 18, 4)
            .unwrap()
            .unwrap();
        assert_eq!((product.is_null(0), product.value(1)), (true, 25));
        let overflowing = decimals(vec![Some(huge), Some(5)]);
        assert!(evaluate(ArithmeticOp::Multiply, &overflowing, &overflowing, 18, 4).is_err());
    }
}
