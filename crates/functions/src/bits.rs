//! `bitCount(x)`: the number of bits set in a number's value (a float's
//! bits, a signed number's two's complement; UInt8) or in a string's bytes
//! (UInt64).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, UInt64Array};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

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
