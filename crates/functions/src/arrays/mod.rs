//! Array, map and tuple functions with ClickHouse's semantics.
//!
//! An `Array(T)` is an Arrow `List` whose item field says whether `T` is
//! `Nullable`; that flag decides what ClickHouse fills in for a missing
//! element (NULL for a `Nullable` item, the type's default otherwise), so
//! every function here keeps it exact.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::{Result, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use strata_common::{ErrorCode, StrataError};

mod affix;
mod auc;
mod concat;
pub mod cumulative;
pub mod distance;
pub mod edit;
pub mod element;
pub(crate) mod elementwise;
pub mod empty;
pub mod enumerate;
pub mod fold;
pub mod literal;
mod map_series;
pub mod maps;
pub mod masked;
mod random;
pub mod range;
mod ranked;
pub mod reduce;
pub mod reshape;
mod reverse;
pub mod search;
pub mod sets;
mod shingles;
mod similarity;
pub mod sort;

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions = vec![
        ScalarUDF::new_from_impl(search::NumericSearch::wrapping(
            datafusion::functions_nested::array_has::array_has_udf(),
        )),
        ScalarUDF::new_from_impl(search::NumericSearch::wrapping(
            datafusion::functions_nested::array_has::array_has_all_udf(),
        )),
        ScalarUDF::new_from_impl(search::NumericSearch::wrapping(
            datafusion::functions_nested::array_has::array_has_any_udf(),
        )),
        ScalarUDF::new_from_impl(search::NumericSearch::wrapping(
            datafusion::functions_nested::position::array_position_udf(),
        )),
        ScalarUDF::new_from_impl(literal::MakeArray::default()),
        ScalarUDF::new_from_impl(literal::Map::default()),
        ScalarUDF::new_from_impl(literal::Tuple::default()),
        ScalarUDF::new_from_impl(range::Range::default()),
        ScalarUDF::new_from_impl(affix::Affix::new(false)),
        ScalarUDF::new_from_impl(affix::Affix::new(true)),
    ];
    for kind in enumerate::Enumeration::ALL {
        functions.push(ScalarUDF::new_from_impl(enumerate::Enumerate::new(kind)));
    }
    for kind in cumulative::Running::ALL {
        functions.push(ScalarUDF::new_from_impl(cumulative::Cumulative::new(kind)));
    }
    for or_null in [false, true] {
        functions.push(ScalarUDF::new_from_impl(element::ArrayElement::new(
            or_null,
        )));
    }
    for kind in search::Search::ALL {
        functions.push(ScalarUDF::new_from_impl(search::ArraySearch::new(kind)));
    }
    for reverse in [false, true] {
        functions.push(ScalarUDF::new_from_impl(sort::ArraySort::new(reverse)));
        functions.push(ScalarUDF::new_from_impl(sort::Extreme::new(reverse)));
    }
    functions.push(ScalarUDF::new_from_impl(reduce::ArrayReduce::default()));
    for kind in masked::Masked::ALL {
        functions.push(ScalarUDF::new_from_impl(masked::MaskedFunction::new(kind)));
    }
    for kind in maps::MapFunction::ALL {
        functions.push(ScalarUDF::new_from_impl(maps::Map::new(kind)));
    }
    for kind in reshape::Reshape::ALL {
        functions.push(ScalarUDF::new_from_impl(reshape::ArrayReshape::new(kind)));
    }
    for (name, element) in empty::ELEMENTS {
        functions.push(ScalarUDF::new_from_impl(empty::EmptyArray::new(
            name, element,
        )));
    }
    for edit in edit::Edit::ALL {
        functions.push(ScalarUDF::new_from_impl(edit::ArrayEdit::new(edit)));
    }
    for (vector, name, alias) in distance::ALL {
        functions.push(ScalarUDF::new_from_impl(distance::ArrayVector::new(
            vector, name, alias,
        )));
    }
    for op in sets::SetOp::ALL {
        functions.push(ScalarUDF::new_from_impl(sets::ArraySet::new(op)));
    }
    functions.extend(crate::other::frame::register(map_series::SPECS));
    functions.extend(crate::other::frame::register(reverse::SPECS));
    functions.extend(crate::other::frame::register(concat::SPECS));
    functions.extend(crate::other::frame::register(shingles::SPECS));
    functions.extend(crate::other::frame::register(auc::SPECS));
    functions.extend(crate::other::frame::register(random::SPECS));
    functions.extend(crate::other::frame::register(ranked::SPECS));
    functions.extend(crate::other::frame::register(similarity::SPECS));
    functions
}

/// A ClickHouse error as DataFusion carries it.
pub(crate) fn error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    StrataError::new(code, message).into_datafusion()
}

/// ILLEGAL_TYPE_OF_ARGUMENT for argument `data_type` of `function`.
pub(crate) fn illegal_type(function: &str, data_type: &DataType) -> DataFusionError {
    error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument of function {function}",
            strata_common::types::clickhouse_type_name(data_type, false)
        ),
    )
}

/// NUMBER_OF_ARGUMENTS_DOESNT_MATCH unless `count` is within `expected`.
pub(crate) fn check_arity(
    function: &str,
    count: usize,
    expected: std::ops::RangeInclusive<usize>,
) -> Result<()> {
    if expected.contains(&count) {
        return Ok(());
    }
    Err(error(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {function} doesn't match: passed {count}, should be from {} to {}",
            expected.start(),
            expected.end()
        ),
    ))
}

/// The item field of an array type.
pub(crate) fn item_field(data_type: &DataType) -> Option<&FieldRef> {
    match data_type {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => Some(f),
        _ => None,
    }
}

/// The item field of argument `data_type` of `function`, which must be an array.
pub(crate) fn array_item(function: &str, data_type: &DataType) -> Result<FieldRef> {
    item_field(data_type)
        .cloned()
        .ok_or_else(|| illegal_type(function, data_type))
}

/// An array column as a `ListArray` (large and fixed-size lists cast).
pub(crate) fn as_list(array: &ArrayRef) -> Result<ListArray> {
    match array.data_type() {
        DataType::List(_) => Ok(array.as_list::<i32>().clone()),
        DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            let cast = cast::cast(array, &DataType::List(Arc::clone(f)))?;
            Ok(cast.as_list::<i32>().clone())
        }
        other => Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Expected an array, got {other}"),
        )),
    }
}

/// An item field named as Arrow's lists name theirs.
pub(crate) fn item(data_type: DataType, nullable: bool) -> FieldRef {
    Arc::new(Field::new_list_field(data_type, nullable))
}

/// A list column of `item`s from per-row lengths and the flattened values.
pub(crate) fn list_from_lengths(
    item: FieldRef,
    lengths: impl IntoIterator<Item = usize>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let offsets = OffsetBuffer::<i32>::from_lengths(lengths);
    Ok(Arc::new(ListArray::try_new(item, offsets, values, nulls)?))
}

/// The range of row `row`'s elements among `list`'s values.
pub(crate) fn row_range(list: &ListArray, row: usize) -> std::ops::Range<usize> {
    let offsets = list.value_offsets();
    offsets[row] as usize..offsets[row + 1] as usize
}

/// `list`'s values in Arrow's row format, whose bytes are equal exactly
/// when the values are (NULLs equal each other, floats compare by bits as
/// ClickHouse hashes them, every NaN one value whatever its sign), for sets
/// and counts of any element type.
pub(crate) fn value_rows(list: &ListArray) -> Result<Rows> {
    let converter = RowConverter::new(vec![SortField::new(list.value_type())])?;
    let values = list.values();
    let values: ArrayRef = match values.data_type() {
        DataType::Float64 => Arc::new(
            values
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| if v.is_nan() { f64::NAN } else { v }),
        ),
        DataType::Float32 => Arc::new(
            values
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| if v.is_nan() { f32::NAN } else { v }),
        ),
        _ => Arc::clone(values),
    };
    Ok(converter.convert_columns(&[values])?)
}

/// SIZES_OF_ARRAYS_DONT_MATCH unless every list's row `row` has `len` elements.
pub(crate) fn check_sizes(function: &str, lists: &[ListArray], row: usize) -> Result<()> {
    let len = lists[0].value_length(row);
    if lists.iter().all(|l| l.value_length(row) == len) {
        return Ok(());
    }
    Err(sizes_differ(function))
}

/// SIZES_OF_ARRAYS_DONT_MATCH for `function`.
pub(crate) fn sizes_differ(function: &str) -> DataFusionError {
    error(
        ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
        format!("Lengths of all arrays passed to {function} must be equal"),
    )
}

/// The arguments as arrays of `rows` rows, and whether all were scalars.
pub(crate) fn arrays_of(args: &[ColumnarValue], rows: usize) -> Result<(Vec<ArrayRef>, bool)> {
    let scalar = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
    let rows = if scalar { 1 } else { rows };
    let arrays = args
        .iter()
        .map(|a| a.to_array(rows))
        .collect::<Result<Vec<_>>>()?;
    Ok((arrays, scalar))
}

/// The value ClickHouse fills in for a missing element of `item`: NULL
/// when the item is `Nullable`, else the type's default (0, '', []).
pub(crate) fn default_of(item: &Field) -> Result<ScalarValue> {
    if item.is_nullable() {
        return ScalarValue::try_from(item.data_type());
    }
    strata_common::types::default_value(item.data_type())
}

/// ClickHouse's common type of two element types: numbers widen as
/// ClickHouse's supertype rules say, NULL joins anything; any other pair
/// must be equal. Where ClickHouse finds no common number type (UInt64
/// with a signed type, a float with a 64-bit integer) this gives Int64 or
/// Float64: functions are first typed before integer literals take their
/// ClickHouse types, when every one of them is still Int64.
pub(crate) fn supertype(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Null, other) | (other, Null) => return Some(other.clone()),
        (Utf8 | Utf8View | LargeUtf8, Utf8 | Utf8View | LargeUtf8) => return Some(Utf8),
        (List(x), List(y)) => {
            let inner = supertype(x.data_type(), y.data_type())?;
            let nullable = x.is_nullable() || y.is_nullable() || inner == Null;
            return Some(List(item(inner, nullable)));
        }
        (Struct(x), Struct(y)) if x.len() == y.len() => {
            let fields = x
                .iter()
                .zip(y.iter())
                .map(|(f, g)| {
                    let common = supertype(f.data_type(), g.data_type())?;
                    let nullable = f.is_nullable() || g.is_nullable() || common == Null;
                    Some(
                        f.as_ref()
                            .clone()
                            .with_data_type(common)
                            .with_nullable(nullable),
                    )
                })
                .collect::<Option<Vec<_>>>()?;
            return Some(Struct(fields.into()));
        }
        _ => {}
    }
    let plus = crate::arithmetic::ArithmeticOp::Plus;
    if let Some(Ok(big)) = crate::big_int::result_type(plus, a, b) {
        return Some(big);
    }
    let width = |t: &DataType| -> Option<(bool, bool, u8)> {
        // (float, signed, bytes)
        Some(match t {
            UInt8 => (false, false, 1),
            UInt16 => (false, false, 2),
            UInt32 => (false, false, 4),
            UInt64 => (false, false, 8),
            Int8 => (false, true, 1),
            Int16 => (false, true, 2),
            Int32 => (false, true, 4),
            Int64 => (false, true, 8),
            Float32 => (true, true, 4),
            Float64 => (true, true, 8),
            _ => return None,
        })
    };
    let (x, y) = (width(a)?, width(b)?);
    let float = x.0 || y.0;
    let signed = x.1 || y.1;
    let unsigned_bytes = [x, y].iter().filter(|t| !t.1).map(|t| t.2).max();
    let signed_bytes = [x, y].iter().filter(|t| t.1 && !t.0).map(|t| t.2).max();
    if float {
        let float_bytes = [x, y].iter().filter(|t| t.0).map(|t| t.2).max()?;
        let int_bytes = unsigned_bytes.max(signed_bytes).unwrap_or(0);
        return match (float_bytes, int_bytes) {
            (4, 0..=2) => Some(Float32),
            _ => Some(Float64),
        };
    }
    let bytes = match (signed, unsigned_bytes) {
        (false, Some(u)) => return Some(unsigned_type(u)),
        (true, Some(8)) => 8,
        (true, Some(u)) => (u * 2).max(signed_bytes.unwrap_or(1)),
        (true, None) => signed_bytes.unwrap_or(1),
        (false, None) => return None,
    };
    Some(signed_type(bytes))
}

fn unsigned_type(bytes: u8) -> DataType {
    match bytes {
        1 => DataType::UInt8,
        2 => DataType::UInt16,
        4 => DataType::UInt32,
        _ => DataType::UInt64,
    }
}

fn signed_type(bytes: u8) -> DataType {
    match bytes {
        1 => DataType::Int8,
        2 => DataType::Int16,
        4 => DataType::Int32,
        _ => DataType::Int64,
    }
}

/// NO_COMMON_TYPE for two types with no supertype.
pub(crate) fn no_common_type(a: &DataType, b: &DataType) -> DataFusionError {
    let name = |t| strata_common::types::clickhouse_type_name(t, false);
    error(
        ErrorCode::NO_COMMON_TYPE,
        format!("There is no supertype for types {}, {}", name(a), name(b)),
    )
}

/// The common type of several types, or NO_COMMON_TYPE.
pub(crate) fn common_type<'a>(types: impl IntoIterator<Item = &'a DataType>) -> Result<DataType> {
    let mut common = DataType::Null;
    for t in types {
        common = supertype(&common, t).ok_or_else(|| no_common_type(&common, t))?;
    }
    Ok(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supertypes_follow_clickhouse() {
        use DataType::*;
        assert_eq!(supertype(&UInt8, &Int8), Some(Int16));
        assert_eq!(supertype(&UInt32, &Int8), Some(Int64));
        assert_eq!(supertype(&UInt16, &Int32), Some(Int32));
        assert_eq!(supertype(&UInt64, &Int8), Some(Int64));
        assert_eq!(supertype(&Float32, &Int16), Some(Float32));
        assert_eq!(supertype(&Float32, &Int32), Some(Float64));
        assert_eq!(supertype(&Float64, &UInt64), Some(Float64));
        assert_eq!(supertype(&Null, &Utf8), Some(Utf8));
        assert_eq!(supertype(&Utf8, &UInt8), None);
    }
}
