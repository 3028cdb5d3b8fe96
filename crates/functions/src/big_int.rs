//! Conversions to and from ClickHouse's 128- and 256-bit integers, and their
//! arithmetic ([`BigInt`] says how they are stored).
//!
//! Every value is first widened to a 256-bit integer with ClickHouse's
//! semantics (integers wrap, floats and decimals are cut toward zero, text
//! is parsed), computed on in 256 bits with wrapping, and reduced to the
//! target type's bits, which gives the bits ClickHouse computes in the
//! target type.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, PrimitiveArray,
};
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, Operator, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::types::BigInt;
use strata_common::{ErrorCode, StrataError};

use crate::arithmetic::ArithmeticOp;
use crate::int_cast::to_i64_wrapping;

/// 2^255, where `UInt256`'s bit patterns turn negative.
const TWO_POW_255: f64 = 5.78960446186581e76;

/// Every row of `values` as a 256-bit integer (None where NULL), with
/// ClickHouse's conversion of that type; text that is not an integer fails
/// with CANNOT_PARSE_TEXT naming `target`.
pub(crate) fn widen(values: &ArrayRef, target: &DataType) -> Result<Vec<Option<i256>>> {
    let source = values.data_type();
    if let Some(big) = BigInt::of(source) {
        return Ok(stored(values, big));
    }
    Ok(match source {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let texts = datafusion::arrow::compute::cast(values, &DataType::Utf8)?;
            let mut out = Vec::with_capacity(texts.len());
            for text in texts.as_string::<i32>() {
                out.push(match text {
                    None => None,
                    Some(text) => Some(
                        BigInt::Int256
                            .parse(text)
                            .ok_or_else(|| crate::conversion::parse_error(text, target))?,
                    ),
                });
            }
            out
        }
        DataType::UInt64 => values
            .as_primitive::<UInt64Type>()
            .iter()
            .map(|v| v.map(|v| i256::from_i128(i128::from(v))))
            .collect(),
        DataType::Float32 | DataType::Float64 => {
            let floats = datafusion::arrow::compute::cast(values, &DataType::Float64)?;
            floats
                .as_primitive::<Float64Type>()
                .iter()
                .map(|v| v.map(from_float))
                .collect()
        }
        DataType::Decimal128(_, scale) => {
            let divisor = 10i128.pow(u32::from(scale.unsigned_abs()));
            values
                .as_primitive::<Decimal128Type>()
                .iter()
                .map(|v| v.map(|v| i256::from_i128(v / divisor)))
                .collect()
        }
        DataType::Decimal256(_, scale) => {
            let divisor = i256::from_i128(10).wrapping_pow(u32::from(scale.unsigned_abs()));
            values
                .as_primitive::<Decimal256Type>()
                .iter()
                .map(|v| v.map(|v| v.wrapping_div(divisor)))
                .collect()
        }
        _ => to_i64_wrapping(values)?
            .iter()
            .map(|v| v.map(|v| i256::from_i128(i128::from(v))))
            .collect(),
    })
}

/// The stored values of a big integer column.
fn stored(values: &ArrayRef, big: BigInt) -> Vec<Option<i256>> {
    match big {
        BigInt::Int128 => values
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(i256::from_i128))
            .collect(),
        _ => values.as_primitive::<Decimal256Type>().iter().collect(),
    }
}

/// A float cut toward zero; past the 256-bit range, ClickHouse's result is
/// unspecified, and Strata's is 0 (NaN too).
fn from_float(v: f64) -> i256 {
    let v = v.trunc();
    match v >= TWO_POW_255 {
        // A UInt256 past 2^255: its bit pattern.
        true => i256::from_f64(v - 2.0 * TWO_POW_255).unwrap_or(i256::ZERO),
        false => i256::from_f64(v).unwrap_or(i256::ZERO),
    }
}

/// `values` as `CAST(values AS <big>)` converts them.
pub(crate) fn convert_to(values: &ArrayRef, big: BigInt) -> Result<ArrayRef> {
    Ok(big.array(widen(values, &big.data_type())?))
}

/// A big integer column as a type of 64 bits or less: floats by value,
/// integers keeping the low bits, text in digits.
pub(crate) fn convert_from(values: &ArrayRef, big: BigInt, target: &DataType) -> Result<ArrayRef> {
    let stored = stored(values, big);
    match target {
        DataType::Utf8 => Ok(Arc::new(
            stored
                .iter()
                .map(|v| v.map(|v| big.to_text(v)))
                .collect::<datafusion::arrow::array::StringArray>(),
        )),
        DataType::Float32 | DataType::Float64 => {
            let floats: ArrayRef = Arc::new(
                stored
                    .iter()
                    .map(|v| v.map(|v| big.to_f64(v)))
                    .collect::<Float64Array>(),
            );
            Ok(datafusion::arrow::compute::cast(&floats, target)?)
        }
        DataType::Boolean => Ok(Arc::new(
            stored
                .iter()
                .map(|v| v.map(|v| v != i256::ZERO))
                .collect::<BooleanArray>(),
        )),
        _ if let Some(to) = BigInt::of(target) => Ok(to.array(stored)),
        _ => {
            let low: Int64Array = stored
                .iter()
                .map(|v| v.map(|v| v.as_i128() as i64))
                .collect();
            crate::int_cast::narrow_from_i64(&low, target)
        }
    }
}

/// `accurateCast` to `big`: the values, and the rows whose value the type
/// does not hold exactly (a fraction, out of range, text that is not an
/// integer of the type).
pub(crate) fn accurate(values: &ArrayRef, big: BigInt) -> Result<(ArrayRef, BooleanArray)> {
    let exact: Vec<Option<Option<i256>>> = match values.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let texts = datafusion::arrow::compute::cast(values, &DataType::Utf8)?;
            texts
                .as_string::<i32>()
                .iter()
                .map(|t| t.map(|t| exact_text(t, big)))
                .collect()
        }
        DataType::Float32 | DataType::Float64 => {
            let floats = datafusion::arrow::compute::cast(values, &DataType::Float64)?;
            floats
                .as_primitive::<Float64Type>()
                .iter()
                .map(|v| v.map(|v| exact_float(v, big)))
                .collect()
        }
        source => {
            let signed_source = BigInt::of(source).is_none_or(BigInt::signed);
            widen(values, &big.data_type())?
                .into_iter()
                .map(|v| v.map(|v| fits(v, signed_source, big).then_some(v)))
                .collect()
        }
    };
    let failed: BooleanArray = exact
        .iter()
        .map(|v| Some(matches!(v, Some(None))))
        .collect();
    Ok((big.array(exact.into_iter().map(Option::flatten)), failed))
}

/// Whether a widened value (of a signed source, or of an unsigned one whose
/// bit pattern may look negative) is a value of `big`.
fn fits(value: i256, signed_source: bool, big: BigInt) -> bool {
    let negative = signed_source && value.is_negative();
    match big {
        BigInt::Int128 => value.to_i128().is_some() && (signed_source || !value.is_negative()),
        BigInt::UInt128 => !negative && value.to_parts().1 == 0,
        BigInt::Int256 => signed_source || !value.is_negative(),
        BigInt::UInt256 => !negative,
    }
}

fn exact_text(text: &str, big: BigInt) -> Option<i256> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let negative = text.starts_with('-');
    if negative && !big.signed() {
        return None;
    }
    let value = big.parse(text)?;
    // Parsed with wrapping: it fits when printing it gives the text back.
    let canonical = big.to_text(value);
    let trimmed = digits.trim_start_matches('0');
    let expected = match (negative, trimmed.is_empty()) {
        (_, true) => "0".to_string(),
        (true, false) => format!("-{trimmed}"),
        (false, false) => trimmed.to_string(),
    };
    (canonical == expected).then_some(value)
}

fn exact_float(v: f64, big: BigInt) -> Option<i256> {
    if !v.is_finite() || v.fract() != 0.0 || (v < 0.0 && !big.signed()) {
        return None;
    }
    let value = from_float(v);
    (big.to_f64(big.wrap(value)) == v).then_some(value)
}

/// Whether `t` is an integer for big integer arithmetic: of up to 64 bits,
/// or big.
fn integer_shape(t: &DataType) -> Option<(bool, u8)> {
    if let Some(big) = BigInt::of(t) {
        return Some((big.signed(), big.bytes()));
    }
    match t {
        DataType::Null => Some((false, 1)),
        other => crate::arithmetic::int_shape(other),
    }
}

/// ClickHouse's result type of `op` when an operand is a big integer: None
/// when neither is; an error for a float or other operand, which ClickHouse
/// refuses (except in `/`, always Float64).
pub fn result_type(
    op: ArithmeticOp,
    left: &DataType,
    right: &DataType,
) -> Option<Result<DataType>> {
    if BigInt::of(left).is_none() && BigInt::of(right).is_none() {
        return None;
    }
    let number = |t: &DataType| {
        integer_shape(t).is_some() || matches!(t, DataType::Float32 | DataType::Float64)
    };
    if op == ArithmeticOp::Divide && number(left) && number(right) {
        return Some(Ok(DataType::Float64));
    }
    let (Some((ls, lsize)), Some((rs, rsize))) = (integer_shape(left), integer_shape(right)) else {
        return Some(illegal(op, left, right));
    };
    let shape = match op {
        ArithmeticOp::Divide => unreachable!("divided above"),
        ArithmeticOp::Plus | ArithmeticOp::Multiply => (ls || rs, lsize.max(rsize)),
        ArithmeticOp::Minus => (true, lsize.max(rsize)),
        ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => (ls || rs, lsize),
        // A signed remainder of a narrow divisor takes the next width.
        ArithmeticOp::Modulo if ls && rsize < 8 => (true, (rsize * 2).min(8)),
        ArithmeticOp::Modulo => (ls, rsize),
    };
    Some(Ok(shape_type(shape)))
}

fn shape_type((signed, bytes): (bool, u8)) -> DataType {
    match BigInt::of_shape(signed, bytes) {
        Some(big) => big.data_type(),
        None => crate::arithmetic::int_type(signed, bytes),
    }
}

fn illegal(op: ArithmeticOp, left: &DataType, right: &DataType) -> Result<DataType> {
    Err(StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal types {} and {} of arguments of function {}",
            strata_common::types::clickhouse_type_name(left, false),
            strata_common::types::clickhouse_type_name(right, false),
            op.name()
        ),
    )
    .into_datafusion())
}

/// `op` on two columns of which one is a big integer, as `result` (a type
/// [`result_type`] gave).
pub(crate) fn evaluate(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &ArrayRef,
    result: &DataType,
) -> Result<ArrayRef> {
    if op == ArithmeticOp::Divide {
        let l = convert_or_float(left)?;
        let r = convert_or_float(right)?;
        let quotients: Float64Array = l.iter().zip(&r).map(|(a, b)| Some((*a)? / (*b)?)).collect();
        return Ok(Arc::new(quotients));
    }
    let l = widen(left, result)?;
    let r = widen(right, result)?;
    let mut out = Vec::with_capacity(l.len());
    for (a, b) in l.into_iter().zip(r) {
        out.push(match (a, b) {
            (Some(a), Some(b)) => Some(apply(op, a, b)?),
            _ => None,
        });
    }
    match BigInt::of(result) {
        Some(big) => Ok(big.array(out)),
        None => {
            let low: Int64Array = out.iter().map(|v| v.map(|v| v.as_i128() as i64)).collect();
            crate::int_cast::narrow_from_i64(&low, result)
        }
    }
}

fn convert_or_float(values: &ArrayRef) -> Result<Vec<Option<f64>>> {
    let floats = match BigInt::of(values.data_type()) {
        Some(big) => convert_from(values, big, &DataType::Float64)?,
        None => datafusion::arrow::compute::cast(values, &DataType::Float64)?,
    };
    Ok(floats.as_primitive::<Float64Type>().iter().collect())
}

fn apply(op: ArithmeticOp, a: i256, b: i256) -> Result<i256> {
    let zero_divisor = b == i256::ZERO;
    Ok(match op {
        ArithmeticOp::Plus => a.wrapping_add(b),
        ArithmeticOp::Minus => a.wrapping_sub(b),
        ArithmeticOp::Multiply => a.wrapping_mul(b),
        ArithmeticOp::IntDivOrZero if zero_divisor => i256::ZERO,
        ArithmeticOp::IntDiv | ArithmeticOp::Modulo if zero_divisor => {
            return Err(crate::arithmetic::division_by_zero());
        }
        ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => a.wrapping_div(b),
        ArithmeticOp::Modulo => a.wrapping_rem(b),
        ArithmeticOp::Divide => return exec_err!("divide is computed in floats"),
    })
}

/// `-x` of a big integer: `UInt128` and `UInt256` turn signed.
pub fn negate_type(big: BigInt) -> DataType {
    BigInt::of_shape(true, big.bytes())
        .expect("a signed type of each width")
        .data_type()
}

pub(crate) fn negate(values: &ArrayRef, big: BigInt) -> ArrayRef {
    let result = BigInt::of(&negate_type(big)).expect("a big integer");
    result.array(
        stored(values, big)
            .into_iter()
            .map(|v| v.map(i256::wrapping_neg)),
    )
}

/// `bitNot` of a big integer, in its type.
pub(crate) fn bit_not(values: &ArrayRef, big: BigInt) -> ArrayRef {
    big.array(stored(values, big).into_iter().map(|v| v.map(|v| !v)))
}

/// `bitShiftLeft` (`left`) or `bitShiftRight` of a big integer by counts
/// known non-negative: 0 from the type's width on; a signed type's right
/// shift keeps the sign.
pub(crate) fn shift(
    values: &ArrayRef,
    big: BigInt,
    counts: &PrimitiveArray<Int64Type>,
    left: bool,
) -> ArrayRef {
    let width = i64::from(big.bytes()) * 8;
    let shifted = stored(values, big)
        .into_iter()
        .zip(counts.iter())
        .map(|(v, n)| {
            let (v, n) = (v?, n?);
            Some(match (n >= width, left) {
                (true, _) => i256::ZERO,
                (false, true) => v << n as u8,
                // A UInt256 past 2^255 looks negative: its first step shifts
                // a zero in.
                (false, false) if big == BigInt::UInt256 && n > 0 && v.is_negative() => {
                    ((v >> 1u8) & i256::MAX) >> (n - 1) as u8
                }
                (false, false) => v >> n as u8,
            })
        });
    big.array(shifted.collect::<Vec<_>>())
}

/// `bitAnd`, `bitOr` and `bitXor` where an operand is a big integer
/// (DataFusion's bitwise operators take integers up to 64 bits): in the
/// type `plus` would give.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BigBitwise {
    operator: Operator,
    signature: Signature,
}

impl BigBitwise {
    /// The function's name for a DataFusion bitwise operator.
    pub fn name_of(operator: Operator) -> Option<&'static str> {
        Some(match operator {
            Operator::BitwiseAnd => "_bitAndBig",
            Operator::BitwiseOr => "_bitOrBig",
            Operator::BitwiseXor => "_bitXorBig",
            _ => return None,
        })
    }

    pub fn all() -> Vec<BigBitwise> {
        [
            Operator::BitwiseAnd,
            Operator::BitwiseOr,
            Operator::BitwiseXor,
        ]
        .into_iter()
        .map(|operator| BigBitwise {
            operator,
            signature: Signature::any(2, Volatility::Immutable),
        })
        .collect()
    }
}

impl ScalarUDFImpl for BigBitwise {
    fn name(&self) -> &str {
        BigBitwise::name_of(self.operator).expect("a bitwise operator")
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        result_type(ArithmeticOp::Plus, &arg_types[0], &arg_types[1])
            .unwrap_or_else(|| exec_err!("{} takes a big integer", self.name()))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = args.number_rows;
        let result = args.return_type().clone();
        let left = widen(&args.args[0].to_array(rows)?, &result)?;
        let right = widen(&args.args[1].to_array(rows)?, &result)?;
        let big = BigInt::of(&result).expect("a big integer result");
        let combined = left.into_iter().zip(right).map(|(a, b)| {
            let (a, b) = (a?, b?);
            Some(match self.operator {
                Operator::BitwiseAnd => a & b,
                Operator::BitwiseOr => a | b,
                _ => a ^ b,
            })
        });
        crate::columnar(big.array(combined.collect::<Vec<_>>()), scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(big: BigInt, values: &[i128]) -> ArrayRef {
        big.array(values.iter().map(|v| Some(i256::from_i128(*v))))
    }

    #[test]
    fn arithmetic_wraps_in_the_result_type() {
        let max = column(BigInt::Int128, &[i128::MAX]);
        let one: ArrayRef = Arc::new(datafusion::arrow::array::Int8Array::from(vec![1]));
        let sum = evaluate(ArithmeticOp::Plus, &max, &one, &BigInt::Int128.data_type()).unwrap();
        assert_eq!(sum.as_primitive::<Decimal128Type>().value(0), i128::MIN);
        let minus_one = column(BigInt::Int256, &[-1]);
        let as_unsigned =
            convert_from(&minus_one, BigInt::Int256, &BigInt::UInt256.data_type()).unwrap();
        let text = convert_from(&as_unsigned, BigInt::UInt256, &DataType::Utf8).unwrap();
        assert_eq!(
            text.as_string::<i32>().value(0),
            BigInt::UInt256.to_text(i256::MINUS_ONE)
        );
    }

    #[test]
    fn result_types_match_clickhouse() {
        use ArithmeticOp::*;
        let [i128_, u128_, i256_, u256_] = BigInt::ALL.map(BigInt::data_type);
        let cases = [
            (Plus, &i128_, &DataType::Int8, "Int128"),
            (Plus, &i128_, &u128_, "Int128"),
            (Plus, &u256_, &DataType::Int8, "Int256"),
            (Minus, &u128_, &u128_, "Int128"),
            (Modulo, &i128_, &DataType::Int8, "Int16"),
            (Modulo, &DataType::Int8, &i128_, "Int128"),
            (IntDiv, &DataType::Int8, &i256_, "Int8"),
            (Divide, &i256_, &DataType::Int8, "Float64"),
            (Divide, &DataType::Float64, &u128_, "Float64"),
        ];
        for (op, left, right, expected) in cases {
            let result = result_type(op, left, right).unwrap().unwrap();
            let name = strata_common::types::clickhouse_type_name(&result, false);
            assert_eq!(name, expected, "{op:?}");
        }
        assert!(
            result_type(Plus, &i128_, &DataType::Float64)
                .unwrap()
                .is_err()
        );
    }
}
