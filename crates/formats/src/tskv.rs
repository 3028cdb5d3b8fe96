//! TSKV: a line per row of tab-separated `name=value` pairs, escaped as in
//! TabSeparated, with `=` in names escaped too so the pairs split unambiguously.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, escape_tsv, write_value};
use crate::{FormatOptions, ResultWriter, Statistics};

pub(crate) struct TskvWriter {
    /// `name=` of each column, escaped.
    keys: Vec<String>,
    options: FormatOptions,
}

impl TskvWriter {
    pub(crate) fn new(schema: SchemaRef, options: FormatOptions) -> Self {
        let keys = schema.fields().iter().map(|f| key(f.name())).collect();
        TskvWriter { keys, options }
    }
}

fn key(name: &str) -> String {
    let mut escaped = String::new();
    escape_tsv(name, &mut escaped);
    escaped.replace('=', "\\=") + "="
}

impl ResultWriter for TskvWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    text.push('\t');
                }
                text.push_str(&self.keys[i]);
                write_value(
                    column.as_ref(),
                    row,
                    Style::Escaped,
                    self.options.values,
                    &mut text,
                );
            }
            text.push('\n');
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn equals_signs_in_names_are_escaped() {
        assert_eq!(super::key("k=v\t"), "k\\=v\\t=");
    }
}
