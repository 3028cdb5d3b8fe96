//! `arrayShingles(a, l)`: every run of `l` consecutive elements of `a`, in
//! order, as an array of arrays; `l` must be positive and at most the
//! array's length.

use std::sync::Arc;

use datafusion::arrow::array::{Array, Int64Array, UInt32Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::{as_list, item, list_from_lengths, row_range};
use crate::numeric::is_integer;
use crate::other::frame::{Call, Spec, failure};

const NAME: &str = "arrayShingles";

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: NAME,
    aliases: &[],
    args: (2, 2),
    volatility: Volatility::Immutable,
    typing: |t| {
        let (array, length) = (&t.fields[0], &t.fields[1]);
        let illegal = |i: usize, field: &datafusion::arrow::datatypes::Field, what: &str| {
            failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Argument {i} of function {NAME} must be {what}, found {} instead",
                    field_type_name(field)
                ),
            )
        };
        if super::item_field(array.data_type()).is_none() {
            return Err(illegal(1, array.as_ref(), "an array"));
        }
        if !is_integer(length.data_type()) {
            return Err(illegal(2, length.as_ref(), "an integer"));
        }
        let shingle = DataType::List(item(array.data_type().clone(), false));
        Ok(t.propagating(shingle))
    },
    eval: shingles,
}];

fn shingles(call: &Call) -> Result<ColumnarValue> {
    let list = as_list(&call.column(0)?)?;
    let lengths = cast::cast(&call.column(1)?, &DataType::Int64)?;
    let lengths = lengths
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("cast to Int64");
    let bad = |message: &str| {
        failure(
            ErrorCode::BAD_ARGUMENTS,
            format!("Shingle argument of function {NAME} must {message}"),
        )
    };
    let (mut indices, mut inner, mut outer) = (Vec::new(), Vec::new(), Vec::new());
    for row in 0..call.rows {
        let range = row_range(&list, row);
        if list.is_null(row) || lengths.is_null(row) {
            outer.push(0);
            continue;
        }
        let l = lengths.value(row);
        if l <= 0 {
            return Err(bad("be a positive integer"));
        }
        let l = l as usize;
        if l > range.len() {
            return Err(bad("less or equal than the array length"));
        }
        let count = range.len() - l + 1;
        for start in 0..count {
            indices.extend((range.start + start..range.start + start + l).map(|i| i as u32));
            inner.push(l);
        }
        outer.push(count);
    }
    let values = take(list.values(), &UInt32Array::from(indices), None)?;
    let DataType::List(shingle) = call.result.data_type() else {
        unreachable!("typed as an array of arrays")
    };
    let DataType::List(element) = shingle.data_type() else {
        unreachable!("typed as an array of arrays")
    };
    let shingles = list_from_lengths(Arc::clone(element), inner, values, None)?;
    let nulls = list.nulls().cloned();
    call.output(list_from_lengths(
        Arc::clone(shingle),
        outer,
        shingles,
        nulls,
    )?)
}
