//! Small ClickHouse functions: `toTypeName`, `today`, `now`,
//! `formatReadableSize`, `formatReadableQuantity`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, StringArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::readable::{readable_quantity, readable_size};
use strata_common::types::{clickhouse_type_name, field_type_name};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToTypeName {
    signature: Signature,
}

impl Default for ToTypeName {
    fn default() -> Self {
        ToTypeName {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ToTypeName {
    fn name(&self) -> &str {
        "toTypeName"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, _args: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(Arc::new(Field::new(self.name(), DataType::Utf8, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let field = &args.arg_fields[0];
        let name = field_type_name(field);
        Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(name))))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    Today,
    Now,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ClockFunction {
    clock: Clock,
    signature: Signature,
}

impl ClockFunction {
    pub fn new(clock: Clock) -> Self {
        ClockFunction {
            clock,
            signature: Signature::nullary(Volatility::Stable),
        }
    }
}

impl ScalarUDFImpl for ClockFunction {
    fn name(&self) -> &str {
        match self.clock {
            Clock::Today => "today",
            Clock::Now => "now",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.clock {
            Clock::Today => DataType::Date32,
            Clock::Now => DataType::Timestamp(TimeUnit::Second, None),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let _ = args;
        Ok(Arc::new(Field::new(
            self.name(),
            self.return_type(&[])?,
            false,
        )))
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let now = chrono::Utc::now();
        Ok(ColumnarValue::Scalar(match self.clock {
            Clock::Today => ScalarValue::Date32(Some((now.timestamp().div_euclid(86_400)) as i32)),
            Clock::Now => ScalarValue::TimestampSecond(Some(now.timestamp()), None),
        }))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Readable {
    Size,
    Quantity,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FormatReadable {
    kind: Readable,
    signature: Signature,
}

impl FormatReadable {
    pub fn new(kind: Readable) -> Self {
        FormatReadable {
            kind,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

/// `value` scaled down by `base` until it is below it, with two decimals and the unit.
impl ScalarUDFImpl for FormatReadable {
    fn name(&self) -> &str {
        match self.kind {
            Readable::Size => "formatReadableSize",
            Readable::Quantity => "formatReadableQuantity",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(args.number_rows)?;
        if !input.data_type().is_numeric() {
            return Err(strata_common::StrataError::new(
                strata_common::ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function {}",
                    clickhouse_type_name(input.data_type(), false),
                    self.name()
                ),
            )
            .into_datafusion());
        }
        let values = cast::cast(&input, &DataType::Float64)?;
        let values = values
            .as_any()
            .downcast_ref::<datafusion::arrow::array::Float64Array>()
            .expect("cast to f64");
        let out: StringArray = values
            .iter()
            .map(|v| {
                v.map(|v| match self.kind {
                    Readable::Size => readable_size(v),
                    Readable::Quantity => readable_quantity(v),
                })
            })
            .collect();
        let out: ArrayRef = Arc::new(out);
        crate::columnar(out, scalar)
    }
}
