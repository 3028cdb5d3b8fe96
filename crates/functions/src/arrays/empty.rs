//! `emptyArrayUInt8()`, `emptyArrayString()`, ...: an empty array of the
//! named element type.

use std::sync::Arc;

use datafusion::arrow::array::{ListArray, new_empty_array};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::item;

/// The element types, by the name's suffix.
pub const ELEMENTS: [(&str, DataType); 13] = [
    ("emptyArrayUInt8", DataType::UInt8),
    ("emptyArrayUInt16", DataType::UInt16),
    ("emptyArrayUInt32", DataType::UInt32),
    ("emptyArrayUInt64", DataType::UInt64),
    ("emptyArrayInt8", DataType::Int8),
    ("emptyArrayInt16", DataType::Int16),
    ("emptyArrayInt32", DataType::Int32),
    ("emptyArrayInt64", DataType::Int64),
    ("emptyArrayFloat32", DataType::Float32),
    ("emptyArrayFloat64", DataType::Float64),
    ("emptyArrayString", DataType::Utf8),
    ("emptyArrayDate", DataType::Date32),
    (
        "emptyArrayDateTime",
        DataType::Timestamp(TimeUnit::Second, None),
    ),
];

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EmptyArray {
    name: &'static str,
    element: DataType,
    signature: Signature,
}

impl EmptyArray {
    pub fn new(name: &'static str, element: DataType) -> Self {
        EmptyArray {
            name,
            element,
            signature: Signature::exact(vec![], Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for EmptyArray {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::List(item(self.element.clone(), false)))
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let empty = ListArray::try_new(
            item(self.element.clone(), false),
            datafusion::arrow::buffer::OffsetBuffer::new_zeroed(1),
            new_empty_array(&self.element),
            None,
        )?;
        Ok(ColumnarValue::Scalar(ScalarValue::List(Arc::new(empty))))
    }
}
