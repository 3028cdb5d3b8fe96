//! Arrays rebuilt from their own elements and a fill value:
//! `arrayPopBack/Front(a)`, `arrayPushBack/Front(a, x)` (the element type
//! widens to take `x`), `arrayResize(a, n[, fill])` (a negative `n` keeps
//! or pads at the front), `arraySlice(a, offset[, length])` (1-based,
//! negative values count from the end, NULL means "from the start" / "to
//! the end"), `arrayRotateLeft/Right(a, n)` and `arrayShiftLeft/Right(a,
//! n[, fill])`. A missing fill value is the element type's default.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Int64Array, ListArray, new_null_array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::{cast, interleave::interleave};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    array_item, arrays_of, as_list, check_arity, default_of, error, illegal_type,
    list_from_lengths, no_common_type, supertype,
};

/// ClickHouse's largest array from `arrayResize`.
const MAX_SIZE: i64 = 1 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Edit {
    PopBack,
    PopFront,
    PushBack,
    PushFront,
    Resize,
    Slice,
    RotateLeft,
    RotateRight,
    ShiftLeft,
    ShiftRight,
}

impl Edit {
    pub const ALL: [Edit; 10] = [
        Edit::PopBack,
        Edit::PopFront,
        Edit::PushBack,
        Edit::PushFront,
        Edit::Resize,
        Edit::Slice,
        Edit::RotateLeft,
        Edit::RotateRight,
        Edit::ShiftLeft,
        Edit::ShiftRight,
    ];

    fn name(self) -> &'static str {
        match self {
            Edit::PopBack => "arrayPopBack",
            Edit::PopFront => "arrayPopFront",
            Edit::PushBack => "arrayPushBack",
            Edit::PushFront => "arrayPushFront",
            Edit::Resize => "arrayResize",
            Edit::Slice => "arraySlice",
            Edit::RotateLeft => "arrayRotateLeft",
            Edit::RotateRight => "arrayRotateRight",
            Edit::ShiftLeft => "arrayShiftLeft",
            Edit::ShiftRight => "arrayShiftRight",
        }
    }

    fn arity(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Edit::PopBack | Edit::PopFront => 1..=1,
            Edit::PushBack | Edit::PushFront | Edit::RotateLeft | Edit::RotateRight => 2..=2,
            Edit::Resize | Edit::Slice | Edit::ShiftLeft | Edit::ShiftRight => 2..=3,
        }
    }

    /// The argument that fills or extends the array, if this edit takes one.
    fn fill_argument(self) -> Option<usize> {
        match self {
            Edit::PushBack | Edit::PushFront => Some(1),
            Edit::Resize | Edit::ShiftLeft | Edit::ShiftRight => Some(2),
            _ => None,
        }
    }

    /// Whether a NULL argument (beyond the array) makes the result NULL.
    fn null_is_null(self) -> bool {
        matches!(
            self,
            Edit::RotateLeft | Edit::RotateRight | Edit::ShiftLeft | Edit::ShiftRight
        )
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayEdit {
    edit: Edit,
    signature: Signature,
}

impl ArrayEdit {
    pub fn new(edit: Edit) -> Self {
        ArrayEdit {
            edit,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }

    /// The result's item field, or None when the result is always NULL.
    fn result_item(&self, fields: &[FieldRef]) -> Result<Option<FieldRef>> {
        let name = self.edit.name();
        check_arity(name, fields.len(), self.edit.arity())?;
        if fields[0].data_type() == &DataType::Null {
            return Ok(None);
        }
        let item = array_item(name, fields[0].data_type())?;
        for (i, f) in fields.iter().enumerate().skip(1) {
            let counts = Some(i) != self.edit.fill_argument();
            let t = f.data_type();
            // Only arrayResize takes a float size (and truncates it).
            let float = t.is_floating() && self.edit == Edit::Resize;
            if counts && !(t.is_integer() || float || t == &DataType::Null) {
                return Err(illegal_type(name, t));
            }
            if counts && t == &DataType::Null {
                if self.edit == Edit::Resize {
                    return Err(illegal_type(name, t));
                }
                if self.edit.null_is_null() {
                    return Ok(None);
                }
            }
        }
        let Some(fill) = self.edit.fill_argument().and_then(|i| fields.get(i)) else {
            return Ok(Some(item));
        };
        if fill.data_type() == &DataType::Null && self.edit.null_is_null() {
            return Ok(None);
        }
        let common = supertype(item.data_type(), fill.data_type());
        // A shift fills with values of the element type. ClickHouse refuses
        // a fill of a wider type; an integer literal is Int64 when first
        // typed, so any number is taken here and cast.
        let common = match (self.edit.null_is_null(), common) {
            (true, Some(_)) => item.data_type().clone(),
            (true, None) => return Err(illegal_type(name, fill.data_type())),
            (false, common) => {
                common.ok_or_else(|| no_common_type(item.data_type(), fill.data_type()))?
            }
        };
        // The items of `[]` are of type Nothing, which no value makes Nullable.
        let nullable = (item.is_nullable() && item.data_type() != &DataType::Null)
            || fill.is_nullable()
            || fill.data_type() == &DataType::Null;
        Ok(Some(Arc::new(Field::new_list_field(common, nullable))))
    }
}

/// Argument `i` as Int64 (NULL where NULL), or None when not given.
fn integers(arrays: &[ArrayRef], i: usize) -> Result<Option<Int64Array>> {
    let Some(array) = arrays.get(i) else {
        return Ok(None);
    };
    let cast = cast::cast(array, &DataType::Int64)?;
    Ok(Some(
        cast.as_any()
            .downcast_ref::<Int64Array>()
            .cloned()
            .expect("cast to Int64"),
    ))
}

/// The kept positions of a row of `len` elements, as (from the array?,
/// index) pairs, where `false` means the fill value.
fn positions(edit: Edit, len: i64, n: Option<i64>, m: Option<i64>) -> Result<Vec<(bool, i64)>> {
    let own = |range: std::ops::Range<i64>| range.map(|i| (true, i));
    let fill = |count: i64| (0..count).map(|_| (false, 0));
    Ok(match edit {
        Edit::PopBack => own(0..(len - 1).max(0)).collect(),
        Edit::PopFront => own(len.min(1)..len).collect(),
        Edit::PushBack => own(0..len).chain(fill(1)).collect(),
        Edit::PushFront => fill(1).chain(own(0..len)).collect(),
        Edit::Resize => {
            let size = n.unwrap_or(0);
            if size.abs() > MAX_SIZE {
                return Err(error(
                    ErrorCode::TOO_LARGE_ARRAY_SIZE,
                    format!("Too large array size: {size}, maximum: {MAX_SIZE}"),
                ));
            }
            if size >= 0 {
                own(0..len.min(size)).chain(fill(size - len)).collect()
            } else {
                fill(-size - len)
                    .chain(own((len + size).max(0)..len))
                    .collect()
            }
        }
        Edit::Slice => {
            let start = match n {
                None => 0,
                Some(0) => return Ok(Vec::new()),
                Some(o) if o > 0 => o - 1,
                Some(o) => len + o,
            };
            let end = match m {
                None => len,
                Some(l) if l >= 0 => start.saturating_add(l),
                Some(l) => len + l,
            };
            own(start.clamp(0, len)..end.clamp(0, len)).collect()
        }
        Edit::RotateLeft | Edit::RotateRight if len == 0 => Vec::new(),
        Edit::RotateLeft | Edit::RotateRight => {
            let by = n.unwrap_or(0).rem_euclid(len);
            let by = if edit == Edit::RotateLeft {
                by
            } else {
                (len - by) % len
            };
            own(by..len).chain(own(0..by)).collect()
        }
        Edit::ShiftLeft | Edit::ShiftRight => {
            let by = n.unwrap_or(0);
            let by = if edit == Edit::ShiftLeft { by } else { -by };
            let by = by.clamp(-len, len);
            if by >= 0 {
                own(by..len).chain(fill(by)).collect()
            } else {
                fill(-by).chain(own(0..len + by)).collect()
            }
        }
    })
}

impl ScalarUDFImpl for ArrayEdit {
    fn name(&self) -> &str {
        self.edit.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), false)))
            .collect();
        Ok(match self.result_item(&fields)? {
            Some(item) => DataType::List(item),
            None => DataType::Null,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = match self.result_item(args.arg_fields)? {
            Some(item) => DataType::List(item),
            None => DataType::Null,
        };
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let rows = arrays[0].len();
        let DataType::List(item) = args.return_field.data_type() else {
            return crate::columnar(new_null_array(&DataType::Null, rows), scalar);
        };
        let list = as_list(&cast::cast(&arrays[0], &DataType::List(Arc::clone(item)))?)?;
        let out = self.edit_rows(&list, &arrays, item)?;
        crate::columnar(out, scalar)
    }
}

impl ArrayEdit {
    /// The fill values, one per row (a given argument) or a single default.
    fn fill_column(&self, arrays: &[ArrayRef], item: &Field) -> Result<(ArrayRef, bool)> {
        match self.edit.fill_argument().and_then(|i| arrays.get(i)) {
            Some(fill) => Ok((cast::cast(fill, item.data_type())?, true)),
            None => Ok((default_of(item)?.to_array()?, false)),
        }
    }

    fn edit_rows(
        &self,
        list: &ListArray,
        arrays: &[ArrayRef],
        item: &FieldRef,
    ) -> Result<ArrayRef> {
        let (fill, per_row) = self.fill_column(arrays, item)?;
        let (n, m) = match self.edit {
            Edit::PushBack | Edit::PushFront => (None, None),
            // The third argument is the fill, not a count.
            Edit::Resize => (integers(arrays, 1)?, None),
            _ => (integers(arrays, 1)?, integers(arrays, 2)?),
        };
        let value = |a: &Option<Int64Array>, row: usize| {
            a.as_ref()
                .and_then(|a| a.is_valid(row).then(|| a.value(row)))
        };
        let offsets = list.value_offsets();
        let mut picks = Vec::new();
        let mut lengths = Vec::with_capacity(list.len());
        let mut valid = Vec::with_capacity(list.len());
        for row in 0..list.len() {
            let null_argument =
                self.edit.null_is_null() && arrays[1..].iter().any(|a| a.is_null(row));
            if list.is_null(row) || null_argument {
                lengths.push(0);
                valid.push(false);
                continue;
            }
            let start = offsets[row] as usize;
            let len = (offsets[row + 1] - offsets[row]) as i64;
            let kept = positions(self.edit, len, value(&n, row), value(&m, row))?;
            lengths.push(kept.len());
            valid.push(true);
            let fill_row = if per_row { row } else { 0 };
            picks.extend(kept.into_iter().map(|(own, i)| match own {
                true => (0, start + i as usize),
                false => (1, fill_row),
            }));
        }
        let values = interleave(&[list.values().as_ref(), fill.as_ref()], &picks)?;
        let nulls = valid.contains(&false).then(|| NullBuffer::from(valid));
        list_from_lengths(Arc::clone(item), lengths, values, nulls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(edit: Edit, len: i64, n: Option<i64>, m: Option<i64>) -> Vec<i64> {
        positions(edit, len, n, m)
            .unwrap()
            .into_iter()
            .map(|(own, i)| if own { i } else { -1 })
            .collect()
    }

    #[test]
    fn slices_count_from_either_end() {
        assert_eq!(own(Edit::Slice, 5, Some(2), Some(2)), [1, 2]);
        assert_eq!(own(Edit::Slice, 5, Some(-4), Some(-2)), [1, 2]);
        assert_eq!(own(Edit::Slice, 5, Some(-6), Some(2)), [0]);
        assert_eq!(own(Edit::Slice, 5, Some(-10), Some(-2)), [0, 1, 2]);
        assert_eq!(own(Edit::Slice, 5, Some(0), None), Vec::<i64>::new());
        assert_eq!(own(Edit::Slice, 5, None, None), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn resizes_and_shifts_fill() {
        assert_eq!(own(Edit::Resize, 3, Some(-5), None), [-1, -1, 0, 1, 2]);
        assert_eq!(own(Edit::Resize, 3, Some(-2), None), [1, 2]);
        assert_eq!(own(Edit::ShiftRight, 3, Some(1), None), [-1, 0, 1]);
        assert_eq!(own(Edit::RotateRight, 3, Some(-4), None), [1, 2, 0]);
    }
}
