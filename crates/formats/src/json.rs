//! JSON, JSONCompact, JSONStrings and JSONCompactStrings, laid out exactly as
//! ClickHouse prints them (tab indentation, `meta`, `data`, `rows`, `statistics`,
//! tuples and maps spread over lines in JSON), and the cell writing every JSON
//! format shares.

use std::io::Write;

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, ValueOptions, write_json_string, write_value};
use crate::{FormatOptions, OutputFormat, ResultWriter, Statistics, column_types};

/// Writes the values of one result as JSON: typed (`1`, `[1,2]`, `null`) or,
/// in the *Strings formats, as JSON strings of their plain text (`"1"`,
/// `"[1,2]"`, `"ᴺᵁᴸᴸ"`).
pub(crate) struct JsonCells {
    /// The column names as JSON strings.
    pub(crate) keys: Vec<String>,
    strings: bool,
    options: ValueOptions,
    text: String,
}

impl JsonCells {
    pub(crate) fn new(schema: &SchemaRef, strings: bool, options: ValueOptions) -> Self {
        JsonCells {
            keys: schema
                .fields()
                .iter()
                .map(|f| json_string(f.name()))
                .collect(),
            strings,
            options,
            text: String::new(),
        }
    }

    pub(crate) fn value(&mut self, column: &dyn Array, row: usize, out: &mut String) {
        if self.strings {
            self.text.clear();
            write_value(column, row, Style::Raw, self.options, &mut self.text);
            write_json_string(&self.text, out);
        } else {
            write_value(column, row, Style::Json, self.options, out);
        }
    }

    /// `{"a":1,"b":"x"}`: a row of JSONEachRow.
    pub(crate) fn object(&mut self, batch: &RecordBatch, row: usize, out: &mut String) {
        out.push('{');
        for (i, column) in batch.columns().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&self.keys[i]);
            out.push(':');
            self.value(column.as_ref(), row, out);
        }
        out.push('}');
    }

    /// `[1, "x"]`: a row of the Compact formats.
    pub(crate) fn array(&mut self, batch: &RecordBatch, row: usize, out: &mut String) {
        out.push('[');
        for (i, column) in batch.columns().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.value(column.as_ref(), row, out);
        }
        out.push(']');
    }

    /// A row of JSON and JSONStrings: one `"key": value` line per column.
    fn lines(&mut self, batch: &RecordBatch, row: usize, out: &mut String) {
        out.push_str("\t\t{\n");
        for (i, column) in batch.columns().iter().enumerate() {
            out.push_str("\t\t\t");
            out.push_str(&self.keys[i]);
            out.push_str(": ");
            self.spread(column.as_ref(), row, (3, "\t"), out);
            out.push_str(if i + 1 < batch.num_columns() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str("\t\t}");
    }

    /// A value of the JSON format, where tuples, maps and arrays of them are
    /// spread over lines, an element a line, indented one `unit` (a tab, or
    /// PrettyJSONEachRow's four spaces) deeper than `depth`; other values,
    /// and all of JSONStrings, stay on one line.
    pub(crate) fn spread(
        &mut self,
        array: &dyn Array,
        row: usize,
        (depth, unit): (usize, &str),
        out: &mut String,
    ) {
        if self.strings || array.is_null(row) || !spreads(array.data_type()) {
            return self.value(array, row, out);
        }
        let (open, close, children) = self.children(array, row);
        out.push(open);
        if !children.is_empty() {
            out.push('\n');
            for (n, (key, values, i)) in children.iter().enumerate() {
                out.push_str(&unit.repeat(depth + 1));
                if let Some(key) = key {
                    out.push_str(key);
                    out.push_str(": ");
                }
                self.spread(values.as_ref(), *i, (depth + 1, unit), out);
                out.push_str(if n + 1 < children.len() { ",\n" } else { "\n" });
            }
            out.push_str(&unit.repeat(depth));
        }
        out.push(close);
    }

    /// The brackets of a tuple, map or array, and its elements: a key for a
    /// map's, and the array and row holding each.
    fn children(&mut self, array: &dyn Array, row: usize) -> (char, char, Vec<Child>) {
        match array.data_type() {
            // A named tuple is an object, as `output_format_json_named_tuples_as_objects`.
            DataType::Struct(fields) if strata_common::types::is_named_tuple(fields) => {
                let elements = fields.iter().zip(array.as_struct().columns());
                let children =
                    elements.map(|(f, c)| (Some(json_string(f.name())), Arc::clone(c), row));
                ('{', '}', children.collect())
            }
            DataType::Struct(_) => {
                let elements = array.as_struct().columns().iter();
                (
                    '[',
                    ']',
                    elements.map(|c| (None, Arc::clone(c), row)).collect(),
                )
            }
            DataType::Map(_, _) => {
                let entries = array.as_map().value(row);
                let (keys, values) = (entries.column(0), entries.column(1));
                let children = (0..entries.len())
                    .map(|i| (Some(self.key(keys.as_ref(), i)), Arc::clone(values), i))
                    .collect();
                ('{', '}', children)
            }
            _ => {
                let values = match array.data_type() {
                    DataType::LargeList(_) => array.as_list::<i64>().value(row),
                    _ => array.as_list::<i32>().value(row),
                };
                let children = (0..values.len()).map(|i| (None, Arc::clone(&values), i));
                ('[', ']', children.collect())
            }
        }
    }

    /// A map key as a JSON string, as JSON keys must be.
    fn key(&mut self, keys: &dyn Array, i: usize) -> String {
        self.text.clear();
        write_value(keys, i, Style::Raw, self.options, &mut self.text);
        json_string(&self.text)
    }
}

/// An element of a tuple, map or array: its key in a map, and where it is.
type Child = (Option<String>, ArrayRef, usize);

/// Tuples, maps and arrays of arrays, tuples or maps.
fn spreads(data_type: &DataType) -> bool {
    match data_type {
        DataType::Struct(_) | DataType::Map(_, _) => true,
        DataType::List(item) | DataType::LargeList(item) => matches!(
            item.data_type(),
            DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_) | DataType::Map(_, _)
        ),
        _ => false,
    }
}

pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::new();
    write_json_string(text, &mut out);
    out
}

pub(crate) struct JsonWriter {
    compact: bool,
    cells: JsonCells,
    rows: u64,
    /// The `"totals"` member, written between `"data"` and `"rows"`.
    totals: Option<String>,
    /// The `"extremes"` member, after the totals.
    extremes: Option<String>,
    /// `output_format_write_statistics`: the `"statistics"` member closes the object.
    write_statistics: bool,
}

impl JsonWriter {
    pub(crate) fn new(
        format: OutputFormat,
        schema: SchemaRef,
        options: FormatOptions,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let strings = matches!(
            format,
            OutputFormat::JsonStrings | OutputFormat::JsonCompactStrings
        );
        let cells = JsonCells::new(&schema, strings, options.values);
        let mut head = String::from("{\n\t\"meta\":\n\t[\n");
        let types = column_types(&schema);
        for (i, key) in cells.keys.iter().enumerate() {
            let type_name = json_string(&types[i]);
            head.push_str(&format!(
                "\t\t{{\n\t\t\t\"name\": {key},\n\t\t\t\"type\": {type_name}\n\t\t}}"
            ));
            head.push_str(if i + 1 < types.len() { ",\n" } else { "\n" });
        }
        head.push_str("\t],\n\n\t\"data\":\n\t[\n");
        out.write_all(head.as_bytes())?;
        Ok(JsonWriter {
            compact: matches!(
                format,
                OutputFormat::JsonCompact | OutputFormat::JsonCompactStrings
            ),
            cells,
            rows: 0,
            totals: None,
            extremes: None,
            write_statistics: options.write_statistics,
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
                text.push_str("\t\t");
                self.cells.array(batch, row, &mut text);
            } else {
                self.cells.lines(batch, row, &mut text);
            }
        }
        out.write_all(text.as_bytes())
    }

    fn write_totals(&mut self, _out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        if self.compact {
            text.push_str("\t\"totals\": ");
            self.cells.array(totals, 0, &mut text);
        } else {
            // A data row's lines, one level less indented.
            let mut row = String::new();
            self.cells.lines(totals, 0, &mut row);
            let lines: Vec<&str> = row
                .lines()
                .map(|l| l.strip_prefix('\t').unwrap_or(l))
                .collect();
            text.push_str("\t\"totals\":\n");
            text.push_str(&lines.join("\n"));
        }
        self.totals = Some(text);
        Ok(())
    }

    fn write_extremes(
        &mut self,
        _out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        let mut text = String::from("\t\"extremes\":\n\t{\n");
        for (row, name) in ["min", "max"].iter().enumerate() {
            text.push_str(&format!("\t\t\"{name}\":"));
            if self.compact {
                text.push(' ');
                self.cells.array(extremes, row, &mut text);
            } else {
                text.push('\n');
                self.cells.lines(extremes, row, &mut text);
            }
            text.push_str(if row == 0 { ",\n" } else { "\n" });
        }
        text.push_str("\t}");
        self.extremes = Some(text);
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()> {
        let mut closing = "\n\t],\n\n".to_string();
        for member in [&self.totals, &self.extremes].into_iter().flatten() {
            closing.push_str(&format!("{member},\n\n"));
        }
        out.write_all(closing.as_bytes())?;
        let tail = match self.write_statistics {
            true => format!(
                "\t\"rows\": {},\n\n\t\"statistics\":\n\t{{\n\t\t\"elapsed\": {},\n\t\t\"rows_read\": {},\n\t\t\"bytes_read\": {}\n\t}}\n}}\n",
                self.rows, statistics.elapsed_seconds, statistics.rows_read, statistics.bytes_read
            ),
            false => format!("\t\"rows\": {}\n}}\n", self.rows),
        };
        out.write_all(tail.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{ListArray, StructArray, UInt8Array};
    use datafusion::arrow::datatypes::{Field, UInt8Type};

    use super::*;

    #[test]
    fn json_spreads_a_tuple_over_lines_but_not_its_plain_array() {
        let list =
            ListArray::from_iter_primitive::<UInt8Type, _, _>([Some(vec![Some(2), Some(3)])]);
        let tuple = StructArray::from(vec![
            (
                Arc::new(Field::new("1", DataType::UInt8, false)),
                Arc::new(UInt8Array::from(vec![1])) as ArrayRef,
            ),
            (
                Arc::new(Field::new("2", list.data_type().clone(), false)),
                Arc::new(list) as ArrayRef,
            ),
        ]);
        let schema = Arc::new(datafusion::arrow::datatypes::Schema::empty());
        let mut cells = JsonCells::new(&schema, false, ValueOptions::default());
        let mut out = String::new();
        cells.spread(&tuple, 0, (3, "\t"), &mut out);
        assert_eq!(out, "[\n\t\t\t\t1,\n\t\t\t\t[2,3]\n\t\t\t]");
    }
}
