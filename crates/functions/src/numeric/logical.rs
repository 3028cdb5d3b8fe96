//! `xor(a, b, ...)`: whether an odd number of the arguments are non-zero,
//! as UInt8; NULL when any argument is NULL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, FieldRef, Float64Type};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{error, is_float, is_integer};

pub fn scalar_functions() -> Vec<ScalarUDF> {
    vec![ScalarUDF::new_from_impl(Xor {
        signature: super::any_arguments(Volatility::Immutable),
    })]
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Xor {
    signature: Signature,
}

impl ScalarUDFImpl for Xor {
    fn name(&self) -> &str {
        "xor"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() < 2 {
            return Err(error(
                ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                format!(
                    "Number of arguments for function \"xor\" should be at least 2: passed {}",
                    arg_types.len()
                ),
            ));
        }
        for (i, t) in arg_types.iter().enumerate() {
            let truthy =
                is_integer(t) || is_float(t) || matches!(t, DataType::Boolean | DataType::Null);
            if !truthy {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Illegal type ({}) of {} argument of function xor",
                        clickhouse_type_name(t, false),
                        i + 1
                    ),
                ));
            }
        }
        Ok(DataType::UInt8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let values = args
            .args
            .iter()
            .map(|a| super::math::as_f64(&a.to_array(rows)?))
            .collect::<Result<Vec<_>>>()?;
        let out: UInt8Array = (0..rows)
            .map(|row| {
                let mut odd = false;
                for v in &values {
                    if v.is_null(row) {
                        return None;
                    }
                    odd ^= v.as_primitive::<Float64Type>().value(row) != 0.0;
                }
                Some(u8::from(odd))
            })
            .collect();
        crate::columnar(Arc::new(out), scalar)
    }
}
