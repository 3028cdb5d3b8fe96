//! `simpleJSON*` (alias `visitParam*`): ClickHouse's fast field reads that
//! do not parse the document. A field is the first place the text holds
//! `"name":`, at any depth; its value starts right after the colon. Numbers
//! are read as the longest number there (after one optional quote), a
//! string must open right there, a raw value runs to the `,`, `}` or `]`
//! that closes it (or is empty when none does).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Float64Array, Int64Array, StringBuilder, UInt8Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use memchr::memmem;
use strata_common::ErrorCode;

use crate::encodings::udf::{Args, Call, Spec, error, is_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Has,
    Int,
    UInt,
    Float,
    Bool,
    Raw,
    String,
}

macro_rules! simple {
    ($name:literal, $alias:literal, $read:ident) => {
        Spec {
            name: $name,
            aliases: &[$alias],
            typing: |args| typing(args, Read::$read),
            eval: |call| eval(call, Read::$read),
        }
    };
}

pub(crate) static SPECS: &[Spec] = &[
    simple!("simpleJSONHas", "visitParamHas", Has),
    simple!("simpleJSONExtractInt", "visitParamExtractInt", Int),
    simple!("simpleJSONExtractUInt", "visitParamExtractUInt", UInt),
    simple!("simpleJSONExtractFloat", "visitParamExtractFloat", Float),
    simple!("simpleJSONExtractBool", "visitParamExtractBool", Bool),
    simple!("simpleJSONExtractRaw", "visitParamExtractRaw", Raw),
    simple!("simpleJSONExtractString", "visitParamExtractString", String),
];

fn typing(args: &Args, read: Read) -> Result<Field> {
    args.arity(2, 2)?;
    args.require(0, is_text)?;
    args.require(1, is_text)?;
    let data_type = match read {
        Read::Has | Read::Bool => DataType::UInt8,
        Read::Int => DataType::Int64,
        Read::UInt => DataType::UInt64,
        Read::Float => DataType::Float64,
        Read::Raw | Read::String => DataType::Utf8,
    };
    Ok(args.propagate(data_type))
}

fn eval(call: &Call, read: Read) -> Result<ArrayRef> {
    let name = match call.scalar(1) {
        Some(ScalarValue::Utf8(Some(name))) => name.clone(),
        Some(ScalarValue::Utf8(None)) | Some(ScalarValue::Null) => {
            return Ok(datafusion::arrow::array::new_null_array(
                call.result.data_type(),
                call.rows,
            ));
        }
        _ => {
            return Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "Argument at index 1 for function {} must be constant",
                    call.name
                ),
            ));
        }
    };
    let needle = format!("\"{name}\":");
    let finder = memmem::Finder::new(needle.as_bytes());
    let texts = call.bytes(0)?;
    let values = texts
        .iter()
        .map(|t| t.map(|t| finder.find(t).map(|at| &t[at + needle.len()..])));
    Ok(match read {
        Read::Has => Arc::new(
            values
                .map(|v| v.map(|v| u8::from(v.is_some())))
                .collect::<UInt8Array>(),
        ),
        Read::Int => Arc::new(
            values
                .map(|v| v.map(|v| v.map_or(0, read_int)))
                .collect::<Int64Array>(),
        ),
        Read::UInt => Arc::new(
            values
                .map(|v| v.map(|v| v.map_or(0, read_uint)))
                .collect::<UInt64Array>(),
        ),
        Read::Float => Arc::new(
            values
                .map(|v| v.map(|v| v.map_or(0.0, read_float)))
                .collect::<Float64Array>(),
        ),
        Read::Bool => Arc::new(
            values
                .map(|v| v.map(|v| u8::from(v.is_some_and(|v| v.starts_with(b"true")))))
                .collect::<UInt8Array>(),
        ),
        Read::Raw | Read::String => {
            let mut out = StringBuilder::new();
            for value in values {
                match value {
                    None => out.append_null(),
                    Some(value) => {
                        let text = value.and_then(|v| match read {
                            Read::Raw => {
                                read_raw(v).map(|raw| String::from_utf8_lossy(raw).into_owned())
                            }
                            _ => read_string(v),
                        });
                        out.append_value(text.unwrap_or_default());
                    }
                }
            }
            Arc::new(out.finish())
        }
    })
}

/// The value's digits after one optional quote and a sign.
fn digits(value: &[u8]) -> (bool, &[u8]) {
    let value = value.strip_prefix(b"\"").unwrap_or(value);
    let (negative, value) = match value.first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let end = value
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(value.len());
    (negative, &value[..end])
}

fn read_uint(value: &[u8]) -> u64 {
    match digits(value) {
        (false, d) => std::str::from_utf8(d)
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0),
        (true, _) => 0,
    }
}

fn read_int(value: &[u8]) -> i64 {
    let (negative, d) = digits(value);
    let Some(magnitude) = std::str::from_utf8(d)
        .ok()
        .and_then(|d| d.parse::<i128>().ok())
    else {
        return 0;
    };
    let signed = if negative { -magnitude } else { magnitude };
    i64::try_from(signed).unwrap_or(0)
}

/// The longest float at the value's start (after one optional quote).
fn read_float(value: &[u8]) -> f64 {
    let value = value.strip_prefix(b"\"").unwrap_or(value);
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .unwrap_or(value.len());
    let candidate = std::str::from_utf8(&value[..end]).unwrap_or("");
    (1..=candidate.len())
        .rev()
        .find_map(|n| candidate.get(..n)?.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// The raw value: up to the `,`, `}` or `]` that ends it outside brackets
/// and strings (a quote after a backslash does not close a string).
fn read_raw(value: &[u8]) -> Option<&[u8]> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (i, &b) in value.iter().enumerate() {
        if in_string {
            in_string = !(b == b'"' && value[i - 1] != b'\\');
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' | b',' if depth == 0 => return Some(&value[..i]),
            b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A JSON string opening at the value's start, unescaped; None when it does
/// not open there or never closes.
fn read_string(value: &[u8]) -> Option<String> {
    let mut rest = value.strip_prefix(b"\"")?;
    let mut out: Vec<u8> = Vec::new();
    loop {
        let (&b, tail) = rest.split_first()?;
        rest = tail;
        match b {
            b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
            b'\\' => {
                let (&escaped, tail) = rest.split_first()?;
                rest = tail;
                match escaped {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'0' => out.push(0),
                    b'u' => rest = unicode_escape(rest, &mut out)?,
                    other => out.push(other),
                }
            }
            other => out.push(other),
        }
    }
}

/// Decodes the four hex digits of a `\u` escape (and the low half of a
/// surrogate pair after it), giving the rest of the input.
fn unicode_escape<'a>(rest: &'a [u8], out: &mut Vec<u8>) -> Option<&'a [u8]> {
    let hex =
        |bytes: &[u8]| u32::from_str_radix(std::str::from_utf8(bytes.get(..4)?).ok()?, 16).ok();
    let high = hex(rest)?;
    let mut rest = &rest[4..];
    let code = if (0xd800..0xdc00).contains(&high) && rest.starts_with(b"\\u") {
        let low = hex(&rest[2..])?;
        rest = &rest[6..];
        0x10000 + ((high - 0xd800) << 10) + (low.wrapping_sub(0xdc00) & 0x3ff)
    } else {
        high
    };
    let c = char::from_u32(code).unwrap_or('\u{fffd}');
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_as_clickhouse_does() {
        assert_eq!(read_int(b"-12x}"), -12);
        assert_eq!(read_int(b"\"12\"}"), 12);
        assert_eq!(read_int(b" 5}"), 0);
        assert_eq!(read_int(b"99999999999999999999}"), 0);
        assert_eq!(read_uint(b"-5}"), 0);
        assert_eq!(read_float(b"1.5e2}"), 150.0);
        assert_eq!(read_float(b"-.5}"), -0.5);
        assert_eq!(read_float(b"1.5x}"), 1.5);
        assert_eq!(read_raw(b" 12 , \"b\":1}"), Some(&b" 12 "[..]));
        assert_eq!(read_raw(b"[1,2]"), None);
        assert_eq!(read_raw(b"\"\\\\\"}"), None);
        assert_eq!(read_raw(b"\"q\\\"\",\"b\":1}"), Some(&b"\"q\\\"\""[..]));
        assert_eq!(read_string(b"\"bad\\q\"}").as_deref(), Some("badq"));
        assert_eq!(read_string(b"\"\\ud83d\\ude00\"").as_deref(), Some("😀"));
        assert_eq!(read_string(b"\"x"), None);
    }
}
