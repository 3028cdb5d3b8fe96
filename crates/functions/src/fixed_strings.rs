//! `toFixedString(s, N)`: text as exactly N bytes, zero-padded, as ClickHouse
//! stores a `FixedString(N)`.
//!
//! The SQL front end also reads text through it wherever a `FixedString`
//! column takes or meets a string: `CAST`, inserted values, comparisons.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, FixedSizeBinaryBuilder};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, StrataError};

use crate::columnar;

/// ClickHouse's limit on N, so a typo cannot ask for gigabytes per row.
const MAX_FIXED_STRING_SIZE: u64 = 0xFF_FFFF;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToFixedString {
    signature: Signature,
}

impl Default for ToFixedString {
    fn default() -> Self {
        ToFixedString {
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

/// N, which must be a constant positive integer.
fn width(length: Option<&ScalarValue>) -> Result<i32> {
    let n = match length {
        Some(value) if value.data_type().is_integer() => {
            value.cast_to(&DataType::Int64).ok().and_then(|v| match v {
                ScalarValue::Int64(Some(n)) => u64::try_from(n).ok(),
                _ => None,
            })
        }
        _ => None,
    };
    match n {
        Some(n) if (1..=MAX_FIXED_STRING_SIZE).contains(&n) => Ok(n as i32),
        Some(n) => Err(StrataError::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("FixedString size must be between 1 and {MAX_FIXED_STRING_SIZE}, got {n}"),
        )
        .into_datafusion()),
        None => Err(StrataError::new(
            ErrorCode::ILLEGAL_COLUMN,
            "Second argument for function toFixedString must be constant unsigned integer",
        )
        .into_datafusion()),
    }
}

fn too_long(width: i32) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::TOO_LARGE_STRING_SIZE,
        format!("String too long for type FixedString({width})"),
    )
    .into_datafusion()
}

impl ScalarUDFImpl for ToFixedString {
    fn name(&self) -> &str {
        "toFixedString"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // N is an argument's value, which only return_field_from_args sees.
        internal_err!("toFixedString's type is known from its arguments' values only")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let width = width(args.scalar_arguments[1])?;
        let input = &args.arg_fields[0];
        let readable = match input.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => true,
            // Bytes that need not be UTF-8 (`unhex`), shown as String.
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => true,
            DataType::FixedSizeBinary(from) => *from <= width,
            _ => false,
        };
        if !readable {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function toFixedString: a String or a shorter FixedString is expected",
                    field_type_name(input)
                ),
            )
            .into_datafusion());
        }
        Ok(Arc::new(Field::new(
            self.name(),
            DataType::FixedSizeBinary(width),
            input.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let DataType::FixedSizeBinary(width) = *args.return_field.data_type() else {
            unreachable!("toFixedString returns a FixedSizeBinary");
        };
        if args.arg_fields[0].data_type() == &DataType::FixedSizeBinary(width) {
            return Ok(args.args[0].clone());
        }
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        columnar(fixed_strings(&input, width)?, scalar)
    }
}

/// Each value's bytes padded with zero bytes to `width`; one longer is
/// TOO_LARGE_STRING_SIZE, as in ClickHouse.
pub(crate) fn fixed_strings(input: &ArrayRef, width: i32) -> Result<ArrayRef> {
    let width_bytes = width as usize;
    let mut out = FixedSizeBinaryBuilder::with_capacity(input.len(), width);
    let mut padded = vec![0u8; width_bytes];
    let mut append = |bytes: Option<&[u8]>| -> Result<()> {
        match bytes {
            None => out.append_null(),
            Some(b) if b.len() > width_bytes => return Err(too_long(width)),
            Some(b) => {
                padded.fill(0);
                padded[..b.len()].copy_from_slice(b);
                out.append_value(&padded)?;
            }
        }
        Ok(())
    };
    if let DataType::FixedSizeBinary(_) = input.data_type() {
        let input = input.as_fixed_size_binary();
        for row in 0..input.len() {
            append(input.is_valid(row).then(|| input.value(row)))?;
        }
    } else {
        let bytes = cast::cast(input, &DataType::Binary)?;
        for value in bytes.as_binary::<i32>().iter() {
            append(value)?;
        }
    }
    Ok(Arc::new(out.finish()))
}
