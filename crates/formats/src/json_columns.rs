//! JSON formats of a whole result by column, buffered as Pretty formats
//! are: JSONColumns (`{"a": [1, 2], "b": ["x", "y"]}`) and
//! JSONCompactColumns (`[[1, 2], ["x", "y"]]`), one line per column.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::json::JsonCells;
use crate::{FormatOptions, ResultWriter, Statistics};

pub(crate) struct ColumnsWriter {
    cells: JsonCells,
    /// JSONColumns names each column; JSONCompactColumns does not.
    named: bool,
    /// Each column's values so far, as JSON joined by `, `.
    columns: Vec<String>,
    rows: usize,
}

impl ColumnsWriter {
    pub(crate) fn new(schema: SchemaRef, named: bool, options: FormatOptions) -> Self {
        ColumnsWriter {
            cells: JsonCells::new(&schema, false, options.values),
            named,
            columns: vec![String::new(); schema.fields().len()],
            rows: 0,
        }
    }
}

impl ResultWriter for ColumnsWriter {
    fn write_batch(&mut self, _out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        self.rows += batch.num_rows();
        for (values, column) in self.columns.iter_mut().zip(batch.columns()) {
            for row in 0..batch.num_rows() {
                if !values.is_empty() {
                    values.push_str(", ");
                }
                self.cells.value(column.as_ref(), row, values);
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        let (open, close) = if self.named { ("{", "}") } else { ("[", "]") };
        let mut text = format!("{open}\n");
        // Without rows, JSONCompactColumns has no column to write.
        let columns = match self.named || self.rows > 0 {
            true => self.columns.as_slice(),
            false => &[],
        };
        for (i, values) in columns.iter().enumerate() {
            text.push('\t');
            if self.named {
                text.push_str(&self.cells.keys[i]);
                text.push_str(": ");
            }
            text.push('[');
            text.push_str(values);
            text.push(']');
            text.push_str(if i + 1 < columns.len() { ",\n" } else { "\n" });
        }
        if columns.is_empty() {
            text.push('\n');
        }
        text.push_str(close);
        text.push('\n');
        out.write_all(text.as_bytes())
    }
}
