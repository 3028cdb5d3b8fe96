//! The inequality of an `ASOF JOIN`'s ON, as the SQL rewrite writes it:
//! `__strata_asof_ge(left, right)` for `left >= right` (likewise `gt`, `le`,
//! `lt`), the left table's expression first; with `USING (keys..., t)`, the
//! right table's `t` as `__strata_asof_using(t)`. It marks the join for the
//! physical rule that puts the ASOF join operator in its place; nothing
//! evaluates it row by row, and trying to is an error rather than a plain
//! comparison, which would turn the ASOF join into an ALL join unnoticed.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};

/// Marks the right table's ASOF column of `USING`.
pub const USING_FUNCTION: &str = "__strata_asof_using";

/// How the left row's value compares with the right row it is joined to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AsofOp {
    /// `left >= right`: the right row with the greatest value not above.
    Ge,
    /// `left > right`: the right row with the greatest value below.
    Gt,
    /// `left <= right`: the right row with the least value not below.
    Le,
    /// `left < right`: the right row with the least value above.
    Lt,
}

impl AsofOp {
    pub const ALL: [AsofOp; 4] = [AsofOp::Ge, AsofOp::Gt, AsofOp::Le, AsofOp::Lt];

    pub fn function_name(self) -> &'static str {
        match self {
            AsofOp::Ge => "__strata_asof_ge",
            AsofOp::Gt => "__strata_asof_gt",
            AsofOp::Le => "__strata_asof_le",
            AsofOp::Lt => "__strata_asof_lt",
        }
    }

    pub fn of_function_name(name: &str) -> Option<AsofOp> {
        AsofOp::ALL
            .into_iter()
            .find(|op| op.function_name() == name)
    }

    /// The operator with its operands swapped (`a >= b` is `b <= a`).
    pub fn flipped(self) -> AsofOp {
        match self {
            AsofOp::Ge => AsofOp::Le,
            AsofOp::Gt => AsofOp::Lt,
            AsofOp::Le => AsofOp::Ge,
            AsofOp::Lt => AsofOp::Gt,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct AsofCondition {
    op: AsofOp,
    signature: Signature,
}

impl AsofCondition {
    pub fn new(op: AsofOp) -> Self {
        AsofCondition {
            op,
            // Both sides coerced to one type, so the operator compares them as is.
            signature: Signature::new(TypeSignature::Comparable(2), Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for AsofCondition {
    fn name(&self) -> &str {
        self.op.function_name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        internal_err!(
            "{} is the condition of an ASOF JOIN and is not evaluated on its own",
            self.name()
        )
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct AsofUsing {
    signature: Signature,
}

impl ScalarUDFImpl for AsofUsing {
    fn name(&self) -> &str {
        USING_FUNCTION
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    /// The column as it is, NULLs and metadata included.
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(Arc::clone(&args.arg_fields[0]))
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        internal_err!(
            "{USING_FUNCTION} marks an ASOF JOIN's column and is not evaluated on its own"
        )
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions: Vec<ScalarUDF> = AsofOp::ALL
        .into_iter()
        .map(|op| ScalarUDF::new_from_impl(AsofCondition::new(op)))
        .collect();
    functions.push(ScalarUDF::new_from_impl(AsofUsing {
        signature: Signature::any(1, Volatility::Immutable),
    }));
    functions
}
