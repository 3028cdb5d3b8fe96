//! RowBinary input: rows as `crate::row_binary` describes them. Plain
//! RowBinary holds the target's columns in order; the WithNames variants
//! name their columns in a header and are matched to the target by name (a
//! column the data lacks takes the target's default), and WithNamesAndTypes
//! also names their types, which must be the target's, as in ClickHouse,
//! while a column the target lacks is read by its named type and dropped.
//!
//! Every length is checked against ClickHouse's limits and read as bytes
//! arrive, so lying data fails with CANNOT_READ_ALL_DATA (or a size error)
//! rather than reserving what it claims.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, AsArray, BooleanArray, ListArray, MapArray, NullArray, RecordBatchOptions,
    StringArray, StructArray,
};
use datafusion::arrow::buffer::{Buffer, NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{field_type_name, parse_clickhouse_type};
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::{missing_column, to_target};
use super::native::{
    append_bytes, fixed_values, fixed_width, incorrect, not_utf8, read_array, read_failed,
    read_string, read_varint, utf8, with_nulls,
};
use super::{InputBlocks, InputTarget, MAX_BLOCK_BYTES, at_row};
use crate::row_binary::has_null_flag;

/// ClickHouse's `format_binary_max_string_size` and
/// `format_binary_max_array_size` defaults.
const MAX_STRING_SIZE: u64 = 1 << 30;
const MAX_ARRAY_SIZE: u64 = 1 << 30;
/// ClickHouse's `input_format_binary_max_type_complexity` default.
const MAX_TYPE_COMPLEXITY: usize = 1000;

/// The input, counting the bytes taken from it to size blocks.
struct Source {
    reader: BufReader<Box<dyn Read + Send>>,
    consumed: u64,
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.reader.read(buf)?;
        self.consumed += read as u64;
        Ok(read)
    }
}

impl Source {
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.reader.fill_buf().map_err(read_failed)?.is_empty())
    }
}

pub(crate) struct RowBinaryReader {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    source: Source,
    /// Per column of the data, the target column it fills (None: dropped).
    mapping: Vec<Option<usize>>,
    columns: Vec<Column>,
    block_rows: usize,
    next_row: u64,
}

impl RowBinaryReader {
    pub(crate) fn new(
        names: bool,
        types: bool,
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let mut source = Source {
            reader: BufReader::with_capacity(1 << 20, source),
            consumed: 0,
        };
        let fields: Vec<(Option<usize>, Field)> = if names && !source.at_end()? {
            read_header(&mut source, types, &target)?
        } else {
            let fields = target.fields.iter().map(|f| f.as_ref().clone());
            fields.enumerate().map(|(i, f)| (Some(i), f)).collect()
        };
        Ok(RowBinaryReader {
            schema: target.schema(),
            mapping: fields.iter().map(|(column, _)| *column).collect(),
            columns: fields.iter().map(|(_, field)| Column::new(field)).collect(),
            target,
            source,
            block_rows,
            next_row: 1,
        })
    }

    /// Reads one row's values onto the columns.
    fn read_row(&mut self) -> Result<()> {
        if self.columns.is_empty() {
            return Err(incorrect(
                "RowBinary data has rows but its header names no columns".to_string(),
            ));
        }
        for column in &mut self.columns {
            column.read(&mut self.source)?;
        }
        Ok(())
    }
}

/// The header's columns: each with the target column it fills and the type
/// its values are read as.
fn read_header(
    source: &mut Source,
    types: bool,
    target: &InputTarget,
) -> Result<Vec<(Option<usize>, Field)>> {
    let count = read_varint(source)?;
    let mut names: Vec<String> = Vec::new();
    for _ in 0..count {
        names.push(utf8(
            read_string(source, "a column name")?,
            "A column name",
        )?);
    }
    let mut columns = Vec::with_capacity(names.len());
    for name in &names {
        let position = target.position(name);
        if position.is_some() && columns.iter().any(|(p, _)| *p == position) {
            return Err(incorrect(format!(
                "Duplicate column name {name} in the data's header"
            )));
        }
        let target_field = position.map(|p| target.fields[p].as_ref());
        let field = if types {
            header_type(source, name, target_field)?
        } else {
            target_field.cloned().ok_or_else(|| {
                StrataError::new(
                    ErrorCode::CANNOT_SKIP_UNKNOWN_FIELD,
                    format!(
                        "Cannot skip unknown field {name} in RowBinary format, because its type is unknown"
                    ),
                )
            })?
        };
        columns.push((position, field));
    }
    Ok(columns)
}

/// The next type name of the header, which must be the target column's
/// (spelled alike, or alike once parsed: Strata parses no Map type).
fn header_type(source: &mut Source, name: &str, target: Option<&Field>) -> Result<Field> {
    let type_name = utf8(read_string(source, "a type name")?, "A type name")?;
    // Types are parsed recursively: bound the nesting a header may ask for.
    if type_name.matches('(').count() > MAX_TYPE_COMPLEXITY {
        return Err(incorrect(format!(
            "The type of '{name}' in the header is too complex"
        )));
    }
    let Some(target) = target else {
        return Ok(parse_clickhouse_type(&type_name)?.field(name));
    };
    let expected = field_type_name(target);
    let same = type_name == expected
        || parse_clickhouse_type(&type_name)
            .is_ok_and(|parsed| field_type_name(&parsed.field(name)) == expected);
    if !same {
        return Err(incorrect(format!(
            "Type of '{name}' must be {expected}, not {type_name}: (while reading header)"
        )));
    }
    Ok(target.clone())
}

impl InputBlocks for RowBinaryReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let start = self.source.consumed;
        let mut rows = 0;
        while rows < self.block_rows
            && self.source.consumed - start < MAX_BLOCK_BYTES as u64
            && !self.source.at_end()?
        {
            let row = self.next_row + rows as u64;
            self.read_row()
                .map_err(|e| at_row(e.code, e.message, row))?;
            rows += 1;
        }
        if rows == 0 {
            return Ok(None);
        }
        let mut read: Vec<Option<ArrayRef>> = vec![None; self.target.fields.len()];
        for (column, target) in self.columns.iter_mut().zip(&self.mapping) {
            let values = column.finish()?;
            if let Some(target) = target {
                read[*target] = Some(values);
            }
        }
        let block = self.block(read, rows)?;
        self.next_row += rows as u64;
        Ok(Some(block))
    }
}

impl RowBinaryReader {
    /// The target's block from the columns read, by target column.
    fn block(&self, read: Vec<Option<ArrayRef>>, rows: usize) -> Result<RecordBatch> {
        let mut arrays: Vec<ArrayRef> = Vec::new();
        let mut masks: Vec<ArrayRef> = Vec::new();
        for (index, (field, values)) in self.target.fields.iter().zip(read).enumerate() {
            let omitted = values.is_none();
            let values = values.unwrap_or_else(|| missing_column(field, rows));
            arrays.push(to_target(&values, field, index, self.next_row)?);
            if self.target.has_default[index] {
                masks.push(Arc::new(BooleanArray::from(vec![omitted; rows])));
            }
        }
        arrays.extend(masks);
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }
}

/// The values of one column of a block as they are read, row by row.
enum Column {
    /// Values of one width, kept as their bytes until the block ends.
    Fixed {
        field: Field,
        width: usize,
        bytes: Vec<u8>,
    },
    Strings {
        offsets: Vec<i32>,
        bytes: Vec<u8>,
    },
    Nullable {
        valid: Vec<bool>,
        inner: Box<Column>,
    },
    /// `Nullable(Nothing)`: a null flag and no value.
    Nothing {
        rows: usize,
    },
    /// An Array, or a Map as an array of key-value tuples.
    Array {
        data_type: DataType,
        offsets: Vec<i32>,
        items: Box<Column>,
    },
    Tuple {
        fields: Fields,
        elements: Vec<Column>,
    },
    Unsupported(DataType),
}

impl Column {
    fn new(field: &Field) -> Self {
        match field.data_type() {
            DataType::Null => return Column::Nothing { rows: 0 },
            _ if has_null_flag(field) => {
                let inner = field.clone().with_nullable(false);
                return Column::Nullable {
                    valid: Vec::new(),
                    inner: Box::new(Column::new(&inner)),
                };
            }
            _ => {}
        }
        if let Some(width) = fixed_width(field) {
            return Column::Fixed {
                field: field.clone(),
                width,
                bytes: Vec::new(),
            };
        }
        match field.data_type() {
            DataType::Utf8 => Column::Strings {
                offsets: vec![0],
                bytes: Vec::new(),
            },
            DataType::List(item) | DataType::Map(item, _) => Column::Array {
                data_type: field.data_type().clone(),
                offsets: vec![0],
                items: Box::new(Column::new(item)),
            },
            DataType::Struct(fields) => Column::Tuple {
                fields: fields.clone(),
                elements: fields.iter().map(|f| Column::new(f)).collect(),
            },
            other => Column::Unsupported(other.clone()),
        }
    }

    fn read(&mut self, source: &mut Source) -> Result<()> {
        match self {
            Column::Fixed { width, bytes, .. } => {
                append_bytes(source, *width as u64, bytes, "a fixed-width value")
            }
            Column::Strings { offsets, bytes } => {
                let len = read_varint(source)?;
                if len > MAX_STRING_SIZE {
                    return Err(too_large(ErrorCode::TOO_LARGE_STRING_SIZE, "string", len));
                }
                let start = bytes.len();
                append_bytes(source, len, bytes, "a String value")?;
                if std::str::from_utf8(&bytes[start..]).is_err() {
                    return Err(not_utf8("A String value"));
                }
                offsets.push(offset(bytes.len())?);
                Ok(())
            }
            Column::Nullable { valid, inner } => {
                let null = read_array::<1>(source, "a null flag")?[0] != 0;
                valid.push(!null);
                if null {
                    inner.push_default();
                    Ok(())
                } else {
                    inner.read(source)
                }
            }
            Column::Nothing { rows } => {
                read_array::<1>(source, "a null flag")?;
                *rows += 1;
                Ok(())
            }
            Column::Array { offsets, items, .. } => {
                let len = read_varint(source)?;
                if len > MAX_ARRAY_SIZE {
                    return Err(too_large(ErrorCode::TOO_LARGE_ARRAY_SIZE, "array", len));
                }
                for _ in 0..len {
                    items.read(source)?;
                }
                let total = offsets.last().map_or(0, |&o| o as usize) + len as usize;
                offsets.push(offset(total)?);
                Ok(())
            }
            Column::Tuple { elements, .. } => elements.iter_mut().try_for_each(|e| e.read(source)),
            Column::Unsupported(data_type) => Err(unsupported(data_type)),
        }
    }

    /// Stands in for the value of a NULL row.
    fn push_default(&mut self) {
        match self {
            Column::Fixed { width, bytes, .. } => bytes.resize(bytes.len() + *width, 0),
            Column::Strings { offsets, .. } | Column::Array { offsets, .. } => {
                offsets.push(*offsets.last().expect("offsets start at 0"));
            }
            Column::Nullable { valid, inner } => {
                valid.push(false);
                inner.push_default();
            }
            Column::Nothing { rows } => *rows += 1,
            Column::Tuple { elements, .. } => elements.iter_mut().for_each(Column::push_default),
            Column::Unsupported(_) => {}
        }
    }

    /// The values read since the last call.
    fn finish(&mut self) -> Result<ArrayRef> {
        Ok(match self {
            Column::Fixed { field, bytes, .. } => fixed_values(field, &std::mem::take(bytes))?,
            Column::Strings { offsets, bytes } => Arc::new(StringArray::try_new(
                OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into()),
                Buffer::from_vec(std::mem::take(bytes)),
                None,
            )?),
            Column::Nullable { valid, inner } => with_nulls(
                inner.finish()?,
                Some(NullBuffer::from(std::mem::take(valid))),
            )?,
            Column::Nothing { rows } => Arc::new(NullArray::new(std::mem::take(rows))),
            Column::Array {
                data_type,
                offsets,
                items,
            } => {
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                let items = items.finish()?;
                match data_type {
                    DataType::Map(entries, sorted) => Arc::new(MapArray::try_new(
                        Arc::clone(entries),
                        offsets,
                        items.as_struct().clone(),
                        None,
                        *sorted,
                    )?),
                    DataType::List(item) => {
                        Arc::new(ListArray::try_new(Arc::clone(item), offsets, items, None)?)
                    }
                    other => unreachable!("{other} is not an array"),
                }
            }
            Column::Tuple { fields, elements } => {
                let arrays = elements
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new(fields.clone(), arrays, None)?)
            }
            Column::Unsupported(data_type) => return Err(unsupported(data_type)),
        })
    }
}

/// An offset into a block's values, which 32-bit offsets must reach.
fn offset(len: usize) -> Result<i32> {
    i32::try_from(len)
        .map_err(|_| incorrect("A block of RowBinary data holds too many values".to_string()))
}

fn unsupported(data_type: &DataType) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!("RowBinary input of type {data_type} is not supported yet"),
    )
}

fn too_large(code: ErrorCode, what: &str, size: u64) -> StrataError {
    let setting = format!("format_binary_max_{what}_size");
    StrataError::new(
        code,
        format!(
            "Too large {what} size: {size}. The maximum is: {}. To increase the maximum, use setting {setting}",
            1u64 << 30
        ),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Cursor;

    use datafusion::arrow::compute::concat_batches;

    use super::*;
    use crate::input::InputFormat;
    use crate::row_binary::tests::{SAMPLE_HEADER, SAMPLE_ROWS, sample, unhex};

    fn target(fields: Vec<Field>, has_default: Vec<bool>) -> InputTarget {
        InputTarget {
            fields: fields.into_iter().map(Arc::new).collect(),
            has_default,
            allow_errors: Default::default(),
        }
    }

    /// Every block of `data`, a row at a time, in one batch.
    pub(crate) fn read(format: &str, target: InputTarget, data: Vec<u8>) -> Result<RecordBatch> {
        let schema = target.schema();
        let mut blocks =
            InputFormat::from_name(format)?.open(target, Box::new(Cursor::new(data)), 1)?;
        let mut batches = Vec::new();
        while let Some(block) = blocks.next_block()? {
            batches.push(block);
        }
        Ok(concat_batches(&schema, &batches)?)
    }

    fn sample_target() -> InputTarget {
        let schema = sample().schema();
        let fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        let count = fields.len();
        target(fields, vec![false; count])
    }

    fn written(format: crate::OutputFormat) -> Vec<u8> {
        let batch = sample();
        let mut out = Vec::new();
        crate::write_all(
            format,
            batch.schema(),
            &[batch],
            crate::FormatOptions::default(),
            &crate::Statistics::default(),
            &mut out,
        )
        .unwrap();
        out
    }

    #[test]
    fn clickhouse_rows_of_every_type_read_back() {
        let expected = sample();
        let mut with_header = unhex(SAMPLE_HEADER);
        with_header.extend(unhex(SAMPLE_ROWS));
        let inputs = [
            ("RowBinary", unhex(SAMPLE_ROWS)),
            ("RowBinaryWithNamesAndTypes", with_header),
            (
                "RowBinaryWithNames",
                written(crate::OutputFormat::RowBinaryWithNames),
            ),
        ];
        for (format, data) in inputs {
            let batch = read(format, sample_target(), data).unwrap();
            assert_eq!(batch.num_rows(), 2, "{format}");
            for (i, column) in expected.columns().iter().enumerate() {
                assert_eq!(batch.column(i), column, "{format}: column {i}");
            }
        }
    }

    #[test]
    fn header_columns_match_by_name() {
        let fields = vec![
            Field::new("y", DataType::UInt8, false),
            Field::new("s", DataType::Utf8, false),
        ];
        // chdb accepts this (z dropped, y its default) into (s String, y UInt8 DEFAULT 7).
        let data = b"\x02\x01z\x01s\x06String\x06String\x02ab\x01c".to_vec();
        let batch = read(
            "RowBinaryWithNamesAndTypes",
            target(fields.clone(), vec![true, false]),
            data,
        )
        .unwrap();
        let s = batch.column(1).as_string::<i32>();
        assert_eq!(s.value(0), "c");
        assert!(batch.column(2).as_boolean().value(0), "y was omitted");
        let error = read(
            "RowBinaryWithNames",
            target(fields.clone(), vec![false; 2]),
            b"\x01\x01z\x01a".to_vec(),
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_SKIP_UNKNOWN_FIELD);
        let error = read(
            "RowBinaryWithNamesAndTypes",
            target(fields, vec![false; 2]),
            b"\x01\x01s\x16LowCardinality(String)\x01a".to_vec(),
        )
        .unwrap_err();
        assert_eq!(
            error.message,
            "Type of 's' must be String, not LowCardinality(String): (while reading header)"
        );
    }

    #[test]
    fn lying_or_cut_data_fails_with_clickhouse_codes() {
        let strings = || target(vec![Field::new("s", DataType::Utf8, true)], vec![false]);
        let arrays = || {
            let item = Arc::new(Field::new("item", DataType::UInt8, false));
            target(
                vec![Field::new("a", DataType::List(item), false)],
                vec![false],
            )
        };
        let cases: Vec<(InputTarget, &[u8], ErrorCode)> = vec![
            (
                strings(),
                b"\x00\x01a\x00\x05ab",
                ErrorCode::CANNOT_READ_ALL_DATA,
            ),
            (strings(), b"\x00", ErrorCode::CANNOT_READ_ALL_DATA),
            (
                strings(),
                b"\x00\xff\xff\xff\xff\x0f",
                ErrorCode::TOO_LARGE_STRING_SIZE,
            ),
            (
                strings(),
                &[
                    0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                ],
                ErrorCode::INCORRECT_DATA,
            ),
            (strings(), b"\x00\x02\xc3\x28", ErrorCode::INCORRECT_DATA),
            (
                arrays(),
                b"\xff\xff\xff\xff\x0f\x01",
                ErrorCode::TOO_LARGE_ARRAY_SIZE,
            ),
            (
                arrays(),
                b"\xff\xff\xff\x0f\x01",
                ErrorCode::CANNOT_READ_ALL_DATA,
            ),
        ];
        for (target, data, code) in cases {
            let error = read("RowBinary", target, data.to_vec()).unwrap_err();
            assert_eq!(error.code, code, "{data:?}: {}", error.message);
            assert!(error.message.ends_with("(at row 1)") || error.message.ends_with("(at row 2)"));
        }
        let cut_header = read("RowBinaryWithNames", strings(), b"\x02\x01s".to_vec());
        assert_eq!(
            cut_header.unwrap_err().code,
            ErrorCode::CANNOT_READ_ALL_DATA
        );
        let no_columns = read("RowBinaryWithNames", strings(), b"\x00\x01".to_vec());
        assert_eq!(no_columns.unwrap_err().code, ErrorCode::INCORRECT_DATA);
        let empty = read("RowBinaryWithNamesAndTypes", strings(), Vec::new()).unwrap();
        assert_eq!(empty.num_rows(), 0);
    }
}
