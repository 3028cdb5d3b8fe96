//! Map functions with ClickHouse's semantics. A Map is an Arrow map, a
//! list of (key, value) entries per row, which may repeat a key as
//! ClickHouse's may. `mapContainsKey(m, k)` (also `mapContains`) and
//! `mapContainsValue(m, v)` (UInt8); `mapContainsKeyLike(m, pattern)`,
//! `mapContainsValueLike`, and `mapExtractKeyLike` / `mapExtractValueLike`
//! (the entries whose key / value matches the LIKE pattern);
//! `mapFromArrays(keys, values)` (also `MAP_FROM_ARRAYS`); `mapSort(m[,
//! keys])` / `mapReverseSort` (by key, or by the lambda's values the SQL
//! front passes as an array); `mapConcat(m, ...)` (all entries in order);
//! `mapUpdate(m1, m2)` (m1's entries with m2's values where m2 has the
//! key, then m2's other entries); `mapFilter(m, conditions)` (the entries
//! whose lambda value is true).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, ListArray, MapArray, StructArray, UInt8Array,
    UInt32Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::kernels::{cast, interleave::interleave};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    array_item, arrays_of, as_list, check_arity, error, illegal_type, no_common_type, row_range,
    sizes_differ, supertype,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapFunction {
    ContainsKey,
    ContainsValue,
    ContainsKeyLike,
    ContainsValueLike,
    ExtractKeyLike,
    ExtractValueLike,
    FromArrays,
    Sort,
    ReverseSort,
    Concat,
    Update,
    Filter,
}

impl MapFunction {
    pub const ALL: [MapFunction; 12] = [
        MapFunction::ContainsKey,
        MapFunction::ContainsValue,
        MapFunction::ContainsKeyLike,
        MapFunction::ContainsValueLike,
        MapFunction::ExtractKeyLike,
        MapFunction::ExtractValueLike,
        MapFunction::FromArrays,
        MapFunction::Sort,
        MapFunction::ReverseSort,
        MapFunction::Concat,
        MapFunction::Update,
        MapFunction::Filter,
    ];

    fn name(self) -> &'static str {
        match self {
            MapFunction::ContainsKey => "mapContainsKey",
            MapFunction::ContainsValue => "mapContainsValue",
            MapFunction::ContainsKeyLike => "mapContainsKeyLike",
            MapFunction::ContainsValueLike => "mapContainsValueLike",
            MapFunction::ExtractKeyLike => "mapExtractKeyLike",
            MapFunction::ExtractValueLike => "mapExtractValueLike",
            MapFunction::FromArrays => "mapFromArrays",
            MapFunction::Sort => "mapSort",
            MapFunction::ReverseSort => "mapReverseSort",
            MapFunction::Concat => "mapConcat",
            MapFunction::Update => "mapUpdate",
            MapFunction::Filter => "mapFilter",
        }
    }

    fn arity(self) -> std::ops::RangeInclusive<usize> {
        match self {
            MapFunction::Sort | MapFunction::ReverseSort => 1..=2,
            MapFunction::Concat => 1..=usize::MAX,
            _ => 2..=2,
        }
    }

    /// Whether the value side (rather than the key side) is searched.
    fn on_values(self) -> bool {
        matches!(
            self,
            MapFunction::ContainsValue
                | MapFunction::ContainsValueLike
                | MapFunction::ExtractValueLike
        )
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Map {
    kind: MapFunction,
    signature: Signature,
    aliases: Vec<String>,
}

impl Map {
    pub fn new(kind: MapFunction) -> Self {
        let aliases = match kind {
            MapFunction::ContainsKey => vec!["mapContains".to_string()],
            MapFunction::FromArrays => vec!["MAP_FROM_ARRAYS".to_string()],
            _ => vec![],
        };
        Map {
            kind,
            signature: Signature::user_defined(Volatility::Immutable),
            aliases,
        }
    }

    fn result_type(&self, fields: &[FieldRef]) -> Result<DataType> {
        let name = self.name();
        check_arity(name, fields.len(), self.kind.arity())?;
        if self.kind == MapFunction::FromArrays {
            let keys = array_item(name, fields[0].data_type())?;
            let values = array_item(name, fields[1].data_type())?;
            return Ok(map_type(keys.data_type(), &values));
        }
        let (key, value) = entry_fields(name, fields[0].data_type())?;
        Ok(match self.kind {
            MapFunction::ContainsKey | MapFunction::ContainsValue => {
                let side = if self.kind.on_values() {
                    value.data_type()
                } else {
                    key.data_type()
                };
                supertype(side, fields[1].data_type())
                    .ok_or_else(|| no_common_type(side, fields[1].data_type()))?;
                DataType::UInt8
            }
            MapFunction::ContainsKeyLike | MapFunction::ContainsValueLike => DataType::UInt8,
            MapFunction::Concat | MapFunction::Update => {
                // Maps differing only in whether values are Nullable meet
                // in the Nullable one.
                let mut nullable = value.is_nullable();
                for f in &fields[1..] {
                    let (k, v) = entry_fields(name, f.data_type())?;
                    if k.data_type() != key.data_type() || v.data_type() != value.data_type() {
                        return Err(no_common_type(fields[0].data_type(), f.data_type()));
                    }
                    nullable |= v.is_nullable();
                }
                match nullable == value.is_nullable() {
                    true => fields[0].data_type().clone(),
                    false => map_type(
                        key.data_type(),
                        &Arc::new(value.as_ref().clone().with_nullable(true)),
                    ),
                }
            }
            _ => fields[0].data_type().clone(),
        })
    }
}

/// The Map type of `keys` and `values` entries.
fn map_type(keys: &DataType, values: &FieldRef) -> DataType {
    let entries = Fields::from(vec![
        Field::new("key", keys.clone(), false),
        values.as_ref().clone().with_name("value"),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

/// The key and value fields of a map type.
fn entry_fields(function: &str, data_type: &DataType) -> Result<(FieldRef, FieldRef)> {
    let DataType::Map(entries, _) = data_type else {
        return Err(illegal_type(function, data_type));
    };
    let DataType::Struct(kv) = entries.data_type() else {
        unreachable!("a map's entries are a struct")
    };
    Ok((Arc::clone(&kv[0]), Arc::clone(&kv[1])))
}

fn as_map(array: &ArrayRef) -> &MapArray {
    array
        .as_any()
        .downcast_ref::<MapArray>()
        .expect("a map column")
}

/// A map column of `map_type` from picked entries: per row, (map argument,
/// entry index) pairs.
fn map_from_picks(
    map_type: &DataType,
    maps: &[&MapArray],
    picks: &[Vec<(usize, usize)>],
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let DataType::Map(field, sorted) = map_type else {
        unreachable!("a map type")
    };
    let DataType::Struct(kv) = field.data_type() else {
        unreachable!("map entries")
    };
    let flat: Vec<(usize, usize)> = picks.iter().flatten().copied().collect();
    let keys: Vec<&dyn Array> = maps.iter().map(|m| m.keys().as_ref()).collect();
    let values: Vec<&dyn Array> = maps.iter().map(|m| m.values().as_ref()).collect();
    let columns = vec![interleave(&keys, &flat)?, interleave(&values, &flat)?];
    let entries = StructArray::try_new(kv.clone(), columns, None)?;
    let offsets = OffsetBuffer::<i32>::from_lengths(picks.iter().map(Vec::len));
    Ok(Arc::new(MapArray::try_new(
        Arc::clone(field),
        offsets,
        entries,
        nulls,
        *sorted,
    )?))
}

fn offsets_range(map: &MapArray, row: usize) -> std::ops::Range<usize> {
    let o = map.value_offsets();
    o[row] as usize..o[row + 1] as usize
}

/// Per entry, whether its key (or value) matches the row's LIKE pattern.
fn like_matches(map: &MapArray, patterns: &ArrayRef, on_values: bool) -> Result<BooleanArray> {
    let side = if on_values { map.values() } else { map.keys() };
    let text = cast::cast(side, &DataType::Utf8)?;
    let rows: Vec<u32> = (0..map.len())
        .flat_map(|row| offsets_range(map, row).map(move |_| row as u32))
        .collect();
    let base = map.value_offsets()[0] as usize;
    let text = text.slice(base, rows.len());
    let patterns = cast::cast(patterns, &DataType::Utf8)?;
    let patterns = datafusion::arrow::compute::take(&patterns, &UInt32Array::from(rows), None)?;
    let matched = datafusion::arrow::compute::kernels::comparison::like(
        text.as_string::<i32>(),
        patterns.as_string::<i32>(),
    )?;
    // Positions are shifted so that entry i is at i - base; put them back.
    let mut all = vec![false; base];
    all.extend((0..matched.len()).map(|i| matched.is_valid(i) && matched.value(i)));
    Ok(BooleanArray::from(all))
}

/// Per entry, whether its key (or value) equals the row's sought value.
fn equal_matches(map: &MapArray, sought: &ArrayRef, on_values: bool) -> Result<Vec<bool>> {
    let side = if on_values { map.values() } else { map.keys() };
    let common = supertype(side.data_type(), sought.data_type())
        .ok_or_else(|| no_common_type(side.data_type(), sought.data_type()))?;
    let converter = RowConverter::new(vec![SortField::new(common.clone())])?;
    let entries = converter.convert_columns(&[cast::cast(side, &common)?])?;
    let sought = converter.convert_columns(&[cast::cast(sought, &common)?])?;
    let mut out = vec![false; side.len()];
    for row in 0..map.len() {
        for i in offsets_range(map, row) {
            out[i] = entries.row(i) == sought.row(row);
        }
    }
    Ok(out)
}

impl Map {
    fn invoke_arrays(&self, arrays: &[ArrayRef], result: &DataType) -> Result<ArrayRef> {
        if self.kind == MapFunction::FromArrays {
            return from_arrays(
                &as_list(&arrays[0])?,
                &as_list(&arrays[1])?,
                result,
                self.name(),
            );
        }
        let map = as_map(&arrays[0]);
        let rows = map.len();
        let nulls = map.nulls().cloned();
        let matches: Vec<bool> = match self.kind {
            MapFunction::ContainsKey | MapFunction::ContainsValue => {
                equal_matches(map, &arrays[1], self.kind.on_values())?
            }
            MapFunction::ContainsKeyLike
            | MapFunction::ContainsValueLike
            | MapFunction::ExtractKeyLike
            | MapFunction::ExtractValueLike => {
                like_matches(map, &arrays[1], self.kind.on_values())?
                    .values()
                    .iter()
                    .collect()
            }
            MapFunction::Filter => filter_conditions(map, &arrays[1], self.name())?,
            _ => Vec::new(),
        };
        if result == &DataType::UInt8 {
            let found = (0..rows).map(|r| u8::from(offsets_range(map, r).any(|i| matches[i])));
            return Ok(Arc::new(UInt8Array::new(found.collect(), nulls)));
        }
        let same_types: Vec<ArrayRef> = match self.kind {
            MapFunction::Concat | MapFunction::Update => arrays
                .iter()
                .map(|a| match a.data_type() == result {
                    true => Ok(Arc::clone(a)),
                    false => datafusion::arrow::compute::cast(a, result),
                })
                .collect::<std::result::Result<_, _>>()?,
            _ => Vec::new(),
        };
        let maps: Vec<&MapArray> = match self.kind {
            MapFunction::Concat | MapFunction::Update => same_types.iter().map(as_map).collect(),
            _ => vec![map],
        };
        let picks: Vec<Vec<(usize, usize)>> = match self.kind {
            MapFunction::Sort | MapFunction::ReverseSort => {
                sorted_picks(map, arrays.get(1), self.kind == MapFunction::ReverseSort)?
            }
            MapFunction::Concat => (0..rows)
                .map(|r| {
                    maps.iter()
                        .enumerate()
                        .flat_map(|(m, map)| offsets_range(map, r).map(move |i| (m, i)))
                        .collect()
                })
                .collect(),
            MapFunction::Update => update_picks(maps[0], maps[1])?,
            _ => (0..rows)
                .map(|r| {
                    offsets_range(map, r)
                        .filter(|&i| matches[i])
                        .map(|i| (0, i))
                        .collect()
                })
                .collect(),
        };
        let nulls = NullBuffer::union_many(maps.iter().map(|m| m.nulls()));
        map_from_picks(result, &maps, &picks, nulls)
    }
}

/// The lambda's values, one per entry, as booleans.
fn filter_conditions(map: &MapArray, conditions: &ArrayRef, name: &str) -> Result<Vec<bool>> {
    let conditions = as_list(conditions)?;
    let truth = cast::cast(conditions.values(), &DataType::Boolean)?;
    let truth = truth.as_boolean();
    let mut out = vec![false; map.entries().len()];
    for row in 0..map.len() {
        let (own, given) = (offsets_range(map, row), row_range(&conditions, row));
        if own.len() != given.len() {
            return Err(sizes_differ(name));
        }
        for (i, c) in own.zip(given) {
            out[i] = truth.is_valid(c) && truth.value(c);
        }
    }
    Ok(out)
}

fn sorted_picks(
    map: &MapArray,
    keys: Option<&ArrayRef>,
    reverse: bool,
) -> Result<Vec<Vec<(usize, usize)>>> {
    let (order, ranges): (ArrayRef, Vec<std::ops::Range<usize>>) = match keys {
        Some(keys) => {
            let keys = as_list(keys)?;
            let ranges = (0..keys.len()).map(|r| row_range(&keys, r)).collect();
            (Arc::clone(keys.values()), ranges)
        }
        None => (
            Arc::clone(map.keys()),
            (0..map.len()).map(|r| offsets_range(map, r)).collect(),
        ),
    };
    let converter = RowConverter::new(vec![SortField::new(order.data_type().clone())])?;
    let rows = converter.convert_columns(&[order])?;
    (0..map.len())
        .map(|r| {
            let own = offsets_range(map, r);
            let by = &ranges[r];
            if own.len() != by.len() {
                return Err(sizes_differ(if reverse {
                    "mapReverseSort"
                } else {
                    "mapSort"
                }));
            }
            let mut positions: Vec<usize> = (0..own.len()).collect();
            positions.sort_by(|&a, &b| {
                let o = rows.row(by.start + a).cmp(&rows.row(by.start + b));
                if reverse { o.reverse() } else { o }
            });
            Ok(positions.into_iter().map(|p| (0, own.start + p)).collect())
        })
        .collect()
}

fn update_picks(first: &MapArray, second: &MapArray) -> Result<Vec<Vec<(usize, usize)>>> {
    let converter = RowConverter::new(vec![SortField::new(first.keys().data_type().clone())])?;
    let a = converter.convert_columns(&[Arc::clone(first.keys())])?;
    let b = converter.convert_columns(&[cast::cast(second.keys(), first.keys().data_type())?])?;
    Ok((0..first.len())
        .map(|r| {
            let theirs: Vec<usize> = offsets_range(second, r).collect();
            let mut picks: Vec<(usize, usize)> = offsets_range(first, r)
                .map(|i| match theirs.iter().find(|&&j| b.row(j) == a.row(i)) {
                    Some(&j) => (1, j),
                    None => (0, i),
                })
                .collect();
            let ours: Vec<usize> = offsets_range(first, r).collect();
            picks.extend(
                theirs
                    .into_iter()
                    .filter(|&j| !ours.iter().any(|&i| a.row(i) == b.row(j)))
                    .map(|j| (1, j)),
            );
            picks
        })
        .collect())
}

/// The map of `keys[i]` to `values[i]` per row; a key may repeat.
pub(super) fn from_arrays(
    keys: &ListArray,
    values: &ListArray,
    result: &DataType,
    name: &str,
) -> Result<ArrayRef> {
    for row in 0..keys.len() {
        if keys.value_length(row) != values.value_length(row) {
            return Err(sizes_differ(name));
        }
    }
    let DataType::Map(field, sorted) = result else {
        unreachable!("a map type")
    };
    let DataType::Struct(kv) = field.data_type() else {
        unreachable!("map entries")
    };
    let (base, end) = (
        keys.value_offsets()[0] as usize,
        keys.value_offsets()[keys.len()] as usize,
    );
    let key_values = keys.values().slice(base, end - base);
    if key_values.null_count() > 0 {
        return Err(error(ErrorCode::BAD_ARGUMENTS, "A map key cannot be NULL"));
    }
    let value_base = values.value_offsets()[0] as usize;
    let value_values = values.values().slice(value_base, end - base);
    let entries = StructArray::try_new(
        kv.clone(),
        vec![key_values, cast::cast(&value_values, kv[1].data_type())?],
        None,
    )?;
    let offsets =
        OffsetBuffer::<i32>::from_lengths((0..keys.len()).map(|r| keys.value_length(r) as usize));
    let nulls = NullBuffer::union(keys.nulls(), values.nulls());
    Ok(Arc::new(MapArray::try_new(
        Arc::clone(field),
        offsets,
        entries,
        nulls,
        *sorted,
    )?))
}

impl ScalarUDFImpl for Map {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), true)))
            .collect();
        self.result_type(&fields)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = self.result_type(args.arg_fields)?;
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let out = self.invoke_arrays(&arrays, args.return_field.data_type())?;
        crate::columnar(out, scalar)
    }
}
