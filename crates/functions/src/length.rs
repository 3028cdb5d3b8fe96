//! `length(x)` (also `OCTET_LENGTH`) counts bytes of a string and elements
//! of an array, and `lengthUTF8(s)` (also `char_length`,
//! `character_length`) counts code points, both as UInt64, as ClickHouse
//! does. DataFusion's `length` counts characters as Int32 and turns an
//! array into its text first, so both are Strata's own. `empty(x)` and
//! `notEmpty(x)` say, as UInt8, whether a string, array or map has no
//! element, or a FixedString (UUID, IPv6) only zero bytes.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array, UInt64Array};
use datafusion::arrow::compute::kernels::{cast, length};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counting {
    /// Bytes of a string, elements of an array.
    Length,
    /// Unicode code points of a string.
    LengthUtf8,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Length {
    counting: Counting,
    signature: Signature,
    aliases: Vec<String>,
}

impl Length {
    pub fn new(counting: Counting) -> Self {
        let aliases = match counting {
            Counting::Length => vec!["OCTET_LENGTH".into(), "octet_length".into()],
            Counting::LengthUtf8 => vec![
                "char_length".into(),
                "character_length".into(),
                "CHAR_LENGTH".into(),
                "CHARACTER_LENGTH".into(),
            ],
        };
        Length {
            counting,
            signature: Signature::any(1, Volatility::Immutable),
            aliases,
        }
    }

    fn accepts(&self, data_type: &DataType) -> bool {
        let string = matches!(
            data_type,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
        );
        let array = matches!(
            data_type,
            DataType::List(_)
                | DataType::LargeList(_)
                | DataType::FixedSizeList(_, _)
                | DataType::Map(..)
        );
        match self.counting {
            Counting::Length => string || is_bytes(data_type) || array,
            Counting::LengthUtf8 => string || is_bytes(data_type),
        }
    }
}

/// Bytes that may not be UTF-8: a FixedString, or `unhex`'s result.
fn is_bytes(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Binary | DataType::LargeBinary | DataType::FixedSizeBinary(_)
    )
}

/// ILLEGAL_TYPE_OF_ARGUMENT for `function` of `data_type` unless `accepts`.
fn accepted(accepts: bool, data_type: &DataType, function: &str) -> Result<()> {
    if accepts {
        return Ok(());
    }
    Err(StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Illegal type {data_type} of argument of function {function}"),
    )
    .into_datafusion())
}

impl ScalarUDFImpl for Length {
    fn name(&self) -> &str {
        match self.counting {
            Counting::Length => "length",
            Counting::LengthUtf8 => "lengthUTF8",
        }
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        accepted(self.accepts(&arg_types[0]), &arg_types[0], self.name())?;
        Ok(DataType::UInt64)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let counts: ArrayRef = match (self.counting, input.data_type()) {
            (_, DataType::Null) => cast::cast(&input, &DataType::UInt64)?,
            // A map's length is its number of keys.
            (Counting::Length, DataType::Map(..)) => {
                let map = input.as_map();
                let sizes = map.value_offsets().windows(2).map(|w| (w[1] - w[0]) as u64);
                Arc::new(UInt64Array::new(sizes.collect(), map.nulls().cloned()))
            }
            (Counting::Length, _) => cast::cast(&length::length(&input)?, &DataType::UInt64)?,
            // Code points counted as ClickHouse does, by their leading bytes.
            (Counting::LengthUtf8, data_type) if is_bytes(data_type) => {
                let bytes = cast::cast(&input, &DataType::LargeBinary)?;
                let bytes = bytes.as_binary::<i64>();
                let leading = |b: &[u8]| b.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
                Arc::new(
                    bytes
                        .iter()
                        .map(|b| b.map(|b| leading(b) as u64))
                        .collect::<UInt64Array>(),
                )
            }
            (Counting::LengthUtf8, _) => {
                let text = cast::cast(&input, &DataType::Utf8)?;
                let text = text.as_string::<i32>();
                Arc::new(
                    text.iter()
                        .map(|s| s.map(|s| s.chars().count() as u64))
                        .collect::<UInt64Array>(),
                )
            }
        };
        debug_assert_eq!(counts.len(), input.len());
        crate::columnar(counts, scalar)
    }
}

/// `empty(x)`, or with `negated` `notEmpty(x)`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Empty {
    negated: bool,
    signature: Signature,
}

impl Empty {
    pub fn new(negated: bool) -> Self {
        Empty {
            negated,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Empty {
    fn name(&self) -> &str {
        if self.negated { "notEmpty" } else { "empty" }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let counted = Length::new(Counting::Length).accepts(&arg_types[0]);
        accepted(counted, &arg_types[0], self.name())?;
        Ok(DataType::UInt8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let empty: Vec<Option<bool>> = match input.data_type() {
            DataType::Null => vec![None; input.len()],
            DataType::FixedSizeBinary(_) => input
                .as_fixed_size_binary()
                .iter()
                .map(|value| value.map(|bytes| bytes.iter().all(|&b| b == 0)))
                .collect(),
            DataType::Map(..) => {
                let map = input.as_map();
                let sizes = map.value_offsets().windows(2).map(|w| w[1] == w[0]);
                sizes
                    .enumerate()
                    .map(|(i, none)| map.is_valid(i).then_some(none))
                    .collect()
            }
            _ => {
                let lengths = cast::cast(&length::length(&input)?, &DataType::UInt64)?;
                let lengths = lengths.as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
                lengths.iter().map(|n| n.map(|n| n == 0)).collect()
            }
        };
        let flags: UInt8Array = empty
            .into_iter()
            .map(|e| e.map(|e| u8::from(e != self.negated)))
            .collect();
        debug_assert_eq!(flags.len(), input.len());
        crate::columnar(Arc::new(flags), scalar)
    }
}
