//! Arrays reshaped: `arrayZip(a, b, ...)` (the tuples at each position of
//! arrays of one length), `arrayZipUnaligned` (NULL where an array is
//! shorter), `arrayFlatten(a)` / `flatten` (the innermost elements of
//! nested arrays), `arrayFlattenedLength(a)` (how many of them, UInt64),
//! `arrayCompact(a)` (runs of equal elements kept once),
//! `arrayWithConstant(n, x)` (`n` copies of `x`) and
//! `emptyArrayToSingle(a)` (an empty array becomes one default element).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, Int64Array, ListArray, StructArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::kernels::{cast, interleave::interleave, take::take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    array_item, arrays_of, as_list, check_arity, default_of, error, illegal_type, item,
    list_from_lengths, row_range, sizes_differ, value_rows,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reshape {
    Zip,
    ZipUnaligned,
    Flatten,
    FlattenedLength,
    Compact,
    WithConstant,
    EmptyToSingle,
}

impl Reshape {
    pub const ALL: [Reshape; 7] = [
        Reshape::Zip,
        Reshape::ZipUnaligned,
        Reshape::Flatten,
        Reshape::FlattenedLength,
        Reshape::Compact,
        Reshape::WithConstant,
        Reshape::EmptyToSingle,
    ];
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayReshape {
    kind: Reshape,
    signature: Signature,
    aliases: Vec<String>,
}

impl ArrayReshape {
    pub fn new(kind: Reshape) -> Self {
        let aliases = match kind {
            Reshape::Flatten => vec!["flatten".to_string()],
            _ => vec![],
        };
        ArrayReshape {
            kind,
            signature: Signature::user_defined(Volatility::Immutable),
            aliases,
        }
    }

    fn result_type(&self, fields: &[FieldRef]) -> Result<DataType> {
        let name = self.name();
        let one = |t: &DataType| {
            Ok::<_, datafusion::error::DataFusionError>(DataType::List(array_item(name, t)?))
        };
        match self.kind {
            Reshape::Zip | Reshape::ZipUnaligned => {
                check_arity(name, fields.len(), 1..=usize::MAX)?;
                let unaligned = self.kind == Reshape::ZipUnaligned;
                let elements = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let item = array_item(name, f.data_type())?;
                        let nullable = item.is_nullable() || unaligned;
                        Ok(Field::new(
                            format!("c{i}"),
                            item.data_type().clone(),
                            nullable,
                        ))
                    })
                    .collect::<Result<Fields>>()?;
                Ok(DataType::List(item(DataType::Struct(elements), false)))
            }
            Reshape::Flatten => {
                check_arity(name, fields.len(), 1..=1)?;
                let mut element = array_item(name, fields[0].data_type())?;
                while let DataType::List(inner) = element.data_type() {
                    element = Arc::clone(inner);
                }
                Ok(DataType::List(element))
            }
            Reshape::FlattenedLength => {
                check_arity(name, fields.len(), 1..=1)?;
                array_item(name, fields[0].data_type())?;
                Ok(DataType::UInt64)
            }
            Reshape::Compact | Reshape::EmptyToSingle => {
                check_arity(name, fields.len(), 1..=1)?;
                one(fields[0].data_type())
            }
            Reshape::WithConstant => {
                check_arity(name, fields.len(), 2..=2)?;
                let count = fields[0].data_type();
                if !(count.is_integer() || count.is_floating()) {
                    return Err(illegal_type(name, count));
                }
                let value = &fields[1];
                let nullable = value.is_nullable() || value.data_type() == &DataType::Null;
                Ok(DataType::List(item(value.data_type().clone(), nullable)))
            }
        }
    }
}

/// Arrays of one length zipped into tuples (NULL-padded when unaligned).
fn zip(lists: &[ListArray], element: &FieldRef, unaligned: bool, name: &str) -> Result<ArrayRef> {
    let DataType::Struct(fields) = element.data_type() else {
        unreachable!("zip gives tuples")
    };
    let rows = lists[0].len();
    let mut lengths = Vec::with_capacity(rows);
    let mut picks: Vec<Vec<Option<u32>>> = vec![Vec::new(); lists.len()];
    for row in 0..rows {
        let ranges: Vec<_> = lists.iter().map(|l| row_range(l, row)).collect();
        let len = ranges.iter().map(|r| r.len()).max().unwrap_or(0);
        if !unaligned && ranges.iter().any(|r| r.len() != len) {
            return Err(sizes_differ(name));
        }
        lengths.push(len);
        for (pick, range) in picks.iter_mut().zip(&ranges) {
            pick.extend((0..len).map(|i| (i < range.len()).then(|| (range.start + i) as u32)));
        }
    }
    let columns = lists
        .iter()
        .zip(picks)
        .zip(fields.iter())
        .map(|((list, pick), field)| {
            let taken = take(list.values().as_ref(), &UInt32Array::from(pick), None)?;
            Ok(cast::cast(&taken, field.data_type())?)
        })
        .collect::<Result<Vec<_>>>()?;
    let len = lengths.iter().sum();
    let tuples = StructArray::try_new_with_length(fields.clone(), columns, None, len)?;
    list_from_lengths(Arc::clone(element), lengths, Arc::new(tuples), None)
}

/// The innermost elements of each row.
fn flatten(mut list: ListArray) -> Result<ListArray> {
    while let Some(inner) = list.values().as_any().downcast_ref::<ListArray>() {
        let offsets: Vec<i32> = list
            .value_offsets()
            .iter()
            .map(|&o| inner.value_offsets()[o as usize])
            .collect();
        let DataType::List(element) = inner.data_type() else {
            unreachable!("a list")
        };
        list = ListArray::try_new(
            Arc::clone(element),
            OffsetBuffer::new(offsets.into()),
            Arc::clone(inner.values()),
            list.nulls().cloned(),
        )?;
    }
    Ok(list)
}

fn compact(list: &ListArray) -> Result<ArrayRef> {
    let rows = value_rows(list)?;
    let mut indices: Vec<u32> = Vec::new();
    let mut lengths = Vec::with_capacity(list.len());
    for row in 0..list.len() {
        let range = row_range(list, row);
        let kept: Vec<usize> = range
            .clone()
            .filter(|&i| i == range.start || rows.row(i) != rows.row(i - 1))
            .collect();
        lengths.push(kept.len());
        indices.extend(kept.into_iter().map(|i| i as u32));
    }
    let values = take(list.values().as_ref(), &UInt32Array::from(indices), None)?;
    let DataType::List(element) = list.data_type() else {
        unreachable!("a list")
    };
    list_from_lengths(Arc::clone(element), lengths, values, list.nulls().cloned())
}

fn with_constant(count: &ArrayRef, value: &ArrayRef, element: &FieldRef) -> Result<ArrayRef> {
    let count = cast::cast(count, &DataType::Int64)?;
    let count = count
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("cast to Int64");
    let value = cast::cast(value, element.data_type())?;
    let mut lengths = Vec::with_capacity(count.len());
    let mut picks = Vec::new();
    for row in 0..count.len() {
        let n = if count.is_null(row) {
            0
        } else {
            count.value(row)
        };
        if !(0..=1 << 30).contains(&n) {
            return Err(error(
                ErrorCode::TOO_LARGE_ARRAY_SIZE,
                format!("Array size {n} is out of bounds"),
            ));
        }
        lengths.push(n as usize);
        picks.extend(std::iter::repeat_n(row as u32, n as usize));
    }
    let values = take(value.as_ref(), &UInt32Array::from(picks), None)?;
    let nulls = count.nulls().cloned();
    list_from_lengths(Arc::clone(element), lengths, values, nulls)
}

fn empty_to_single(list: &ListArray, element: &FieldRef) -> Result<ArrayRef> {
    let default = default_of(element)?.to_array()?;
    let mut lengths = Vec::with_capacity(list.len());
    let mut picks = Vec::new();
    for row in 0..list.len() {
        let range = row_range(list, row);
        if range.is_empty() && list.is_valid(row) {
            picks.push((1, 0));
            lengths.push(1);
        } else {
            lengths.push(range.len());
            picks.extend(range.map(|i| (0, i)));
        }
    }
    let values = interleave(&[list.values().as_ref(), default.as_ref()], &picks)?;
    list_from_lengths(Arc::clone(element), lengths, values, list.nulls().cloned())
}

impl ScalarUDFImpl for ArrayReshape {
    fn name(&self) -> &str {
        match self.kind {
            Reshape::Zip => "arrayZip",
            Reshape::ZipUnaligned => "arrayZipUnaligned",
            Reshape::Flatten => "arrayFlatten",
            Reshape::FlattenedLength => "arrayFlattenedLength",
            Reshape::Compact => "arrayCompact",
            Reshape::WithConstant => "arrayWithConstant",
            Reshape::EmptyToSingle => "emptyArrayToSingle",
        }
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
            .map(|t| Arc::new(Field::new("", t.clone(), false)))
            .collect();
        self.result_type(&fields)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = self.result_type(args.arg_fields)?;
        let nullable = match self.kind {
            Reshape::WithConstant => args.arg_fields[0].is_nullable(),
            _ => args.arg_fields.iter().any(|f| f.is_nullable()),
        };
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let result = args.return_field.data_type();
        let element = match result {
            DataType::List(element) => Some(element),
            _ => None,
        };
        let out: ArrayRef = match (self.kind, element) {
            (Reshape::WithConstant, Some(e)) => with_constant(&arrays[0], &arrays[1], e)?,
            (Reshape::FlattenedLength, _) => {
                let flat = flatten(as_list(&arrays[0])?)?;
                let counts = (0..flat.len())
                    .map(|r| flat.value_length(r) as u64)
                    .collect::<Vec<_>>();
                Arc::new(UInt64Array::new(counts.into(), flat.nulls().cloned()))
            }
            (kind, Some(e)) => {
                let lists = arrays.iter().map(as_list).collect::<Result<Vec<_>>>()?;
                match kind {
                    Reshape::Zip | Reshape::ZipUnaligned => {
                        let nulls = NullBuffer::union_many(lists.iter().map(|l| l.nulls()));
                        let zipped = zip(&lists, e, kind == Reshape::ZipUnaligned, self.name())?;
                        with_nulls(zipped, nulls)?
                    }
                    Reshape::Flatten => Arc::new(flatten(lists[0].clone())?),
                    Reshape::Compact => compact(&lists[0])?,
                    _ => empty_to_single(&lists[0], e)?,
                }
            }
            _ => unreachable!("every other result is an array"),
        };
        crate::columnar(out, scalar)
    }
}

/// `list` with NULL rows where any input row was NULL.
fn with_nulls(list: ArrayRef, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    if nulls.is_none() {
        return Ok(list);
    }
    let list = as_list(&list)?;
    let (field, offsets, values, _) = list.into_parts();
    Ok(Arc::new(ListArray::try_new(field, offsets, values, nulls)?))
}
