//! `arrayElement(a, i)` (also `a[i]`) and `arrayElementOrNull(a, i)`: the
//! element at 1-based position `i` of an array (negative positions count
//! from the end), or the value under key `i` of a map. A position or key
//! that is not there gives the element type's default (NULL for a
//! `Nullable` one) from `arrayElement` and NULL from `arrayElementOrNull`;
//! a NULL position or key gives NULL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Int64Array, MapArray, new_null_array};
use datafusion::arrow::compute::kernels::{cast, interleave::interleave};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    arrays_of, as_list, check_arity, default_of, error, item_field, no_common_type, supertype,
};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayElement {
    or_null: bool,
    signature: Signature,
}

impl ArrayElement {
    pub fn new(or_null: bool) -> Self {
        ArrayElement {
            or_null,
            signature: Signature::any(2, Volatility::Immutable),
        }
    }

    /// The field of the elements (or map values) and the type a map's keys
    /// compare with the sought key in.
    fn element(
        &self,
        container: &DataType,
        index: &DataType,
    ) -> Result<(FieldRef, Option<DataType>)> {
        if let DataType::Map(entries, _) = container {
            let DataType::Struct(kv) = entries.data_type() else {
                unreachable!("a map's entries are a struct")
            };
            let (key, value) = (kv[0].data_type(), &kv[1]);
            let common = supertype(key, index).ok_or_else(|| no_common_type(key, index))?;
            return Ok((Arc::clone(value), Some(common)));
        }
        let Some(item) = item_field(container) else {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "First argument for function {} must be an array or a map",
                    self.name()
                ),
            ));
        };
        if !(index.is_integer() || index == &DataType::Null) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Second argument for function '{}' must be integer, got {index}",
                    self.name()
                ),
            ));
        }
        Ok((Arc::clone(item), None))
    }
}

/// Where a row's result comes from.
enum Pick {
    Value(usize),
    Missing,
    Null,
}

/// Per row, the position of the element among the list's values.
fn array_picks(container: &ArrayRef, index: &ArrayRef) -> Result<(ArrayRef, Vec<Pick>)> {
    let list = as_list(container)?;
    let index = cast::cast(index, &DataType::Int64)?;
    let index = index
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("cast to Int64");
    let offsets = list.value_offsets();
    let picks = (0..list.len())
        .map(|row| {
            if list.is_null(row) || index.is_null(row) {
                return Pick::Null;
            }
            let (start, len) = (
                offsets[row] as i64,
                (offsets[row + 1] - offsets[row]) as i64,
            );
            let i = index.value(row);
            let at = if i > 0 { i - 1 } else { len + i };
            match i != 0 && (0..len).contains(&at) {
                true => Pick::Value((start + at) as usize),
                false => Pick::Missing,
            }
        })
        .collect();
    Ok((Arc::clone(list.values()), picks))
}

/// Per row, the position of the first entry with the sought key.
fn map_picks(
    container: &ArrayRef,
    key: &ArrayRef,
    common: &DataType,
) -> Result<(ArrayRef, Vec<Pick>)> {
    let map = container
        .as_any()
        .downcast_ref::<MapArray>()
        .expect("a map column");
    let key = cast::cast(key, common)?;
    let converter = RowConverter::new(vec![SortField::new(common.clone())])?;
    let keys = converter.convert_columns(&[cast::cast(map.keys(), common)?])?;
    let sought = converter.convert_columns(&[Arc::clone(&key)])?;
    let offsets = map.value_offsets();
    let picks = (0..map.len())
        .map(|row| {
            if map.is_null(row) || key.is_null(row) {
                return Pick::Null;
            }
            let mut range = offsets[row] as usize..offsets[row + 1] as usize;
            match range.find(|&i| keys.row(i) == sought.row(row)) {
                Some(i) => Pick::Value(i),
                None => Pick::Missing,
            }
        })
        .collect();
    Ok((Arc::clone(map.values()), picks))
}

impl ScalarUDFImpl for ArrayElement {
    fn name(&self) -> &str {
        if self.or_null {
            "arrayElementOrNull"
        } else {
            "arrayElement"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_arity(self.name(), arg_types.len(), 2..=2)?;
        if arg_types[0] == DataType::Null {
            return Ok(DataType::Null);
        }
        Ok(self
            .element(&arg_types[0], &arg_types[1])?
            .0
            .data_type()
            .clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = self.return_type(&[
            args.arg_fields[0].data_type().clone(),
            args.arg_fields[1].data_type().clone(),
        ])?;
        let element_nullable = match args.arg_fields[0].data_type() {
            DataType::Null => true,
            t => self
                .element(t, args.arg_fields[1].data_type())?
                .0
                .is_nullable(),
        };
        let index = &args.arg_fields[1];
        let nullable = self.or_null
            || element_nullable
            || index.is_nullable()
            || index.data_type() == &DataType::Null;
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let rows = arrays[0].len();
        let result = args.return_field.data_type();
        if result == &DataType::Null {
            return crate::columnar(new_null_array(result, rows), scalar);
        }
        let (element, common) = self.element(arrays[0].data_type(), arrays[1].data_type())?;
        let (values, picks) = match &common {
            Some(common) => map_picks(&arrays[0], &arrays[1], common)?,
            None => array_picks(&arrays[0], &arrays[1])?,
        };
        let values = match values.data_type() == result {
            true => values,
            false => cast::cast(&values, result)?,
        };
        let missing = match self.or_null {
            true => new_null_array(result, 1),
            false => default_of(&element)?.to_array()?,
        };
        let nulls = new_null_array(result, 1);
        let indices: Vec<(usize, usize)> = picks
            .iter()
            .map(|pick| match pick {
                Pick::Value(i) => (0, *i),
                Pick::Missing => (1, 0),
                Pick::Null => (2, 0),
            })
            .collect();
        let out = interleave(
            &[values.as_ref(), missing.as_ref(), nulls.as_ref()],
            &indices,
        )?;
        crate::columnar(out, scalar)
    }
}
