//! ClickHouse's arithmetic helpers: `abs` (unsigned for signed integers),
//! `sqr` (`multiply`'s type), `max2`/`min2` (Float64), `midpoint`/`avg2`
//! (the arguments' common type, NULLs skipped), `gcd`/`lcm` (`plus`'s type),
//! `byteSwap`, `isNaN`/`isFinite`/`isInfinite` and `ifNotFinite`.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, PrimitiveArray, UInt8Array,
};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{arity_error, error, illegal_type, is_float, is_integer, is_number};
use crate::arithmetic::{ArithmeticOp, evaluate, result_type};
use crate::int_cast::{narrow_from_u64, to_i64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Helper {
    Abs,
    Sqr,
    Max2,
    Min2,
    Midpoint,
    Gcd,
    Lcm,
    ByteSwap,
    IsNaN,
    IsFinite,
    IsInfinite,
    IfNotFinite,
}

impl Helper {
    const ALL: [Helper; 12] = [
        Helper::Abs,
        Helper::Sqr,
        Helper::Max2,
        Helper::Min2,
        Helper::Midpoint,
        Helper::Gcd,
        Helper::Lcm,
        Helper::ByteSwap,
        Helper::IsNaN,
        Helper::IsFinite,
        Helper::IsInfinite,
        Helper::IfNotFinite,
    ];

    fn name(self) -> &'static str {
        match self {
            Helper::Abs => "abs",
            Helper::Sqr => "sqr",
            Helper::Max2 => "max2",
            Helper::Min2 => "min2",
            Helper::Midpoint => "midpoint",
            Helper::Gcd => "gcd",
            Helper::Lcm => "lcm",
            Helper::ByteSwap => "byteSwap",
            Helper::IsNaN => "isNaN",
            Helper::IsFinite => "isFinite",
            Helper::IsInfinite => "isInfinite",
            Helper::IfNotFinite => "ifNotFinite",
        }
    }

    fn arity(self) -> &'static [usize] {
        match self {
            Helper::Max2 | Helper::Min2 | Helper::Gcd | Helper::Lcm | Helper::IfNotFinite => &[2],
            Helper::Midpoint => &[],
            _ => &[1],
        }
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    Helper::ALL
        .into_iter()
        .map(|helper| {
            let udf = ScalarUDF::new_from_impl(HelperFunction {
                helper,
                signature: super::any_arguments(Volatility::Immutable),
            });
            match helper {
                Helper::Midpoint => udf.with_aliases(["avg2"]),
                _ => udf,
            }
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct HelperFunction {
    helper: Helper,
    signature: Signature,
}

fn unsigned_of(t: &DataType) -> DataType {
    match t {
        DataType::Int8 => DataType::UInt8,
        DataType::Int16 => DataType::UInt16,
        DataType::Int32 => DataType::UInt32,
        DataType::Int64 => DataType::UInt64,
        other => other.clone(),
    }
}

/// Integers and floats, and NULL; Bool computes as UInt8.
fn native(t: &DataType) -> bool {
    is_integer(t) || is_float(t) || *t == DataType::Null
}

fn integer_pair(name: &str, l: &DataType, r: &DataType) -> Result<DataType> {
    let integer = |t: &DataType| is_integer(t) || *t == DataType::Null;
    let normal = |t: &DataType| match t {
        DataType::Null => DataType::UInt8,
        t => t.clone(),
    };
    if !(integer(l) && integer(r)) {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal types {} and {} of arguments of function {name}",
                clickhouse_type_name(l, false),
                clickhouse_type_name(r, false)
            ),
        ));
    }
    result_type(ArithmeticOp::Plus, &normal(l), &normal(r))
}

impl HelperFunction {
    fn result(&self, types: &[DataType]) -> Result<DataType> {
        let name = self.helper.name();
        let Some(first) = types.first() else {
            return midpoint_type(types);
        };
        let number = |t: &DataType| -> Result<()> {
            if native(t) {
                Ok(())
            } else {
                Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Argument for function {name} must be a number"),
                ))
            }
        };
        Ok(match self.helper {
            Helper::Abs if is_number(first) && *first != DataType::Boolean => unsigned_of(first),
            Helper::Sqr if native(first) => {
                let t = unsigned_or_null(first);
                result_type(ArithmeticOp::Multiply, &t, &t)?
            }
            Helper::Max2 | Helper::Min2 => {
                for t in types {
                    if !native(t) {
                        return Err(illegal_type(name, t));
                    }
                }
                DataType::Float64
            }
            Helper::Midpoint => midpoint_type(types)?,
            Helper::Gcd | Helper::Lcm => integer_pair(name, first, &types[1])?,
            Helper::ByteSwap if is_float(first) => {
                return Err(error(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!(
                        "byteSwap is not implemented for {} datatype",
                        float_name(first)
                    ),
                ));
            }
            Helper::ByteSwap if is_integer(first) || *first == DataType::Null => first.clone(),
            Helper::IsNaN | Helper::IsFinite | Helper::IsInfinite => {
                number(first)?;
                DataType::UInt8
            }
            Helper::IfNotFinite => {
                let checked = Helper::IsFinite.name();
                if !native(first) {
                    return Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument for function {checked} must be a number"),
                    ));
                }
                crate::arrays::common_type(types)?
            }
            _ => return Err(illegal_type(name, first)),
        })
    }
}

fn float_name(t: &DataType) -> &'static str {
    if *t == DataType::Float32 {
        "float"
    } else {
        "double"
    }
}

fn unsigned_or_null(t: &DataType) -> DataType {
    if *t == DataType::Null {
        DataType::UInt8
    } else {
        t.clone()
    }
}

fn midpoint_type(types: &[DataType]) -> Result<DataType> {
    if types.is_empty() {
        return Err(error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            "Function midpoint cannot be called without arguments",
        ));
    }
    for t in types {
        let temporal = matches!(
            t,
            DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
        );
        if !(native(t) || temporal) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Function midpoint supports only numeric/temporal types, got {}",
                    clickhouse_type_name(t, false)
                ),
            ));
        }
    }
    crate::arrays::common_type(types)
}

impl ScalarUDFImpl for HelperFunction {
    fn name(&self) -> &str {
        self.helper.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let arity = self.helper.arity();
        if !arity.is_empty() && !arity.contains(&arg_types.len()) {
            return Err(arity_error(
                self.helper.name(),
                arg_types.len(),
                &arity[0].to_string(),
            ));
        }
        self.result(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let field = Field::new(
            self.name(),
            super::literal_aware_type(self, &args)?,
            args.arg_fields.iter().any(|f| f.is_nullable()),
        );
        let nullable = match self.helper {
            // NULLs are skipped: NULL only when every argument is.
            Helper::Midpoint => args.arg_fields.iter().all(|f| f.is_nullable()),
            Helper::IfNotFinite => args.arg_fields[1].is_nullable(),
            _ => field.is_nullable(),
        };
        Ok(Arc::new(field.with_nullable(nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let result = args.return_type().clone();
        let out = self.compute(&arrays, &result)?;
        crate::columnar(out, scalar)
    }
}

impl HelperFunction {
    fn compute(&self, arrays: &[ArrayRef], result: &DataType) -> Result<ArrayRef> {
        let first = &arrays[0];
        match self.helper {
            Helper::Abs => abs(first, result),
            Helper::Sqr => {
                let x = null_as_u8(first)?;
                evaluate(ArithmeticOp::Multiply, &x, &x, result)
            }
            Helper::Max2 | Helper::Min2 => {
                let max = self.helper == Helper::Max2;
                let (a, b) = (
                    super::math::as_f64(first)?,
                    super::math::as_f64(&arrays[1])?,
                );
                let out: Float64Array = datafusion::arrow::compute::binary(
                    a.as_primitive::<Float64Type>(),
                    b.as_primitive::<Float64Type>(),
                    |a, b| {
                        if (max && a > b) || (!max && a < b) {
                            a
                        } else {
                            b
                        }
                    },
                )?;
                Ok(Arc::new(out))
            }
            Helper::Midpoint => midpoint(arrays, result),
            Helper::Gcd | Helper::Lcm => gcd_lcm(self.helper == Helper::Lcm, arrays, result),
            Helper::ByteSwap => byte_swap(first),
            Helper::IsNaN | Helper::IsFinite | Helper::IsInfinite => {
                let values = super::math::as_f64(first)?;
                let test: fn(f64) -> bool = match self.helper {
                    Helper::IsNaN => f64::is_nan,
                    Helper::IsFinite => f64::is_finite,
                    _ => f64::is_infinite,
                };
                let out: UInt8Array = values
                    .as_primitive::<Float64Type>()
                    .unary(|v| u8::from(test(v)));
                Ok(Arc::new(out))
            }
            Helper::IfNotFinite => if_not_finite(first, &arrays[1], result),
        }
    }
}

fn null_as_u8(array: &ArrayRef) -> Result<ArrayRef> {
    match array.data_type() {
        DataType::Null => Ok(cast::cast(array, &DataType::UInt8)?),
        _ => Ok(Arc::clone(array)),
    }
}

fn abs(values: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    match values.data_type() {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let wide = to_i64_wrapping(values)?;
            narrow_from_u64(&wide.unary(|v: i64| v.unsigned_abs()), result)
        }
        DataType::Float32 => Ok(Arc::new(
            values
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(f32::abs),
        )),
        DataType::Float64 => Ok(Arc::new(
            values
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(f64::abs),
        )),
        DataType::Decimal128(p, s) => {
            let out: PrimitiveArray<Decimal128Type> = values
                .as_primitive::<Decimal128Type>()
                .unary(i128::wrapping_abs);
            Ok(Arc::new(out.with_precision_and_scale(*p, *s)?))
        }
        DataType::Decimal256(p, s) => {
            let out: PrimitiveArray<Decimal256Type> = values
                .as_primitive::<Decimal256Type>()
                .unary(|v| v.wrapping_abs());
            Ok(Arc::new(out.with_precision_and_scale(*p, *s)?))
        }
        _ => Ok(Arc::clone(values)),
    }
}

fn byte_swap(values: &ArrayRef) -> Result<ArrayRef> {
    macro_rules! swap {
        ($t:ty) => {
            Arc::new(
                values
                    .as_primitive::<$t>()
                    .unary::<_, $t>(|v| v.swap_bytes()),
            ) as ArrayRef
        };
    }
    Ok(match values.data_type() {
        DataType::UInt16 => swap!(UInt16Type),
        DataType::UInt32 => swap!(UInt32Type),
        DataType::UInt64 => swap!(UInt64Type),
        DataType::Int16 => swap!(Int16Type),
        DataType::Int32 => swap!(Int32Type),
        DataType::Int64 => swap!(Int64Type),
        // One byte, or NULL: nothing to swap.
        _ => Arc::clone(values),
    })
}

fn if_not_finite(x: &ArrayRef, y: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    let finite: datafusion::arrow::array::BooleanArray = {
        let values = super::math::as_f64(x)?;
        values
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| Some(v.is_some_and(f64::is_finite)))
            .collect()
    };
    let x = cast::cast(x, result)?;
    let y = cast::cast(y, result)?;
    Ok(datafusion::arrow::compute::kernels::zip::zip(
        &finite, &x, &y,
    )?)
}

/// The mean of the non-NULL arguments of each row, in their common type:
/// integers and dates divide exactly and truncate.
fn midpoint(arrays: &[ArrayRef], result: &DataType) -> Result<ArrayRef> {
    let rows = arrays[0].len();
    if is_float(result) {
        let values = arrays
            .iter()
            .map(|a| super::math::as_f64(a))
            .collect::<Result<Vec<_>>>()?;
        let out: Float64Array = (0..rows)
            .map(|row| {
                let present: Vec<f64> = values
                    .iter()
                    .filter(|v| v.is_valid(row))
                    .map(|v| v.as_primitive::<Float64Type>().value(row))
                    .collect();
                (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64)
            })
            .collect();
        return Ok(cast::cast(&out, result)?);
    }
    let values = arrays
        .iter()
        .map(|a| wide_integers(a))
        .collect::<Result<Vec<_>>>()?;
    let means: Vec<Option<i128>> = (0..rows)
        .map(|row| {
            let present: Vec<i128> = values.iter().filter_map(|v| v[row]).collect();
            (!present.is_empty()).then(|| present.iter().sum::<i128>() / present.len() as i128)
        })
        .collect();
    from_wide(&means, result)
}

/// Integer, date or time values as i128, without loss.
fn wide_integers(array: &ArrayRef) -> Result<Vec<Option<i128>>> {
    Ok(match array.data_type() {
        DataType::UInt64 => array
            .as_primitive::<UInt64Type>()
            .iter()
            .map(|v| v.map(i128::from))
            .collect(),
        DataType::Null => vec![None; array.len()],
        _ => to_i64_wrapping(array)?
            .iter()
            .map(|v| v.map(i128::from))
            .collect(),
    })
}

/// i128 values stored in an integer, Date or DateTime type (wrapping).
fn from_wide(values: &[Option<i128>], result: &DataType) -> Result<ArrayRef> {
    let bits: PrimitiveArray<UInt64Type> = values.iter().map(|v| v.map(|v| v as u64)).collect();
    match result {
        DataType::Date32 => {
            let days = narrow_from_u64(&bits, &DataType::Int32)?;
            Ok(cast::cast(&days, result)?)
        }
        DataType::Timestamp(TimeUnit::Second, zone) => {
            let seconds: PrimitiveArray<TimestampSecondType> = bits.unary(|v| v as i64);
            Ok(Arc::new(seconds.with_timezone_opt(zone.clone())))
        }
        DataType::Null => Ok(datafusion::arrow::array::new_null_array(
            result,
            values.len(),
        )),
        _ => narrow_from_u64(&bits, result),
    }
}

fn gcd_lcm(lcm: bool, arrays: &[ArrayRef], result: &DataType) -> Result<ArrayRef> {
    let (signed, bits) = match result {
        DataType::Int8 => (true, 8),
        DataType::Int16 => (true, 16),
        DataType::Int32 => (true, 32),
        DataType::Int64 => (true, 64),
        DataType::UInt8 => (false, 8),
        DataType::UInt16 => (false, 16),
        DataType::UInt32 => (false, 32),
        _ => (false, 64),
    };
    let width = super::rounding::Width { bits, signed };
    let a = wide_integers(&arrays[0])?;
    let b = wide_integers(&arrays[1])?;
    let out = a
        .into_iter()
        .zip(b)
        .map(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => gcd_or_lcm(lcm, width.wrap(a), width.wrap(b), width).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    from_wide(&out, result)
}

fn gcd_or_lcm(lcm: bool, a: i128, b: i128, width: super::rounding::Width) -> Result<i128> {
    if a == 0 || b == 0 {
        return Err(error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"));
    }
    let smallest = width.signed.then(|| -(1i128 << (width.bits - 1)));
    if smallest == Some(a) || smallest == Some(b) {
        return Err(error(
            ErrorCode::DECIMAL_OVERFLOW,
            format!("Intermediate result overflow (signed a = {a}, signed b = {b})"),
        ));
    }
    let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
    let (mut p, mut q) = (x, y);
    while q != 0 {
        (p, q) = (q, p % q);
    }
    Ok(if lcm {
        width.wrap((x / p).wrapping_mul(y) as i128)
    } else {
        p as i128
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::rounding::Width;

    #[test]
    fn gcd_and_lcm_follow_clickhouse() {
        let i64w = Width {
            bits: 64,
            signed: true,
        };
        let u64w = Width {
            bits: 64,
            signed: false,
        };
        assert_eq!(gcd_or_lcm(false, -12, 18, i64w).unwrap(), 6);
        assert_eq!(gcd_or_lcm(true, -4, 6, i64w).unwrap(), 12);
        assert_eq!(
            gcd_or_lcm(true, i128::from(u64::MAX), 2, u64w).unwrap(),
            i128::from(u64::MAX - 1)
        );
        assert!(gcd_or_lcm(false, 0, 5, i64w).is_err());
        assert!(gcd_or_lcm(false, i128::from(i64::MIN), 1, i64w).is_err());
    }
}
