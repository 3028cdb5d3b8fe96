//! ClickHouse output formats.
//!
//! Users compare Strata's output with ClickHouse's byte for byte, and clients parse
//! it, so each format here reproduces ClickHouse's layout exactly. A writer receives
//! the result schema, then record batches as they are produced, then the query's
//! statistics; formats that can stream (TSV, CSV, JSONEachRow) write each row as it
//! arrives, Pretty formats buffer to compute column widths.

mod json;
mod pretty;
mod text;
pub mod value;

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

pub use value::{Style, ValueOptions};

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
            _ => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_FORMAT,
                    format!("Unknown output format {name}"),
                ));
            }
        })
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

/// What JSON formats report in their `statistics` object.
#[derive(Debug, Clone, Copy, Default)]
pub struct Statistics {
    pub elapsed_seconds: f64,
    pub rows_read: u64,
    pub bytes_read: u64,
}

/// Writes one result set in one format.
pub trait ResultWriter {
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
    schema
        .fields()
        .iter()
        .map(|f| clickhouse_type_name(f.data_type(), f.is_nullable()))
        .collect()
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
