//! `toJSONString(value)`: any value as the JSON text the JSON formats write
//! for it (numbers bare, strings, dates and UUIDs quoted, arrays and unnamed
//! tuples as arrays, maps and named tuples as objects). A NULL value is
//! NULL, and nested NULLs are `null`, as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{Array, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_formats::value::{
    DateTimeStyle, Style, ValueOptions, declared_as_text, write_json_string, write_value,
};

use super::frame::{Call, Spec};

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "toJSONString",
    aliases: &[],
    args: (1, 1),
    volatility: Volatility::Immutable,
    typing: |t| Ok(t.propagating(DataType::Utf8)),
    eval: json_strings,
}];

fn json_strings(call: &Call) -> Result<ColumnarValue> {
    let values = call.column(0)?;
    let as_text = declared_as_text(&call.fields[0], values.as_ref(), DateTimeStyle::Simple);
    let mut out = StringBuilder::with_capacity(values.len(), values.len() * 8);
    let mut text = String::new();
    // A NULL literal's array has no null buffer, only logical NULLs.
    let nulls = values.logical_nulls();
    for row in 0..values.len() {
        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            out.append_null();
            continue;
        }
        text.clear();
        match &as_text {
            Some(texts) => write_json_string(texts_value(texts.as_ref(), row), &mut text),
            None => write_value(
                values.as_ref(),
                row,
                Style::Json,
                ValueOptions::default(),
                &mut text,
            ),
        }
        out.append_value(&text);
    }
    call.output(Arc::new(out.finish()))
}

fn texts_value(texts: &dyn Array, row: usize) -> &str {
    use datafusion::arrow::array::AsArray;
    texts.as_string::<i32>().value(row)
}
