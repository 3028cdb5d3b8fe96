//! `bitCount(x)`: the number of bits set in a number's value (a float's
//! bits, a signed number's two's complement; UInt8) or in a string's bytes
//! (UInt64). `bitShiftLeft(a, n)` and `bitShiftRight(a, n)` on integers.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, UInt64Array};
use datafusion::arrow::compute::{binary, cast};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, FieldRef, Int8Type, Int16Type, Int32Type, Int64Type,
    Int64Type as Count, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

use crate::hashing::{is_null_at, is_text, value_bytes};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BitCount {
    signature: Signature,
}

impl Default for BitCount {
    fn default() -> Self {
        BitCount {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for BitCount {
    fn name(&self) -> &str {
        "bitCount"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(if is_text(&arg_types[0]) {
            DataType::UInt64
        } else {
            DataType::UInt8
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let mut bytes = Vec::new();
        let mut counts = Vec::with_capacity(input.len());
        for row in 0..input.len() {
            if is_null_at(input.as_ref(), row) {
                counts.push(None);
                continue;
            }
            value_bytes(input.as_ref(), row, &mut bytes)?;
            counts.push(Some(bytes.iter().map(|b| u64::from(b.count_ones())).sum()));
        }
        let counts = UInt64Array::from(counts);
        let out: ArrayRef = if is_text(input.data_type()) {
            Arc::new(counts)
        } else {
            // At most 64 bits are set in a number.
            Arc::new(counts.unary::<_, datafusion::arrow::datatypes::UInt8Type>(|c| c as u8))
        };
        crate::columnar(out, scalar)
    }
}

/// `bitShiftLeft(a, n)` (`left`) or `bitShiftRight(a, n)` on an integer
/// `a`, in `a`'s type: a shift by the type's width or more is 0, as in
/// ClickHouse (Arrow's shifts take the count modulo the width); a signed
/// right shift keeps the sign.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BitShift {
    left: bool,
    signature: Signature,
}

impl BitShift {
    pub fn new(left: bool) -> Self {
        BitShift {
            left,
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for BitShift {
    fn name(&self) -> &str {
        match self.left {
            true => "bitShiftLeft",
            false => "bitShiftRight",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let takes = |t: &DataType| {
            t.is_integer() || *t == DataType::Null || strata_common::types::BigInt::of(t).is_some()
        };
        if !takes(&arg_types[0]) || !takes(&arg_types[1]) {
            return Err(illegal_types(self.name(), arg_types));
        }
        Ok(arg_types[0].clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = crate::rows_to_evaluate(&args);
        let values = args.args[0].to_array(rows)?;
        let counts = cast(&args.args[1].to_array(rows)?, &DataType::Int64)?;
        let counts = counts.as_primitive::<Count>();
        if counts.iter().flatten().any(|n| n < 0) {
            return Err(StrataError::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                "The number of shift positions needs to be a non-negative value",
            )
            .into_datafusion());
        }
        let out: ArrayRef = match values.data_type() {
            DataType::Null => values,
            t if let Some(big) = strata_common::types::BigInt::of(t) => {
                crate::big_int::shift(&values, big, counts, self.left)
            }
            DataType::Int8 => shift::<Int8Type>(&values, counts, self.left)?,
            DataType::Int16 => shift::<Int16Type>(&values, counts, self.left)?,
            DataType::Int32 => shift::<Int32Type>(&values, counts, self.left)?,
            DataType::Int64 => shift::<Int64Type>(&values, counts, self.left)?,
            DataType::UInt8 => shift::<UInt8Type>(&values, counts, self.left)?,
            DataType::UInt16 => shift::<UInt16Type>(&values, counts, self.left)?,
            DataType::UInt32 => shift::<UInt32Type>(&values, counts, self.left)?,
            DataType::UInt64 => shift::<UInt64Type>(&values, counts, self.left)?,
            other => return Err(illegal_types(self.name(), &[other.clone()])),
        };
        crate::columnar(out, scalar)
    }
}

fn illegal_types(function: &str, types: &[DataType]) -> datafusion::error::DataFusionError {
    let types: Vec<String> = types.iter().map(ToString::to_string).collect();
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal types {} of arguments of function {function}",
            types.join(" and ")
        ),
    )
    .into_datafusion()
}

/// Each value of `values` shifted by its count (known non-negative).
fn shift<T>(values: &ArrayRef, counts: &PrimitiveArray<Count>, left: bool) -> Result<ArrayRef>
where
    T: ArrowPrimitiveType,
    T::Native: std::ops::Shl<u32, Output = T::Native> + std::ops::Shr<u32, Output = T::Native>,
{
    let width = (std::mem::size_of::<T::Native>() * 8) as i64;
    let zero = T::Native::default();
    let out: PrimitiveArray<T> =
        binary(values.as_primitive::<T>(), counts, |value, count| {
            match (count >= width, left) {
                (true, _) => zero,
                (false, true) => value << count as u32,
                (false, false) => value >> count as u32,
            }
        })?;
    Ok(std::sync::Arc::new(out))
}
