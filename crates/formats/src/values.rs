//! Values: rows as SQL tuples, `(1,'a'),(2,'b')`, ready to paste after
//! `INSERT INTO t VALUES`; no newline, even at the end.

use std::io::Write;

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
            text.push('(');
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                write_value(
                    column.as_ref(),
                    row,
                    Style::Quoted,
                    self.options.values,
                    &mut text,
                );
            }
            text.push(')');
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}
