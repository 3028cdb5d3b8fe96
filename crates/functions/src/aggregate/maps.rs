//! `sumMap`, `minMap`, `maxMap`, `sumMapWithOverflow`, `sumMappedArrays`
//! and `sumMapFiltered(keys)`: values combined per key, keys in ascending
//! order. Arguments are a keys array and one or more values arrays (or one
//! tuple of them), giving a tuple of arrays, or a Map, giving a Map.
//! `sumMap` sums in the widest type of the value's kind (UInt64, Int64,
//! Float64; decimals keep theirs) and drops keys whose sum is 0 in the array
//! form; `sumMapWithOverflow` sums in the value's own type, wrapping.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, MapArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use strata_common::ErrorCode;

use super::frame::{
    Aggregate, AggregateSpec, Call, error, expect_params, illegal_type, list_of, list_rows,
    list_scalar, state_list_of, state_list_scalar,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    Sum,
    SumWithOverflow,
    Min,
    Max,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MapAggregate {
    combine: Combine,
    name: &'static str,
    filtered: bool,
}

pub fn functions() -> Vec<AggregateUDF> {
    let spec = |combine, name, filtered| MapAggregate {
        combine,
        name,
        filtered,
    };
    vec![
        Aggregate::udaf(spec(Combine::Sum, "sumMap", false), &[]),
        Aggregate::udaf(spec(Combine::Sum, "sumMappedArrays", false), &[]),
        Aggregate::udaf(
            spec(Combine::SumWithOverflow, "sumMapWithOverflow", false),
            &[],
        ),
        Aggregate::udaf(spec(Combine::Min, "minMap", false), &["minMappedArrays"]),
        Aggregate::udaf(spec(Combine::Max, "maxMap", false), &["maxMappedArrays"]),
        Aggregate::udaf(spec(Combine::Sum, "sumMapFiltered", true), &[]),
        Aggregate::udaf(
            spec(Combine::SumWithOverflow, "sumMapFilteredWithOverflow", true),
            &[],
        ),
    ]
}

/// The argument's shape: key and value types, and whether it is a Map.
fn shape(args: &[DataType]) -> Option<(DataType, Vec<DataType>, bool)> {
    let item = |t: &DataType| match t {
        DataType::List(f) => Some(f.data_type().clone()),
        _ => None,
    };
    match args {
        [DataType::Map(entries, _)] => match entries.data_type() {
            DataType::Struct(f) => Some((
                f[0].data_type().clone(),
                vec![f[1].data_type().clone()],
                true,
            )),
            _ => None,
        },
        [DataType::Struct(fields)] => {
            let types: Vec<DataType> = fields.iter().map(|f| f.data_type().clone()).collect();
            shape(&types).filter(|s| !s.2)
        }
        [keys, values @ ..] if !values.is_empty() => {
            let values: Option<Vec<DataType>> = values.iter().map(item).collect();
            Some((item(keys)?, values?, false))
        }
        _ => None,
    }
}

/// Whether a Map argument's values are Nullable: the result's are as well.
fn map_values_nullable(args: &[DataType]) -> bool {
    match args {
        [DataType::Map(entries, _)] => {
            matches!(entries.data_type(), DataType::Struct(f) if f[1].is_nullable())
        }
        _ => false,
    }
}

impl MapAggregate {
    /// The type values combine in.
    fn accumulated(&self, t: &DataType) -> Result<DataType> {
        // Values that are all NULL have no type to combine in.
        if t.is_null() {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Aggregate function {} is not implemented for mapped arrays of Nullable(Nothing)",
                    self.name
                ),
            ));
        }
        let number = t.is_numeric();
        Ok(match self.combine {
            Combine::Sum if t.is_signed_integer() => DataType::Int64,
            Combine::Sum if t.is_unsigned_integer() => DataType::UInt64,
            Combine::Sum if t.is_floating() => DataType::Float64,
            Combine::Sum | Combine::SumWithOverflow if number => t.clone(),
            Combine::Min | Combine::Max => t.clone(),
            _ => return Err(illegal_type(self.name, t)),
        })
    }
}

impl AggregateSpec for MapAggregate {
    fn name(&self) -> &str {
        self.name
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let wanted = if self.filtered { 1..=1 } else { 0..=0 };
        expect_params(self.name, params.len(), wanted)?;
        let (key, values, is_map) = shape(args).ok_or_else(|| {
            error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Aggregate function {} requires map or arrays of keys and values as arguments",
                    self.name
                ),
            )
        })?;
        let values: Vec<DataType> = values
            .iter()
            .map(|t| self.accumulated(t))
            .collect::<Result<_>>()?;
        if is_map {
            let entries = Fields::from(vec![
                Field::new("key", key, false),
                Field::new("value", values[0].clone(), map_values_nullable(args)),
            ]);
            let entries = Field::new("entries", DataType::Struct(entries), false);
            return Ok(DataType::Map(Arc::new(entries), false));
        }
        let mut fields = vec![Field::new("1", list_of(key), false)];
        for (i, t) in values.into_iter().enumerate() {
            fields.push(Field::new(format!("{}", i + 2), list_of(t), false));
        }
        Ok(DataType::Struct(Fields::from(fields)))
    }

    /// The keys and the values as combined so far, in the type they combine in.
    fn state_types(&self, call: &Call) -> Vec<DataType> {
        let (key, values, _) = shape(&call.args).expect("checked");
        let accumulated = values
            .iter()
            .map(|t| self.accumulated(t).expect("checked by return_type"));
        std::iter::once(key)
            .chain(accumulated)
            .map(state_list_of)
            .collect()
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let (key, values, is_map) = shape(&call.args).expect("checked");
        let accumulated = values
            .iter()
            .map(|t| self.accumulated(t))
            .collect::<Result<_>>()?;
        let keep = match call.params.first() {
            Some(ScalarValue::List(list)) => Some(list.value(0)),
            Some(other) => {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Aggregate function {} requires an Array as a parameter, got {other}",
                        self.name
                    ),
                ));
            }
            None => None,
        };
        let converter = RowConverter::new(vec![SortField::new(key.clone())])?;
        let keep = match keep {
            Some(keys) => Some(
                converter
                    .convert_columns(&[cast(&keys, &key)?])?
                    .iter()
                    .map(|r| r.owned())
                    .collect(),
            ),
            None => None,
        };
        Ok(Box::new(MapAccumulator {
            combine: self.combine,
            is_map,
            nullable_values: map_values_nullable(&call.args),
            values,
            accumulated,
            converter,
            keep,
            entries: BTreeMap::new(),
        }))
    }
}

#[derive(Debug)]
struct MapAccumulator {
    combine: Combine,
    is_map: bool,
    nullable_values: bool,
    values: Vec<DataType>,
    accumulated: Vec<DataType>,
    converter: RowConverter,
    keep: Option<Vec<OwnedRow>>,
    /// Per key (in the converter's order-preserving bytes), one value per values column.
    entries: BTreeMap<OwnedRow, Vec<ScalarValue>>,
}

impl MapAccumulator {
    /// The keys and values lists of a batch, whatever the argument's shape.
    fn lists(&self, values: &[ArrayRef]) -> Vec<ArrayRef> {
        match values[0].data_type() {
            DataType::Map(..) => {
                let map = values[0].as_map();
                let offsets = map.offsets().clone();
                let as_list = |column: &ArrayRef| -> ArrayRef {
                    let field = Arc::new(Field::new("item", column.data_type().clone(), true));
                    Arc::new(datafusion::arrow::array::ListArray::new(
                        field,
                        offsets.clone(),
                        Arc::clone(column),
                        map.nulls().cloned(),
                    ))
                };
                vec![as_list(map.keys()), as_list(map.values())]
            }
            DataType::Struct(_) => values[0].as_struct().columns().to_vec(),
            _ => values[..1 + self.values.len()].to_vec(),
        }
    }

    fn absorb(&mut self, lists: &[ArrayRef]) -> Result<()> {
        let keys = lists[0].as_list::<i32>();
        let value_lists: Vec<_> = lists[1..].iter().map(|l| l.as_list::<i32>()).collect();
        for row in 0..keys.len() {
            if keys.is_null(row) {
                continue;
            }
            let row_keys = keys.value(row);
            let row_values: Vec<ArrayRef> = value_lists
                .iter()
                .zip(&self.accumulated)
                .map(|(l, t)| cast(&l.value(row), t))
                .collect::<std::result::Result<_, _>>()?;
            if row_values.iter().any(|v| v.len() != row_keys.len()) {
                return Err(error(
                    ErrorCode::BAD_ARGUMENTS,
                    "Sizes of keys and values arrays do not match",
                ));
            }
            let encoded = self.converter.convert_columns(&[row_keys])?;
            for (i, key) in encoded.iter().enumerate() {
                if self
                    .keep
                    .as_ref()
                    .is_some_and(|keep| !keep.iter().any(|k| k.row() == key))
                {
                    continue;
                }
                self.add(key.owned(), &row_values, i)?;
            }
        }
        Ok(())
    }

    fn add(&mut self, key: OwnedRow, values: &[ArrayRef], i: usize) -> Result<()> {
        let incoming: Vec<ScalarValue> = values
            .iter()
            .map(|v| ScalarValue::try_from_array(v, i))
            .collect::<Result<_>>()?;
        let combine = self.combine;
        match self.entries.get_mut(&key) {
            // A NULL value still adds its key, with the type's default, to
            // arrays, whose elements cannot be NULL.
            None if !self.nullable_values => {
                let defaults = incoming.into_iter().map(|v| {
                    if v.is_null() {
                        strata_common::types::default_value(&v.data_type())
                    } else {
                        Ok(v)
                    }
                });
                self.entries.insert(key, defaults.collect::<Result<_>>()?);
            }
            None => {
                self.entries.insert(key, incoming);
            }
            Some(current) => {
                for (c, v) in current.iter_mut().zip(incoming) {
                    *c = combined(combine, c, v)?;
                }
            }
        }
        Ok(())
    }

    /// The keys array and one array per values column, zero sums dropped
    /// where `drop_zeros`.
    fn arrays(&self, drop_zeros: bool) -> Result<Vec<ArrayRef>> {
        let kept: Vec<(&OwnedRow, &Vec<ScalarValue>)> = self
            .entries
            .iter()
            .filter(|(_, v)| !drop_zeros || !v.iter().all(is_zero))
            .collect();
        let keys = self
            .converter
            .convert_rows(kept.iter().map(|(k, _)| k.row()))?
            .remove(0);
        let mut out = vec![keys];
        for (column, t) in self.accumulated.iter().enumerate() {
            let values = kept.iter().map(|(_, v)| v[column].clone());
            out.push(if kept.is_empty() {
                datafusion::arrow::array::new_empty_array(t)
            } else {
                ScalarValue::iter_to_array(values)?
            });
        }
        Ok(out)
    }
}

fn combined(combine: Combine, current: &ScalarValue, value: ScalarValue) -> Result<ScalarValue> {
    if value.is_null() {
        return Ok(current.clone());
    }
    if current.is_null() {
        return Ok(value);
    }
    Ok(match combine {
        Combine::Sum | Combine::SumWithOverflow => current
            .add_checked(&value)
            .or_else(|_| current.add(&value))?,
        Combine::Min if value < *current => value,
        Combine::Max if value > *current => value,
        Combine::Min | Combine::Max => current.clone(),
    })
}

fn is_zero(v: &ScalarValue) -> bool {
    !v.is_null() && ScalarValue::new_zero(&v.data_type()).is_ok_and(|zero| zero == *v)
}

impl Accumulator for MapAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let lists = self.lists(values);
        self.absorb(&lists)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let sums = matches!(self.combine, Combine::Sum | Combine::SumWithOverflow);
        let arrays = self.arrays(sums && !self.is_map)?;
        if self.is_map {
            return map_scalar(&arrays[0], &arrays[1], self.nullable_values);
        }
        let fields: Vec<Field> = arrays
            .iter()
            .enumerate()
            .map(|(i, a)| Field::new(format!("{}", i + 1), list_of(a.data_type().clone()), false))
            .collect();
        let columns: Vec<ArrayRef> = arrays
            .into_iter()
            .map(|a| list_scalar(a).to_array())
            .collect::<Result<_>>()?;
        Ok(ScalarValue::Struct(Arc::new(StructArray::new(
            Fields::from(fields),
            columns,
            None,
        ))))
    }

    fn size(&self) -> usize {
        let entry = |(k, v): (&OwnedRow, &Vec<ScalarValue>)| {
            k.as_ref().len() + v.iter().map(|s| s.size()).sum::<usize>()
        };
        std::mem::size_of_val(self) + self.entries.iter().map(entry).sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(self
            .arrays(false)?
            .into_iter()
            .map(state_list_scalar)
            .collect())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        // A state row is a row of keys and values arrays, already combined.
        let keep = self.keep.take();
        let rows = list_rows(&states[0]).len();
        let lists: Vec<ArrayRef> = states.to_vec();
        let result = if rows > 0 {
            self.absorb(&lists)
        } else {
            Ok(())
        };
        self.keep = keep;
        result
    }
}

/// One Map value from its keys and values.
fn map_scalar(keys: &ArrayRef, values: &ArrayRef, nullable_values: bool) -> Result<ScalarValue> {
    let fields = Fields::from(vec![
        Field::new("key", keys.data_type().clone(), false),
        Field::new("value", values.data_type().clone(), nullable_values),
    ]);
    let entries = StructArray::new(
        fields.clone(),
        vec![Arc::clone(keys), Arc::clone(values)],
        None,
    );
    let field = Arc::new(Field::new("entries", DataType::Struct(fields), false));
    let map = MapArray::new(
        field,
        OffsetBuffer::from_lengths([keys.len()]),
        entries,
        None,
        false,
    );
    Ok(ScalarValue::Map(Arc::new(map)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::ListArray;
    use datafusion::arrow::datatypes::{Int64Type, UInt8Type};

    fn list<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(
        rows: Vec<Vec<T::Native>>,
    ) -> ArrayRef {
        Arc::new(ListArray::from_iter_primitive::<T, _, _>(
            rows.into_iter()
                .map(|r| Some(r.into_iter().map(Some).collect::<Vec<_>>())),
        ))
    }

    #[test]
    fn sums_merge_through_state() {
        let spec = MapAggregate {
            combine: Combine::Sum,
            name: "sumMap",
            filtered: false,
        };
        let args = vec![list_of(DataType::Int64), list_of(DataType::UInt8)];
        let call = Call {
            args,
            params: vec![],
            result: DataType::Null,
        };
        let mut a = spec.accumulator(&call).unwrap();
        let mut b = spec.accumulator(&call).unwrap();
        a.update_batch(&[
            list::<Int64Type>(vec![vec![2, 1]]),
            list::<UInt8Type>(vec![vec![200, 1]]),
        ])
        .unwrap();
        b.update_batch(&[
            list::<Int64Type>(vec![vec![2, 3]]),
            list::<UInt8Type>(vec![vec![100, 0]]),
        ])
        .unwrap();
        let state: Vec<ArrayRef> = b
            .state()
            .unwrap()
            .iter()
            .map(|s| s.to_array().unwrap())
            .collect();
        a.merge_batch(&state).unwrap();
        let ScalarValue::Struct(s) = a.evaluate().unwrap() else {
            panic!("a tuple")
        };
        let keys = s.column(0).as_list::<i32>().value(0);
        let sums = s.column(1).as_list::<i32>().value(0);
        assert_eq!(
            keys.as_primitive::<Int64Type>().values().to_vec(),
            vec![1, 2]
        );
        assert_eq!(
            sums.as_primitive::<datafusion::arrow::datatypes::UInt64Type>()
                .values()
                .to_vec(),
            vec![1, 300]
        );
    }
}
