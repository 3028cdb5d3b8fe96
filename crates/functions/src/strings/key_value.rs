//! `extractKeyValuePairs(text[, key_value_delimiter[, pair_delimiters[,
//! quoting_character]]])`: the `key:value` pairs of text such as a log
//! line, as a `Map(String, String)` in the order they appear (a key seen
//! twice is kept twice, as in ClickHouse). Defaults: `:` between key and
//! value, any of space, `,` and `;` between pairs, `"` around a quoted key
//! or value. A key must be followed by the key-value delimiter and be
//! non-empty; anything else up to the next pair delimiter is skipped.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayBuilder, ArrayRef, MapArray, StringBuilder, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::udf::{Call, Output, Param, Spec, append_text, failure};

/// How one call splits its text.
struct Delimiters {
    key_value: u8,
    pairs: Vec<u8>,
    quote: u8,
}

impl Delimiters {
    fn ends_key(&self, b: u8) -> bool {
        b == self.key_value || self.pairs.contains(&b)
    }
}

/// The pairs of `text`, in order.
fn pairs(text: &[u8], delimiters: &Delimiters) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        if delimiters.pairs.contains(&text[at]) {
            at += 1;
            continue;
        }
        let (key, next) = read(text, at, delimiters, |b| delimiters.ends_key(b));
        at = next;
        if key.is_empty() || text.get(at) != Some(&delimiters.key_value) {
            // Not a key: skip the delimiter that ended it.
            at += 1;
            continue;
        }
        let (value, next) = read(text, at + 1, delimiters, |b| delimiters.pairs.contains(&b));
        at = next;
        out.push((key, value));
    }
    out
}

/// A quoted or bare token from `at`, and where reading stopped.
fn read(
    text: &[u8],
    at: usize,
    delimiters: &Delimiters,
    ends: impl Fn(u8) -> bool,
) -> (Vec<u8>, usize) {
    if text.get(at) == Some(&delimiters.quote) {
        let body = &text[at + 1..];
        return match memchr::memchr(delimiters.quote, body) {
            Some(end) => (body[..end].to_vec(), at + 1 + end + 1),
            // An unclosed quote holds no token.
            None => (Vec::new(), text.len()),
        };
    }
    let end = text[at.min(text.len())..]
        .iter()
        .position(|&b| ends(b))
        .map_or(text.len(), |n| at + n);
    (text[at.min(end)..end].to_vec(), end)
}

/// A one-byte argument at `i`, or `default` when not passed.
fn byte_argument(call: &Call, i: usize, default: &[u8]) -> Result<Vec<u8>> {
    if call.len() <= i {
        return Ok(default.to_vec());
    }
    Ok(call.text(i)?.get(0).unwrap_or(default).to_vec())
}

fn extract_key_value_pairs(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let single = |i: usize, default: &[u8]| -> Result<u8> {
        match byte_argument(call, i, default)?.as_slice() {
            [b] => Ok(*b),
            _ => Err(failure(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Argument {} of function {} must be one character",
                    i + 1,
                    call.name
                ),
            )),
        }
    };
    let delimiters = Delimiters {
        key_value: single(1, b":")?,
        pairs: byte_argument(call, 2, b" ,;")?,
        quote: single(3, b"\"")?,
    };
    let (mut keys, mut values) = (StringBuilder::new(), StringBuilder::new());
    let mut offsets = vec![0i32];
    for row in 0..call.rows {
        for (key, value) in pairs(text.get(row).unwrap_or_default(), &delimiters) {
            append_text(&mut keys, &key);
            append_text(&mut values, &value);
        }
        offsets.push(keys.len() as i32);
    }
    let DataType::Map(entries, sorted) = Output::TextMap.data_type() else {
        unreachable!("the output is a Map")
    };
    let DataType::Struct(fields) = entries.data_type() else {
        unreachable!("a Map's entries are a struct")
    };
    let columns: Vec<ArrayRef> = vec![Arc::new(keys.finish()), Arc::new(values.finish())];
    let entries_array = StructArray::try_new(fields.clone(), columns, None)?;
    Ok(Arc::new(MapArray::try_new(
        entries,
        OffsetBuffer::new(offsets.into()),
        entries_array,
        None,
        sorted,
    )?))
}

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "extractKeyValuePairs",
    aliases: &["str_to_map", "mapFromString"],
    params: &[Param::Text, Param::Text, Param::Text, Param::Text],
    required: 1,
    output: Output::TextMap,
    eval: extract_key_value_pairs,
}];

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str, key_value: u8, pairs_by: &[u8]) -> String {
        let delimiters = Delimiters {
            key_value,
            pairs: pairs_by.to_vec(),
            quote: b'"',
        };
        pairs(text.as_bytes(), &delimiters)
            .into_iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    String::from_utf8(k).unwrap(),
                    String::from_utf8(v).unwrap()
                )
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn equals_clickhouse() {
        // Maps from ClickHouse 26.9 (chdb).
        assert_eq!(shown("a:1, b:2, c:x", b':', b" ,;"), "a=1|b=2|c=x");
        assert_eq!(shown("k=v;z=w", b'=', b";"), "k=v|z=w");
        assert_eq!(shown("a:1 :2 b: c:3 d", b':', b" ,;"), "a=1|b=|c=3");
        assert_eq!(shown("a:\"x y\", b:2", b':', b", "), "a=x y|b=2");
        assert_eq!(shown("a:1,a:2", b':', b" ,;"), "a=1|a=2");
        assert_eq!(shown("", b':', b" ,;"), "");
    }
}
