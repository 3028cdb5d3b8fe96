//! Values: rows as SQL tuples, `(1,'a'),(2,'b')`, ready to paste after
//! `INSERT INTO t VALUES`; no newline, even at the end. SQLInsert: whole
//! INSERT statements of such tuples.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, write_value};
use crate::{FormatOptions, ResultWriter, Statistics};

pub(crate) struct ValuesWriter {
    options: FormatOptions,
    rows: u64,
}

impl ValuesWriter {
    pub(crate) fn new(options: FormatOptions) -> Self {
        ValuesWriter { options, rows: 0 }
    }
}

impl ResultWriter for ValuesWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                text.push(',');
            }
            self.rows += 1;
            tuple(batch, row, ",", &self.options, &mut text);
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

/// SQLInsert: the rows as `INSERT INTO table (`a`, `b`) VALUES (1, 'x'), ...;`,
/// ClickHouse's defaults of `output_format_sql_insert_*` (table `table`,
/// column names quoted, at most 65505 rows a statement).
pub(crate) struct SqlInsertWriter {
    prefix: String,
    options: FormatOptions,
    /// Rows in the statement being written.
    rows: usize,
}

/// `output_format_sql_insert_max_batch_size`'s default.
const ROWS_PER_STATEMENT: usize = 65_505;

impl SqlInsertWriter {
    pub(crate) fn new(schema: SchemaRef, options: FormatOptions) -> Self {
        let names: Vec<String> = schema
            .fields()
            .iter()
            .map(|f| format!("`{}`", f.name().replace('\\', "\\\\").replace('`', "\\`")))
            .collect();
        SqlInsertWriter {
            prefix: format!("INSERT INTO table ({}) VALUES ", names.join(", ")),
            options,
            rows: 0,
        }
    }
}

impl ResultWriter for SqlInsertWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            if self.rows == ROWS_PER_STATEMENT {
                text.push_str(";\n");
                self.rows = 0;
            }
            text.push_str(if self.rows == 0 { &self.prefix } else { ", " });
            self.rows += 1;
            tuple(batch, row, ", ", &self.options, &mut text);
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        out.write_all(b";\n")
    }
}

/// Row `row` as an SQL tuple, its values quoted and apart by `separator`.
fn tuple(
    batch: &RecordBatch,
    row: usize,
    separator: &str,
    options: &FormatOptions,
    text: &mut String,
) {
    text.push('(');
    for (i, column) in batch.columns().iter().enumerate() {
        if i > 0 {
            text.push_str(separator);
        }
        write_value(column.as_ref(), row, Style::Quoted, options.values, text);
    }
    text.push(')');
}
