//! Arithmetic over arrays, element by element, as ClickHouse has it:
//! `[2, 3] * 7`, `7 / [2, 3]`, `[5, 7] % 3`, `intDiv(a, n)` take an array
//! and a number; `[1, 2] + [3, 4]` and `-` take two arrays of equal sizes
//! (SIZES_OF_ARRAYS_DONT_MATCH otherwise). Nested arrays nest the same way.
//! Each element's type is the operation's result over the element types.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, ListArray, UInt32Array};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl};

use super::{as_list, item_field, row_range, sizes_differ};
use crate::arithmetic::ArithmeticOp;

/// How an operation takes its operands when one is an array.
enum Shape {
    /// Both arrays (`+`, `-`).
    Both,
    /// An array on the left, a number on the right.
    Left,
    Right,
}

fn shape(op: ArithmeticOp, left: &DataType, right: &DataType) -> Option<Shape> {
    let (l, r) = (item_field(left).is_some(), item_field(right).is_some());
    let scaling = !matches!(op, ArithmeticOp::Plus | ArithmeticOp::Minus);
    match (l, r) {
        (true, true) if !scaling => Some(Shape::Both),
        (true, false) if scaling => Some(Shape::Left),
        (false, true) if scaling => Some(Shape::Right),
        _ => None,
    }
}

/// Whether either operand is an array.
pub(crate) fn involves_arrays(left: &DataType, right: &DataType) -> bool {
    item_field(left).is_some() || item_field(right).is_some()
}

/// The result type of `udf` (the operation `op`) over an array operand;
/// None where ClickHouse has no such form.
pub(crate) fn result_type(
    udf: &dyn ScalarUDFImpl,
    op: ArithmeticOp,
    left: &DataType,
    right: &DataType,
) -> Option<Result<DataType>> {
    let item = |t: &DataType| item_field(t).map(|f| f.data_type().clone());
    let (l, r) = match shape(op, left, right)? {
        Shape::Both => (item(left)?, item(right)?),
        Shape::Left => (item(left)?, right.clone()),
        Shape::Right => (left.clone(), item(right)?),
    };
    let nullable = [left, right]
        .into_iter()
        .any(|t| item_field(t).is_some_and(|f| f.is_nullable()));
    Some(
        udf.return_type(&[l, r])
            .map(|t| DataType::List(Arc::new(Field::new_list_field(t, nullable)))),
    )
}

/// A list's values from its first offset to its last, with offsets from 0.
fn compact(list: &ListArray) -> (ArrayRef, OffsetBuffer<i32>) {
    let offsets = list.value_offsets();
    let (start, end) = (offsets[0] as usize, offsets[list.len()] as usize);
    let lengths = (0..list.len()).map(|row| row_range(list, row).len());
    (
        list.values().slice(start, end - start),
        OffsetBuffer::from_lengths(lengths),
    )
}

/// `udf` applied element by element; `args` hold an array operand.
pub(crate) fn evaluate(
    udf: &dyn ScalarUDFImpl,
    op: ArithmeticOp,
    args: &ScalarFunctionArgs,
) -> Result<ColumnarValue> {
    let scalar = args
        .args
        .iter()
        .all(|a| matches!(a, ColumnarValue::Scalar(_)));
    let rows = if scalar { 1 } else { args.number_rows };
    let left = args.args[0].to_array(rows)?;
    let right = args.args[1].to_array(rows)?;
    let shape = shape(op, left.data_type(), right.data_type());
    let (list, inner_left, inner_right) = match shape {
        Some(Shape::Both) => {
            let (l, r) = (as_list(&left)?, as_list(&right)?);
            if (0..rows).any(|row| {
                (l.is_valid(row) && r.is_valid(row)) && l.value_length(row) != r.value_length(row)
            }) {
                return Err(sizes_differ(udf.name()));
            }
            let ((l_values, _), (r_values, _)) = (compact(&l), compact(&r));
            if l_values.len() != r_values.len() {
                return Err(sizes_differ(udf.name()));
            }
            (l, l_values, r_values)
        }
        Some(Shape::Left) => {
            let list = as_list(&left)?;
            let (values, _) = compact(&list);
            let repeated = repeat_per_element(&right, &list)?;
            (list, values, repeated)
        }
        Some(Shape::Right) => {
            let list = as_list(&right)?;
            let (values, _) = compact(&list);
            let repeated = repeat_per_element(&left, &list)?;
            (list, repeated, values)
        }
        None => return datafusion::common::exec_err!("{} over arrays of this shape", udf.name()),
    };
    let Some(item) = item_field(args.return_type()).cloned() else {
        return datafusion::common::exec_err!("{} over arrays returns an array", udf.name());
    };
    let inner_args = ScalarFunctionArgs {
        number_rows: inner_left.len(),
        arg_fields: vec![
            Arc::new(Field::new("", inner_left.data_type().clone(), true)),
            Arc::new(Field::new("", inner_right.data_type().clone(), true)),
        ],
        args: vec![
            ColumnarValue::Array(inner_left),
            ColumnarValue::Array(inner_right),
        ],
        return_field: Arc::clone(&item),
        config_options: Arc::clone(&args.config_options),
    };
    let elements = inner_args.number_rows;
    let computed = udf.invoke_with_args(inner_args)?.to_array(elements)?;
    let (_, offsets) = compact(&list);
    let nulls = NullBuffer::union(
        left.logical_nulls().as_ref(),
        right.logical_nulls().as_ref(),
    );
    let out: ArrayRef = Arc::new(ListArray::try_new(item, offsets, computed, nulls)?);
    crate::columnar(out, scalar)
}

/// `value`'s row repeated once for each element of the same row of `list`.
fn repeat_per_element(value: &ArrayRef, list: &ListArray) -> Result<ArrayRef> {
    let indices: UInt32Array = (0..list.len())
        .flat_map(|row| std::iter::repeat_n(row as u32, row_range(list, row).len()))
        .collect();
    Ok(take(value, &indices, None)?)
}
