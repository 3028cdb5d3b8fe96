//! Markdown (alias MD): a pipe table whose header row marks numbers, dates and
//! times right-aligned (`-:`) and the rest left-aligned (`:-`); cells are
//! escaped as in TabSeparated, and ASCII punctuation with a backslash under
//! `output_format_markdown_escape_special_characters`. Rows stream, since no
//! padding is needed.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, aligns_right, write_value};
use crate::{FormatOptions, ResultWriter, Statistics};

pub(crate) struct MarkdownWriter {
    options: FormatOptions,
}

impl MarkdownWriter {
    pub(crate) fn new(
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let mut head = String::from("|");
        let mut rule = String::from("|");
        for field in schema.fields() {
            head.push_str(&format!(" {} |", field.name()));
            rule.push_str(if aligns_right(field) { "-:|" } else { ":-|" });
        }
        writeln!(out, "{head}\n{rule}")?;
        Ok(MarkdownWriter { options })
    }
}

impl ResultWriter for MarkdownWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            text.push('|');
            for column in batch.columns() {
                text.push(' ');
                let start = text.len();
                write_value(
                    column.as_ref(),
                    row,
                    Style::Escaped,
                    self.options.values,
                    &mut text,
                );
                if self.options.markdown_escape_special {
                    let cell = text.split_off(start);
                    escape_special(&cell, &mut text);
                }
                text.push_str(" |");
            }
            text.push('\n');
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

/// `cell` with a backslash before each ASCII punctuation mark.
fn escape_special(cell: &str, out: &mut String) {
    for c in cell.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
}
