//! `startsWith(a, b)` and `endsWith(a, b)`: ClickHouse's names take text
//! (DataFusion's `starts_with` and `ends_with`, wrapped) and arrays, where
//! `b`'s elements must be `a`'s first (last) ones, compared in their common
//! type with NULL equal to NULL; an empty `b` matches every array. A
//! `FixedString` on either side is compared as bytes, zero padding
//! included, as ClickHouse compares it.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::type_coercion::functions::fields_with_udf;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

use super::{array_item, arrays_of, as_list, no_common_type, row_range, supertype};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Affix {
    /// `starts_with` or `ends_with`, for text.
    text: Arc<ScalarUDF>,
    suffix: bool,
    signature: Signature,
}

impl Affix {
    pub fn new(suffix: bool) -> Self {
        let text = match suffix {
            false => datafusion::functions::string::starts_with(),
            true => datafusion::functions::string::ends_with(),
        };
        Affix {
            text,
            suffix,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }

    /// The type both arrays' elements compare in; None for text.
    fn element_type(&self, arg_types: &[DataType]) -> Result<Option<DataType>> {
        let [a, b] = arg_types else {
            return Ok(None);
        };
        if !matches!(a, DataType::List(_)) && !matches!(b, DataType::List(_)) {
            return Ok(None);
        }
        let (a, b) = (array_item(self.name(), a)?, array_item(self.name(), b)?);
        let common = supertype(a.data_type(), b.data_type())
            .ok_or_else(|| no_common_type(a.data_type(), b.data_type()))?;
        Ok(Some(common))
    }

    /// Whether `whole` starts (ends) with `part`.
    fn affixed(&self, whole: &[u8], part: &[u8]) -> bool {
        match self.suffix {
            false => whole.starts_with(part),
            true => whole.ends_with(part),
        }
    }

    /// Both sides as bytes, for a `FixedString` (see [`bytewise`]).
    fn matches_bytes(&self, args: &[ColumnarValue], rows: usize) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(args, rows)?;
        let (a, b) = (arrays[0].as_binary::<i32>(), arrays[1].as_binary::<i32>());
        let found: BooleanArray = a
            .iter()
            .zip(b.iter())
            .map(|pair| match pair {
                (Some(whole), Some(part)) => Some(self.affixed(whole, part)),
                _ => None,
            })
            .collect();
        crate::columnar(Arc::new(found), scalar)
    }

    fn matches(&self, a: &ArrayRef, b: &ArrayRef, common: &DataType) -> Result<Vec<u8>> {
        let (a, b) = (as_list(a)?, as_list(b)?);
        let converter = RowConverter::new(vec![SortField::new(common.clone())])?;
        let rows = |values: &ArrayRef| -> Result<_> {
            let values = datafusion::arrow::compute::cast(values, common)?;
            Ok(converter.convert_columns(&[values])?)
        };
        let (a_rows, b_rows) = (rows(a.values())?, rows(b.values())?);
        Ok((0..a.len())
            .map(|row| {
                let whole: Vec<_> = row_range(&a, row).map(|i| a_rows.row(i)).collect();
                let part: Vec<_> = row_range(&b, row).map(|i| b_rows.row(i)).collect();
                let found = match self.suffix {
                    false => whole.starts_with(&part),
                    true => whole.ends_with(&part),
                };
                u8::from(found)
            })
            .collect())
    }
}

impl ScalarUDFImpl for Affix {
    fn name(&self) -> &str {
        match self.suffix {
            false => "startsWith",
            true => "endsWith",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        // Arrays are taken as they are; their common type is found (or its
        // absence reported) when the return type is.
        if arg_types.iter().any(|t| matches!(t, DataType::List(_))) {
            return Ok(arg_types.to_vec());
        }
        if bytewise(arg_types) {
            return Ok(vec![DataType::Binary; arg_types.len()]);
        }
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), true)))
            .collect();
        let fields = fields_with_udf(&fields, self.text.as_ref())?;
        Ok(fields.iter().map(|f| f.data_type().clone()).collect())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match self.element_type(arg_types)? {
            Some(_) => Ok(DataType::UInt8),
            None if bytewise(arg_types) => Ok(DataType::Boolean),
            None => self.text.return_type(arg_types),
        }
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        match self.element_type(&types)? {
            Some(_) => {
                let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
                Ok(Arc::new(Field::new(self.name(), DataType::UInt8, nullable)))
            }
            None if bytewise(&types) => {
                let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
                Ok(Arc::new(Field::new(
                    self.name(),
                    DataType::Boolean,
                    nullable,
                )))
            }
            None => self.text.return_field_from_args(args),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let types: Vec<DataType> = args.args.iter().map(|a| a.data_type()).collect();
        let Some(common) = self.element_type(&types)? else {
            if bytewise(&types) {
                return self.matches_bytes(&args.args, args.number_rows);
            }
            return self.text.invoke_with_args(args);
        };
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let found = self.matches(&arrays[0], &arrays[1], &common)?;
        let nulls = datafusion::arrow::buffer::NullBuffer::union(
            arrays[0].logical_nulls().as_ref(),
            arrays[1].logical_nulls().as_ref(),
        );
        crate::columnar(Arc::new(UInt8Array::new(found.into(), nulls)), scalar)
    }
}

/// Whether the text arguments are compared as bytes: a `FixedString` (or
/// the binary it is coerced to) on either side.
fn bytewise(arg_types: &[DataType]) -> bool {
    arg_types
        .iter()
        .any(|t| matches!(t, DataType::FixedSizeBinary(_) | DataType::Binary))
}
