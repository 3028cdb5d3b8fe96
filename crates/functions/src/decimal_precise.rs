//! `multiplyDecimal(a, b[, scale])` and `divideDecimal(a, b[, scale])`:
//! the exact product or quotient of two Decimals, truncated toward zero to
//! `scale` digits (the larger of the operands' scales when not given), as
//! a `Decimal(76, scale)`. A result past 76 digits is DECIMAL_OVERFLOW, a
//! zero divisor ILLEGAL_DIVISION. Computed in 256 bits: operands whose
//! exact product (or scaled dividend) passes that are refused as an
//! overflow too.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Decimal256Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Decimal256Type, Field, FieldRef, i256};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::BigInt;
use strata_common::{ErrorCode, StrataError};

/// Digits of the result type.
const PRECISION: u8 = 76;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct PreciseDecimal {
    divide: bool,
    signature: Signature,
}

impl PreciseDecimal {
    pub fn new(divide: bool) -> Self {
        PreciseDecimal {
            divide,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }

    fn error(&self, code: ErrorCode, message: String) -> datafusion::error::DataFusionError {
        StrataError::new(code, message).into_datafusion()
    }

    /// The scale of a Decimal argument.
    fn scale_of(&self, t: &DataType) -> Result<i8> {
        match t {
            t if BigInt::of(t).is_some() => Err(self.not_decimal()),
            DataType::Decimal32(_, s)
            | DataType::Decimal64(_, s)
            | DataType::Decimal128(_, s)
            | DataType::Decimal256(_, s) => Ok(*s),
            _ => Err(self.not_decimal()),
        }
    }

    fn not_decimal(&self) -> datafusion::error::DataFusionError {
        self.error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Arguments for {} function must be Decimal", self.name()),
        )
    }

    fn overflow(&self) -> datafusion::error::DataFusionError {
        self.error(
            ErrorCode::DECIMAL_OVERFLOW,
            format!("Numeric overflow: result bigger than Decimal{PRECISION}"),
        )
    }

    /// The result's scale: the third argument, else the larger scale.
    fn result_scale(&self, types: &[DataType], given: Option<&ScalarValue>) -> Result<i8> {
        if !(2..=3).contains(&types.len()) {
            return Err(self.error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {} doesn't match: passed {}, should be 2 or 3",
                    self.name(),
                    types.len()
                ),
            ));
        }
        let (a, b) = (self.scale_of(&types[0])?, self.scale_of(&types[1])?);
        let Some(given) = given else {
            if types.len() == 3 {
                return Err(self.error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("The scale of {} must be a constant integer", self.name()),
                ));
            }
            return Ok(a.max(b));
        };
        match given.cast_to(&DataType::Int64)? {
            ScalarValue::Int64(Some(s)) if (0..=PRECISION as i64).contains(&s) => Ok(s as i8),
            _ => Err(self.error(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("The scale of {} must be from 0 to {PRECISION}", self.name()),
            )),
        }
    }

    /// One row: `a` at scale `sa` with `b` at scale `sb`, to scale `s`.
    fn compute(&self, a: i256, sa: i8, b: i256, sb: i8, s: i8) -> Result<i256> {
        let ten = |power: i32| -> Result<i256> {
            i256::from_i128(10)
                .checked_pow(power as u32)
                .ok_or_else(|| self.overflow())
        };
        let scaled = |value: i256, shift: i32| -> Result<i256> {
            match shift >= 0 {
                true => value
                    .checked_mul(ten(shift)?)
                    .ok_or_else(|| self.overflow()),
                false => Ok(value.wrapping_div(ten(-shift)?)),
            }
        };
        let result = if self.divide {
            if b == i256::ZERO {
                return Err(crate::arithmetic::division_by_zero());
            }
            let dividend = scaled(a, i32::from(sb) + i32::from(s) - i32::from(sa))?;
            dividend.wrapping_div(b)
        } else {
            let product = a.checked_mul(b).ok_or_else(|| self.overflow())?;
            scaled(product, i32::from(s) - i32::from(sa) - i32::from(sb))?
        };
        let limit = ten(i32::from(PRECISION))?;
        if result >= limit || result <= limit.wrapping_neg() {
            return Err(self.overflow());
        }
        Ok(result)
    }
}

/// A Decimal column as 256-bit integers at its own scale.
fn wide(values: &ArrayRef, scale: i8) -> Result<Decimal256Array> {
    let wide = cast::cast(values, &DataType::Decimal256(PRECISION, scale))?;
    Ok(wide.as_primitive::<Decimal256Type>().clone())
}

impl ScalarUDFImpl for PreciseDecimal {
    fn name(&self) -> &str {
        match self.divide {
            false => "multiplyDecimal",
            true => "divideDecimal",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let scale = self.result_scale(arg_types, Some(&ScalarValue::Int64(Some(0))))?;
        Ok(DataType::Decimal256(PRECISION, scale))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let given = args.scalar_arguments.get(2).copied().flatten();
        let scale = self.result_scale(&types, given)?;
        let nullable = args.arg_fields[..2].iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(
            self.name(),
            DataType::Decimal256(PRECISION, scale),
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let DataType::Decimal256(_, scale) = *args.return_type() else {
            return datafusion::common::exec_err!("{} returns a Decimal256", self.name());
        };
        let (arrays, scalar) = crate::arrays::arrays_of(&args.args[..2], args.number_rows)?;
        let (sa, sb) = (
            self.scale_of(arrays[0].data_type())?,
            self.scale_of(arrays[1].data_type())?,
        );
        let (a, b) = (wide(&arrays[0], sa)?, wide(&arrays[1], sb)?);
        let values = (0..a.len())
            .map(|row| match (a.is_valid(row), b.is_valid(row)) {
                (true, true) => self
                    .compute(a.value(row), sa, b.value(row), sb, scale)
                    .map(Some),
                _ => Ok(None),
            })
            .collect::<Result<Decimal256Array>>()?
            .with_precision_and_scale(PRECISION, scale)?;
        crate::columnar(Arc::new(values), scalar)
    }
}
