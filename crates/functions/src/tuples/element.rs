//! `tupleElement(t, n)` and `tupleElement(t, 'name')` (also written `t.n`):
//! a tuple's element by 1-based position or by name, with ClickHouse's
//! errors for a missing element, or `tupleElement(t, key, default)`'s default.

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::{is_null, kernels::nullif::nullif};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TupleElement {
    signature: Signature,
}

impl Default for TupleElement {
    fn default() -> Self {
        TupleElement {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

fn error(code: ErrorCode, message: String) -> datafusion::error::DataFusionError {
    StrataError::new(code, message).into_datafusion()
}

/// The position among `tuple`'s fields that `key` names, None where none has it.
fn find_element(tuple: &DataType, key: Option<&ScalarValue>) -> Result<Option<usize>> {
    let DataType::Struct(fields) = tuple else {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("First argument for function tupleElement must be Tuple, got {tuple}"),
        ));
    };
    match key {
        Some(ScalarValue::Utf8(Some(name)) | ScalarValue::Utf8View(Some(name))) => {
            Ok(fields.iter().position(|f| f.name() == name))
        }
        Some(number) if number.data_type().is_integer() && !number.is_null() => {
            let index = one_based(number)?;
            Ok(usize::try_from(index)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .filter(|&i| i < fields.len()))
        }
        _ => Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "Second argument to tupleElement must be a constant Int, UInt or String".into(),
        )),
    }
}

fn one_based(number: &ScalarValue) -> Result<i64> {
    match number.cast_to(&DataType::Int64)? {
        ScalarValue::Int64(Some(index)) => Ok(index),
        _ => unreachable!("an integer cast to Int64"),
    }
}

/// ClickHouse's error for a tuple without the element `key` names.
fn missing(key: Option<&ScalarValue>) -> datafusion::error::DataFusionError {
    match key {
        Some(ScalarValue::Utf8(Some(name)) | ScalarValue::Utf8View(Some(name))) => error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Tuple doesn't have element with name '{name}'"),
        ),
        Some(number) => error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!(
                "Tuple doesn't have element with index '{}'",
                one_based(number).unwrap_or_default()
            ),
        ),
        None => unreachable!("find_element refuses a missing key"),
    }
}

/// Child `position` of a struct column, NULL where the tuple is.
pub(super) fn element(tuple: &ArrayRef, position: usize) -> Result<ArrayRef> {
    let child = tuple.as_struct().column(position).clone();
    if tuple.null_count() == 0 {
        return Ok(child);
    }
    Ok(nullif(&child, &is_null(tuple)?)?)
}

impl ScalarUDFImpl for TupleElement {
    fn name(&self) -> &str {
        "tupleElement"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        unreachable!("tupleElement's type comes from return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        if !(2..=3).contains(&args.arg_fields.len()) {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function tupleElement doesn't match: passed {}, should be 2 or 3",
                    args.arg_fields.len()
                ),
            ));
        }
        let tuple = &args.arg_fields[0];
        let key = args.scalar_arguments.get(1).copied().flatten();
        // A third argument is what a missing element gives.
        let position = match (
            find_element(tuple.data_type(), key)?,
            args.arg_fields.get(2),
        ) {
            (Some(position), _) => position,
            (None, Some(default)) => {
                return Ok(default.as_ref().clone().with_name(self.name()).into());
            }
            (None, None) => return Err(missing(key)),
        };
        let DataType::Struct(fields) = tuple.data_type() else {
            unreachable!("find_element checked the type")
        };
        let field = fields[position].as_ref().clone();
        let nullable = field.is_nullable() || tuple.is_nullable();
        Ok(field.with_name(self.name()).with_nullable(nullable).into())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let key = match &args.args[1] {
            ColumnarValue::Scalar(key) => Some(key),
            ColumnarValue::Array(_) => None,
        };
        let position = match (
            find_element(&args.args[0].data_type(), key)?,
            args.args.get(2),
        ) {
            (Some(position), _) => position,
            (None, Some(default)) => return Ok(default.clone()),
            (None, None) => return Err(missing(key)),
        };
        match &args.args[0] {
            ColumnarValue::Array(tuple) => Ok(ColumnarValue::Array(element(tuple, position)?)),
            ColumnarValue::Scalar(tuple) => {
                let column = element(&tuple.to_array()?, position)?;
                Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(
                    &column, 0,
                )?))
            }
        }
    }
}
