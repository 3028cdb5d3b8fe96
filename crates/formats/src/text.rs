//! TabSeparated and CSV families: one line per row, streamed as batches arrive.

use std::io::Write;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::field_type_name;

use crate::value::{Style, write_value};
use crate::{FormatOptions, OutputFormat, ResultWriter, Statistics, column_names, column_types};

pub(crate) struct TextWriter {
    style: Style,
    delimiter: char,
    options: FormatOptions,
    line: String,
}

impl TextWriter {
    pub(crate) fn new(
        format: OutputFormat,
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        use OutputFormat::*;
        let (style, delimiter) = match format {
            Csv | CsvWithNames | CsvWithNamesAndTypes => {
                (Style::Csv, options.csv_delimiter as char)
            }
            TabSeparatedRaw | TabSeparatedRawWithNames | TabSeparatedRawWithNamesAndTypes => {
                (Style::Raw, '\t')
            }
            _ => (Style::Escaped, '\t'),
        };
        let mut writer = TextWriter {
            style,
            delimiter,
            options,
            line: String::new(),
        };
        let (names, types) = if style == Style::Csv {
            csv_columns(&schema)
        } else {
            (column_names(&schema), column_types(&schema))
        };
        for cells in format.header().lines(names, types) {
            writer.write_header(out, &cells)?;
        }
        Ok(writer)
    }

    fn write_header(&mut self, out: &mut dyn Write, cells: &[String]) -> std::io::Result<()> {
        self.line.clear();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                self.line.push(self.delimiter);
            }
            match self.style {
                Style::Csv => {
                    self.line.push('"');
                    self.line.push_str(&cell.replace('"', "\"\""));
                    self.line.push('"');
                }
                Style::Escaped => crate::value::escape_tsv(cell, &mut self.line),
                _ => self.line.push_str(cell),
            }
        }
        self.line.push('\n');
        out.write_all(self.line.as_bytes())
    }

    fn write_cell(&mut self, column: &dyn Array, row: usize) {
        match (self.style, column.data_type()) {
            // CSV writes each element of a tuple as a field of its own.
            (Style::Csv, DataType::Struct(_)) => {
                for (i, element) in column.as_struct().columns().iter().enumerate() {
                    if i > 0 {
                        self.line.push(self.delimiter);
                    }
                    self.write_cell(element.as_ref(), row);
                }
            }
            // Raw strings, but NULL still reads back as NULL.
            (Style::Raw, data_type) if column.is_null(row) || data_type == &DataType::Null => {
                self.line.push_str(self.options.values.null_texts.tsv);
            }
            _ => write_value(column, row, self.style, self.options.values, &mut self.line),
        }
    }
}

/// CSV's column names and types, tuples spread over one column per element
/// named `t.1`, `t.2`.
fn csv_columns(schema: &SchemaRef) -> (Vec<String>, Vec<String>) {
    let mut columns = Vec::new();
    for field in schema.fields() {
        spread_tuples(field.name().clone(), field, &mut columns);
    }
    columns.into_iter().unzip()
}

fn spread_tuples(name: String, field: &Field, columns: &mut Vec<(String, String)>) {
    match field.data_type() {
        DataType::Struct(elements) => {
            for (i, element) in elements.iter().enumerate() {
                spread_tuples(format!("{name}.{}", i + 1), element, columns);
            }
        }
        _ => columns.push((name, field_type_name(field))),
    }
}

impl ResultWriter for TextWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        self.line.clear();
        for row in 0..batch.num_rows() {
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    self.line.push(self.delimiter);
                }
                self.write_cell(column.as_ref(), row);
            }
            self.line.push('\n');
        }
        out.write_all(self.line.as_bytes())
    }

    /// After a blank line, as one more row.
    fn write_totals(&mut self, out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        out.write_all(b"\n")?;
        self.write_batch(out, totals)
    }

    /// After a blank line, as two more rows.
    fn write_extremes(
        &mut self,
        out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        out.write_all(b"\n")?;
        self.write_batch(out, extremes)
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}
