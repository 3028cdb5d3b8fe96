//! Native input: blocks as `crate::native` describes them, each column read
//! in the type its block names and matched to the target by name (a column
//! the data lacks takes the target's default), then converted as Parquet's
//! are. Lengths come from the data, so every read is bounded by the bytes
//! actually there: a block that claims more rows or longer strings than it
//! holds fails with CANNOT_READ_ALL_DATA instead of allocating the claim.

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Decimal256Array,
    FixedSizeBinaryArray, Int64Array, ListArray, MapArray, PrimitiveArray, StringArray,
    StructArray, TimestampSecondArray, UInt64Array,
};
use datafusion::arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::*;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{
    BigInt, ColumnType, declared_precision, enum_type, field_type_name, is_uuid,
    parse_clickhouse_type, precision_step,
};
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::{missing_column, to_target};
use super::{InputBlocks, InputTarget};
use crate::native::{decimal_width, is_date32, uuid_swap};

/// Rows a block may claim; ClickHouse's blocks are far smaller.
const MAX_BLOCK_ROWS: u64 = 1 << 30;

pub(crate) struct NativeReader {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    source: Box<dyn Read + Send>,
    next_row: u64,
}

pub(crate) fn truncated(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_ALL_DATA,
        format!("Cannot read all data: the data ends inside {what}"),
    )
}

pub(crate) fn incorrect(message: String) -> StrataError {
    StrataError::new(ErrorCode::INCORRECT_DATA, message)
}

impl NativeReader {
    pub(crate) fn new(target: Arc<InputTarget>, source: Box<dyn Read + Send>) -> Self {
        NativeReader {
            schema: target.schema(),
            target,
            source,
            next_row: 1,
        }
    }

    /// The first varint of a block, or `None` at a clean end of the data.
    fn block_start(&mut self) -> Result<Option<u64>> {
        let mut first = [0u8; 1];
        loop {
            match self.source.read(&mut first) {
                Ok(0) => return Ok(None),
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_failed(e)),
            }
        }
        let rest = read_varint_after(&mut self.source, first[0])?;
        Ok(Some(rest))
    }
}

pub(crate) fn read_failed(e: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
        format!("Cannot read the data: {e}"),
    )
}

fn read_varint_after(source: &mut dyn Read, first: u8) -> Result<u64> {
    let mut value = u64::from(first & 0x7f);
    let mut byte = first;
    let mut shift = 7;
    while byte & 0x80 != 0 {
        if shift > 63 {
            return Err(incorrect("A varint in the data is too long".to_string()));
        }
        byte = read_array::<1>(source, "a varint")?[0];
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
    }
    Ok(value)
}

pub(crate) fn read_varint(source: &mut dyn Read) -> Result<u64> {
    let first = read_array::<1>(source, "a varint")?[0];
    read_varint_after(source, first)
}

pub(crate) fn read_array<const N: usize>(source: &mut dyn Read, what: &str) -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    source.read_exact(&mut bytes).map_err(|_| truncated(what))?;
    Ok(bytes)
}

/// Exactly `len` bytes, allocated as they arrive.
pub(crate) fn read_bytes(source: &mut dyn Read, len: u64, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    append_bytes(source, len, &mut bytes, what)?;
    Ok(bytes)
}

/// Appends exactly `len` bytes to `out`, growing it only as they arrive,
/// so a length read from the data cannot reserve memory the data lacks.
pub(crate) fn append_bytes(
    source: &mut dyn Read,
    len: u64,
    out: &mut Vec<u8>,
    what: &str,
) -> Result<()> {
    // Short values, most of them, skip the growth `read_to_end` does.
    if len <= 64 {
        let mut buf = [0u8; 64];
        let buf = &mut buf[..len as usize];
        source.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => truncated(what),
            _ => read_failed(e),
        })?;
        out.extend_from_slice(buf);
        return Ok(());
    }
    let read = source.take(len).read_to_end(out).map_err(read_failed)?;
    if read as u64 != len {
        return Err(truncated(what));
    }
    Ok(())
}

pub(crate) fn read_string(source: &mut dyn Read, what: &str) -> Result<Vec<u8>> {
    let len = read_varint(source)?;
    read_bytes(source, len, what)
}

pub(crate) fn utf8(bytes: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| not_utf8(what))
}

pub(crate) fn not_utf8(what: &str) -> StrataError {
    incorrect(format!("{what} in the data is not UTF-8"))
}

impl InputBlocks for NativeReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let Some(columns) = self.block_start()? else {
            return Ok(None);
        };
        let rows = read_varint(&mut self.source)?;
        if rows > MAX_BLOCK_ROWS {
            return Err(incorrect(format!("A Native block claims {rows} rows")));
        }
        // Only column data bounds a block's rows by the bytes present.
        if columns == 0 && rows > 0 {
            return Err(incorrect(format!(
                "A Native block claims {rows} rows and no columns"
            )));
        }
        let mut read: Vec<(String, ArrayRef)> = Vec::new();
        for _ in 0..columns {
            let name = utf8(
                read_string(&mut self.source, "a column name")?,
                "A column name",
            )?;
            let type_name = utf8(read_string(&mut self.source, "a type name")?, "A type name")?;
            let values = read_named_column(&mut self.source, &type_name, rows as usize)?;
            read.push((name, values));
        }
        let rows = rows as usize;
        let mut arrays: Vec<ArrayRef> = Vec::new();
        let mut masks: Vec<ArrayRef> = Vec::new();
        for (index, field) in self.target.fields.iter().enumerate() {
            let source = read.iter().find(|(name, _)| name == field.name());
            let values = match source {
                Some((_, values)) => Arc::clone(values),
                None => missing_column(field, rows),
            };
            arrays.push(to_target(&values, field, index, self.next_row)?);
            if self.target.has_default[index] {
                let omitted = BooleanArray::from(vec![source.is_none(); rows]);
                masks.push(Arc::new(omitted));
            }
        }
        arrays.extend(masks);
        self.next_row += rows as u64;
        Ok(Some(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            arrays,
            &datafusion::arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?))
    }
}

/// The type inside `wrapper(...)`, if `type_name` is one.
fn unwrap_type<'a>(type_name: &'a str, wrapper: &str) -> Option<&'a str> {
    type_name
        .strip_prefix(wrapper)
        .and_then(|rest| rest.strip_prefix('('))
        .and_then(|rest| rest.strip_suffix(')'))
        .map(str::trim)
}

/// A column as its block names it: every LowCardinality inside it writes
/// its keys' version before any of the column's data, then the data.
fn read_named_column(source: &mut dyn Read, type_name: &str, rows: usize) -> Result<ArrayRef> {
    read_prefixes(source, type_name)?;
    read_body(source, type_name, rows)
}

fn read_prefixes(source: &mut dyn Read, type_name: &str) -> Result<()> {
    if unwrap_type(type_name, "LowCardinality").is_some() {
        let version = u64::from_le_bytes(read_array(source, "a LowCardinality version")?);
        if version != 1 {
            return Err(incorrect(format!(
                "Unknown LowCardinality keys version {version}"
            )));
        }
    } else if let Some(item) = unwrap_type(type_name, "Array") {
        read_prefixes(source, item)?;
    }
    Ok(())
}

fn read_body(source: &mut dyn Read, type_name: &str, rows: usize) -> Result<ArrayRef> {
    if let Some(inner) = unwrap_type(type_name, "LowCardinality") {
        return read_low_cardinality(source, inner, rows);
    }
    if let Some(item) = unwrap_type(type_name, "Array") {
        return read_list(source, item, rows);
    }
    read_column(source, &parse_clickhouse_type(type_name)?, rows)
}

/// A LowCardinality column's data: the index type and flags, the block's
/// dictionary (the inner type without Nullable, its key 0 standing for
/// NULL when Nullable), then each row's index. No rows, no data.
fn read_low_cardinality(source: &mut dyn Read, inner: &str, rows: usize) -> Result<ArrayRef> {
    let (nullable, key_type) = match unwrap_type(inner, "Nullable") {
        Some(key_type) => (true, key_type),
        None => (false, inner),
    };
    if rows == 0 {
        return read_body(source, key_type, 0);
    }
    let flags = u64::from_le_bytes(read_array(source, "LowCardinality flags")?);
    let width = match flags & 0xff {
        0 => 1,
        1 => 2,
        2 => 4,
        3 => 8,
        other => {
            return Err(incorrect(format!(
                "Unknown LowCardinality index type {other}"
            )));
        }
    };
    // Without HasAdditionalKeys the keys would be in a shared dictionary,
    // which the Native format never sends.
    if flags & 0x200 == 0 {
        return Err(incorrect(
            "A LowCardinality column without its own keys".to_string(),
        ));
    }
    let key_count = u64::from_le_bytes(read_array(source, "a LowCardinality key count")?);
    if key_count > MAX_BLOCK_ROWS {
        return Err(incorrect(format!(
            "A LowCardinality column claims {key_count} keys"
        )));
    }
    let keys = read_body(source, key_type, key_count as usize)?;
    let row_count = u64::from_le_bytes(read_array(source, "a LowCardinality row count")?);
    if row_count != rows as u64 {
        return Err(incorrect(format!(
            "A LowCardinality column has {row_count} rows in a block of {rows}"
        )));
    }
    let bytes = read_bytes(source, rows as u64 * width as u64, "LowCardinality indexes")?;
    let indexes: Vec<u64> = bytes
        .chunks_exact(width)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect();
    if let Some(bad) = indexes.iter().find(|&&i| i >= key_count) {
        return Err(incorrect(format!(
            "A LowCardinality index {bad} is past its {key_count} keys"
        )));
    }
    let indexes = UInt64Array::new(
        ScalarBuffer::from(indexes.clone()),
        nullable.then(|| NullBuffer::from_iter(indexes.iter().map(|&i| i != 0))),
    );
    Ok(take(&keys, &indexes, None)?)
}

/// One column of `rows` values of `column_type`: a null map first when it
/// is Nullable.
fn read_column(source: &mut dyn Read, column_type: &ColumnType, rows: usize) -> Result<ArrayRef> {
    let nulls = if column_type.nullable {
        let map = read_bytes(source, rows as u64, "a null map")?;
        Some(NullBuffer::from(
            map.iter().map(|&b| b == 0).collect::<Vec<bool>>(),
        ))
    } else {
        None
    };
    let values = read_values(source, &column_type.field(""), rows)?;
    with_nulls(values, nulls)
}

/// `values` with the rows that `nulls` marks made NULL.
pub(crate) fn with_nulls(values: ArrayRef, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let Some(nulls) = nulls else {
        return Ok(values);
    };
    let data = values.to_data().into_builder().nulls(Some(nulls)).build()?;
    Ok(datafusion::arrow::array::make_array(data))
}

/// A fixed-width number from its little-endian bytes.
trait FromLe {
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! from_le {
    ($($t:ty),*) => {$(
        impl FromLe for $t {
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("chunk of the type's width"))
            }
        }
    )*};
}
from_le!(
    i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, i128, u128, i256
);

/// Every `width` bytes of `bytes` as one number.
fn numbers<N: FromLe>(bytes: &[u8], width: usize) -> Vec<N> {
    bytes.chunks_exact(width).map(N::from_le).collect()
}

fn primitive<T: ArrowPrimitiveType>(bytes: &[u8]) -> ArrayRef
where
    T::Native: FromLe,
{
    let values = numbers::<T::Native>(bytes, std::mem::size_of::<T::Native>());
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(values), None))
}

/// The bytes one value of `field` takes in ClickHouse's binary formats, for
/// the types whose values all have one width.
pub(crate) fn fixed_width(field: &Field) -> Option<usize> {
    if let Some(enum_type) = enum_type(field) {
        return Some(if enum_type.is_wide() { 2 } else { 1 });
    }
    Some(match field.data_type() {
        DataType::Boolean | DataType::Int8 | DataType::UInt8 => 1,
        DataType::Int16 | DataType::UInt16 => 2,
        DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
        DataType::Int64 | DataType::UInt64 | DataType::Float64 => 8,
        DataType::Date32 if is_date32(field) => 4,
        DataType::Date32 => 2,
        DataType::Timestamp(TimeUnit::Second, _) if declared_precision(field).is_none() => 4,
        DataType::Timestamp(..) => 8,
        DataType::Decimal128(precision, _) => decimal_width(*precision),
        data_type if BigInt::of(data_type) == Some(BigInt::UInt128) => 16,
        DataType::Decimal256(..) => 32,
        DataType::FixedSizeBinary(width) if *width > 0 => *width as usize,
        _ => return None,
    })
}

/// The values of `field`'s type held in `bytes`, [`fixed_width`] each.
pub(crate) fn fixed_values(field: &Field, bytes: &[u8]) -> Result<ArrayRef> {
    let width = fixed_width(field).expect("a fixed-width type");
    if let Some(enum_type) = enum_type(field) {
        // A number no element has is NULL: under a NULL row the writer
        // sends 0, whether or not 0 is an element.
        let numbers: Vec<i64> = match width {
            1 => numbers::<i8>(bytes, 1).into_iter().map(i64::from).collect(),
            _ => numbers::<i16>(bytes, 2)
                .into_iter()
                .map(i64::from)
                .collect(),
        };
        let names: StringArray = numbers.iter().map(|&n| enum_type.name_of(n)).collect();
        return Ok(Arc::new(names));
    }
    Ok(match field.data_type() {
        DataType::Boolean => Arc::new(BooleanArray::from(
            bytes.iter().map(|&b| b != 0).collect::<Vec<bool>>(),
        )),
        DataType::Int8 => primitive::<Int8Type>(bytes),
        DataType::Int16 => primitive::<Int16Type>(bytes),
        DataType::Int32 => primitive::<Int32Type>(bytes),
        DataType::Int64 => primitive::<Int64Type>(bytes),
        DataType::UInt8 => primitive::<UInt8Type>(bytes),
        DataType::UInt16 => primitive::<UInt16Type>(bytes),
        DataType::UInt32 => primitive::<UInt32Type>(bytes),
        DataType::UInt64 => primitive::<UInt64Type>(bytes),
        DataType::Float32 => primitive::<Float32Type>(bytes),
        DataType::Float64 => primitive::<Float64Type>(bytes),
        DataType::Date32 if width == 2 => Arc::new(Date32Array::from_iter_values(
            numbers::<u16>(bytes, 2).into_iter().map(i32::from),
        )),
        DataType::Date32 => primitive::<Date32Type>(bytes),
        // A DateTime64(p) is its count of 10^-p seconds.
        DataType::Timestamp(unit, _) if let Some(precision) = declared_precision(field) => {
            let step = precision_step(*unit, precision);
            let ticks: Int64Array = numbers::<i64>(bytes, 8)
                .into_iter()
                .map(|tick| tick.saturating_mul(step))
                .collect();
            datafusion::arrow::compute::cast(&ticks, field.data_type())?
        }
        DataType::Timestamp(TimeUnit::Second, tz) => Arc::new(
            TimestampSecondArray::from_iter_values(
                numbers::<u32>(bytes, 4).into_iter().map(i64::from),
            )
            .with_timezone_opt(tz.clone()),
        ),
        DataType::Timestamp(..) => {
            datafusion::arrow::compute::cast(&primitive::<Int64Type>(bytes), field.data_type())?
        }
        DataType::Decimal128(precision, scale) => {
            let values: Vec<i128> = match width {
                4 => numbers::<i32>(bytes, 4)
                    .into_iter()
                    .map(i128::from)
                    .collect(),
                8 => numbers::<i64>(bytes, 8)
                    .into_iter()
                    .map(i128::from)
                    .collect(),
                _ => numbers::<i128>(bytes, 16),
            };
            Arc::new(Decimal128Array::from(values).with_precision_and_scale(*precision, *scale)?)
        }
        DataType::Decimal256(precision, scale) if width == 16 => Arc::new(
            Decimal256Array::from_iter_values(
                numbers::<u128>(bytes, 16)
                    .into_iter()
                    .map(|v| i256::from_parts(v, 0)),
            )
            .with_precision_and_scale(*precision, *scale)?,
        ),
        DataType::Decimal256(precision, scale) => Arc::new(
            Decimal256Array::from(numbers::<i256>(bytes, 32))
                .with_precision_and_scale(*precision, *scale)?,
        ),
        DataType::FixedSizeBinary(_) => {
            let values: Vec<u8> = if is_uuid(field) {
                bytes.chunks_exact(width).flat_map(uuid_swap).collect()
            } else {
                bytes.to_vec()
            };
            Arc::new(FixedSizeBinaryArray::try_new(
                width as i32,
                Buffer::from_vec(values),
                None,
            )?)
        }
        other => unreachable!("{other} has no fixed width"),
    })
}

fn read_values(source: &mut dyn Read, field: &Field, rows: usize) -> Result<ArrayRef> {
    if let Some(width) = fixed_width(field) {
        let bytes = read_bytes(source, rows as u64 * width as u64, "fixed-width values")?;
        return fixed_values(field, &bytes);
    }
    Ok(match field.data_type() {
        DataType::Utf8 => {
            let mut values = Vec::with_capacity(rows.min(1 << 16));
            for _ in 0..rows {
                values.push(utf8(
                    read_string(source, "a String value")?,
                    "A String value",
                )?);
            }
            Arc::new(StringArray::from(values))
        }
        DataType::List(item) => read_list(source, &field_type_name(item), rows)?,
        DataType::Struct(elements) => Arc::new(read_tuple(source, elements, rows)?),
        DataType::Map(entries, sorted) => read_map(source, entries, *sorted, rows)?,
        other => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Native input of type {other} is not supported yet"),
            ));
        }
    })
}

/// An array's or a map's row ends (UInt64 each) as Arrow offsets, and the
/// number of items they cover.
fn read_offsets(source: &mut dyn Read, rows: usize) -> Result<(OffsetBuffer<i32>, usize)> {
    let ends = numbers::<u64>(&read_bytes(source, rows as u64 * 8, "array offsets")?, 8);
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(0i32);
    let mut previous = 0u64;
    for end in ends {
        if end < previous || end > i32::MAX as u64 {
            return Err(incorrect(format!(
                "An array offset in the data is out of order: {end}"
            )));
        }
        previous = end;
        offsets.push(end as i32);
    }
    Ok((
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        previous as usize,
    ))
}

/// A tuple column: each element's column in turn.
fn read_tuple(source: &mut dyn Read, elements: &Fields, rows: usize) -> Result<StructArray> {
    let mut fields = Vec::with_capacity(elements.len());
    let mut columns = Vec::with_capacity(elements.len());
    for element in elements {
        let column = read_body(source, &field_type_name(element), rows)?;
        fields.push(
            element
                .as_ref()
                .clone()
                .with_data_type(column.data_type().clone()),
        );
        columns.push(column);
    }
    Ok(StructArray::try_new_with_length(
        fields.into(),
        columns,
        None,
        rows,
    )?)
}

/// A map column, as an array of (key, value) tuples: each row's end
/// offset, then all keys, then all values.
fn read_map(
    source: &mut dyn Read,
    entries: &FieldRef,
    sorted: bool,
    rows: usize,
) -> Result<ArrayRef> {
    let DataType::Struct(key_and_value) = entries.data_type() else {
        unreachable!("a map's entries are a struct")
    };
    let (offsets, items) = read_offsets(source, rows)?;
    let pairs = read_tuple(source, key_and_value, items)?;
    let entries = Arc::new(
        entries
            .as_ref()
            .clone()
            .with_data_type(pairs.data_type().clone()),
    );
    Ok(Arc::new(MapArray::try_new(
        entries, offsets, pairs, None, sorted,
    )?))
}

/// An array column: each row's end offset (UInt64), then all items.
fn read_list(source: &mut dyn Read, item_type: &str, rows: usize) -> Result<ArrayRef> {
    let (offsets, items) = read_offsets(source, rows)?;
    let items = read_body(source, item_type, items)?;
    // The item field as the array type declares it (no LowCardinality mark).
    let DataType::List(item) = parse_clickhouse_type(&format!("Array({item_type})"))?.data_type
    else {
        unreachable!("an Array type is a list")
    };
    let item_field = Arc::new(
        item.as_ref()
            .clone()
            .with_data_type(items.data_type().clone()),
    );
    Ok(Arc::new(ListArray::try_new(
        item_field, offsets, items, None,
    )?))
}
