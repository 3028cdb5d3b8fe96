//! `throwIf(condition[, message])`: fails the query at the first row whose
//! condition is non-zero, else returns 0 (UInt8), as ClickHouse does; used
//! to test how errors travel (the HTTP interface's mid-stream exception).

use std::sync::Arc;

use datafusion::arrow::array::{Array, UInt8Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ThrowIf {
    signature: Signature,
}

impl Default for ThrowIf {
    fn default() -> Self {
        ThrowIf {
            signature: Signature::one_of(
                vec![
                    datafusion::logical_expr::TypeSignature::Any(1),
                    datafusion::logical_expr::TypeSignature::Any(2),
                ],
                Volatility::Volatile,
            ),
        }
    }
}

fn bad_argument(message: &str) -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message).into_datafusion()
}

impl ScalarUDFImpl for ThrowIf {
    fn name(&self) -> &str {
        "throwIf"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::UInt8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let condition = args.arg_fields[0].data_type();
        if !(condition.is_integer() || *condition == DataType::Boolean || condition.is_null()) {
            return Err(bad_argument(&format!(
                "Illegal type {condition} of first argument of function throwIf, expected an integer"
            )));
        }
        Ok(Arc::new(Field::new(self.name(), DataType::UInt8, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let message = match args.args.get(1) {
            Some(ColumnarValue::Scalar(ScalarValue::Utf8(Some(text)))) => text.clone(),
            Some(_) => {
                return Err(bad_argument(
                    "The second argument of function throwIf must be a constant string",
                ));
            }
            None => "Value passed to 'throwIf' function is non-zero".to_string(),
        };
        let rows = args.number_rows;
        let condition = args.args[0].to_array(rows)?;
        let flags = cast::cast(&condition, &DataType::Boolean)?;
        let flags = flags
            .as_any()
            .downcast_ref::<datafusion::arrow::array::BooleanArray>()
            .expect("cast to Boolean");
        if flags.iter().any(|v| v == Some(true)) {
            return Err(
                StrataError::new(ErrorCode::FUNCTION_THROW_IF_VALUE_IS_NON_ZERO, message)
                    .into_datafusion(),
            );
        }
        let zeros = UInt8Array::from(vec![0u8; rows]);
        Ok(ColumnarValue::Array(Arc::new(zeros)))
    }
}
