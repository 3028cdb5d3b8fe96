//! `hex(x)` and `unhex(s)`, as ClickHouse writes and reads them: an integer
//! as its big-endian bytes without leading zero bytes (`hex(256)` is
//! `0100`), a float as its bytes in memory order, a string byte by byte,
//! uppercase; `unhex` gives the bytes back (an odd length reads a leading 0).
//!
//! One difference: `unhex` refuses characters that are not hex digits,
//! where ClickHouse returns unspecified bytes.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, StringBuilder};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Decimal256Type, Field, FieldRef, Float32Type, Float64Type, TimeUnit,
    i256,
};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::{BigInt, field_type_name};
use strata_common::{ErrorCode, StrataError};

use crate::int_cast::to_i64_wrapping;

const DIGITS: &[u8; 16] = b"0123456789ABCDEF";

fn push_hex(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0F) as usize] as char);
    }
}

/// The width in bytes of an integer type ClickHouse shows in hex.
fn integer_width(data_type: &DataType) -> Option<usize> {
    Some(match data_type {
        DataType::Int8 | DataType::UInt8 | DataType::Boolean => 1,
        DataType::Int16 | DataType::UInt16 | DataType::Date32 => 2,
        DataType::Int32 | DataType::UInt32 | DataType::Timestamp(TimeUnit::Second, _) => 4,
        DataType::Int64 | DataType::UInt64 | DataType::Timestamp(..) => 8,
        _ => return None,
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Hex {
    signature: Signature,
}

impl Default for Hex {
    fn default() -> Self {
        Hex {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Hex {
    fn name(&self) -> &str {
        "hex"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let input = &args.arg_fields[0];
        // A UUID's 16 bytes are in its text's order.
        let readable = integer_width(input.data_type()).is_some()
            || BigInt::of(input.data_type()).is_some()
            || matches!(
                input.data_type(),
                DataType::Float32
                    | DataType::Float64
                    | DataType::Utf8
                    | DataType::LargeUtf8
                    | DataType::Utf8View
                    | DataType::Binary
                    | DataType::FixedSizeBinary(_)
                    | DataType::Null
            );
        if !readable {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function hex",
                    field_type_name(input)
                ),
            )
            .into_datafusion());
        }
        Ok(Arc::new(Field::new(
            self.name(),
            DataType::Utf8,
            input.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let mut out = StringBuilder::with_capacity(input.len(), input.len() * 8);
        let mut text = String::new();
        let mut each = |bytes: Option<&[u8]>, text: &mut String| match bytes {
            None => out.append_null(),
            Some(bytes) => {
                text.clear();
                push_hex(bytes, text);
                out.append_value(&*text);
            }
        };
        match input.data_type() {
            data_type if integer_width(data_type).is_some() => {
                let width = integer_width(data_type).expect("an integer width");
                let values = to_i64_wrapping(&input)?;
                for row in 0..values.len() {
                    let bytes = values.value(row).to_be_bytes();
                    let value = &bytes[8 - width..];
                    let first = value.iter().position(|&b| b != 0).unwrap_or(width - 1);
                    each(values.is_valid(row).then_some(&value[first..]), &mut text);
                }
            }
            // Big-endian, from the first byte that is not zero.
            data_type if let Some(big) = BigInt::of(data_type) => {
                let width = usize::from(big.bytes());
                for row in 0..input.len() {
                    let bytes = match big {
                        BigInt::Int128 => {
                            let v = input.as_primitive::<Decimal128Type>().value(row);
                            i256::from_i128(v).to_be_bytes()
                        }
                        _ => input
                            .as_primitive::<Decimal256Type>()
                            .value(row)
                            .to_be_bytes(),
                    };
                    let value = &bytes[32 - width..];
                    let first = value.iter().position(|&b| b != 0).unwrap_or(width - 1);
                    each(input.is_valid(row).then_some(&value[first..]), &mut text);
                }
            }
            DataType::Float32 => {
                let values = input.as_primitive::<Float32Type>();
                for row in 0..values.len() {
                    let bytes = values.value(row).to_le_bytes();
                    each(values.is_valid(row).then_some(&bytes[..]), &mut text);
                }
            }
            DataType::Float64 => {
                let values = input.as_primitive::<Float64Type>();
                for row in 0..values.len() {
                    let bytes = values.value(row).to_le_bytes();
                    each(values.is_valid(row).then_some(&bytes[..]), &mut text);
                }
            }
            DataType::FixedSizeBinary(_) => {
                let values = input.as_fixed_size_binary();
                for row in 0..values.len() {
                    each(values.is_valid(row).then(|| values.value(row)), &mut text);
                }
            }
            _ => {
                let values = cast::cast(&input, &DataType::Binary)?;
                let values = values.as_binary::<i32>();
                for value in values.iter() {
                    each(value, &mut text);
                }
            }
        }
        crate::columnar(Arc::new(out.finish()) as ArrayRef, scalar)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Unhex {
    signature: Signature,
}

impl Default for Unhex {
    fn default() -> Self {
        Unhex {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

fn digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// The bytes `text` spells in hex, or None where a character is no digit.
fn unhex_bytes(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let (head, rest) = if text.len() % 2 == 1 {
        (Some(text[0]), &text[1..])
    } else {
        (None, text)
    };
    if let Some(c) = head {
        out.push(digit(c)?);
    }
    for pair in rest.chunks_exact(2) {
        out.push(digit(pair[0])? << 4 | digit(pair[1])?);
    }
    Some(())
}

impl ScalarUDFImpl for Unhex {
    fn name(&self) -> &str {
        "unhex"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // Bytes, which need not be UTF-8: Binary, shown as String.
        Ok(DataType::Binary)
    }

    /// Nullable only where the text is, as ClickHouse types it.
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let texts = cast::cast(&input, &DataType::Binary)?;
        let texts = texts.as_binary::<i32>();
        let mut out = BinaryBuilder::with_capacity(texts.len(), texts.len() * 4);
        let mut bytes = Vec::new();
        for text in texts.iter() {
            let Some(text) = text else {
                out.append_null();
                continue;
            };
            if unhex_bytes(text, &mut bytes).is_none() {
                return Err(StrataError::new(
                    ErrorCode::CANNOT_PARSE_TEXT,
                    format!(
                        "Cannot read '{}' as hex digits in function unhex",
                        String::from_utf8_lossy(text)
                    ),
                )
                .into_datafusion());
            }
            out.append_value(&bytes);
        }
        crate::columnar(Arc::new(out.finish()) as ArrayRef, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_lengths_read_a_leading_zero() {
        let mut out = Vec::new();
        unhex_bytes(b"6", &mut out).unwrap();
        assert_eq!(out, [6]);
        unhex_bytes(b"616263", &mut out).unwrap();
        assert_eq!(out, b"abc");
        assert!(unhex_bytes(b"zz", &mut out).is_none());
    }
}
