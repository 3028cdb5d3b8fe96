//! Ordering arrays' elements as ClickHouse does: `arraySort(a[, keys])`
//! and `arrayReverseSort(a[, keys])` (stable; by `keys` when given, which
//! is how the lambda forms arrive: NaN and then NULL last in both
//! directions), and `arrayMin(a)` / `arrayMax(a)` (NULLs skipped, NaN
//! never replaces nor is replaced after the first element, an empty
//! array's result is the type's default, an all-NULL one's NULL).

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array, new_null_array};
use datafusion::arrow::compute::kernels::{cast, interleave::interleave, take::take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::{
    array_item, arrays_of, as_list, check_arity, default_of, list_from_lengths, row_range,
    sizes_differ,
};

/// The elements of a values column as ClickHouse compares them.
struct Keys {
    rows: Rows,
    nan: Vec<bool>,
    values: ArrayRef,
}

impl Keys {
    fn new(values: &ArrayRef) -> Result<Self> {
        let converter = RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
        let rows = converter.convert_columns(&[Arc::clone(values)])?;
        let nan = match values.data_type() {
            DataType::Float32 => values
                .as_primitive::<Float32Type>()
                .values()
                .iter()
                .map(|v| v.is_nan())
                .collect(),
            DataType::Float64 => values
                .as_primitive::<Float64Type>()
                .values()
                .iter()
                .map(|v| v.is_nan())
                .collect(),
            _ => vec![false; values.len()],
        };
        Ok(Keys {
            rows,
            nan,
            values: Arc::clone(values),
        })
    }

    /// 0 for a value, 1 for NaN, 2 for NULL: the order of classes in a sort.
    fn class(&self, i: usize) -> u8 {
        if self.values.is_null(i) {
            2
        } else {
            u8::from(self.nan[i])
        }
    }

    fn compare(&self, a: usize, b: usize, reverse: bool) -> Ordering {
        let by_class = self.class(a).cmp(&self.class(b));
        if by_class != Ordering::Equal || self.class(a) != 0 {
            return by_class;
        }
        let by_value = self.rows.row(a).cmp(&self.rows.row(b));
        if reverse {
            by_value.reverse()
        } else {
            by_value
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArraySort {
    reverse: bool,
    signature: Signature,
}

impl ArraySort {
    pub fn new(reverse: bool) -> Self {
        ArraySort {
            reverse,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }

    fn sort(&self, list: &ListArray, keys: &ListArray) -> Result<ArrayRef> {
        let order = Keys::new(keys.values())?;
        let mut indices: Vec<u32> = Vec::with_capacity(list.values().len());
        for row in 0..list.len() {
            if list.value_length(row) != keys.value_length(row) {
                return Err(sizes_differ(self.name()));
            }
            let (own, by) = (row_range(list, row), row_range(keys, row));
            let mut positions: Vec<usize> = (0..own.len()).collect();
            positions.sort_by(|&a, &b| order.compare(by.start + a, by.start + b, self.reverse));
            indices.extend(positions.into_iter().map(|p| (own.start + p) as u32));
        }
        let values = take(list.values().as_ref(), &UInt32Array::from(indices), None)?;
        let DataType::List(item) = list.data_type() else {
            unreachable!("as_list gives a list")
        };
        let lengths = (0..list.len()).map(|r| list.value_length(r) as usize);
        list_from_lengths(Arc::clone(item), lengths, values, list.nulls().cloned())
    }
}

impl ScalarUDFImpl for ArraySort {
    fn name(&self) -> &str {
        if self.reverse {
            "arrayReverseSort"
        } else {
            "arraySort"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_arity(self.name(), arg_types.len(), 1..=2)?;
        for t in arg_types {
            array_item(self.name(), t)?;
        }
        Ok(DataType::List(array_item(self.name(), &arg_types[0])?))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let list = as_list(&arrays[0])?;
        let keys = as_list(arrays.last().expect("one argument at least"))?;
        crate::columnar(self.sort(&list, &keys)?, scalar)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Extreme {
    max: bool,
    signature: Signature,
}

impl Extreme {
    pub fn new(max: bool) -> Self {
        Extreme {
            max,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }

    /// The position of row `row`'s extreme among the values, if any.
    fn pick(&self, keys: &Keys, list: &ListArray, row: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in row_range(list, row) {
            if keys.class(i) == 2 {
                continue;
            }
            let Some(b) = best else {
                best = Some(i);
                continue;
            };
            if keys.nan[i] || keys.nan[b] {
                continue;
            }
            let wanted = if self.max {
                Ordering::Greater
            } else {
                Ordering::Less
            };
            if keys.rows.row(i).cmp(&keys.rows.row(b)) == wanted {
                best = Some(i);
            }
        }
        best
    }
}

impl ScalarUDFImpl for Extreme {
    fn name(&self) -> &str {
        if self.max { "arrayMax" } else { "arrayMin" }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_arity(self.name(), arg_types.len(), 1..=1)?;
        Ok(array_item(self.name(), &arg_types[0])?.data_type().clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let item = array_item(self.name(), args.arg_fields[0].data_type())?;
        let nullable = item.is_nullable() || args.arg_fields[0].is_nullable();
        Ok(Arc::new(Field::new(
            self.name(),
            item.data_type().clone(),
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let list = as_list(&arrays[0])?;
        let result = args.return_field.data_type();
        let values = cast::cast(list.values(), result)?;
        let keys = Keys::new(&values)?;
        let item = Field::new("", result.clone(), false);
        let empty = default_of(&item)?.to_array()?;
        let null = new_null_array(result, 1);
        let picks: Vec<(usize, usize)> = (0..list.len())
            .map(|row| match self.pick(&keys, &list, row) {
                Some(i) => (0, i),
                None if list.is_valid(row) && !row_range(&list, row).any(|i| values.is_null(i)) => {
                    (1, 0)
                }
                None => (2, 0),
            })
            .collect();
        let out = interleave(&[values.as_ref(), empty.as_ref(), null.as_ref()], &picks)?;
        crate::columnar(out, scalar)
    }
}
