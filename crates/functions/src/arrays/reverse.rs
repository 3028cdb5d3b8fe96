//! `reverse(x)`: an array's elements, a string's characters, a
//! FixedString's bytes or a tuple's elements in reverse order. (ClickHouse
//! reverses a String's bytes; Strata's strings are UTF-8, so characters, as
//! `reverseUTF8`; a string of other bytes, `reinterpretAsString`'s, by its
//! bytes.)

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, FixedSizeBinaryArray, GenericListArray, OffsetSizeTrait,
    StringArray, StructArray, UInt64Array,
};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::{DataType, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::Volatility;
use strata_common::ErrorCode;
use strata_common::types::{field_type_name, is_named_tuple};

use crate::other::frame::{Call, Spec, failure};

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "reverse",
    aliases: &[],
    args: (1, 1),
    volatility: Volatility::Immutable,
    typing: |t| {
        let field = t.fields[0].as_ref();
        match field.data_type() {
            DataType::List(_)
            | DataType::LargeList(_)
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::FixedSizeBinary(_)
            | DataType::Null => Ok(field.clone().with_name(t.name)),
            DataType::Struct(fields) => Ok(field
                .clone()
                .with_name(t.name)
                .with_data_type(DataType::Struct(reversed_fields(fields)))),
            _ => Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function {}",
                    field_type_name(field),
                    t.name
                ),
            )),
        }
    },
    eval: reverse,
}];

fn reverse(call: &Call) -> Result<datafusion::logical_expr::ColumnarValue> {
    let column = call.column(0)?;
    let out: ArrayRef = match column.data_type() {
        DataType::List(_) => reversed_lists(column.as_list::<i32>())?,
        DataType::LargeList(_) => reversed_lists(column.as_list::<i64>())?,
        DataType::FixedSizeBinary(_) => {
            let bytes = column.as_fixed_size_binary();
            let values = bytes.iter().map(|v| {
                v.map(|v| {
                    let mut v = v.to_vec();
                    v.reverse();
                    v
                })
            });
            Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                values,
                bytes.value_length(),
            )?)
        }
        DataType::Null => column,
        DataType::Struct(fields) => {
            let tuple = column.as_struct();
            let columns = tuple.columns().iter().rev().cloned().collect();
            Arc::new(StructArray::try_new(
                reversed_fields(fields),
                columns,
                tuple.nulls().cloned(),
            )?)
        }
        DataType::Binary => {
            let reversed: BinaryArray = column
                .as_binary::<i32>()
                .iter()
                .map(|v| v.map(|v| v.iter().rev().copied().collect::<Vec<u8>>()))
                .collect();
            Arc::new(reversed)
        }
        _ => {
            let text = datafusion::arrow::compute::cast(&column, &DataType::Utf8)?;
            let reversed: StringArray = text
                .as_string::<i32>()
                .iter()
                .map(|s| s.map(|s| s.chars().rev().collect::<String>()))
                .collect();
            datafusion::arrow::compute::cast(&reversed, column.data_type())?
        }
    };
    call.output(out)
}

/// A tuple's elements in reverse order: a named tuple's keep their names,
/// an unnamed one's are named by their new positions.
fn reversed_fields(fields: &Fields) -> Fields {
    let named = is_named_tuple(fields);
    fields
        .iter()
        .rev()
        .enumerate()
        .map(|(i, field)| match named {
            true => Arc::clone(field),
            false => Arc::new(field.as_ref().clone().with_name(format!("c{i}"))),
        })
        .collect()
}

/// Each list's elements in reverse order, the offsets and NULLs kept.
fn reversed_lists<O: OffsetSizeTrait>(lists: &GenericListArray<O>) -> Result<ArrayRef> {
    let offsets = lists.value_offsets();
    let mut indices = Vec::with_capacity(lists.values().len());
    for window in offsets.windows(2) {
        let (start, end) = (window[0].as_usize(), window[1].as_usize());
        indices.extend((start..end).rev().map(|i| i as u64));
    }
    let first = offsets[0].as_usize();
    let values = take(lists.values(), &UInt64Array::from(indices), None)?;
    let shifted: Vec<O> = offsets.iter().map(|o| *o - O::usize_as(first)).collect();
    Ok(Arc::new(GenericListArray::<O>::try_new(
        match lists.data_type() {
            DataType::List(item) | DataType::LargeList(item) => Arc::clone(item),
            _ => unreachable!("a list array has a list type"),
        },
        datafusion::arrow::buffer::OffsetBuffer::new(shifted.into()),
        values,
        lists.nulls().cloned(),
    )?))
}
