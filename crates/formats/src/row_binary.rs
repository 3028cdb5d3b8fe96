//! ClickHouse's RowBinary formats: each row's values one after another, in
//! the encoding Native uses for a single value (little-endian numbers,
//! strings with a varint length), Nullable as a null flag byte before the
//! value, Array and Map as a varint count before their items, Tuple as its
//! elements. The WithNames variants start with the column count and names,
//! WithNamesAndTypes also with the type names; RawBLOB, values with nothing
//! around them. Reading is in `input/row_binary`.

use std::io::Write;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;

use crate::native::{ValueWriter, value_writer, write_string, write_varint};
use strata_common::types::{is_ipv6, is_uuid};

use crate::{Header, ResultWriter, Statistics, column_names, column_types};

/// Rows are passed on whenever this many bytes are waiting.
const FLUSH_BYTES: usize = 1 << 20;

pub(crate) struct RowBinaryWriter {
    schema: SchemaRef,
    /// RawBLOB: strings as their bytes alone, without their length.
    raw_strings: bool,
}

impl RowBinaryWriter {
    /// Writes the header `header` asks for straight away.
    pub(crate) fn new(
        header: Header,
        schema: SchemaRef,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let lines = header.lines(column_names(&schema), column_types(&schema));
        let mut bytes = Vec::new();
        if !lines.is_empty() {
            write_varint(&mut bytes, schema.fields().len() as u64);
        }
        for cell in lines.iter().flatten() {
            write_string(&mut bytes, cell.as_bytes());
        }
        out.write_all(&bytes)?;
        Ok(RowBinaryWriter {
            schema,
            raw_strings: false,
        })
    }

    /// RawBLOB: values with nothing around them, a string's bytes as they
    /// are and any other value as RowBinary writes it; meant for one String
    /// column.
    pub(crate) fn raw_blob(schema: SchemaRef) -> Self {
        RowBinaryWriter {
            schema,
            raw_strings: true,
        }
    }
}

impl ResultWriter for RowBinaryWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let encoders = self
            .schema
            .fields()
            .iter()
            .zip(batch.columns())
            .map(
                |(field, column)| match self.raw_strings && is_raw_text(field) {
                    true => Ok(Encoder::Text(column.as_ref())),
                    false => Encoder::new(field, column.as_ref()),
                },
            )
            .collect::<std::io::Result<Vec<_>>>()?;
        let mut bytes = Vec::new();
        for row in 0..batch.num_rows() {
            for encoder in &encoders {
                encoder.write(&mut bytes, row);
            }
            if bytes.len() >= FLUSH_BYTES {
                out.write_all(&bytes)?;
                bytes.clear();
            }
        }
        out.write_all(&bytes)
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether RawBLOB writes `field`'s values as their bytes alone.
fn is_raw_text(field: &Field) -> bool {
    match field.data_type() {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary => true,
        DataType::FixedSizeBinary(_) => !is_uuid(field) && !is_ipv6(field),
        _ => false,
    }
}

/// The bytes of row `row` of a column [`is_raw_text`] accepts.
fn text_bytes(column: &dyn Array, row: usize) -> &[u8] {
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(row).as_bytes(),
        DataType::LargeUtf8 => column.as_string::<i64>().value(row).as_bytes(),
        DataType::Utf8View => column.as_string_view().value(row).as_bytes(),
        DataType::Binary => column.as_binary::<i32>().value(row),
        DataType::LargeBinary => column.as_binary::<i64>().value(row),
        _ => column.as_fixed_size_binary().value(row),
    }
}

/// Whether a value of `field` is preceded by a null flag. ClickHouse has no
/// Nullable containers, and `Nothing` is only ever `Nullable(Nothing)`.
pub(crate) fn has_null_flag(field: &Field) -> bool {
    match field.data_type() {
        DataType::Null => true,
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::FixedSizeList(..)
        | DataType::Struct(_)
        | DataType::Map(..) => false,
        _ => field.is_nullable(),
    }
}

/// Where each row's items are among a container's values.
enum Ranges<'a> {
    Offsets(&'a [i32]),
    LargeOffsets(&'a [i64]),
    Fixed(usize),
}

impl Ranges<'_> {
    fn of(&self, row: usize) -> std::ops::Range<usize> {
        match self {
            Ranges::Offsets(o) => o[row] as usize..o[row + 1] as usize,
            Ranges::LargeOffsets(o) => o[row] as usize..o[row + 1] as usize,
            Ranges::Fixed(n) => row * n..(row + 1) * n,
        }
    }
}

/// Writes the values of one column row by row, chosen once per batch.
enum Encoder<'a> {
    Value(ValueWriter<'a>),
    Nullable(Option<NullBuffer>, Box<Encoder<'a>>),
    Array(Ranges<'a>, Box<Encoder<'a>>),
    Tuple(Vec<Encoder<'a>>),
    /// RawBLOB's strings: their bytes alone, nothing for NULL.
    Text(&'a dyn Array),
}

impl<'a> Encoder<'a> {
    fn new(field: &Field, column: &'a dyn Array) -> std::io::Result<Self> {
        if has_null_flag(field) {
            let inner = Encoder::not_null(field, column)?;
            return Ok(Encoder::Nullable(column.logical_nulls(), Box::new(inner)));
        }
        Encoder::not_null(field, column)
    }

    fn not_null(field: &Field, column: &'a dyn Array) -> std::io::Result<Self> {
        let array = |ranges, item: &Field, items: &'a dyn Array| -> std::io::Result<Self> {
            Ok(Encoder::Array(ranges, Box::new(Encoder::new(item, items)?)))
        };
        match column.data_type() {
            DataType::List(item) => {
                let list = column.as_list::<i32>();
                array(
                    Ranges::Offsets(list.value_offsets()),
                    item,
                    list.values().as_ref(),
                )
            }
            DataType::LargeList(item) => {
                let list = column.as_list::<i64>();
                array(
                    Ranges::LargeOffsets(list.value_offsets()),
                    item,
                    list.values().as_ref(),
                )
            }
            DataType::FixedSizeList(item, n) => {
                let list = column.as_fixed_size_list();
                array(Ranges::Fixed(*n as usize), item, list.values().as_ref())
            }
            DataType::Map(entries, _) => {
                let map = column.as_map();
                array(Ranges::Offsets(map.value_offsets()), entries, map.entries())
            }
            DataType::Struct(fields) => {
                let tuple = column.as_struct();
                let elements = fields
                    .iter()
                    .zip(tuple.columns())
                    .map(|(field, values)| Encoder::new(field, values.as_ref()))
                    .collect::<std::io::Result<Vec<_>>>()?;
                Ok(Encoder::Tuple(elements))
            }
            _ => Ok(Encoder::Value(value_writer(field, column)?)),
        }
    }

    fn write(&self, out: &mut Vec<u8>, row: usize) {
        match self {
            Encoder::Value(write) => write(out, row),
            Encoder::Nullable(nulls, inner) => {
                let null = nulls.as_ref().is_some_and(|n| n.is_null(row));
                out.push(u8::from(null));
                if !null {
                    inner.write(out, row);
                }
            }
            Encoder::Array(ranges, items) => {
                let range = ranges.of(row);
                write_varint(out, range.len() as u64);
                range.for_each(|item| items.write(out, item));
            }
            Encoder::Tuple(elements) => elements.iter().for_each(|e| e.write(out, row)),
            Encoder::Text(column) => {
                if column.is_valid(row) {
                    out.extend_from_slice(text_bytes(*column, row));
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::*;
    use datafusion::arrow::buffer::OffsetBuffer;
    use datafusion::arrow::datatypes::{Fields, Int32Type, Schema, i256};
    use strata_common::types::parse_clickhouse_type;

    use super::*;
    use crate::{FormatOptions, OutputFormat, write_all};

    /// The column names and types of [`sample`], as ClickHouse spells them.
    const SAMPLE_TYPES: &[(&str, &str)] = &[
        ("n", "UInt64"),
        ("s", "Nullable(String)"),
        ("d", "Date"),
        ("d32", "Date32"),
        ("dt", "DateTime('UTC')"),
        ("dt64", "DateTime64(3, 'UTC')"),
        ("dec9", "Decimal(9, 2)"),
        ("dec", "Decimal(18, 4)"),
        ("dec38", "Decimal(38, 10)"),
        ("dec76", "Decimal(76, 2)"),
        ("u", "UUID"),
        ("f", "FixedString(3)"),
        ("lc", "LowCardinality(String)"),
        ("a", "Array(Nullable(Int32))"),
        ("t", "Tuple(UInt8, String)"),
        ("m", "Map(String, UInt8)"),
        ("b", "Bool"),
        ("x", "Float64"),
    ];

    /// The header ClickHouse writes for [`sample`] in RowBinaryWithNamesAndTypes.
    pub(crate) const SAMPLE_HEADER: &str = concat!(
        "12016e01730164036433320264740464743634046465633903646563056465633338056465633736",
        "01750166026c6301610174016d016201780655496e743634104e756c6c61626c6528537472696e67",
        "290444617465064461746533320f4461746554696d6528275554432729144461746554696d653634",
        "28332c202755544327290d446563696d616c28392c2032290e446563696d616c2831382c2034290f",
        "446563696d616c2833382c203130290e446563696d616c2837362c20322904555549440e46697865",
        "64537472696e67283329164c6f7743617264696e616c69747928537472696e672916417272617928",
        "4e756c6c61626c6528496e7433322929145475706c652855496e74382c20537472696e6729124d61",
        "7028537472696e672c2055496e74382904426f6f6c07466c6f61743634",
    );

    /// ClickHouse's RowBinary rows of [`sample`] (chdb 26.9, from a Memory
    /// table of those types and values).
    pub(crate) const SAMPLE_ROWS: &str = concat!(
        "0000000000000000010c4d229cffff257d936503d920c88c0100007d000000c01dfeffffffffff00",
        "ba1dd2050000000000000000000000a2feffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffff6867666564636261706f6e6d6c6b6a69616200026c630200010000000107017101",
        "01610101000000000000f83f2c010000000000000002c3a900002648010000000000000000000000",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "00000000000000000000000000000000000000000000000000000000000000000000000000007879",
        "7a00000000000000000000000000c0",
    );

    pub(crate) fn unhex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    fn field(name: &str, type_name: &str) -> Field {
        if type_name.starts_with("Map(") {
            let entries = Fields::from(vec![
                Field::new("key", DataType::Utf8, false),
                Field::new("value", DataType::UInt8, false),
            ]);
            let entries = Field::new("entries", DataType::Struct(entries), false);
            return Field::new(name, DataType::Map(Arc::new(entries), false), false);
        }
        parse_clickhouse_type(type_name).unwrap().field(name)
    }

    /// `{'a': 1}` and `{}`.
    fn map_column(field: &Field) -> ArrayRef {
        let DataType::Map(entries, _) = field.data_type() else {
            unreachable!("a Map field")
        };
        let DataType::Struct(pair) = entries.data_type() else {
            unreachable!("Map entries are a struct")
        };
        let keys: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let values: ArrayRef = Arc::new(UInt8Array::from(vec![1]));
        let rows = StructArray::new(pair.clone(), vec![keys, values], None);
        let offsets = OffsetBuffer::from_lengths([1, 0]);
        Arc::new(MapArray::new(
            Arc::clone(entries),
            offsets,
            rows,
            None,
            false,
        ))
    }

    /// `(7, 'q')` and `(0, '')`.
    fn tuple_column(field: &Field) -> ArrayRef {
        let DataType::Struct(fields) = field.data_type() else {
            unreachable!("a Tuple field")
        };
        let first: ArrayRef = Arc::new(UInt8Array::from(vec![7, 0]));
        let second: ArrayRef = Arc::new(StringArray::from(vec!["q", ""]));
        Arc::new(StructArray::new(fields.clone(), vec![first, second], None))
    }

    /// Two rows of many types, the same values as [`SAMPLE_ROWS`].
    pub(crate) fn sample() -> RecordBatch {
        let fields: Vec<Field> = SAMPLE_TYPES.iter().map(|(n, t)| field(n, t)).collect();
        let utc = Some(Arc::from("UTC"));
        let uuid = *b"abcdefghijklmnop";
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(vec![0, 300])),
            Arc::new(StringArray::from(vec![None, Some("é")])),
            Arc::new(Date32Array::from(vec![19_724, 0])),
            Arc::new(Date32Array::from(vec![-25_566, 84_006])),
            Arc::new(
                TimestampSecondArray::from(vec![1_704_164_645, 0]).with_timezone_opt(utc.clone()),
            ),
            Arc::new(
                TimestampMillisecondArray::from(vec![1_704_164_645_123, 0]).with_timezone_opt(utc),
            ),
            Arc::new(
                Decimal128Array::from(vec![125, 0])
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from(vec![-123_456, 0])
                    .with_precision_and_scale(18, 4)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from(vec![25_000_000_000, 0])
                    .with_precision_and_scale(38, 10)
                    .unwrap(),
            ),
            Arc::new(
                Decimal256Array::from(vec![i256::from_i128(-350), i256::ZERO])
                    .with_precision_and_scale(76, 2)
                    .unwrap(),
            ),
            Arc::new(FixedSizeBinaryArray::try_from_iter([uuid, [0; 16]].into_iter()).unwrap()),
            Arc::new(FixedSizeBinaryArray::try_from_iter([*b"ab\0", *b"xyz"].into_iter()).unwrap()),
            Arc::new(StringArray::from(vec!["lc", ""])),
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
                Some(vec![Some(1), None]),
                Some(vec![]),
            ])),
            tuple_column(&fields[14]),
            map_column(&fields[15]),
            Arc::new(BooleanArray::from(vec![true, false])),
            Arc::new(Float64Array::from(vec![1.5, -2.0])),
        ];
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
    }

    pub(crate) fn written(format: OutputFormat, batch: &RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        write_all(
            format,
            batch.schema(),
            std::slice::from_ref(batch),
            FormatOptions::default(),
            &Statistics::default(),
            &mut out,
        )
        .unwrap();
        out
    }

    #[test]
    fn rows_match_clickhouse_byte_for_byte() {
        let batch = sample();
        assert_eq!(written(OutputFormat::RowBinary, &batch), unhex(SAMPLE_ROWS));
        let mut with_header = unhex(SAMPLE_HEADER);
        with_header.extend(unhex(SAMPLE_ROWS));
        assert_eq!(
            written(OutputFormat::RowBinaryWithNamesAndTypes, &batch),
            with_header
        );
    }

    #[test]
    fn names_header_is_a_count_then_names() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::UInt8, false)]));
        let batch = RecordBatch::new_empty(schema);
        // chdb: SELECT 1::UInt8 AS x LIMIT 0 FORMAT RowBinaryWithNames
        assert_eq!(
            written(OutputFormat::RowBinaryWithNames, &batch),
            [1, 1, b'x']
        );
        assert!(written(OutputFormat::RowBinary, &batch).is_empty());
    }

    #[test]
    fn nothing_is_always_null_and_tuples_nest() {
        // chdb: SELECT NULL AS n, (toUInt8(2), toNullable('y'), [toInt32(3)]) AS t FORMAT RowBinary
        let inner = Fields::from(vec![
            Field::new("1", DataType::UInt8, false),
            Field::new("2", DataType::Utf8, true),
            Field::new(
                "3",
                DataType::List(Arc::new(Field::new("item", DataType::Int32, false))),
                false,
            ),
        ]);
        let tuple = StructArray::new(
            inner.clone(),
            vec![
                Arc::new(UInt8Array::from(vec![2])),
                Arc::new(StringArray::from(vec![Some("y")])),
                Arc::new(ListArray::new(
                    Arc::new(Field::new("item", DataType::Int32, false)),
                    OffsetBuffer::from_lengths([1]),
                    Arc::new(Int32Array::from(vec![3])),
                    None,
                )),
            ],
            None,
        );
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Null, true),
            Field::new("t", DataType::Struct(inner), false),
        ]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(NullArray::new(1)), Arc::new(tuple)])
                .unwrap();
        assert_eq!(
            written(OutputFormat::RowBinary, &batch),
            unhex("01020001790103000000")
        );
    }
}
