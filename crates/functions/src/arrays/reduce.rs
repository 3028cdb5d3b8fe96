//! `arrayReduce('f', a[, b...])`: the aggregate `f` (any name an aggregate
//! call takes: `sum`, `uniqExact`, `quantile(0.9)`, `sumIf`) over each row's
//! array elements, the arrays being the aggregate's arguments.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

use super::{array_item, as_list, sizes_differ};
use crate::aggregate::states::{FunctionCall, as_type};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayReduce {
    signature: Signature,
}

impl Default for ArrayReduce {
    fn default() -> Self {
        ArrayReduce {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

const NAME: &str = "arrayReduce";

/// The element fields of the array arguments.
fn element_fields(fields: &[FieldRef]) -> Result<Vec<FieldRef>> {
    if fields.len() < 2 {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {NAME} doesn't match: passed {}, should be at least 2",
                fields.len()
            ),
        )
        .into_datafusion());
    }
    fields[1..]
        .iter()
        .map(|f| array_item(NAME, f.data_type()))
        .collect()
}

impl ScalarUDFImpl for ArrayReduce {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let elements = element_fields(args.arg_fields)?;
        let call = FunctionCall::named(NAME, args.scalar_arguments.first().copied().flatten())?;
        let result = call.return_field(&elements)?;
        Ok(Arc::new(result.as_ref().clone().with_name(NAME)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let name = match &args.args[0] {
            ColumnarValue::Scalar(name) => Some(name),
            ColumnarValue::Array(_) => None,
        };
        let call = FunctionCall::named(NAME, name)?;
        let elements = element_fields(&args.arg_fields)?;
        let scalar = args.args[1..]
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = crate::rows_to_evaluate(&args);
        let mut values = Vec::with_capacity(elements.len());
        let mut ranges: Option<Vec<Range<usize>>> = None;
        for arg in &args.args[1..] {
            // Large and fixed-size lists too.
            let list = as_list(&arg.to_array(rows)?)?;
            let offsets = list.value_offsets();
            let start = offsets[0] as usize;
            let own: Vec<Range<usize>> = offsets
                .windows(2)
                .map(|w| w[0] as usize - start..w[1] as usize - start)
                .collect();
            if ranges.as_ref().is_some_and(|r| *r != own) {
                return Err(sizes_differ(NAME));
            }
            ranges = Some(own);
            let end = offsets[offsets.len() - 1] as usize;
            values.push(list.values().slice(start, end - start));
        }
        let ranges = ranges.expect("at least one array");
        let out = call.over_ranges(&values, &elements, ranges.into_iter())?;
        let out = as_type(out, args.return_field.data_type())?;
        crate::columnar(out, scalar)
    }
}
