//! Division that does not fail: `moduloOrZero`, `moduloOrNull`,
//! `intDivOrNull`, `divideOrNull`, and `positiveModulo` (`pmod`) with its
//! `OrNull` form, plus `moduloLegacy`.
//!
//! Result types are those of ClickHouse's `modulo`, `intDiv` and `divide`
//! (from `crate::arithmetic`), Nullable for the `OrNull` forms. A zero
//! divisor, or the smallest signed number divided by -1, gives 0 or NULL
//! where `modulo` and `intDiv` fail. `positiveModulo`'s result is the
//! unsigned form of `modulo`'s, or Float64.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, PrimitiveArray,
};
use datafusion::arrow::compute::kernels::{cast, zip};
use datafusion::arrow::compute::{is_null, nullif};
use datafusion::arrow::datatypes::*;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{arity_error, error, is_float, is_integer};
use crate::arithmetic::{ArithmeticOp, evaluate, int_type, result_type};
use crate::int_cast::{narrow_from_i64, narrow_from_u64, to_i64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Division {
    ModuloOrZero,
    ModuloOrNull,
    IntDivOrNull,
    DivideOrNull,
    PositiveModulo,
    PositiveModuloOrNull,
    ModuloLegacy,
}

impl Division {
    fn name(self) -> &'static str {
        match self {
            Division::ModuloOrZero => "moduloOrZero",
            Division::ModuloOrNull => "moduloOrNull",
            Division::IntDivOrNull => "intDivOrNull",
            Division::DivideOrNull => "divideOrNull",
            Division::PositiveModulo => "positiveModulo",
            Division::PositiveModuloOrNull => "positiveModuloOrNull",
            Division::ModuloLegacy => "moduloLegacy",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Division::ModuloOrNull => &["modOrNull"],
            Division::PositiveModulo => &["pmod", "positive_modulo"],
            Division::PositiveModuloOrNull => &["pmodOrNull", "positive_modulo_or_null"],
            _ => &[],
        }
    }

    fn op(self) -> ArithmeticOp {
        match self {
            Division::IntDivOrNull => ArithmeticOp::IntDiv,
            Division::DivideOrNull => ArithmeticOp::Divide,
            _ => ArithmeticOp::Modulo,
        }
    }

    fn or_null(self) -> bool {
        matches!(
            self,
            Division::ModuloOrNull
                | Division::IntDivOrNull
                | Division::DivideOrNull
                | Division::PositiveModuloOrNull
        )
    }

    fn positive(self) -> bool {
        matches!(
            self,
            Division::PositiveModulo | Division::PositiveModuloOrNull
        )
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    [
        Division::ModuloOrZero,
        Division::ModuloOrNull,
        Division::IntDivOrNull,
        Division::DivideOrNull,
        Division::PositiveModulo,
        Division::PositiveModuloOrNull,
        Division::ModuloLegacy,
    ]
    .into_iter()
    .map(|kind| {
        ScalarUDF::new_from_impl(DivisionFunction {
            kind,
            signature: super::any_arguments(Volatility::Immutable),
        })
        .with_aliases(kind.aliases().iter().copied())
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DivisionFunction {
    kind: Division,
    signature: Signature,
}

/// Integers and floats; a NULL literal or Bool counts as UInt8.
fn operand(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Null | DataType::Boolean => Some(DataType::UInt8),
        t if is_integer(t) || is_float(t) => Some(t.clone()),
        _ => None,
    }
}

fn unsigned(t: &DataType) -> DataType {
    match t {
        DataType::Int8 => DataType::UInt8,
        DataType::Int16 => DataType::UInt16,
        DataType::Int32 => DataType::UInt32,
        DataType::Int64 => DataType::UInt64,
        other => other.clone(),
    }
}

impl DivisionFunction {
    fn types(&self, left: &DataType, right: &DataType) -> Result<DataType> {
        let illegal = || {
            error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal types {} and {} of arguments of function {}",
                    clickhouse_type_name(left, false),
                    clickhouse_type_name(right, false),
                    self.kind.name()
                ),
            )
        };
        let (Some(l), Some(r)) = (operand(left), operand(right)) else {
            return Err(illegal());
        };
        let integers = !is_float(&l) && !is_float(&r);
        Ok(match self.kind {
            // The dividend's width, signed if either operand is.
            Division::ModuloLegacy if integers => {
                let signed = |t: &DataType| unsigned(t) != *t;
                let width = l.primitive_width().unwrap_or(8) as u8;
                int_type(signed(&l) || signed(&r), width)
            }
            // Below the divisor's magnitude: the divisor's width, unsigned.
            Division::PositiveModulo | Division::PositiveModuloOrNull if integers => unsigned(&r),
            Division::PositiveModulo | Division::PositiveModuloOrNull => DataType::Float64,
            _ => result_type(self.kind.op(), &l, &r).map_err(|_| illegal())?,
        })
    }
}

impl ScalarUDFImpl for DivisionFunction {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 2 {
            return Err(arity_error(self.kind.name(), arg_types.len(), "2"));
        }
        self.types(&arg_types[0], &arg_types[1])
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let field = crate::null_propagating_field(self, &args)?;
        Ok(if self.kind.or_null() {
            Arc::new(field.as_ref().clone().with_nullable(true))
        } else {
            field
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let left = cast_operand(&args.args[0].to_array(rows)?)?;
        let right = cast_operand(&args.args[1].to_array(rows)?)?;
        let result = args.return_type().clone();
        let out = if self.kind == Division::IntDivOrNull
            && (is_float(left.data_type()) || is_float(right.data_type()))
        {
            float_int_div(&left, &right, &result)?
        } else {
            self.divide(&left, &right, &result)?
        };
        crate::columnar(out, scalar)
    }
}

fn cast_operand(array: &ArrayRef) -> Result<ArrayRef> {
    match array.data_type() {
        DataType::Null | DataType::Boolean => Ok(cast::cast(array, &DataType::UInt8)?),
        _ => Ok(Arc::clone(array)),
    }
}

impl DivisionFunction {
    fn divide(&self, left: &ArrayRef, right: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
        let integers = !is_float(left.data_type()) && !is_float(right.data_type());
        // A float divided by zero is a float (inf, nan) unless NULL is asked for.
        let failing = if integers || self.kind.or_null() {
            failing_rows(left, right, integers)?
        } else {
            BooleanArray::from(vec![false; left.len()])
        };
        if self.kind.positive() && !self.kind.or_null() {
            if failing.true_count() > 0 {
                return Err(error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"));
            }
        }
        // Rows that would fail divide by one instead, then become 0 or NULL.
        let safe_right = if failing.true_count() > 0 {
            let one = cast::cast(&Int64Array::new_scalar(1).into_inner(), right.data_type())?;
            let one = datafusion::arrow::array::Scalar::new(one);
            zip::zip(&failing, &one, right)?
        } else {
            Arc::clone(right)
        };
        let computed = match self.kind {
            Division::ModuloLegacy if integers => legacy_modulo(left, &safe_right, result)?,
            Division::PositiveModulo | Division::PositiveModuloOrNull => {
                positive_modulo(left, &safe_right, result)?
            }
            _ => evaluate(self.kind.op(), left, &safe_right, result)?,
        };
        if failing.true_count() == 0 {
            return Ok(computed);
        }
        if self.kind.or_null() {
            Ok(nullif(&computed, &failing)?)
        } else {
            let zero = cast::cast(&Int64Array::new_scalar(0).into_inner(), result)?;
            let zero = datafusion::arrow::array::Scalar::new(zero);
            Ok(zip::zip(&failing, &zero, &computed)?)
        }
    }
}

/// Rows whose division fails: a zero divisor, or for integers the smallest
/// signed number divided by -1. Rows with a NULL operand never fail.
fn failing_rows(left: &ArrayRef, right: &ArrayRef, integers: bool) -> Result<BooleanArray> {
    let divisors = cast::cast(right, &DataType::Float64)?;
    let divisors = divisors.as_primitive::<Float64Type>();
    let minimum = |t: &DataType| -> Option<i64> {
        Some(match t {
            DataType::Int8 => i64::from(i8::MIN),
            DataType::Int16 => i64::from(i16::MIN),
            DataType::Int32 => i64::from(i32::MIN),
            DataType::Int64 => i64::MIN,
            _ => return None,
        })
    };
    let dividends = integers
        .then(|| minimum(left.data_type()))
        .flatten()
        .map(|min| to_i64_wrapping(left).map(|l| (l, min)))
        .transpose()?;
    let null_rows = is_null(left)?;
    Ok((0..right.len())
        .map(|row| {
            if right.is_null(row) || null_rows.value(row) {
                return Some(false);
            }
            let divisor = divisors.value(row);
            let overflow = dividends
                .as_ref()
                .is_some_and(|(l, min)| divisor == -1.0 && l.value(row) == *min);
            Some(divisor == 0.0 || overflow)
        })
        .collect())
}

/// Integer values widened without loss, for arithmetic past 64 bits.
fn wide_values(array: &ArrayRef) -> Result<Vec<Option<i128>>> {
    if *array.data_type() == DataType::UInt64 {
        let values = array.as_primitive::<UInt64Type>();
        return Ok(values.iter().map(|v| v.map(i128::from)).collect());
    }
    Ok(to_i64_wrapping(array)?
        .iter()
        .map(|v| v.map(i128::from))
        .collect())
}

/// `f(a, b)` over two integer arrays, stored in the integer type `result`.
fn integer_rows(
    left: &ArrayRef,
    right: &ArrayRef,
    result: &DataType,
    f: impl Fn(i128, i128) -> i128,
) -> Result<ArrayRef> {
    let out: PrimitiveArray<UInt64Type> = wide_values(left)?
        .into_iter()
        .zip(wide_values(right)?)
        .map(|(a, b)| Some(f(a?, b?) as u64))
        .collect();
    narrow_from_u64(&out, result)
}

/// `a % b` with the dividend's sign, in the legacy result type.
fn legacy_modulo(left: &ArrayRef, right: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    integer_rows(left, right, result, |a, b| a % b)
}

/// `a % b`, plus `|b|` when negative.
fn positive_modulo(left: &ArrayRef, right: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    if *result != DataType::Float64 {
        return integer_rows(left, right, result, |a, b| {
            let m = a % b;
            if m < 0 { m + b.abs() } else { m }
        });
    }
    let l = cast::cast(left, &DataType::Float64)?;
    let r = cast::cast(right, &DataType::Float64)?;
    let out: Float64Array = datafusion::arrow::compute::binary(
        l.as_primitive::<Float64Type>(),
        r.as_primitive::<Float64Type>(),
        |a, b| {
            let m = a % b;
            if m < 0.0 { m + b.abs() } else { m }
        },
    )?;
    Ok(Arc::new(out))
}

/// `intDivOrNull` with a float operand: the quotient truncated, NULL for a
/// zero divisor, an error where no integer holds it.
fn float_int_div(left: &ArrayRef, right: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    let l = cast::cast(left, &DataType::Float64)?;
    let r = cast::cast(right, &DataType::Float64)?;
    let (l, r) = (
        l.as_primitive::<Float64Type>(),
        r.as_primitive::<Float64Type>(),
    );
    let quotients = l
        .iter()
        .zip(r.iter())
        .map(|(a, b)| {
            let (a, b) = match (a, b) {
                (Some(a), Some(b)) if b != 0.0 => (a, b),
                _ => return Ok(None),
            };
            let q = (a / b).trunc();
            if !a.is_finite() || !b.is_finite() || !(-9.2e18..9.2e18).contains(&q) {
                return Err(error(
                    ErrorCode::ILLEGAL_DIVISION,
                    "Cannot perform integer division on infinite or too large floating point numbers",
                ));
            }
            Ok(Some(q as i64))
        })
        .collect::<Result<Int64Array>>()?;
    narrow_from_i64(&quotients, result)
}
