//! ClickHouse's Native format, as its HTTP interface speaks it: blocks of
//! `columns` and `rows` (varints), then per column its name, its type name
//! and its values column-wise, fixed-width values little-endian; an empty
//! result is no block at all. A client naming a `client_protocol_version`
//! gets each block's BlockInfo first; one naming none gets a DateTime's
//! type without its time zone, as older clients expect. LowCardinality
//! columns travel as dictionaries. Reading is in `input/native`.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryArray, GenericListArray, MapArray, OffsetSizeTrait,
};
use datafusion::arrow::datatypes::*;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{
    BigInt, declared_precision, enum_type, field_type_name, is_uuid, precision_step,
};

use crate::{ResultWriter, Statistics};

pub(crate) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub(crate) fn write_string(out: &mut Vec<u8>, bytes: &[u8]) {
    write_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// `name` with every `LowCardinality(...)` wrapper removed.
pub(crate) fn without_low_cardinality(name: &str) -> String {
    const WRAPPER: &str = "LowCardinality(";
    let mut text = name.to_string();
    while let Some(start) = text.find(WRAPPER) {
        let inner_start = start + WRAPPER.len();
        let mut depth = 1;
        let mut end = inner_start;
        for (i, c) in text[inner_start..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = inner_start + i;
                break;
            }
        }
        text = format!(
            "{}{}{}",
            &text[..start],
            &text[inner_start..end],
            &text[end + 1..]
        );
    }
    text
}

/// A ClickHouse UUID is two little-endian 64-bit halves, high first; Arrow
/// holds the 16 bytes in text order.
pub(crate) fn uuid_swap(bytes: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for half in 0..2 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[half * 8..half * 8 + 8]);
        word.reverse();
        out[half * 8..half * 8 + 8].copy_from_slice(&word);
    }
    out
}

/// The first revision whose clients read `DateTime('zone')`.
const REVISION_WITH_DATETIME_ZONE: u64 = 54337;
/// The first revision whose clients read LowCardinality dictionaries.
const REVISION_WITH_LOW_CARDINALITY: u64 = 54405;

/// A block's BlockInfo: field 1 `is_overflows` false, field 2
/// `bucket_num` -1, then the end mark 0.
const BLOCK_INFO: [u8; 8] = [1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0];

pub struct NativeWriter {
    schema: SchemaRef,
    protocol_version: u64,
}

impl NativeWriter {
    pub fn new(schema: SchemaRef, protocol_version: u64) -> Self {
        NativeWriter {
            schema,
            protocol_version,
        }
    }

    fn block(&self, batch: &RecordBatch) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        if self.protocol_version > 0 {
            out.extend_from_slice(&BLOCK_INFO);
        }
        write_varint(&mut out, batch.num_columns() as u64);
        write_varint(&mut out, batch.num_rows() as u64);
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            write_string(&mut out, field.name().as_bytes());
            let type_name = self.type_name(field);
            write_string(&mut out, type_name.as_bytes());
            if type_name.starts_with("LowCardinality(") {
                write_low_cardinality(&mut out, field, column)?;
            } else {
                write_column(&mut out, field, column)?;
            }
        }
        Ok(out)
    }

    /// The type name the client's revision reads.
    fn type_name(&self, field: &Field) -> String {
        let version = self.protocol_version;
        let mut name = field_type_name(field);
        if version > 0 && version < REVISION_WITH_LOW_CARDINALITY {
            name = without_low_cardinality(&name);
        }
        if version < REVISION_WITH_DATETIME_ZONE && name.starts_with("DateTime(") {
            name = "DateTime".to_string();
        }
        name
    }
}

impl ResultWriter for NativeWriter {
    /// ClickHouse writes no block for no rows, so an empty result is empty.
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        out.write_all(&self.block(batch)?)
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

/// A LowCardinality column: the keys' version (1), then the block's
/// dictionary and each row's index into it. Index 0 is NULL in a Nullable
/// column, then comes the type's default, then the other values in order
/// of appearance, as ClickHouse numbers them.
fn write_low_cardinality(
    out: &mut Vec<u8>,
    field: &Field,
    column: &ArrayRef,
) -> std::io::Result<()> {
    let write = value_writer(field, column.as_ref())?;
    let default = strata_common::types::default_value(field.data_type())
        .and_then(|value| value.to_array())
        .map_err(std::io::Error::other)?;
    let mut default_bytes = Vec::new();
    value_writer(field, default.as_ref())?(&mut default_bytes, 0);
    let first = u64::from(field.is_nullable());
    // NULL's key, where there is one, holds the default's bytes too.
    let mut keys = default_bytes.repeat(1 + first as usize);
    let mut slots = HashMap::from([(default_bytes, first)]);
    let mut indexes = Vec::with_capacity(column.len());
    let mut value = Vec::new();
    for row in 0..column.len() {
        if column.is_null(row) {
            indexes.push(0);
            continue;
        }
        value.clear();
        write(&mut value, row);
        let next = first + slots.len() as u64;
        let index = *slots.entry(value.clone()).or_insert_with(|| {
            keys.extend_from_slice(&value);
            next
        });
        indexes.push(index);
    }
    let count = first + slots.len() as u64;
    let (index_type, width) = match count {
        0..=0x100 => (0u64, 1),
        0x101..=0x1_0000 => (1, 2),
        0x1_0001..=0x1_0000_0000 => (2, 4),
        _ => (3, 8),
    };
    // Flags: the index type, HasAdditionalKeys and NeedUpdateDictionary.
    out.extend_from_slice(&1u64.to_le_bytes());
    out.extend_from_slice(&(index_type | 0x200 | 0x400).to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&keys);
    out.extend_from_slice(&(column.len() as u64).to_le_bytes());
    for index in indexes {
        out.extend_from_slice(&index.to_le_bytes()[..width]);
    }
    Ok(())
}

fn unsupported(data_type: &DataType) -> std::io::Error {
    std::io::Error::other(format!(
        "Binary output of Arrow type {data_type} is not supported yet"
    ))
}

/// The values of `column`: a null map first when the field is nullable.
fn write_column(out: &mut Vec<u8>, field: &Field, column: &ArrayRef) -> std::io::Result<()> {
    if field.is_nullable() && !matches!(field.data_type(), DataType::Null) {
        out.extend((0..column.len()).map(|i| u8::from(column.is_null(i))));
    }
    write_values(out, field, column)
}

fn write_values(out: &mut Vec<u8>, field: &Field, column: &ArrayRef) -> std::io::Result<()> {
    match column.data_type() {
        DataType::List(item) => write_list(out, item, column.as_list::<i32>()),
        DataType::LargeList(item) => write_list(out, item, column.as_list::<i64>()),
        // A tuple is its elements' columns one after another.
        DataType::Struct(elements) => {
            let tuple = column.as_struct();
            for (element, values) in elements.iter().zip(tuple.columns()) {
                write_column(out, element, values)?;
            }
            Ok(())
        }
        DataType::Map(entries, _) => write_map(out, entries, column.as_map()),
        _ => {
            let write = value_writer(field, column.as_ref())?;
            (0..column.len()).for_each(|row| write(out, row));
            Ok(())
        }
    }
}

/// Writes the value of one row of a column.
pub(crate) type ValueWriter<'a> = Box<dyn Fn(&mut Vec<u8>, usize) + 'a>;

/// How ClickHouse's binary formats (Native, RowBinary) write one value of a
/// column that is not a container: fixed-width values little-endian in the
/// declared type's width, strings with their varint length. Chosen once per
/// column, so writing a value does not look at the type again.
pub(crate) fn value_writer<'a>(
    field: &Field,
    column: &'a dyn Array,
) -> std::io::Result<ValueWriter<'a>> {
    macro_rules! le {
        ($t:ty) => {{
            let values = column.as_primitive::<$t>().values();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&values[i].to_le_bytes())
            })
        }};
    }
    macro_rules! strings {
        ($values:expr) => {{
            let values = $values;
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                let value: &[u8] = values.value(i).as_ref();
                write_string(out, value)
            })
        }};
    }
    if let Some(enum_type) = enum_type(field)
        && let Some(names) = column.as_string_opt::<i32>()
    {
        // An enum is sent as its elements' numbers, in its type's width.
        let numbers = enum_type.numbers_of(names).values().clone();
        let width = if enum_type.is_wide() { 2 } else { 1 };
        return Ok(Box::new(move |out: &mut Vec<u8>, i: usize| {
            out.extend_from_slice(&numbers[i].to_le_bytes()[..width])
        }));
    }
    let writer: ValueWriter<'a> = match column.data_type() {
        DataType::Null => Box::new(|out: &mut Vec<u8>, _| out.push(0)),
        DataType::Boolean => {
            let values = column.as_boolean();
            Box::new(move |out: &mut Vec<u8>, i: usize| out.push(u8::from(values.value(i))))
        }
        DataType::Int8 => le!(Int8Type),
        DataType::Int16 => le!(Int16Type),
        DataType::Int32 => le!(Int32Type),
        DataType::Int64 => le!(Int64Type),
        DataType::UInt8 => le!(UInt8Type),
        DataType::UInt16 => le!(UInt16Type),
        DataType::UInt32 => le!(UInt32Type),
        DataType::UInt64 => le!(UInt64Type),
        DataType::Float32 => le!(Float32Type),
        DataType::Float64 => le!(Float64Type),
        DataType::Decimal128(precision, _) => {
            // Two's complement: the low bytes are the narrower integer.
            let width = decimal_width(*precision);
            let values = column.as_primitive::<Decimal128Type>().values();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&values[i].to_le_bytes()[..width])
            })
        }
        // Stored in 256 bits, sent in its own 128.
        data_type if BigInt::of(data_type) == Some(BigInt::UInt128) => {
            let values = column.as_primitive::<Decimal256Type>().values();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&values[i].to_le_bytes()[..16])
            })
        }
        DataType::Decimal256(..) => le!(Decimal256Type),
        DataType::Date32 if is_date32(field) => le!(Date32Type),
        DataType::Date32 => {
            let days = column.as_primitive::<Date32Type>().values();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&(days[i].clamp(0, 65_535) as u16).to_le_bytes())
            })
        }
        // A DateTime64(p) is its count of 10^-p seconds.
        DataType::Timestamp(unit, _) if let Some(precision) = declared_precision(field) => {
            let step = precision_step(*unit, precision);
            let ticks = datafusion::arrow::compute::cast(column, &DataType::Int64)
                .map_err(std::io::Error::other)?;
            let ticks = ticks.as_primitive::<Int64Type>().clone();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&(ticks.value(i) / step).to_le_bytes())
            })
        }
        DataType::Timestamp(TimeUnit::Second, _) => {
            let seconds = column.as_primitive::<TimestampSecondType>().values();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                let value = seconds[i].clamp(0, u32::MAX as i64) as u32;
                out.extend_from_slice(&value.to_le_bytes())
            })
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => le!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => le!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => le!(TimestampNanosecondType),
        DataType::Utf8 => strings!(column.as_string::<i32>()),
        DataType::LargeUtf8 => strings!(column.as_string::<i64>()),
        DataType::Utf8View => strings!(column.as_string_view()),
        DataType::Binary => strings!(column.as_binary::<i32>()),
        DataType::LargeBinary => strings!(column.as_binary::<i64>()),
        DataType::BinaryView => strings!(column.as_binary_view()),
        DataType::FixedSizeBinary(_) if is_uuid(field) => {
            let values: &FixedSizeBinaryArray = column.as_fixed_size_binary();
            Box::new(move |out: &mut Vec<u8>, i: usize| {
                out.extend_from_slice(&uuid_swap(values.value(i)))
            })
        }
        DataType::FixedSizeBinary(_) => {
            let values: &FixedSizeBinaryArray = column.as_fixed_size_binary();
            Box::new(move |out: &mut Vec<u8>, i: usize| out.extend_from_slice(values.value(i)))
        }
        other => return Err(unsupported(other)),
    };
    Ok(writer)
}

/// The bytes of ClickHouse's integer under a `Decimal(precision, _)`.
pub(crate) fn decimal_width(precision: u8) -> usize {
    match precision {
        0..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => 32,
    }
}

/// True for a `Date32` column: Arrow's `Date32` also holds ClickHouse's
/// `Date`, written as UInt16 days.
pub(crate) fn is_date32(field: &Field) -> bool {
    field.data_type() == &DataType::Date32 && field_type_name(field).contains("Date32")
}

/// An array column: each row's end offset (UInt64), then all items.
fn write_list<O: OffsetSizeTrait>(
    out: &mut Vec<u8>,
    item: &Field,
    list: &GenericListArray<O>,
) -> std::io::Result<()> {
    let (first, len) = write_offsets(out, list.value_offsets());
    let items = list.values().slice(first, len);
    write_column(out, item, &items)
}

/// Each row's end offset as UInt64, counted from the first row's start;
/// returns where the rows' items start and how many there are.
fn write_offsets<O: OffsetSizeTrait>(out: &mut Vec<u8>, offsets: &[O]) -> (usize, usize) {
    let first = offsets[0].as_usize();
    for end in &offsets[1..] {
        out.extend_from_slice(&((end.as_usize() - first) as u64).to_le_bytes());
    }
    (first, offsets[offsets.len() - 1].as_usize() - first)
}

/// A map column, as an array of (key, value) tuples: each row's end
/// offset (UInt64), then all keys, then all values.
fn write_map(out: &mut Vec<u8>, entries: &Field, map: &MapArray) -> std::io::Result<()> {
    let (first, len) = write_offsets(out, map.value_offsets());
    let items: ArrayRef = Arc::new(map.entries().slice(first, len));
    write_values(out, entries, &items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_cardinality_wrappers_are_removed() {
        assert_eq!(without_low_cardinality("LowCardinality(String)"), "String");
        assert_eq!(
            without_low_cardinality("Array(LowCardinality(Nullable(String)))"),
            "Array(Nullable(String))"
        );
        assert_eq!(without_low_cardinality("UInt8"), "UInt8");
    }

    #[test]
    fn maps_are_arrays_of_keys_then_values_and_tuples_their_elements() {
        use datafusion::arrow::array::{MapBuilder, StringBuilder, UInt8Array, UInt64Builder};
        let mut builder = MapBuilder::new(None, StringBuilder::new(), UInt64Builder::new())
            .with_values_field(Field::new("value", DataType::UInt64, false));
        for (key, value) in [("z", 9), ("a", 1)] {
            builder.keys().append_value(key);
            builder.values().append_value(value);
            builder.append(true).unwrap();
        }
        builder.append(true).unwrap();
        let map: ArrayRef = Arc::new(builder.finish().slice(1, 2));
        let mut out = Vec::new();
        let field = Field::new("m", map.data_type().clone(), false);
        write_column(&mut out, &field, &map).unwrap();
        let mut expected = [1u64.to_le_bytes(), 1u64.to_le_bytes()].concat();
        expected.extend_from_slice(b"\x01a");
        expected.extend_from_slice(&1u64.to_le_bytes());
        assert_eq!(
            out, expected,
            "offsets from the slice's start, one key, one value"
        );

        let tuple: ArrayRef = Arc::new(datafusion::arrow::array::StructArray::from(vec![(
            Arc::new(Field::new("1", DataType::UInt8, false)),
            Arc::new(UInt8Array::from(vec![4, 5])) as ArrayRef,
        )]));
        let mut out = Vec::new();
        let field = Field::new("t", tuple.data_type().clone(), false);
        write_column(&mut out, &field, &tuple).unwrap();
        assert_eq!(out, [4, 5]);
    }

    #[test]
    fn varints_are_little_endian_groups_of_seven_bits() {
        let mut out = Vec::new();
        write_varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
    }
}
