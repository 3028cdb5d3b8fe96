//! TabSeparated and CSV families: one line per row, streamed as batches arrive.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, write_value};
use crate::{FormatOptions, OutputFormat, ResultWriter, Statistics, column_types};

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
        let (style, delimiter) = match format {
            OutputFormat::Csv | OutputFormat::CsvWithNames => {
                (Style::Csv, options.csv_delimiter as char)
            }
            OutputFormat::TabSeparatedRaw => (Style::Raw, '\t'),
            _ => (Style::Escaped, '\t'),
        };
        let mut writer = TextWriter {
            style,
            delimiter,
            options,
            line: String::new(),
        };
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        match format {
            OutputFormat::TabSeparatedWithNames => writer.write_header(out, &names)?,
            OutputFormat::TabSeparatedWithNamesAndTypes => {
                writer.write_header(out, &names)?;
                writer.write_header(out, &column_types(&schema))?;
            }
            OutputFormat::CsvWithNames => writer.write_header(out, &names)?,
            _ => {}
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
                _ => self.line.push_str(cell),
            }
        }
        self.line.push('\n');
        out.write_all(self.line.as_bytes())
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
                write_value(
                    column.as_ref(),
                    row,
                    self.style,
                    self.options.values,
                    &mut self.line,
                );
            }
            self.line.push('\n');
        }
        out.write_all(self.line.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}
