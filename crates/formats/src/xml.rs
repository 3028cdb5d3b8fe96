//! XML, laid out as ClickHouse prints it: `meta` with each column's name and
//! type, then `data` with a `row` element per row holding one element per
//! column, then `rows` and `statistics`.

use std::io::Write;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;

use crate::value::{Style, ValueOptions, write_value};
use crate::{ResultWriter, Statistics, column_names, column_types};

pub(crate) struct XmlWriter {
    /// The element each column's values are written in.
    tags: Vec<String>,
    rows: u64,
    values: XmlValues,
    /// The `<extremes>` element, written after `<data>`.
    extremes: Option<String>,
    /// `output_format_write_statistics`: `<statistics>` closes the result.
    write_statistics: bool,
}

/// Writes values as element text; `text` is scratch space for scalars.
struct XmlValues {
    text: String,
}

impl XmlWriter {
    pub(crate) fn new(
        schema: SchemaRef,
        write_statistics: bool,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let names = column_names(&schema);
        let mut head = String::from(
            "<?xml version='1.0' encoding='UTF-8' ?>\n<result>\n\t<meta>\n\t\t<columns>\n",
        );
        for (name, type_name) in names.iter().zip(column_types(&schema)) {
            head.push_str("\t\t\t<column>\n\t\t\t\t<name>");
            escape_xml(name, &mut head);
            head.push_str("</name>\n\t\t\t\t<type>");
            escape_xml(&type_name, &mut head);
            head.push_str("</type>\n\t\t\t</column>\n");
        }
        head.push_str("\t\t</columns>\n\t</meta>\n\t<data>\n");
        out.write_all(head.as_bytes())?;
        Ok(XmlWriter {
            tags: names.into_iter().map(tag).collect(),
            rows: 0,
            values: XmlValues {
                text: String::new(),
            },
            extremes: None,
            write_statistics,
        })
    }
}

impl XmlValues {
    /// A value as element text; arrays, tuples and maps as nested elements.
    fn write_value(&mut self, array: &dyn Array, row: usize, out: &mut String) {
        if array.is_null(row) || array.data_type() == &DataType::Null {
            out.push_str("\\N");
            return;
        }
        match array.data_type() {
            DataType::List(_) => {
                self.write_elements("array", &array.as_list::<i32>().value(row), out)
            }
            DataType::LargeList(_) => {
                self.write_elements("array", &array.as_list::<i64>().value(row), out)
            }
            DataType::Struct(_) => {
                out.push_str("<tuple>");
                for element in array.as_struct().columns() {
                    self.write_element("elem", element.as_ref(), row, out);
                }
                out.push_str("</tuple>");
            }
            DataType::Map(_, _) => {
                let entries = array.as_map().value(row);
                out.push_str("<map>");
                for i in 0..entries.len() {
                    out.push_str("<elem>");
                    self.write_element("key", entries.column(0).as_ref(), i, out);
                    self.write_element("value", entries.column(1).as_ref(), i, out);
                    out.push_str("</elem>");
                }
                out.push_str("</map>");
            }
            _ => {
                self.text.clear();
                write_value(
                    array,
                    row,
                    Style::Raw,
                    ValueOptions::default(),
                    &mut self.text,
                );
                escape_xml(&self.text, out);
            }
        }
    }

    fn write_elements(&mut self, tag: &str, values: &dyn Array, out: &mut String) {
        out.push_str(&format!("<{tag}>"));
        for i in 0..values.len() {
            self.write_element("elem", values, i, out);
        }
        out.push_str(&format!("</{tag}>"));
    }

    fn write_element(&mut self, tag: &str, array: &dyn Array, row: usize, out: &mut String) {
        out.push_str(&format!("<{tag}>"));
        self.write_value(array, row, out);
        out.push_str(&format!("</{tag}>"));
    }
}

/// A column's values are written in an element named after it when the name
/// is a plain XML name, in `field` otherwise.
fn tag(name: String) -> String {
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let starts_well = name.chars().next().is_some_and(|c| !c.is_ascii_digit());
    if plain && starts_well {
        name
    } else {
        "field".to_string()
    }
}

/// Only `<` and `&` can end an element's text early.
fn escape_xml(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
}

impl ResultWriter for XmlWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            self.rows += 1;
            text.push_str("\t\t<row>\n");
            for (i, column) in batch.columns().iter().enumerate() {
                text.push_str("\t\t\t");
                self.values
                    .write_element(&self.tags[i], column.as_ref(), row, &mut text);
                text.push('\n');
            }
            text.push_str("\t\t</row>\n");
        }
        out.write_all(text.as_bytes())
    }

    fn write_extremes(
        &mut self,
        _out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        let mut text = String::from("\t<extremes>\n");
        for (row, name) in ["min", "max"].iter().enumerate() {
            text.push_str(&format!("\t\t<{name}>\n"));
            for (i, column) in extremes.columns().iter().enumerate() {
                text.push_str("\t\t\t");
                self.values
                    .write_element(&self.tags[i], column.as_ref(), row, &mut text);
                text.push('\n');
            }
            text.push_str(&format!("\t\t</{name}>\n"));
        }
        text.push_str("\t</extremes>\n");
        self.extremes = Some(text);
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()> {
        out.write_all(b"\t</data>\n")?;
        if let Some(extremes) = self.extremes.take() {
            out.write_all(extremes.as_bytes())?;
        }
        let tail = match self.write_statistics {
            true => format!(
                "\t<rows>{}</rows>\n\t<statistics>\n\t\t<elapsed>{}</elapsed>\n\t\t<rows_read>{}</rows_read>\n\t\t<bytes_read>{}</bytes_read>\n\t</statistics>\n</result>\n",
                self.rows, statistics.elapsed_seconds, statistics.rows_read, statistics.bytes_read
            ),
            false => format!("\t<rows>{}</rows>\n</result>\n", self.rows),
        };
        out.write_all(tail.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_with_odd_names_are_written_as_field() {
        assert_eq!(tag("a.b-c_1".into()), "a.b-c_1");
        assert_eq!(tag("1c".into()), "field");
        assert_eq!(tag("x y".into()), "field");
        assert_eq!(tag("é".into()), "field");
    }

    #[test]
    fn only_lt_and_amp_are_escaped() {
        let mut out = String::new();
        escape_xml("a<b&c>\"'", &mut out);
        assert_eq!(out, "a&lt;b&amp;c>\"'");
    }
}
