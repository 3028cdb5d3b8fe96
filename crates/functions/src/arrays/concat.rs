//! `arrayConcat(a, b, ...)`: the arrays' elements one after another, of
//! the arrays' common element type (`[1]` and `[2.5]` make `Array(Float64)`),
//! Nullable only where some array's elements are.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, ListArray, MutableArrayData, make_array,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};

use super::{illegal_type, no_common_type, supertype};
use crate::other::frame::{Call, Spec, Typing};

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "arrayConcat",
    aliases: &[],
    args: (1, usize::MAX),
    volatility: Volatility::Immutable,
    typing: concat_type,
    eval: concat,
}];

fn concat_type(t: &Typing) -> Result<Field> {
    let mut common: Option<DataType> = None;
    for field in t.fields {
        let data_type = field.data_type();
        if !matches!(data_type, DataType::List(_)) {
            return Err(illegal_type(t.name, data_type));
        }
        common = Some(match common {
            None => data_type.clone(),
            Some(common) => {
                supertype(&common, data_type).ok_or_else(|| no_common_type(&common, data_type))?
            }
        });
    }
    let common = common.expect("at least one argument");
    Ok(Field::new(t.name, common, false))
}

fn concat(call: &Call) -> Result<ColumnarValue> {
    let rows = if call.all_constant() { 1 } else { call.rows };
    let DataType::List(item) = call.result.data_type() else {
        unreachable!("typed as a list");
    };
    let lists = call
        .args
        .iter()
        .map(|arg| cast(&arg.to_array(rows)?, call.result.data_type()).map_err(Into::into))
        .collect::<Result<Vec<ArrayRef>>>()?;
    let lists: Vec<&ListArray> = lists.iter().map(|list| list.as_list::<i32>()).collect();
    let values: Vec<ArrayData> = lists.iter().map(|list| list.values().to_data()).collect();
    let capacity = values.iter().map(ArrayData::len).sum();
    let mut out = MutableArrayData::new(values.iter().collect(), false, capacity);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0_i32);
    let mut length = 0_usize;
    for row in 0..rows {
        for (i, list) in lists.iter().enumerate() {
            if list.is_null(row) {
                continue;
            }
            let (start, end) = (
                list.value_offsets()[row] as usize,
                list.value_offsets()[row + 1] as usize,
            );
            out.try_extend(i, start, end)?;
            length += end - start;
        }
        offsets.push(i32::try_from(length).map_err(|_| {
            super::error(
                strata_common::ErrorCode::TOO_LARGE_ARRAY_SIZE,
                "arrayConcat: the result holds too many elements",
            )
        })?);
    }
    let values = make_array(out.freeze());
    let result = ListArray::try_new(
        Arc::clone(item),
        OffsetBuffer::new(offsets.into()),
        values,
        None,
    )?;
    call.output(Arc::new(result))
}
