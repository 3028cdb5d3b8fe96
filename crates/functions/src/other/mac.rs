//! MAC addresses: `MACNumToString` (a UInt64's low 48 bits as upper-case
//! `XX:XX:XX:XX:XX:XX`), `MACStringToNum` and `MACStringToOUI` (the bytes
//! at fixed positions of 17-character text, or of its first 8 to 17
//! characters for the OUI; 0 for text of another length). As ClickHouse
//! does, the separators are not checked and a character that is no hex
//! digit reads as 0xFF before the two digits are packed into a byte.

use std::fmt::Write;
use std::sync::Arc;

use datafusion::arrow::array::{AsArray, StringBuilder, UInt64Array, new_null_array};
use datafusion::arrow::datatypes::{DataType, UInt64Type};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::frame::{Call, Spec, Typing, failure};
use super::readable::strings;

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "MACNumToString",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| match t.field(0).data_type() {
            DataType::UInt64 | DataType::Null => Ok(t.propagating(DataType::Utf8)),
            _ => Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function {}, expected UInt64",
                    field_type_name(&t.field(0)),
                    t.name
                ),
            )),
        },
        eval: mac_to_string,
    },
    Spec {
        name: "MACStringToNum",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: text_typing,
        eval: |call| mac_from_string(call, 6, 17..=17),
    },
    Spec {
        name: "MACStringToOUI",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: text_typing,
        eval: |call| mac_from_string(call, 3, 8..=17),
    },
];

fn text_typing(t: &Typing) -> Result<datafusion::arrow::datatypes::Field> {
    match t.fields[0].data_type() {
        DataType::Utf8 | DataType::Null => Ok(t.propagating(DataType::UInt64)),
        _ => Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of argument of function {}",
                field_type_name(&t.fields[0]),
                t.name
            ),
        )),
    }
}

fn mac_to_string(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    if column.data_type() == &DataType::Null {
        return call.output(new_null_array(&DataType::Utf8, column.len()));
    }
    let values = column.as_primitive::<UInt64Type>();
    let mut out = StringBuilder::with_capacity(values.len(), values.len() * 17);
    for value in values.iter() {
        match value {
            Some(value) => {
                let bytes = value.to_be_bytes();
                let text = bytes[2..].iter().fold(String::new(), |mut text, byte| {
                    let separator = if text.is_empty() { "" } else { ":" };
                    let _ = write!(text, "{separator}{byte:02X}");
                    text
                });
                out.append_value(text);
            }
            None => out.append_null(),
        }
    }
    call.output(Arc::new(out.finish()))
}

/// A hex digit's value, 0xFF for any other character.
fn hex_digit(c: u8) -> u8 {
    (c as char).to_digit(16).map_or(0xFF, |d| d as u8)
}

/// The first `bytes` bytes of `text`, two hex digits every three characters.
fn mac_bytes(text: &[u8], bytes: usize, lengths: &std::ops::RangeInclusive<usize>) -> u64 {
    if !lengths.contains(&text.len()) {
        return 0;
    }
    // As ClickHouse: a digit that is not hex reads as 0xFF, and the pair is
    // `high * 16 | low` unmasked, so it may spill into the byte before.
    (0..bytes).fold(0u64, |value, i| {
        let pair = u64::from(hex_digit(text[3 * i])) * 16 | u64::from(hex_digit(text[3 * i + 1]));
        (value << 8) | pair
    })
}

fn mac_from_string(
    call: &Call,
    bytes: usize,
    lengths: std::ops::RangeInclusive<usize>,
) -> Result<ColumnarValue> {
    let texts = strings(call, 0)?;
    let out: UInt64Array = texts
        .iter()
        .map(|text| text.map(|t| mac_bytes(t.as_bytes(), bytes, &lengths)))
        .collect();
    call.output(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_text_reads_fixed_positions() {
        assert_eq!(
            mac_bytes(b"01:02:03:04:05:06", 6, &(17..=17)),
            0x010203040506
        );
        assert_eq!(
            mac_bytes(b"01:02:03:04:05:g0", 6, &(17..=17)),
            0x010203040FF0
        );
        assert_eq!(mac_bytes(b"01:02:03:04:05:6", 6, &(17..=17)), 0);
        assert_eq!(mac_bytes(b"01:02:03", 3, &(8..=17)), 0x010203);
        assert_eq!(mac_bytes(b"01:02:0", 3, &(8..=17)), 0);
    }
}
