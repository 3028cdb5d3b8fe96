//! ClickHouse output formats.
//!
//! Users compare Strata's output with ClickHouse's byte for byte, and clients parse
//! it, so each format here reproduces ClickHouse's layout exactly. A writer receives
//! the result schema, then record batches as they are produced, then the query's
//! statistics; formats that can stream (TSV, CSV, JSONEachRow) write each row as it
//! arrives, Pretty formats buffer to compute column widths.

mod arrow_output;
pub mod encoding;
mod extremes;
pub mod input;
mod json;
mod json_columns;
mod json_each_row;
mod markdown;
pub mod native;
mod parquet_output;
mod pretty;
mod row_binary;
mod text;
mod tskv;
pub mod value;
mod values;
mod xml;

use std::io::Write;

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{
    declared_precision, field_type_name, interval_type, is_ipv4, is_ipv6, is_uuid,
};
use strata_common::{ErrorCode, StrataError};

pub use value::{Style, ValueOptions, declared_as_text, uuids_as_text};

/// The output formats Strata writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    TabSeparated,
    TabSeparatedRaw,
    TabSeparatedWithNames,
    TabSeparatedWithNamesAndTypes,
    TabSeparatedRawWithNames,
    TabSeparatedRawWithNamesAndTypes,
    Csv,
    CsvWithNames,
    CsvWithNamesAndTypes,
    JsonEachRow,
    JsonStringsEachRow,
    JsonCompactEachRow,
    JsonCompactEachRowWithNames,
    JsonCompactEachRowWithNamesAndTypes,
    JsonCompactStringsEachRow,
    JsonCompactStringsEachRowWithNames,
    JsonCompactStringsEachRowWithNamesAndTypes,
    JsonObjectEachRow,
    PrettyJsonEachRow,
    JsonColumns,
    JsonCompactColumns,
    SqlInsert,
    RawBlob,
    Json,
    JsonCompact,
    JsonStrings,
    JsonCompactStrings,
    Xml,
    Tskv,
    Values,
    Markdown,
    Pretty,
    PrettyMonoBlock,
    PrettyNoEscapes,
    PrettyNoEscapesMonoBlock,
    PrettyCompact,
    PrettyCompactMonoBlock,
    PrettyCompactNoEscapes,
    PrettyCompactNoEscapesMonoBlock,
    PrettySpace,
    PrettySpaceMonoBlock,
    PrettySpaceNoEscapes,
    PrettySpaceNoEscapesMonoBlock,
    Vertical,
    Null,
    Native,
    Parquet,
    RowBinary,
    RowBinaryWithNames,
    RowBinaryWithNamesAndTypes,
    Arrow,
    ArrowStream,
}

/// Each format's canonical name first, then its aliases.
const SPELLINGS: &[(OutputFormat, &[&str])] = {
    use OutputFormat::*;
    &[
        (TabSeparated, &["TabSeparated", "TSV"]),
        // LineAsString writes rows as TabSeparatedRaw does.
        (
            TabSeparatedRaw,
            &["TabSeparatedRaw", "TSVRaw", "Raw", "LineAsString"],
        ),
        (
            TabSeparatedWithNames,
            &["TabSeparatedWithNames", "TSVWithNames"],
        ),
        (
            TabSeparatedWithNamesAndTypes,
            &["TabSeparatedWithNamesAndTypes", "TSVWithNamesAndTypes"],
        ),
        (
            TabSeparatedRawWithNames,
            &[
                "TabSeparatedRawWithNames",
                "TSVRawWithNames",
                "RawWithNames",
            ],
        ),
        (
            TabSeparatedRawWithNamesAndTypes,
            &[
                "TabSeparatedRawWithNamesAndTypes",
                "TSVRawWithNamesAndTypes",
                "RawWithNamesAndTypes",
            ],
        ),
        (Csv, &["CSV"]),
        (CsvWithNames, &["CSVWithNames"]),
        (CsvWithNamesAndTypes, &["CSVWithNamesAndTypes"]),
        (
            JsonEachRow,
            &["JSONEachRow", "JSONLines", "JSONL", "NDJSON"],
        ),
        (JsonStringsEachRow, &["JSONStringsEachRow"]),
        (JsonCompactEachRow, &["JSONCompactEachRow"]),
        (
            JsonCompactEachRowWithNames,
            &["JSONCompactEachRowWithNames"],
        ),
        (
            JsonCompactEachRowWithNamesAndTypes,
            &["JSONCompactEachRowWithNamesAndTypes"],
        ),
        (JsonCompactStringsEachRow, &["JSONCompactStringsEachRow"]),
        (
            JsonCompactStringsEachRowWithNames,
            &["JSONCompactStringsEachRowWithNames"],
        ),
        (
            JsonCompactStringsEachRowWithNamesAndTypes,
            &["JSONCompactStringsEachRowWithNamesAndTypes"],
        ),
        (JsonObjectEachRow, &["JSONObjectEachRow"]),
        (
            PrettyJsonEachRow,
            &["PrettyJSONEachRow", "PrettyJSONLines", "PrettyNDJSON"],
        ),
        (JsonColumns, &["JSONColumns"]),
        (JsonCompactColumns, &["JSONCompactColumns"]),
        (SqlInsert, &["SQLInsert"]),
        (RawBlob, &["RawBLOB"]),
        (Json, &["JSON"]),
        (JsonCompact, &["JSONCompact"]),
        (JsonStrings, &["JSONStrings"]),
        (JsonCompactStrings, &["JSONCompactStrings"]),
        (Xml, &["XML"]),
        (Tskv, &["TSKV"]),
        (Values, &["Values"]),
        (Markdown, &["Markdown", "MD"]),
        (Pretty, &["Pretty"]),
        (PrettyMonoBlock, &["PrettyMonoBlock"]),
        (PrettyNoEscapes, &["PrettyNoEscapes"]),
        (PrettyNoEscapesMonoBlock, &["PrettyNoEscapesMonoBlock"]),
        (PrettyCompact, &["PrettyCompact"]),
        (PrettyCompactMonoBlock, &["PrettyCompactMonoBlock"]),
        (PrettyCompactNoEscapes, &["PrettyCompactNoEscapes"]),
        (
            PrettyCompactNoEscapesMonoBlock,
            &["PrettyCompactNoEscapesMonoBlock"],
        ),
        (PrettySpace, &["PrettySpace"]),
        (PrettySpaceMonoBlock, &["PrettySpaceMonoBlock"]),
        (PrettySpaceNoEscapes, &["PrettySpaceNoEscapes"]),
        (
            PrettySpaceNoEscapesMonoBlock,
            &["PrettySpaceNoEscapesMonoBlock"],
        ),
        (Vertical, &["Vertical"]),
        (Null, &["Null"]),
        (Native, &["Native"]),
        (Parquet, &["Parquet"]),
        (RowBinary, &["RowBinary"]),
        (RowBinaryWithNames, &["RowBinaryWithNames"]),
        (RowBinaryWithNamesAndTypes, &["RowBinaryWithNamesAndTypes"]),
        (Arrow, &["Arrow"]),
        (ArrowStream, &["ArrowStream"]),
    ]
};

/// The header lines a format writes before its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Header {
    None,
    Names,
    NamesAndTypes,
}

impl Header {
    /// The header's lines, each a list of cells.
    pub(crate) fn lines(self, names: Vec<String>, types: Vec<String>) -> Vec<Vec<String>> {
        match self {
            Header::None => vec![],
            Header::Names => vec![names],
            Header::NamesAndTypes => vec![names, types],
        }
    }
}

impl OutputFormat {
    /// Looks a format up by ClickHouse's name or alias, in any letter case
    /// (as ClickHouse does).
    pub fn from_name(name: &str) -> Result<Self, StrataError> {
        SPELLINGS
            .iter()
            .find(|(_, names)| names.iter().any(|known| known.eq_ignore_ascii_case(name)))
            .map(|(format, _)| *format)
            .ok_or_else(|| {
                StrataError::new(
                    ErrorCode::UNKNOWN_FORMAT,
                    format!("Unknown output format {name}"),
                )
            })
    }

    /// The HTTP `Content-Type` ClickHouse sends with a result in the format.
    pub fn content_type(self) -> &'static str {
        use OutputFormat::*;
        match self {
            TabSeparated
            | TabSeparatedRaw
            | TabSeparatedWithNames
            | TabSeparatedWithNamesAndTypes
            | TabSeparatedRawWithNames
            | TabSeparatedRawWithNamesAndTypes
            | Tskv => "text/tab-separated-values; charset=UTF-8",
            Csv => "text/csv; charset=UTF-8; header=absent",
            CsvWithNames | CsvWithNamesAndTypes => "text/csv; charset=UTF-8; header=present",
            Json | JsonCompact | JsonStrings | JsonCompactStrings | JsonObjectEachRow
            | JsonColumns | JsonCompactColumns => "application/json; charset=UTF-8",
            JsonEachRow | JsonStringsEachRow | PrettyJsonEachRow => {
                "application/x-ndjson; charset=UTF-8"
            }
            Xml => "application/xml; charset=UTF-8",
            _ if self.is_binary() => "application/octet-stream",
            _ => "text/plain; charset=UTF-8",
        }
    }

    /// Whether rows written after data already in the format, its header
    /// left out, are read back with it: a format of rows, not of one
    /// document (JSON, XML, Parquet) or of a table drawn for people.
    pub fn supports_append(self) -> bool {
        use OutputFormat::*;
        matches!(
            self,
            TabSeparated
                | TabSeparatedRaw
                | TabSeparatedWithNames
                | TabSeparatedWithNamesAndTypes
                | TabSeparatedRawWithNames
                | TabSeparatedRawWithNamesAndTypes
                | Csv
                | CsvWithNames
                | CsvWithNamesAndTypes
                | JsonEachRow
                | JsonStringsEachRow
                | JsonCompactEachRow
                | JsonCompactEachRowWithNames
                | JsonCompactEachRowWithNamesAndTypes
                | JsonCompactStringsEachRow
                | JsonCompactStringsEachRowWithNames
                | JsonCompactStringsEachRowWithNamesAndTypes
                | Tskv
                | Values
                | Native
                | RowBinary
                | RowBinaryWithNames
                | RowBinaryWithNamesAndTypes
                | RawBlob
                | PrettyJsonEachRow
                | Null
        )
    }

    /// Whether the format writes values in binary rather than as text.
    pub fn is_binary(self) -> bool {
        use OutputFormat::*;
        matches!(
            self,
            Native
                | Parquet
                | RowBinary
                | RowBinaryWithNames
                | RowBinaryWithNamesAndTypes
                | RawBlob
                | Arrow
                | ArrowStream
        )
    }

    /// ClickHouse's canonical name of the format.
    pub fn name(self) -> &'static str {
        SPELLINGS
            .iter()
            .find(|(format, _)| *format == self)
            .map(|(_, names)| names[0])
            .expect("every format is spelled in SPELLINGS")
    }

    pub(crate) fn header(self) -> Header {
        use OutputFormat::*;
        match self {
            TabSeparatedWithNames
            | TabSeparatedRawWithNames
            | CsvWithNames
            | JsonCompactEachRowWithNames
            | JsonCompactStringsEachRowWithNames
            | RowBinaryWithNames => Header::Names,
            TabSeparatedWithNamesAndTypes
            | TabSeparatedRawWithNamesAndTypes
            | CsvWithNamesAndTypes
            | JsonCompactEachRowWithNamesAndTypes
            | JsonCompactStringsEachRowWithNamesAndTypes
            | RowBinaryWithNamesAndTypes => Header::NamesAndTypes,
            _ => Header::None,
        }
    }

    /// Every name accepted by [`OutputFormat::from_name`].
    pub const NAMES: &'static [&'static str] = &[
        "TabSeparated",
        "TSV",
        "TabSeparatedRaw",
        "TSVRaw",
        "Raw",
        "LineAsString",
        "TabSeparatedWithNames",
        "TSVWithNames",
        "TabSeparatedWithNamesAndTypes",
        "TSVWithNamesAndTypes",
        "TabSeparatedRawWithNames",
        "TSVRawWithNames",
        "RawWithNames",
        "TabSeparatedRawWithNamesAndTypes",
        "TSVRawWithNamesAndTypes",
        "RawWithNamesAndTypes",
        "CSV",
        "CSVWithNames",
        "CSVWithNamesAndTypes",
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
        "JSONObjectEachRow",
        "PrettyJSONEachRow",
        "PrettyJSONLines",
        "PrettyNDJSON",
        "JSONColumns",
        "JSONCompactColumns",
        "SQLInsert",
        "RawBLOB",
        "JSON",
        "JSONCompact",
        "JSONStrings",
        "JSONCompactStrings",
        "XML",
        "TSKV",
        "Values",
        "Markdown",
        "MD",
        "Pretty",
        "PrettyMonoBlock",
        "PrettyNoEscapes",
        "PrettyNoEscapesMonoBlock",
        "PrettyCompact",
        "PrettyCompactMonoBlock",
        "PrettyCompactNoEscapes",
        "PrettyCompactNoEscapesMonoBlock",
        "PrettySpace",
        "PrettySpaceMonoBlock",
        "PrettySpaceNoEscapes",
        "PrettySpaceNoEscapesMonoBlock",
        "Vertical",
        "Null",
        "Native",
        "Parquet",
        "RowBinary",
        "RowBinaryWithNames",
        "RowBinaryWithNamesAndTypes",
        "Arrow",
        "ArrowStream",
    ];
}

/// Settings that shape output, taken from the query's settings.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    pub pretty_max_rows: usize,
    pub pretty_row_numbers: bool,
    /// `output_format_pretty_single_large_number_tip_threshold`: numbers above it
    /// get their size in words after the row (0: never).
    pub pretty_number_tip_threshold: u64,
    /// How Pretty and Vertical cut long column names (see [`pretty::cut_name`]).
    pub pretty_name_cut: pretty::NameCut,
    pub csv_delimiter: u8,
    pub values: ValueOptions,
    /// The HTTP `client_protocol_version`: Native output's block layout and
    /// type names follow the revision a client names (0: none).
    pub client_protocol_version: u64,
    /// `extremes`: the columns' smallest and largest values follow the rows.
    pub extremes: bool,
    /// `output_format_write_statistics`: JSON and XML end with the query's statistics.
    pub write_statistics: bool,
    /// `output_format_parquet_row_group_size`: rows in a Parquet row group at most.
    pub parquet_row_group_rows: usize,
    /// `output_format_json_array_of_rows`: JSONEachRow writes one JSON array.
    pub json_array_of_rows: bool,
    /// `output_format_markdown_escape_special_characters`: Markdown puts a
    /// backslash before each ASCII punctuation mark in a cell.
    pub markdown_escape_special: bool,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            pretty_max_rows: 10_000,
            pretty_row_numbers: true,
            pretty_number_tip_threshold: 1_000_000,
            pretty_name_cut: pretty::NameCut::default(),
            csv_delimiter: b',',
            values: ValueOptions::default(),
            client_protocol_version: 0,
            extremes: false,
            write_statistics: true,
            parquet_row_group_rows: 1_000_000,
            json_array_of_rows: false,
            markdown_escape_special: false,
        }
    }
}

impl FormatOptions {
    /// The options a query's settings choose.
    pub fn from_settings(settings: &strata_common::settings::Settings) -> Self {
        FormatOptions {
            pretty_max_rows: settings.output_format_pretty_max_rows() as usize,
            pretty_row_numbers: settings.output_format_pretty_row_numbers(),
            pretty_number_tip_threshold: settings
                .output_format_pretty_single_large_number_tip_threshold(),
            pretty_name_cut: pretty::NameCut {
                cut_to: settings.output_format_pretty_max_column_name_width_cut_to() as usize,
                min_chars_to_cut: settings
                    .output_format_pretty_max_column_name_width_min_chars_to_cut()
                    as usize,
            },
            csv_delimiter: settings
                .format_csv_delimiter()
                .bytes()
                .next()
                .unwrap_or(b','),
            values: ValueOptions {
                json_quote_64bit_integers: settings.output_format_json_quote_64bit_integers(),
                json_quote_denormals: settings.output_format_json_quote_denormals(),
                date_time_style: value::DateTimeStyle::named(&settings.date_time_output_format()),
                decimal_trailing_zeros: settings.output_format_decimal_trailing_zeros(),
                ..ValueOptions::default()
            }
            .with_bool_texts(
                &settings.bool_false_representation(),
                &settings.bool_true_representation(),
            )
            .with_null_texts(
                &settings.format_tsv_null_representation(),
                &settings.format_csv_null_representation(),
            ),
            client_protocol_version: 0,
            extremes: settings.extremes(),
            write_statistics: settings.output_format_write_statistics(),
            parquet_row_group_rows: settings.output_format_parquet_row_group_size().max(1) as usize,
            json_array_of_rows: settings.output_format_json_array_of_rows(),
            markdown_escape_special: settings.output_format_markdown_escape_special_characters(),
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
    /// The WITH TOTALS row, after the last batch; formats that ClickHouse
    /// writes without totals (JSONEachRow, Values, ...) leave it out.
    fn write_totals(&mut self, _out: &mut dyn Write, _totals: &RecordBatch) -> std::io::Result<()> {
        Ok(())
    }
    /// `extremes = 1`: two rows, the columns' smallest values and their
    /// largest, after the totals; formats that ClickHouse writes without
    /// them leave them out.
    fn write_extremes(
        &mut self,
        _out: &mut dyn Write,
        _extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        Ok(())
    }
    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()>;
}

/// The format a file's name names by its extension, past a compression
/// extension (`data.csv.gz` is CSV), as ClickHouse's `file()` reads it.
pub fn format_name_of_file(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    let name = match encoding::Encoding::from_file_name(&name) {
        Some(_) => name
            .rsplit_once('.')
            .map_or(name.as_str(), |(stem, _)| stem),
        None => name.as_str(),
    };
    let (_, extension) = name.rsplit_once('.')?;
    Some(match extension {
        "csv" => "CSV",
        "tsv" => "TabSeparated",
        "json" | "jsonl" | "ndjson" => "JSONEachRow",
        "parquet" => "Parquet",
        "arrow" => "Arrow",
        "arrows" => "ArrowStream",
        "native" => "Native",
        _ => return None,
    })
}

/// Creates a writer for `format`; headers are written to `out` straight away.
pub fn new_writer(
    format: OutputFormat,
    schema: SchemaRef,
    options: FormatOptions,
    out: &mut dyn Write,
) -> std::io::Result<Box<dyn ResultWriter>> {
    let text_columns: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| shown_as_text(schema.field(i)))
        .collect();
    let extremes = options.extremes;
    let date_time_style = options.values.date_time_style;
    let writer = format_writer(format, Arc::clone(&schema), options, out)?;
    // Binary formats write a UUID's or an address's own bytes.
    let writer: Box<dyn ResultWriter> = if text_columns.is_empty() || format.is_binary() {
        writer
    } else {
        Box::new(DeclaredAsText {
            inner: writer,
            columns: text_columns,
            date_time_style,
        })
    };
    Ok(match extremes {
        true => Box::new(extremes::ExtremesWriter::new(writer, schema)),
        false => writer,
    })
}

fn format_writer(
    format: OutputFormat,
    schema: SchemaRef,
    options: FormatOptions,
    out: &mut dyn Write,
) -> std::io::Result<Box<dyn ResultWriter>> {
    use OutputFormat::*;
    Ok(match format {
        TabSeparated
        | TabSeparatedRaw
        | TabSeparatedWithNames
        | TabSeparatedWithNamesAndTypes
        | TabSeparatedRawWithNames
        | TabSeparatedRawWithNamesAndTypes
        | Csv
        | CsvWithNames
        | CsvWithNamesAndTypes => Box::new(text::TextWriter::new(format, schema, options, out)?),
        JsonEachRow
        | JsonStringsEachRow
        | JsonCompactEachRow
        | JsonCompactEachRowWithNames
        | JsonCompactEachRowWithNamesAndTypes
        | JsonCompactStringsEachRow
        | JsonCompactStringsEachRowWithNames
        | JsonCompactStringsEachRowWithNamesAndTypes => Box::new(
            json_each_row::EachRowWriter::new(format, schema, options, out)?,
        ),
        JsonObjectEachRow => Box::new(json_each_row::ObjectEachRowWriter::new(
            schema, options, out,
        )?),
        PrettyJsonEachRow => Box::new(json_each_row::PrettyEachRowWriter::new(schema, options)),
        JsonColumns | JsonCompactColumns => Box::new(json_columns::ColumnsWriter::new(
            schema,
            format == JsonColumns,
            options,
        )),
        SqlInsert => Box::new(values::SqlInsertWriter::new(schema, options)),
        RawBlob => Box::new(row_binary::RowBinaryWriter::raw_blob(schema)),
        Json | JsonCompact | JsonStrings | JsonCompactStrings => {
            Box::new(json::JsonWriter::new(format, schema, options, out)?)
        }
        Xml => Box::new(xml::XmlWriter::new(schema, options.write_statistics, out)?),
        Tskv => Box::new(tskv::TskvWriter::new(schema, options)),
        Values => Box::new(values::ValuesWriter::new(options)),
        Markdown => Box::new(markdown::MarkdownWriter::new(schema, options, out)?),
        Pretty
        | PrettyMonoBlock
        | PrettyNoEscapes
        | PrettyNoEscapesMonoBlock
        | PrettyCompact
        | PrettyCompactMonoBlock
        | PrettyCompactNoEscapes
        | PrettyCompactNoEscapesMonoBlock
        | PrettySpace
        | PrettySpaceMonoBlock
        | PrettySpaceNoEscapes
        | PrettySpaceNoEscapesMonoBlock => Box::new(pretty::PrettyWriter::new(
            pretty::Layout::of(format),
            schema,
            options,
        )),
        Vertical => Box::new(pretty::VerticalWriter::new(
            schema,
            options.pretty_number_tip_threshold,
            options.pretty_name_cut,
        )),
        Null => Box::new(NullWriter),
        Native => Box::new(native::NativeWriter::new(
            schema,
            options.client_protocol_version,
        )),
        Parquet => Box::new(parquet_output::ParquetWriter::new(
            schema,
            options.parquet_row_group_rows,
        )?),
        RowBinary | RowBinaryWithNames | RowBinaryWithNamesAndTypes => Box::new(
            row_binary::RowBinaryWriter::new(format.header(), schema, out)?,
        ),
        Arrow | ArrowStream => Box::new(arrow_output::ArrowWriter::new(
            format == Arrow,
            &schema,
            out,
        )?),
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

/// Names of the result columns.
pub(crate) fn column_names(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// ClickHouse type names of the result columns.
pub(crate) fn column_types(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| field_type_name(f)).collect()
}

/// Whether a column's values are shown as text its field alone tells.
fn shown_as_text(field: &Field) -> bool {
    is_uuid(field)
        || is_ipv4(field)
        || is_ipv6(field)
        || interval_type(field).is_some()
        || declared_precision(field).is_some()
}

/// Hands UUID, IP address and DateTime64(p) columns to a format as their
/// text: a value alone cannot say it is a UUID rather than a
/// FixedString(16), an IPv4 address rather than a UInt32, or how many
/// digits of its milliseconds a DateTime64(2) shows; only its field can,
/// and every text format writes them the way it writes a string.
struct DeclaredAsText {
    inner: Box<dyn ResultWriter>,
    columns: Vec<usize>,
    date_time_style: value::DateTimeStyle,
}

impl DeclaredAsText {
    fn shown(&self, batch: &RecordBatch) -> std::io::Result<RecordBatch> {
        let mut fields: Vec<Field> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        let mut columns = batch.columns().to_vec();
        for &i in &self.columns {
            columns[i] = declared_as_text(&fields[i], columns[i].as_ref(), self.date_time_style)
                .expect("a column shown as text");
            fields[i] = Field::new(fields[i].name(), DataType::Utf8, fields[i].is_nullable());
        }
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(std::io::Error::other)
    }
}

impl ResultWriter for DeclaredAsText {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let shown = self.shown(batch)?;
        self.inner.write_batch(out, &shown)
    }

    fn write_totals(&mut self, out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        let shown = self.shown(totals)?;
        self.inner.write_totals(out, &shown)
    }

    fn write_extremes(
        &mut self,
        out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        let shown = self.shown(extremes)?;
        self.inner.write_extremes(out, &shown)
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
    fn every_name_parses_back_to_its_format() {
        let spelled: Vec<&str> = SPELLINGS
            .iter()
            .flat_map(|(_, names)| *names)
            .copied()
            .collect();
        assert_eq!(spelled, OutputFormat::NAMES);
        for &(format, names) in SPELLINGS {
            assert_eq!(format.name(), names[0]);
            for name in names {
                assert_eq!(OutputFormat::from_name(name).unwrap(), format);
            }
        }
    }

    #[test]
    fn json_strings_write_each_value_as_its_text() {
        let text = render(OutputFormat::JsonCompactStrings);
        assert!(
            text.contains("\t\t[\"0\", \"0\", \"1.5\"],\n\t\t[\"1\", \"a\\/b\", \"ᴺᵁᴸᴸ\"]\n\t],"),
            "{text}"
        );
    }

    #[test]
    fn xml_has_clickhouse_layout() {
        let expected = "<?xml version='1.0' encoding='UTF-8' ?>\n<result>\n\t<meta>\n\t\t<columns>\n\t\t\t<column>\n\t\t\t\t<name>number</name>\n\t\t\t\t<type>UInt64</type>\n\t\t\t</column>\n\t\t\t<column>\n\t\t\t\t<name>s</name>\n\t\t\t\t<type>String</type>\n\t\t\t</column>\n\t\t\t<column>\n\t\t\t\t<name>f</name>\n\t\t\t\t<type>Nullable(Float64)</type>\n\t\t\t</column>\n\t\t</columns>\n\t</meta>\n\t<data>\n\t\t<row>\n\t\t\t<number>0</number>\n\t\t\t<s>0</s>\n\t\t\t<f>1.5</f>\n\t\t</row>\n\t\t<row>\n\t\t\t<number>1</number>\n\t\t\t<s>a/b</s>\n\t\t\t<f>\\N</f>\n\t\t</row>\n\t</data>\n\t<rows>2</rows>\n\t<statistics>\n\t\t<elapsed>0.5</elapsed>\n\t\t<rows_read>2</rows_read>\n\t\t<bytes_read>16</bytes_read>\n\t</statistics>\n</result>\n";
        assert_eq!(render(OutputFormat::Xml), expected);
    }

    #[test]
    fn values_are_sql_tuples_without_a_newline() {
        assert_eq!(render(OutputFormat::Values), "(0,'0',1.5),(1,'a/b',NULL)");
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
