//! JSON, JSONCompact and JSONEachRow, laid out exactly as ClickHouse prints them
//! (tab indentation, `meta`, `data`, `rows`, `statistics`).

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, write_json_string, write_value};
use crate::{FormatOptions, ResultWriter, Statistics, column_types};

pub(crate) struct JsonEachRowWriter {
    keys: Vec<String>,
    options: FormatOptions,
}

impl JsonEachRowWriter {
    pub(crate) fn new(schema: SchemaRef, options: FormatOptions) -> Self {
        let keys = schema
            .fields()
            .iter()
            .map(|f| {
                let mut key = String::new();
                write_json_string(f.name(), &mut key);
                key
            })
            .collect();
        JsonEachRowWriter { keys, options }
    }
}

impl ResultWriter for JsonEachRowWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            text.push('{');
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&self.keys[i]);
                text.push(':');
                write_value(
                    column.as_ref(),
                    row,
                    Style::Json,
                    self.options.values,
                    &mut text,
                );
            }
            text.push_str("}\n");
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) struct JsonWriter {
    compact: bool,
    keys: Vec<String>,
    options: FormatOptions,
    rows: u64,
}

impl JsonWriter {
    pub(crate) fn new(
        compact: bool,
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let mut head = String::from("{\n\t\"meta\":\n\t[\n");
        let types = column_types(&schema);
        let mut keys = Vec::new();
        for (i, field) in schema.fields().iter().enumerate() {
            let mut key = String::new();
            write_json_string(field.name(), &mut key);
            let mut type_name = String::new();
            write_json_string(&types[i], &mut type_name);
            head.push_str(&format!(
                "\t\t{{\n\t\t\t\"name\": {key},\n\t\t\t\"type\": {type_name}\n\t\t}}"
            ));
            head.push_str(if i + 1 < schema.fields().len() {
                ",\n"
            } else {
                "\n"
            });
            keys.push(key);
        }
        head.push_str("\t],\n\n\t\"data\":\n\t[\n");
        out.write_all(head.as_bytes())?;
        Ok(JsonWriter {
            compact,
            keys,
            options,
            rows: 0,
        })
    }
}

impl ResultWriter for JsonWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                text.push_str(",\n");
            }
            self.rows += 1;
            if self.compact {
                text.push_str("\t\t[");
                for (i, column) in batch.columns().iter().enumerate() {
                    if i > 0 {
                        text.push_str(", ");
                    }
                    write_value(
                        column.as_ref(),
                        row,
                        Style::Json,
                        self.options.values,
                        &mut text,
                    );
                }
                text.push(']');
            } else {
                text.push_str("\t\t{\n");
                for (i, column) in batch.columns().iter().enumerate() {
                    text.push_str("\t\t\t");
                    text.push_str(&self.keys[i]);
                    text.push_str(": ");
                    write_value(
                        column.as_ref(),
                        row,
                        Style::Json,
                        self.options.values,
                        &mut text,
                    );
                    text.push_str(if i + 1 < batch.num_columns() {
                        ",\n"
                    } else {
                        "\n"
                    });
                }
                text.push_str("\t\t}");
            }
        }
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()> {
        let tail = format!(
            "\n\t],\n\n\t\"rows\": {},\n\n\t\"statistics\":\n\t{{\n\t\t\"elapsed\": {},\n\t\t\"rows_read\": {},\n\t\t\"bytes_read\": {}\n\t}}\n}}\n",
            self.rows, statistics.elapsed_seconds, statistics.rows_read, statistics.bytes_read
        );
        out.write_all(tail.as_bytes())
    }
}
