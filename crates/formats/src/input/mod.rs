//! Input formats: the data of `INSERT ... FORMAT <name>`, read into blocks of
//! the target columns' types.
//!
//! Text formats turn each row into cells (text, NULL, or omitted) and
//! [`cells::CellBlock`] converts a block of cells column by column, so every
//! format shares one set of value parsers and reports a bad value with its row
//! and column the same way. Parquet arrives typed and only needs casts, checked
//! the same way. Native arrives typed too, in ClickHouse's own layout, and
//! so do RowBinary (row by row) and Arrow (converted as Parquet).

mod arrow;
pub mod as_string;
mod cells;
mod convert;

pub use convert::parse_array_texts;
mod delimited;
pub mod infer;
mod json_each_row;
mod native;
pub mod parquet;
pub mod parquet_statistics;
mod row_binary;

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::{ErrorCode, Result, StrataError};

/// A block is cut when its cells hold this many bytes, whatever its row count,
/// so wide rows do not make a block too large for 32-bit string offsets.
const MAX_BLOCK_BYTES: usize = 256 << 20;

/// The columns an insert's data fills.
#[derive(Debug, Clone)]
pub struct InputTarget {
    /// In the order a format without column names gives them.
    pub fields: Vec<FieldRef>,
    /// Whether each column has a `DEFAULT` expression. Such a column gets a
    /// Boolean mask column ([`omitted_mask_name`]) that is true where the
    /// value was omitted, so the insert can compute the expression for those
    /// rows; other columns get their type's default value in place.
    pub has_default: Vec<bool>,
    /// Rows of a text format that may fail to parse and be skipped.
    pub allow_errors: AllowErrors,
}

/// `input_format_allow_errors_num` and `input_format_allow_errors_ratio`:
/// as in ClickHouse, a row that fails to parse is skipped unless the
/// errors so far exceed both the number and the share of rows read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AllowErrors {
    pub num: u64,
    pub ratio: f64,
}

impl AllowErrors {
    /// Whether `errors` among `rows` read are still allowed.
    pub(crate) fn allows(&self, errors: u64, rows: u64) -> bool {
        errors <= self.num || errors as f64 / rows.max(1) as f64 <= self.ratio
    }
}

impl InputTarget {
    /// The schema of the blocks: the target columns, then one mask per
    /// column with a default.
    pub fn schema(&self) -> SchemaRef {
        let mut fields: Vec<FieldRef> = self.fields.clone();
        for (field, has_default) in self.fields.iter().zip(&self.has_default) {
            if *has_default {
                fields.push(Arc::new(Field::new(
                    omitted_mask_name(field.name()),
                    DataType::Boolean,
                    false,
                )));
            }
        }
        Arc::new(Schema::new(fields))
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name() == name)
    }
}

/// The mask column that marks rows where `column` was omitted.
pub fn omitted_mask_name(column: &str) -> String {
    format!("_omitted_{column}")
}

/// A source of blocks in the target's schema.
pub trait InputBlocks: Send {
    /// The next block, or `None` at the end of the data.
    fn next_block(&mut self) -> Result<Option<RecordBatch>>;
}

/// The formats an insert reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Csv {
        names: bool,
        types: bool,
    },
    TabSeparated {
        names: bool,
        types: bool,
    },
    JsonEachRow,
    /// JSONCompactEachRow and JSONCompactStringsEachRow, with names and types.
    JsonCompactEachRow {
        names: bool,
        types: bool,
    },
    Parquet,
    Native,
    RowBinary {
        names: bool,
        types: bool,
    },
    Arrow,
    ArrowStream,
    /// LineAsString, JSONAsString, RawBLOB: one String column.
    AsString(as_string::Piece),
}

impl InputFormat {
    /// Every name accepted by [`InputFormat::from_name`].
    pub const NAMES: &'static [&'static str] = &[
        "CSV",
        "CSVWithNames",
        "CSVWithNamesAndTypes",
        "TabSeparated",
        "TSV",
        "TabSeparatedWithNames",
        "TSVWithNames",
        "TabSeparatedWithNamesAndTypes",
        "TSVWithNamesAndTypes",
        "JSONEachRow",
        "JSONLines",
        "JSONL",
        "NDJSON",
        "JSONStringsEachRow",
        "JSONCompactEachRow",
        "JSONCompactEachRowWithNames",
        "JSONCompactEachRowWithNamesAndTypes",
        "JSONCompactStringsEachRow",
        "JSONCompactStringsEachRowWithNames",
        "JSONCompactStringsEachRowWithNamesAndTypes",
        "LineAsString",
        "JSONAsString",
        "RawBLOB",
        "Parquet",
        "Native",
        "RowBinary",
        "RowBinaryWithNames",
        "RowBinaryWithNamesAndTypes",
        "Arrow",
        "ArrowStream",
    ];

    /// Looks a format up by ClickHouse's name or alias, in any letter case
    /// (as ClickHouse does).
    pub fn from_name(name: &str) -> Result<Self> {
        let canonical = Self::NAMES
            .iter()
            .find(|known| known.eq_ignore_ascii_case(name))
            .copied();
        Self::from_exact_name(canonical.unwrap_or(name))
    }

    /// Looks a format up by its exact name.
    fn from_exact_name(name: &str) -> Result<Self> {
        let plain = |names, types| (names, types);
        Ok(match name {
            "CSV" => Self::csv(plain(false, false)),
            "CSVWithNames" => Self::csv(plain(true, false)),
            "CSVWithNamesAndTypes" => Self::csv(plain(true, true)),
            "TabSeparated" | "TSV" => Self::tsv(plain(false, false)),
            "TabSeparatedWithNames" | "TSVWithNames" => Self::tsv(plain(true, false)),
            "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => {
                Self::tsv(plain(true, true))
            }
            // Values of JSONStringsEachRow are strings, which JSONEachRow reads too.
            "JSONEachRow" | "JSONLines" | "JSONL" | "NDJSON" | "JSONStringsEachRow" => {
                InputFormat::JsonEachRow
            }
            "JSONCompactEachRow" | "JSONCompactStringsEachRow" => InputFormat::JsonCompactEachRow {
                names: false,
                types: false,
            },
            "JSONCompactEachRowWithNames" | "JSONCompactStringsEachRowWithNames" => {
                InputFormat::JsonCompactEachRow {
                    names: true,
                    types: false,
                }
            }
            "JSONCompactEachRowWithNamesAndTypes"
            | "JSONCompactStringsEachRowWithNamesAndTypes" => InputFormat::JsonCompactEachRow {
                names: true,
                types: true,
            },
            "LineAsString" => InputFormat::AsString(as_string::Piece::Line),
            "JSONAsString" => InputFormat::AsString(as_string::Piece::JsonObject),
            "RawBLOB" => InputFormat::AsString(as_string::Piece::Whole),
            "Parquet" => InputFormat::Parquet,
            "Native" => InputFormat::Native,
            "RowBinary" => InputFormat::RowBinary {
                names: false,
                types: false,
            },
            "RowBinaryWithNames" => InputFormat::RowBinary {
                names: true,
                types: false,
            },
            "RowBinaryWithNamesAndTypes" => InputFormat::RowBinary {
                names: true,
                types: true,
            },
            "Arrow" => InputFormat::Arrow,
            "ArrowStream" => InputFormat::ArrowStream,
            _ if crate::OutputFormat::from_name(name).is_ok() => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_FORMAT,
                    format!("Format {name} is not suitable for input"),
                ));
            }
            _ => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_FORMAT,
                    format!("Unknown input format {name}"),
                ));
            }
        })
    }

    fn csv((names, types): (bool, bool)) -> Self {
        InputFormat::Csv { names, types }
    }

    fn tsv((names, types): (bool, bool)) -> Self {
        InputFormat::TabSeparated { names, types }
    }

    /// Starts reading `source`; blocks hold up to `block_rows` rows.
    pub fn open(
        self,
        target: InputTarget,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Box<dyn InputBlocks>> {
        assert!(block_rows > 0, "a block holds at least one row");
        assert_eq!(target.fields.len(), target.has_default.len());
        let target = Arc::new(target);
        Ok(match self {
            InputFormat::Csv { names, types } => Box::new(delimited::DelimitedReader::new(
                delimited::Dialect::Csv,
                names,
                types,
                target,
                source,
                block_rows,
            )?),
            InputFormat::TabSeparated { names, types } => {
                Box::new(delimited::DelimitedReader::new(
                    delimited::Dialect::TabSeparated,
                    names,
                    types,
                    target,
                    source,
                    block_rows,
                )?)
            }
            InputFormat::JsonEachRow => Box::new(json_each_row::JsonEachRowReader::new(
                json_each_row::Layout::Objects,
                target,
                source,
                block_rows,
            )?),
            InputFormat::JsonCompactEachRow { names, types } => {
                Box::new(json_each_row::JsonEachRowReader::new(
                    json_each_row::Layout::Arrays { names, types },
                    target,
                    source,
                    block_rows,
                )?)
            }
            InputFormat::Parquet => {
                Box::new(parquet::ParquetReader::new(target, source, block_rows)?)
            }
            InputFormat::Native => Box::new(native::NativeReader::new(target, source)),
            InputFormat::RowBinary { names, types } => Box::new(row_binary::RowBinaryReader::new(
                names, types, target, source, block_rows,
            )?),
            InputFormat::AsString(piece) => Box::new(as_string::AsStringReader::new(
                piece, target, source, block_rows,
            )?),
            InputFormat::Arrow | InputFormat::ArrowStream => Box::new(arrow::ArrowReader::new(
                self == InputFormat::Arrow,
                target,
                source,
                block_rows,
            )?),
        })
    }
}

/// A malformed-input error with ClickHouse's `(at row N)` suffix.
fn at_row(code: ErrorCode, message: impl std::fmt::Display, row: u64) -> StrataError {
    StrataError::new(code, format!("{message}: (at row {row})"))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use datafusion::arrow::array::{Array, Int32Array, StringArray};
    use datafusion::arrow::util::display::array_value_to_string;

    use super::*;

    #[test]
    fn every_listed_name_is_read() {
        for name in InputFormat::NAMES {
            assert!(InputFormat::from_name(name).is_ok(), "{name}");
        }
    }

    fn target(fields: Vec<Field>, has_default: Vec<bool>) -> InputTarget {
        InputTarget {
            fields: fields.into_iter().map(Arc::new).collect(),
            has_default,
            allow_errors: AllowErrors::default(),
        }
    }

    fn read_all(format: &str, target: InputTarget, data: Vec<u8>) -> Result<Vec<RecordBatch>> {
        let mut blocks =
            InputFormat::from_name(format)?.open(target, Box::new(Cursor::new(data)), 2)?;
        let mut out = Vec::new();
        while let Some(block) = blocks.next_block()? {
            out.push(block);
        }
        Ok(out)
    }

    #[test]
    fn blocks_keep_row_numbers_for_errors() {
        let fields = vec![Field::new("a", DataType::Int32, false)];
        let error =
            read_all("CSV", target(fields, vec![false]), b"1\n2\n3\nx\n".to_vec()).unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
        assert!(error.message.ends_with("(at row 4)"), "{}", error.message);
    }

    #[test]
    fn omitted_values_are_masked_for_defaults() {
        let fields = vec![
            Field::new("a", DataType::Int32, false),
            Field::new("b", DataType::Utf8, true),
        ];
        let batches = read_all(
            "JSONEachRow",
            target(fields, vec![true, false]),
            br#"{"a": 5} {"b": "x"} {"a": null, "b": null}"#.to_vec(),
        )
        .unwrap();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 3);
        let first = &batches[0];
        assert_eq!(first.schema().field(2).name(), "_omitted_a");
        let masks: Vec<String> = batches
            .iter()
            .flat_map(|b| {
                (0..b.num_rows())
                    .map(|i| array_value_to_string(b.column(2), i).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect();
        // Row 3's NULL for a non-Nullable column takes the default too.
        assert_eq!(masks, ["false", "true", "true"]);
        let b = batches[1]
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert!(
            b.is_null(0),
            "an explicit null in a Nullable column stays NULL"
        );
    }

    #[test]
    fn parquet_columns_match_by_name_and_convert() {
        use ::parquet::arrow::ArrowWriter;
        let schema = Arc::new(Schema::new(vec![
            Field::new("when", DataType::Utf8, false),
            Field::new("n", DataType::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(StringArray::from(vec!["2024-01-02", "2024-03-04", "nope"])),
                Arc::new(Int32Array::from(vec![1, 2, 3])),
            ],
        )
        .unwrap();
        let mut bytes = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut bytes, schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let fields = vec![
            Field::new("n", DataType::Int64, false),
            Field::new("when", DataType::Date32, false),
            Field::new("missing", DataType::Utf8, false),
        ];
        let error = read_all("Parquet", target(fields.clone(), vec![false; 3]), bytes).unwrap_err();
        assert!(error.message.contains("(at row 3)"), "{}", error.message);
        // A file without the bad row converts every column it has.
        let good = RecordBatch::try_new(
            batch.schema(),
            vec![batch.column(0).slice(0, 2), batch.column(1).slice(0, 2)],
        )
        .unwrap();
        let mut bytes = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut bytes, good.schema(), None).unwrap();
        writer.write(&good).unwrap();
        writer.close().unwrap();
        let batches = read_all("Parquet", target(fields, vec![false; 3]), bytes).unwrap();
        let out = &batches[0];
        assert_eq!(array_value_to_string(out.column(0), 1).unwrap(), "2");
        assert_eq!(
            array_value_to_string(out.column(1), 0).unwrap(),
            "2024-01-02"
        );
        assert_eq!(array_value_to_string(out.column(2), 0).unwrap(), "");
        let truncated = read_all(
            "Parquet",
            target(vec![Field::new("n", DataType::Int64, false)], vec![false]),
            b"PAR1xx".to_vec(),
        )
        .unwrap_err();
        assert_eq!(truncated.code, ErrorCode::INCORRECT_DATA);
    }

    #[test]
    fn native_round_trips_and_refuses_lying_lengths() {
        use datafusion::arrow::array::{ArrayRef, ListArray, UInt64Array};
        use datafusion::arrow::datatypes::Int64Type;
        let fields = vec![
            Field::new("n", DataType::UInt64, false),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Date32, false),
            Field::new(
                "a",
                DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                false,
            ),
        ];
        let schema = Arc::new(Schema::new(fields.clone()));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec![Some("x"), None, Some("zz")])),
            Arc::new(datafusion::arrow::array::Date32Array::from(vec![
                0, 19_000, 20_000,
            ])),
            Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
                Some(vec![Some(1), Some(2)]),
                Some(vec![]),
                Some(vec![Some(3)]),
            ])),
        ];
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
        let mut bytes = Vec::new();
        let mut writer = crate::native::NativeWriter::new(Arc::clone(&schema), 0);
        crate::ResultWriter::write_batch(&mut writer, &mut bytes, &batch).unwrap();
        crate::ResultWriter::write_batch(&mut writer, &mut bytes, &batch).unwrap();
        let batches = read_all(
            "Native",
            target(fields.clone(), vec![false; 4]),
            bytes.clone(),
        )
        .unwrap();
        assert_eq!(batches.len(), 2);
        for column in 0..4 {
            assert_eq!(
                batches[1].column(column).as_ref(),
                batch.column(column).as_ref()
            );
        }
        // The first block cut short, and a block claiming more rows than it holds.
        let cut = read_all(
            "Native",
            target(fields.clone(), vec![false; 4]),
            bytes[..20].to_vec(),
        );
        assert_eq!(cut.unwrap_err().code, ErrorCode::CANNOT_READ_ALL_DATA);
        let mut lying = bytes[..bytes.len() / 2].to_vec();
        lying[1] = 0x7f;
        let lied = read_all("Native", target(fields, vec![false; 4]), lying);
        assert_eq!(lied.unwrap_err().code, ErrorCode::CANNOT_READ_ALL_DATA);
    }

    #[test]
    fn native_maps_and_tuples_read_back_as_written() {
        use datafusion::arrow::array::{
            ArrayRef, MapBuilder, StringBuilder, StructArray, UInt64Array, UInt64Builder,
        };
        let mut map = MapBuilder::new(None, StringBuilder::new(), UInt64Builder::new())
            .with_values_field(Field::new("value", DataType::UInt64, false));
        for row in [vec![("a", 1), ("b", 2)], vec![], vec![("c", 3)]] {
            for (key, value) in row {
                map.keys().append_value(key);
                map.values().append_value(value);
            }
            map.append(true).unwrap();
        }
        let map: ArrayRef = Arc::new(map.finish());
        let tuple: ArrayRef = Arc::new(StructArray::from(vec![
            (
                Arc::new(Field::new("x", DataType::UInt64, false)),
                Arc::new(UInt64Array::from(vec![7, 8, 9])) as ArrayRef,
            ),
            (
                Arc::new(Field::new("y", DataType::Utf8, true)),
                Arc::new(StringArray::from(vec![Some("p"), None, Some("q")])) as ArrayRef,
            ),
        ]));
        let fields = vec![
            Field::new("m", map.data_type().clone(), false),
            Field::new("t", tuple.data_type().clone(), false),
        ];
        let schema = Arc::new(Schema::new(fields.clone()));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![map, tuple]).unwrap();
        let mut bytes = Vec::new();
        let mut writer = crate::native::NativeWriter::new(Arc::clone(&schema), 0);
        crate::ResultWriter::write_batch(&mut writer, &mut bytes, &batch).unwrap();
        let batches = read_all("Native", target(fields, vec![false; 2]), bytes).unwrap();
        assert_eq!(strings(&batches[0], 0), ["{a: 1, b: 2}", "{}", "{c: 3}"]);
        assert_eq!(
            strings(&batches[0], 1),
            ["{x: 7, y: p}", "{x: 8, y: }", "{x: 9, y: q}"]
        );
    }

    fn strings(batch: &RecordBatch, column: usize) -> Vec<String> {
        let values = batch.column(column);
        (0..values.len())
            .map(|row| array_value_to_string(values, row).unwrap())
            .collect()
    }

    #[test]
    fn native_low_cardinality_is_read_from_its_dictionary() {
        // chdb's `SELECT x, n FORMAT Native` of LowCardinality(String) and
        // LowCardinality(Nullable(String)) columns: 'b','','a','b' and
        // 'b','',NULL,'a'.
        let hex = "02040178164c6f7743617264696e616c69747928537472696e6729\
                   0100000000000000000600000000000003000000000000000001620161\
                   040000000000000001000201\
                   016e204c6f7743617264696e616c697479284e756c6c61626c6528537472696e672929\
                   0100000000000000000600000000000004000000000000000000016201610400000000000000\
                   02010003";
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let fields = vec![
            Field::new("x", DataType::Utf8, false),
            Field::new("n", DataType::Utf8, true),
        ];
        let batches = read_all("Native", target(fields, vec![false; 2]), bytes).unwrap();
        assert_eq!(strings(&batches[0], 0), ["b", "", "a", "b"]);
        assert_eq!(batches[0].column(1).null_count(), 1);
        assert_eq!(strings(&batches[0], 1), ["b", "", "", "a"]);
    }

    #[test]
    fn native_low_cardinality_inside_arrays_reads_its_version_first() {
        let mut bytes = vec![1, 2, 1, b'a'];
        let type_name = b"Array(LowCardinality(Nullable(String)))";
        bytes.push(type_name.len() as u8);
        bytes.extend_from_slice(type_name);
        let words = |bytes: &mut Vec<u8>, words: &[u64]| {
            words
                .iter()
                .for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()))
        };
        // The version, the offsets (rows [x, NULL] and [x]), then the
        // dictionary as clickhouse-connect writes it: NULL, then 'x'.
        words(&mut bytes, &[1, 2, 3, 0x600, 2]);
        bytes.extend_from_slice(&[0, 1, b'x']);
        words(&mut bytes, &[3]);
        bytes.extend_from_slice(&[1, 0, 1]);
        let item = Arc::new(Field::new("item", DataType::Utf8, true));
        let fields = vec![Field::new("a", DataType::List(item), false)];
        let batches = read_all("Native", target(fields, vec![false]), bytes).unwrap();
        assert_eq!(strings(&batches[0], 0), ["[x, ]", "[x]"]);
        let items =
            datafusion::arrow::array::AsArray::as_list::<i32>(batches[0].column(0)).values();
        assert_eq!(items.null_count(), 1);
    }
}
