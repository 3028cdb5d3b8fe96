//! JSON formats with one line per row, streamed as batches arrive: JSONEachRow
//! (`{"a":1}`), JSONCompactEachRow (`[1, "x"]`) with optional header lines, their
//! *Strings variants, JSONObjectEachRow, one object keyed `row_N`, and
//! PrettyJSONEachRow, each row's object spread over lines as the JSON
//! format spreads values, indented by four spaces.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::json::{JsonCells, json_string};
use crate::{FormatOptions, OutputFormat, ResultWriter, Statistics, column_names, column_types};

pub(crate) struct EachRowWriter {
    cells: JsonCells,
    compact: bool,
    /// `output_format_json_array_of_rows`: JSONEachRow's objects as the
    /// elements of one JSON array.
    array_of_rows: bool,
    rows: u64,
}

impl EachRowWriter {
    pub(crate) fn new(
        format: OutputFormat,
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        use OutputFormat::*;
        let strings = matches!(
            format,
            JsonStringsEachRow
                | JsonCompactStringsEachRow
                | JsonCompactStringsEachRowWithNames
                | JsonCompactStringsEachRowWithNamesAndTypes
        );
        let header = format
            .header()
            .lines(column_names(&schema), column_types(&schema));
        for cells in header {
            let cells: Vec<String> = cells.iter().map(|c| json_string(c)).collect();
            writeln!(out, "[{}]", cells.join(", "))?;
        }
        let compact = !matches!(format, JsonEachRow | JsonStringsEachRow);
        let array_of_rows = !compact && options.json_array_of_rows;
        if array_of_rows {
            out.write_all(b"[\n")?;
        }
        Ok(EachRowWriter {
            cells: JsonCells::new(&schema, strings, options.values),
            compact,
            array_of_rows,
            rows: 0,
        })
    }
}

impl ResultWriter for EachRowWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            if self.array_of_rows {
                if self.rows > 0 {
                    text.push_str(",\n");
                }
                self.rows += 1;
                self.cells.object(batch, row, &mut text);
                continue;
            }
            if self.compact {
                self.cells.array(batch, row, &mut text);
            } else {
                self.cells.object(batch, row, &mut text);
            }
            text.push('\n');
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        match self.array_of_rows {
            true => out.write_all(b"\n]\n"),
            false => Ok(()),
        }
    }
}

pub(crate) struct ObjectEachRowWriter {
    cells: JsonCells,
    rows: u64,
}

impl ObjectEachRowWriter {
    pub(crate) fn new(
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        out.write_all(b"{\n")?;
        Ok(ObjectEachRowWriter {
            cells: JsonCells::new(&schema, false, options.values),
            rows: 0,
        })
    }
}

impl ResultWriter for ObjectEachRowWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                text.push_str(",\n");
            }
            self.rows += 1;
            text.push_str(&format!("\t\"row_{}\": ", self.rows));
            self.cells.object(batch, row, &mut text);
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        out.write_all(b"\n}\n")
    }
}

pub(crate) struct PrettyEachRowWriter {
    cells: JsonCells,
}

impl PrettyEachRowWriter {
    pub(crate) fn new(schema: SchemaRef, options: FormatOptions) -> Self {
        PrettyEachRowWriter {
            cells: JsonCells::new(&schema, false, options.values),
        }
    }
}

/// PrettyJSONEachRow's indentation step.
const PRETTY_INDENT: &str = "    ";

impl ResultWriter for PrettyEachRowWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            text.push_str("{\n");
            for (i, column) in batch.columns().iter().enumerate() {
                text.push_str(PRETTY_INDENT);
                text.push_str(&self.cells.keys[i]);
                text.push_str(": ");
                self.cells
                    .spread(column.as_ref(), row, (1, PRETTY_INDENT), &mut text);
                text.push_str(if i + 1 < batch.num_columns() {
                    ",\n"
                } else {
                    "\n"
                });
            }
            text.push_str("}\n");
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}
