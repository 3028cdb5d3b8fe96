//! `_castNotNull(x)`: what a CAST to a type that is not Nullable adds to the
//! conversion, as ClickHouse's CAST does with `cast_keep_nullable = 0`: the
//! result is not Nullable, and a NULL among the values fails the query
//! (CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN). An argument that cannot be NULL
//! loses the call at planning, so plans over non-Nullable columns keep their
//! shape (index analysis sees the plain conversion).

use std::sync::Arc;

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

pub const CAST_NOT_NULL: &str = "_castNotNull";

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CastNotNull {
    signature: Signature,
}

impl Default for CastNotNull {
    fn default() -> Self {
        CastNotNull {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for CastNotNull {
    fn name(&self) -> &str {
        CAST_NOT_NULL
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let field = args.arg_fields[0].as_ref().clone();
        Ok(Arc::new(
            field.with_name(CAST_NOT_NULL).with_nullable(false),
        ))
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        match info.nullable(&args[0]) {
            Ok(false) => Ok(ExprSimplifyResult::Simplified(args[0].clone())),
            _ => Ok(ExprSimplifyResult::Original(args)),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let has_null = match &args.args[0] {
            ColumnarValue::Scalar(value) => value.is_null(),
            ColumnarValue::Array(values) => values.logical_null_count() > 0,
        };
        if has_null {
            return Err(StrataError::new(
                ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
                "Cannot convert NULL value to non-Nullable type",
            )
            .into_datafusion());
        }
        Ok(args.args[0].clone())
    }
}
