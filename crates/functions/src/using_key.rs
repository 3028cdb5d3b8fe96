//! `_usingKey(side, other)`: the key column of `a JOIN b USING (k)`, the
//! value of one side's `k` in the common type of both sides' `k`, as
//! ClickHouse gives it (`UInt32` joined with `Int64` is an `Int64` key).
//! The call leaves the plan at simplification: as the side's column where
//! the types agree (filters on the key still reach that side's scan), as
//! a cast of it where they differ.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    Cast, ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
    Volatility,
};

use crate::arrays::supertype;

pub const USING_KEY: &str = "_usingKey";

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct UsingKey {
    signature: Signature,
}

impl Default for UsingKey {
    fn default() -> Self {
        UsingKey {
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

/// The key's type: the sides' common type, the first side's where they
/// have none (the join itself reports that).
fn key_type(side: &DataType, other: &DataType) -> DataType {
    supertype(side, other)
        .filter(|common| common != &DataType::Null)
        .unwrap_or_else(|| side.clone())
}

impl ScalarUDFImpl for UsingKey {
    fn name(&self) -> &str {
        USING_KEY
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let (side, other) = (&args.arg_fields[0], &args.arg_fields[1]);
        let key = key_type(side.data_type(), other.data_type());
        let field = match &key == side.data_type() {
            true => side.as_ref().clone(),
            false => Field::new(USING_KEY, key, side.is_nullable()),
        };
        Ok(Arc::new(field.with_name(USING_KEY)))
    }

    fn simplify(&self, mut args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        let (side, other) = (info.get_data_type(&args[0])?, info.get_data_type(&args[1])?);
        let key = key_type(&side, &other);
        args.truncate(1);
        let side_expr = args.pop().expect("two arguments");
        Ok(ExprSimplifyResult::Simplified(match key == side {
            true => side_expr,
            false => Expr::Cast(Cast::new(Box::new(side_expr), key)),
        }))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let key = args.return_field.data_type();
        let values = args.args[0].to_array(args.number_rows)?;
        let values = datafusion::arrow::compute::cast(&values, key)?;
        Ok(ColumnarValue::Array(values))
    }
}
