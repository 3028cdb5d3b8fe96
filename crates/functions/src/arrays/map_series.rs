//! Maps as sparse series of numbers: `mapAdd(m1, m2, ...)` and
//! `mapSubtract` (the values of each key summed, or the later maps'
//! subtracted, keys in ascending order, values widened to 64 bits with
//! unsigned results wrapping), and `mapPopulateSeries(m [, max])` (every
//! integer key from the smallest to the largest, or to `max`, missing ones
//! with 0). ClickHouse's forms over key and value arrays take the same
//! way through maps: `mapAdd((keys, values), ...)` and
//! `mapPopulateSeries(keys, values [, max])` answer a tuple of two arrays.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int64Array, MapArray, StructArray, UInt32Array,
    UInt64Array,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Float64Type};
use datafusion::arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use crate::other::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "mapAdd",
        aliases: &[],
        args: (1, usize::MAX),
        volatility: Volatility::Immutable,
        typing: |t| as_arrays_typing(t, sum_typing),
        eval: |call| as_arrays_eval(call, |call| summed(call, false)),
    },
    Spec {
        name: "mapSubtract",
        aliases: &[],
        args: (1, usize::MAX),
        volatility: Volatility::Immutable,
        typing: |t| as_arrays_typing(t, sum_typing),
        eval: |call| as_arrays_eval(call, |call| summed(call, true)),
    },
    Spec {
        name: "mapPopulateSeries",
        aliases: &[],
        args: (1, 3),
        volatility: Volatility::Immutable,
        typing: |t| as_arrays_typing(t, populated_typing),
        eval: |call| as_arrays_eval(call, populated),
    },
];

/// `mapPopulateSeries(m [, max])`: a map of the same key and value types.
fn populated_typing(t: &Typing) -> Result<Field> {
    if t.fields.len() > 2 {
        return Err(failure(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Function {} takes a map and a maximum key", t.name),
        ));
    }
    let (key, value) = map_entry_types(t, 0)?;
    if !key.data_type().is_integer() {
        return Err(illegal_key(t.name, key.data_type()));
    }
    if let Some(max) = t.fields.get(1)
        && !max.data_type().is_integer()
    {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Max key argument in arguments of function {} must be an integer",
                t.name
            ),
        ));
    }
    let value_type = value.data_type().clone();
    Ok(t.plain(map_type(
        key.data_type().clone(),
        (value_type, value.is_nullable()),
    )))
}

/// The key and value arrays each argument holds in the arrays form: a
/// tuple of two arrays (`mapAdd`), or, for `mapPopulateSeries`, the first
/// two arguments; `None` for the maps form.
fn array_pairs(name: &str, fields: &[FieldRef]) -> Option<Vec<(usize, Option<usize>)>> {
    let is_list = |f: &FieldRef| matches!(f.data_type(), DataType::List(_));
    if name == "mapPopulateSeries" {
        return (fields.len() >= 2 && is_list(&fields[0]) && is_list(&fields[1])).then(|| {
            let mut pairs = vec![(0, Some(1))];
            pairs.extend((2..fields.len()).map(|i| (i, None)));
            pairs
        });
    }
    let is_pair = |f: &FieldRef| match f.data_type() {
        DataType::Struct(items) => items.len() == 2 && items.iter().all(is_list),
        _ => false,
    };
    fields
        .iter()
        .all(is_pair)
        .then(|| (0..fields.len()).map(|i| (i, None)).collect())
}

/// The map field of a pair of key and value array fields.
fn pair_map_field(keys: &Field, values: &Field) -> FieldRef {
    let item = |f: &Field| match f.data_type() {
        DataType::List(item) => item.as_ref().clone(),
        _ => unreachable!("checked by array_pairs"),
    };
    let (key, value) = (item(keys), item(values));
    Arc::new(Field::new(
        keys.name(),
        map_type(
            key.data_type().clone(),
            (value.data_type().clone(), value.is_nullable()),
        ),
        false,
    ))
}

/// Argument fields with each pair of arrays as a map field.
fn maps_of_pairs(fields: &[FieldRef], pairs: &[(usize, Option<usize>)]) -> Vec<FieldRef> {
    pairs
        .iter()
        .map(|&(i, values)| match (values, fields[i].data_type()) {
            (Some(v), _) => pair_map_field(&fields[i], &fields[v]),
            (None, DataType::Struct(items)) => pair_map_field(&items[0], &items[1]),
            (None, _) => Arc::clone(&fields[i]),
        })
        .collect()
}

/// A map type as the tuple of its key and value arrays.
fn pair_type(map: &DataType) -> DataType {
    let DataType::Map(entries, _) = map else {
        unreachable!("typed as a map");
    };
    let DataType::Struct(fields) = entries.data_type() else {
        unreachable!("a map's entries are key-value structs");
    };
    let list = |f: &FieldRef| DataType::List(Arc::new(f.as_ref().clone().with_name("item")));
    DataType::Struct(Fields::from(vec![
        Field::new("c0", list(&fields[0]), false),
        Field::new("c1", list(&fields[1]), false),
    ]))
}

/// Types the arrays form as the maps form, answering a tuple of arrays.
fn as_arrays_typing(t: &Typing, maps: fn(&Typing) -> Result<Field>) -> Result<Field> {
    let Some(pairs) = array_pairs(t.name, t.fields) else {
        return maps(t);
    };
    let fields = maps_of_pairs(t.fields, &pairs);
    let map = maps(&t.over(&fields))?;
    Ok(t.plain(pair_type(map.data_type())))
}

/// Runs the arrays form as the maps form over maps built from the pairs.
fn as_arrays_eval(call: &Call, maps: fn(&Call) -> Result<ColumnarValue>) -> Result<ColumnarValue> {
    let Some(pairs) = array_pairs(call.name, call.fields) else {
        return maps(call);
    };
    let fields = maps_of_pairs(call.fields, &pairs);
    let mut args = Vec::with_capacity(pairs.len());
    for (&(i, values), field) in pairs.iter().zip(&fields) {
        let arg = match (values, call.fields[i].data_type()) {
            (Some(v), _) => pair_map(call, field, &call.column(i)?, &call.column(v)?)?,
            (None, DataType::Struct(_)) => {
                let pair = call.column(i)?;
                let pair = pair.as_struct();
                pair_map(call, field, pair.column(0), pair.column(1))?
            }
            (None, _) => call.column(i)?,
        };
        args.push(ColumnarValue::Array(arg));
    }
    let result = Field::new(call.name, map_type_of_pair(call.result.data_type()), false);
    let mapped = maps(&Call {
        name: call.name,
        args: &args,
        fields: &fields,
        rows: call.rows,
        result: &result,
    })?;
    let map = mapped.to_array(call.rows)?;
    call.output(map_as_pair(map.as_map(), call.result.data_type())?)
}

/// The map type whose tuple of arrays `pair` is.
fn map_type_of_pair(pair: &DataType) -> DataType {
    let DataType::Struct(items) = pair else {
        unreachable!("typed as a tuple");
    };
    pair_map_field(&items[0], &items[1]).data_type().clone()
}

/// Keys and values of each row as a map: both arrays as long as each other.
fn pair_map(call: &Call, field: &Field, keys: &ArrayRef, values: &ArrayRef) -> Result<ArrayRef> {
    let DataType::Map(entries, _) = field.data_type() else {
        unreachable!("built as a map");
    };
    let DataType::Struct(entry_fields) = entries.data_type() else {
        unreachable!("a map's entries are key-value structs");
    };
    let (keys, values) = (keys.as_list::<i32>(), values.as_list::<i32>());
    let mut lengths = Vec::with_capacity(call.rows);
    let (mut key_parts, mut value_parts) = (Vec::new(), Vec::new());
    for row in 0..call.rows {
        let (k, v) = (keys.value(row), values.value(row));
        if k.len() != v.len() {
            return Err(failure(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Key and value array should have same amount of elements in function {}",
                    call.name
                ),
            ));
        }
        lengths.push(k.len());
        key_parts.push(k);
        value_parts.push(v);
    }
    let keys = concat_or_empty(&key_parts, entry_fields[0].data_type())?;
    let values = concat_or_empty(&value_parts, entry_fields[1].data_type())?;
    map_array(entries, entry_fields, keys, values, lengths)
}

/// A map column as the tuple of its key and value arrays.
fn map_as_pair(map: &MapArray, pair: &DataType) -> Result<ArrayRef> {
    let DataType::Struct(items) = pair else {
        unreachable!("typed as a tuple");
    };
    let list = |item: &FieldRef, values: &ArrayRef| -> Result<ArrayRef> {
        let DataType::List(element) = item.data_type() else {
            unreachable!("a tuple of arrays");
        };
        Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(
            Arc::clone(element),
            map.offsets().clone(),
            Arc::clone(values),
            None,
        )?))
    };
    let columns = vec![list(&items[0], map.keys())?, list(&items[1], map.values())?];
    Ok(Arc::new(StructArray::try_new(
        items.clone(),
        columns,
        None,
    )?))
}

/// A map of `key` to `value`, whose values are NULL only where an
/// argument's may be (missing keys take 0, not NULL).
fn map_type(key: DataType, (value, nullable): (DataType, bool)) -> DataType {
    let entries = Fields::from(vec![
        Field::new("keys", key, false),
        Field::new("values", value, nullable),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

/// Argument `i`'s key and value fields, which must be a map's.
fn map_entry_types(t: &Typing, i: usize) -> Result<(FieldRef, FieldRef)> {
    match t.fields[i].data_type() {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) if fields.len() == 2 => {
                Ok((fields[0].clone(), fields[1].clone()))
            }
            _ => unreachable!("a map's entries are key-value structs"),
        },
        other => Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of argument {} of function {}, expected Map",
                clickhouse_type_name(other, false),
                i + 1,
                t.name
            ),
        )),
    }
}

fn illegal_key(function: &str, t: &DataType) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal column type {} for keys in arguments of function {function}",
            clickhouse_type_name(t, false)
        ),
    )
}

/// Maps of one key type whose values are numbers of one kind: the result
/// keeps the keys and sums in Int64, UInt64 or Float64.
fn sum_typing(t: &Typing) -> Result<Field> {
    if t.fields.len() < 2 {
        return Err(failure(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("{} accepts at least two maps or map tuples", t.name),
        ));
    }
    let (key, first_value) = map_entry_types(t, 0)?;
    let key_ok = key.data_type().is_integer()
        || matches!(
            key.data_type(),
            DataType::Utf8 | DataType::Date32 | DataType::Timestamp(..)
        );
    if !key_ok {
        return Err(illegal_key(t.name, key.data_type()));
    }
    let mut values = vec![first_value.data_type().clone()];
    let mut nullable = first_value.is_nullable();
    for i in 1..t.fields.len() {
        let (other_key, value) = map_entry_types(t, i)?;
        let same = other_key.data_type() == key.data_type()
            || other_key.data_type().is_integer() && key.data_type().is_integer();
        if !same {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Expected same {} type for all keys in {}",
                    clickhouse_type_name(key.data_type(), false),
                    t.name
                ),
            ));
        }
        values.push(value.data_type().clone());
        nullable |= value.is_nullable();
    }
    let sum = if values.iter().all(|v| v.is_floating()) {
        DataType::Float64
    } else if values.iter().all(|v| v.is_unsigned_integer()) {
        DataType::UInt64
    } else if values.iter().all(|v| v.is_integer()) {
        DataType::Int64
    } else {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "All value types in {} should be either or float or integer",
                t.name
            ),
        ));
    };
    Ok(t.plain(map_type(key.data_type().clone(), (sum, nullable))))
}

/// A sum in the kind of the result's values.
#[derive(Clone, Copy)]
enum Sum {
    Integer(i64),
    Float(f64),
}

fn summed(call: &Call, subtract: bool) -> Result<ColumnarValue> {
    let DataType::Map(entries, _) = call.result.data_type() else {
        unreachable!("typed as a map");
    };
    let DataType::Struct(fields) = entries.data_type() else {
        unreachable!("a map's entries are key-value structs");
    };
    let (key_type, value_type) = (fields[0].data_type(), fields[1].data_type());
    let float = value_type.is_floating();
    let converter = RowConverter::new(vec![SortField::new(key_type.clone())])?;
    let maps: Vec<ArrayRef> = (0..call.args.len())
        .map(|i| call.column(i))
        .collect::<Result<_>>()?;
    let mut keys_out: Vec<ArrayRef> = Vec::new();
    let mut values_out: Vec<Sum> = Vec::new();
    let mut lengths = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        // Keys in their sort order, through the row format.
        let mut sums: BTreeMap<OwnedRow, (ArrayRef, Sum)> = BTreeMap::new();
        for (i, map) in maps.iter().enumerate() {
            let map = map.as_map();
            if map.is_null(row) {
                continue;
            }
            let entry = map.value(row);
            let keys = cast(entry.column(0), key_type)?;
            let rows = converter.convert_columns(&[Arc::clone(&keys)])?;
            let values = numbers(entry.column(1), float)?;
            for (e, value) in values.into_iter().enumerate() {
                let slot = sums
                    .entry(rows.row(e).owned())
                    .or_insert_with(|| (keys.slice(e, 1), zero(float)));
                slot.1 = combine(slot.1, value, subtract && i > 0);
            }
        }
        lengths.push(sums.len());
        for (_, (key, sum)) in sums {
            keys_out.push(key);
            values_out.push(sum);
        }
    }
    let keys = concat_or_empty(&keys_out, key_type)?;
    let values: ArrayRef =
        match value_type {
            DataType::Float64 => Arc::new(Float64Array::from_iter_values(values_out.iter().map(
                |s| match s {
                    Sum::Float(v) => *v,
                    Sum::Integer(v) => *v as f64,
                },
            ))),
            _ => {
                let integers = Int64Array::from_iter_values(values_out.iter().map(|s| match s {
                    Sum::Integer(v) => *v,
                    Sum::Float(v) => *v as i64,
                }));
                // Unsigned sums wrap, as ClickHouse's UInt64 arithmetic does.
                reinterpret(&integers, value_type)?
            }
        };
    call.output(map_array(entries, fields, keys, values, lengths)?)
}

/// Int64 sums as the result type, UInt64 taking the bits as they are.
fn reinterpret(integers: &Int64Array, t: &DataType) -> Result<ArrayRef> {
    match t {
        DataType::UInt64 => Ok(Arc::new(UInt64Array::from_iter_values(
            integers.values().iter().map(|&v| v as u64),
        ))),
        _ => Ok(Arc::new(integers.clone())),
    }
}

fn zero(float: bool) -> Sum {
    if float {
        Sum::Float(0.0)
    } else {
        Sum::Integer(0)
    }
}

fn combine(acc: Sum, value: Sum, subtract: bool) -> Sum {
    match (acc, value) {
        (Sum::Integer(a), Sum::Integer(b)) if subtract => Sum::Integer(a.wrapping_sub(b)),
        (Sum::Integer(a), Sum::Integer(b)) => Sum::Integer(a.wrapping_add(b)),
        (Sum::Float(a), Sum::Float(b)) if subtract => Sum::Float(a - b),
        (Sum::Float(a), Sum::Float(b)) => Sum::Float(a + b),
        _ => unreachable!("one kind of sum per call"),
    }
}

/// A map's values as sums of the result's kind; NULL counts as 0.
fn numbers(values: &ArrayRef, float: bool) -> Result<Vec<Sum>> {
    Ok(if float {
        let floats = cast(values, &DataType::Float64)?;
        floats
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| Sum::Float(v.unwrap_or(0.0)))
            .collect()
    } else {
        let integers = crate::int_cast::to_i64_wrapping(values)?;
        integers
            .iter()
            .map(|v| Sum::Integer(v.unwrap_or(0)))
            .collect()
    })
}

fn concat_or_empty(parts: &[ArrayRef], t: &DataType) -> Result<ArrayRef> {
    if parts.is_empty() {
        return Ok(datafusion::arrow::array::new_empty_array(t));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
    Ok(datafusion::arrow::compute::concat(&refs)?)
}

fn map_array(
    entries: &FieldRef,
    fields: &Fields,
    keys: ArrayRef,
    values: ArrayRef,
    lengths: Vec<usize>,
) -> Result<ArrayRef> {
    let structs = StructArray::try_new(fields.clone(), vec![keys, values], None)?;
    Ok(Arc::new(MapArray::try_new(
        Arc::clone(entries),
        OffsetBuffer::from_lengths(lengths),
        structs,
        None,
        false,
    )?))
}

fn populated(call: &Call) -> Result<ColumnarValue> {
    let DataType::Map(entries, _) = call.result.data_type() else {
        unreachable!("typed as a map");
    };
    let DataType::Struct(fields) = entries.data_type() else {
        unreachable!("a map's entries are key-value structs");
    };
    let maps = call.column(0)?;
    let maps = maps.as_map();
    let limits = match call.args.len() {
        2 => Some(crate::int_cast::to_i64_wrapping(&call.column(1)?)?),
        _ => None,
    };
    let mut all_keys: Vec<i64> = Vec::new();
    // Where each output value comes from: an entry of the input, or a 0.
    let mut sources: Vec<Option<u32>> = Vec::new();
    let mut lengths = Vec::with_capacity(call.rows);
    let flat_keys = crate::int_cast::to_i64_wrapping(maps.keys())?;
    for row in 0..call.rows {
        let range = maps.value_offsets()[row] as usize..maps.value_offsets()[row + 1] as usize;
        let mut present: BTreeMap<i64, u32> = BTreeMap::new();
        for e in range {
            present.entry(flat_keys.value(e)).or_insert(e as u32);
        }
        let (Some(&low), Some(&high)) = (present.keys().next(), present.keys().next_back()) else {
            lengths.push(0);
            continue;
        };
        let high = match &limits {
            Some(limits) if limits.is_valid(row) => limits.value(row),
            _ => high,
        };
        let before = all_keys.len();
        for key in low..=high {
            all_keys.push(key);
            sources.push(present.get(&key).copied());
        }
        lengths.push(all_keys.len() - before);
    }
    let keys: ArrayRef = Arc::new(Int64Array::from(all_keys));
    let keys = cast(&keys, fields[0].data_type())?;
    // Missing keys take the value type's zero: index past the end picks a
    // zero appended to the values.
    let zero = strata_common::types::default_value(fields[1].data_type())?.to_array()?;
    let with_zero = concat_or_empty(&[Arc::clone(maps.values()), zero], fields[1].data_type())?;
    let zero_at = (with_zero.len() - 1) as u32;
    let indices: UInt32Array = sources.iter().map(|s| Some(s.unwrap_or(zero_at))).collect();
    let values = take(&with_zero, &indices, None)?;
    call.output(map_array(entries, fields, keys, values, lengths)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_differences_wrap() {
        assert!(matches!(
            combine(Sum::Integer(1), Sum::Integer(2), true),
            Sum::Integer(-1)
        ));
        let wrapped = reinterpret(&Int64Array::from(vec![-1]), &DataType::UInt64).unwrap();
        assert_eq!(
            wrapped
                .as_primitive::<datafusion::arrow::datatypes::UInt64Type>()
                .value(0),
            u64::MAX
        );
    }
}
