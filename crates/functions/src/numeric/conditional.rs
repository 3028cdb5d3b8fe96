//! `clamp(x, min, max)`: `x` held between `min` and `max`, in the common
//! type of the three; a row whose `min` is above its `max` is an error.

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray};
use datafusion::arrow::compute::kernels::{cast, cmp, zip};
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;

use super::error;

pub fn scalar_functions() -> Vec<ScalarUDF> {
    vec![ScalarUDF::new_from_impl(Clamp {
        signature: super::any_arguments(Volatility::Immutable),
    })]
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Clamp {
    signature: Signature,
}

impl ScalarUDFImpl for Clamp {
    fn name(&self) -> &str {
        "clamp"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 3 {
            return Err(super::arity_error("clamp", arg_types.len(), "3"));
        }
        crate::arrays::common_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(
            "clamp",
            super::literal_aware_type(self, &args)?,
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let result = args.return_type().clone();
        let [x, low, high] = [0, 1, 2].map(|i| -> Result<ArrayRef> {
            Ok(cast::cast(&args.args[i].to_array(rows)?, &result)?)
        });
        let (x, low, high) = (x?, low?, high?);
        if result == DataType::Null {
            return crate::columnar(x, scalar);
        }
        if cmp::gt(&low, &high)?.true_count() > 0 {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                "The minimum value cannot be greater than the maximum value for function clamp",
            ));
        }
        // NULL when any of the three is.
        let nulls = BooleanArray::from_iter(
            (0..x.len()).map(|r| Some(x.is_null(r) || low.is_null(r) || high.is_null(r))),
        );
        let raised = zip::zip(&cmp::lt(&x, &low)?, &low, &x)?;
        let held = zip::zip(&cmp::gt(&raised, &high)?, &high, &raised)?;
        let out = datafusion::arrow::compute::nullif(&held, &nulls)?;
        crate::columnar(out, scalar)
    }
}
