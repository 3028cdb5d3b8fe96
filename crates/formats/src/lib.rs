//! ClickHouse output formats.
//!
//! Users compare Strata's output with ClickHouse's byte for byte, and clients parse
//! it, so each format here reproduces ClickHouse's layout exactly. A writer receives
//! the result schema, then record batches as they are produced, then the query's
//! statistics; formats that can stream (TSV, CSV, JSONEachRow) write each row as it
//! arrives, Pretty formats buffer to compute column widths.

pub mod input;
mod json;
pub mod native;
mod pretty;
mod text;
pub mod value;

use std::io::Write;

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{field_type_name, is_uuid};
use strata_common::{ErrorCode, StrataError};

pub use value::{Style, ValueOptions, uuids_as_text};

/// The output formats Strata writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    TabSeparated,
    TabSeparatedRaw,
    TabSeparatedWithNames,
    TabSeparatedWithNamesAndTypes,
    Csv,
    CsvWithNames,
    JsonEachRow,
    Json,
    JsonCompact,
    Pretty,
    PrettyCompact,
    Vertical,
    Null,
    Native,
}

impl OutputFormat {
    /// Looks a format up by ClickHouse's name or alias (names are case-sensitive there).
    pub fn from_name(name: &str) -> Result<Self, StrataError> {
        Ok(match name {
            "TabSeparated" | "TSV" => OutputFormat::TabSeparated,
            "TabSeparatedRaw" | "TSVRaw" | "Raw" => OutputFormat::TabSeparatedRaw,
            "TabSeparatedWithNames" | "TSVWithNames" => OutputFormat::TabSeparatedWithNames,
            "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => {
                OutputFormat::TabSeparatedWithNamesAndTypes
            }
            "CSV" => OutputFormat::Csv,
            "CSVWithNames" => OutputFormat::CsvWithNames,
            "JSONEachRow" | "JSONLines" | "NDJSON" => OutputFormat::JsonEachRow,
            "JSON" => OutputFormat::Json,
            "JSONCompact" => OutputFormat::JsonCompact,
            "Pretty" => OutputFormat::Pretty,
            "PrettyCompact" => OutputFormat::PrettyCompact,
            "Vertical" => OutputFormat::Vertical,
            "Null" => OutputFormat::Null,
            "Native" => OutputFormat::Native,
            _ => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_FORMAT,
                    format!("Unknown output format {name}"),
                ));
            }
        })
    }

    /// Whether the format writes values in binary rather than as text.
    pub fn is_binary(self) -> bool {
        matches!(self, OutputFormat::Native)
    }

    /// ClickHouse's canonical name of the format.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::TabSeparated => "TabSeparated",
            OutputFormat::TabSeparatedRaw => "TabSeparatedRaw",
            OutputFormat::TabSeparatedWithNames => "TabSeparatedWithNames",
            OutputFormat::TabSeparatedWithNamesAndTypes => "TabSeparatedWithNamesAndTypes",
            OutputFormat::Csv => "CSV",
            OutputFormat::CsvWithNames => "CSVWithNames",
            OutputFormat::JsonEachRow => "JSONEachRow",
            OutputFormat::Json => "JSON",
            OutputFormat::JsonCompact => "JSONCompact",
            OutputFormat::Pretty => "Pretty",
            OutputFormat::PrettyCompact => "PrettyCompact",
            OutputFormat::Vertical => "Vertical",
            OutputFormat::Null => "Null",
            OutputFormat::Native => "Native",
        }
    }

    /// Every name accepted by [`OutputFormat::from_name`].
    pub const NAMES: &'static [&'static str] = &[
        "TabSeparated",
        "TSV",
        "TabSeparatedRaw",
        "TSVRaw",
        "TabSeparatedWithNames",
        "TSVWithNames",
        "TabSeparatedWithNamesAndTypes",
        "TSVWithNamesAndTypes",
        "CSV",
        "CSVWithNames",
        "JSONEachRow",
        "JSONLines",
        "NDJSON",
        "JSON",
        "JSONCompact",
        "Pretty",
        "PrettyCompact",
        "Vertical",
        "Null",
        "Native",
    ];
}

/// Settings that shape output, taken from the query's settings.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    pub pretty_max_rows: usize,
    pub pretty_row_numbers: bool,
    pub csv_delimiter: u8,
    pub values: ValueOptions,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            pretty_max_rows: 10_000,
            pretty_row_numbers: true,
            csv_delimiter: b',',
            values: ValueOptions::default(),
        }
    }
}

impl FormatOptions {
    /// The options a query's settings choose.
    pub fn from_settings(settings: &strata_common::settings::Settings) -> Self {
        FormatOptions {
            pretty_max_rows: settings.output_format_pretty_max_rows() as usize,
            pretty_row_numbers: settings.output_format_pretty_row_numbers(),
            csv_delimiter: settings
                .format_csv_delimiter()
                .bytes()
                .next()
                .unwrap_or(b','),
            values: ValueOptions {
                json_quote_64bit_integers: settings.output_format_json_quote_64bit_integers(),
            },
        }
    }
}

/// What JSON formats report in their `statistics` object.
#[derive(Debug, Clone, Copy, Default)]
pub struct Statistics {
    pub elapsed_seconds: f64,
    pub rows_read: u64,
    pub bytes_read: u64,
}

/// Writes one result set in one format.
pub trait ResultWriter: Send {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()>;
    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()>;
}

/// Creates a writer for `format`; headers are written to `out` straight away.
pub fn new_writer(
    format: OutputFormat,
    schema: SchemaRef,
    options: FormatOptions,
    out: &mut dyn Write,
) -> std::io::Result<Box<dyn ResultWriter>> {
    let uuid_columns: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| is_uuid(schema.field(i)))
        .collect();
    let writer = format_writer(format, schema, options, out)?;
    // Binary formats write a UUID's own 16 bytes.
    Ok(if uuid_columns.is_empty() || format.is_binary() {
        writer
    } else {
        Box::new(UuidsAsText {
            inner: writer,
            columns: uuid_columns,
        })
    })
}

fn format_writer(
    format: OutputFormat,
    schema: SchemaRef,
    options: FormatOptions,
    out: &mut dyn Write,
) -> std::io::Result<Box<dyn ResultWriter>> {
    Ok(match format {
        OutputFormat::TabSeparated
        | OutputFormat::TabSeparatedRaw
        | OutputFormat::TabSeparatedWithNames
        | OutputFormat::TabSeparatedWithNamesAndTypes
        | OutputFormat::Csv
        | OutputFormat::CsvWithNames => {
            Box::new(text::TextWriter::new(format, schema, options, out)?)
        }
        OutputFormat::JsonEachRow => Box::new(json::JsonEachRowWriter::new(schema, options)),
        OutputFormat::Json | OutputFormat::JsonCompact => Box::new(json::JsonWriter::new(
            format == OutputFormat::JsonCompact,
            schema,
            options,
            out,
        )?),
        OutputFormat::Pretty | OutputFormat::PrettyCompact => Box::new(pretty::PrettyWriter::new(
            format == OutputFormat::PrettyCompact,
            schema,
            options,
        )),
        OutputFormat::Vertical => Box::new(pretty::VerticalWriter::new(schema)),
        OutputFormat::Null => Box::new(NullWriter),
        OutputFormat::Native => Box::new(native::NativeWriter::new(schema)),
    })
}

/// Writes a whole result held in memory; convenient for tests and small results.
pub fn write_all(
    format: OutputFormat,
    schema: SchemaRef,
    batches: &[RecordBatch],
    options: FormatOptions,
    statistics: &Statistics,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut writer = new_writer(format, schema, options, out)?;
    for batch in batches {
        writer.write_batch(out, batch)?;
    }
    writer.finish(out, statistics)
}

/// ClickHouse type names of the result columns.
pub(crate) fn column_types(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| field_type_name(f)).collect()
}

/// Hands UUID columns to a format as their text: a value alone cannot say it
/// is a UUID rather than a FixedString(16), only its field can, and every
/// text format writes a UUID the way it writes a string.
struct UuidsAsText {
    inner: Box<dyn ResultWriter>,
    columns: Vec<usize>,
}

impl ResultWriter for UuidsAsText {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut fields: Vec<Field> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        let mut columns = batch.columns().to_vec();
        for &i in &self.columns {
            columns[i] = uuids_as_text(columns[i].as_ref());
            fields[i] = Field::new(fields[i].name(), DataType::Utf8, fields[i].is_nullable());
        }
        let shown = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
            .map_err(std::io::Error::other)?;
        self.inner.write_batch(out, &shown)
    }

    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()> {
        self.inner.finish(out, statistics)
    }
}

struct NullWriter;

impl ResultWriter for NullWriter {
    fn write_batch(&mut self, _out: &mut dyn Write, _batch: &RecordBatch) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{
        ArrayRef, FixedSizeBinaryArray, Float64Array, StringArray, UInt64Array,
    };
    use strata_common::types::uuid_metadata;

    use super::*;

    fn sample() -> (SchemaRef, RecordBatch) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("number", DataType::UInt64, false),
            Field::new("s", DataType::Utf8, false),
            Field::new("f", DataType::Float64, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(vec![0, 1])),
            Arc::new(StringArray::from(vec!["0", "a/b"])),
            Arc::new(Float64Array::from(vec![Some(1.5), None])),
        ];
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
        (schema, batch)
    }

    fn render(format: OutputFormat) -> String {
        let (schema, batch) = sample();
        let statistics = Statistics {
            elapsed_seconds: 0.5,
            rows_read: 2,
            bytes_read: 16,
        };
        let mut out = Vec::new();
        write_all(
            format,
            schema,
            &[batch],
            FormatOptions::default(),
            &statistics,
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_has_clickhouse_layout() {
        let expected = "{\n\t\"meta\":\n\t[\n\t\t{\n\t\t\t\"name\": \"number\",\n\t\t\t\"type\": \"UInt64\"\n\t\t},\n\t\t{\n\t\t\t\"name\": \"s\",\n\t\t\t\"type\": \"String\"\n\t\t},\n\t\t{\n\t\t\t\"name\": \"f\",\n\t\t\t\"type\": \"Nullable(Float64)\"\n\t\t}\n\t],\n\n\t\"data\":\n\t[\n\t\t{\n\t\t\t\"number\": 0,\n\t\t\t\"s\": \"0\",\n\t\t\t\"f\": 1.5\n\t\t},\n\t\t{\n\t\t\t\"number\": 1,\n\t\t\t\"s\": \"a\\/b\",\n\t\t\t\"f\": null\n\t\t}\n\t],\n\n\t\"rows\": 2,\n\n\t\"statistics\":\n\t{\n\t\t\"elapsed\": 0.5,\n\t\t\"rows_read\": 2,\n\t\t\"bytes_read\": 16\n\t}\n}\n";
        assert_eq!(render(OutputFormat::Json), expected);
    }

    #[test]
    fn json_compact_rows_are_arrays() {
        let text = render(OutputFormat::JsonCompact);
        assert!(
            text.contains("\t\"data\":\n\t[\n\t\t[0, \"0\", 1.5],\n\t\t[1, \"a\\/b\", null]\n\t],"),
            "{text}"
        );
    }

    #[test]
    fn empty_json_result_keeps_its_shape() {
        let (schema, _) = sample();
        let mut out = Vec::new();
        write_all(
            OutputFormat::Json,
            schema,
            &[],
            FormatOptions::default(),
            &Statistics::default(),
            &mut out,
        )
        .unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("\t\"data\":\n\t[\n\n\t],\n\n\t\"rows\": 0,")
        );
    }

    #[test]
    fn uuids_are_written_as_text_and_fixed_strings_as_bytes() {
        let bytes = *b"abcdefghijklmnop";
        let column = || -> ArrayRef {
            Arc::new(FixedSizeBinaryArray::try_from_iter([bytes].into_iter()).unwrap())
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("u", DataType::FixedSizeBinary(16), false).with_metadata(uuid_metadata()),
            Field::new("f", DataType::FixedSizeBinary(16), false),
        ]));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![column(), column()]).unwrap();
        let mut out = Vec::new();
        write_all(
            OutputFormat::TabSeparatedWithNamesAndTypes,
            schema,
            &[batch],
            FormatOptions::default(),
            &Statistics::default(),
            &mut out,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "u\tf\nUUID\tFixedString(16)\n61626364-6566-6768-696a-6b6c6d6e6f70\tabcdefghijklmnop\n"
        );
    }
}
