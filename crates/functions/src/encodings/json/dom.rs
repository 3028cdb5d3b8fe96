//! A parsed JSON document as ClickHouse's JSON functions see it: numbers
//! are Int64 when they fit, UInt64 above that, else Double; objects keep
//! their members in order, duplicates included (lookups find the first);
//! the whole input must be one valid value (RFC 8259, as simdjson reads it).
//! `write_raw` gives a value back in ClickHouse's compact form.

use std::fmt::{self, Write};

use datafusion::arrow::array::Float64Array;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use strata_formats::value::{Style, ValueOptions, write_value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// The document in `text`, or None when it is not valid JSON.
pub(crate) fn parse(text: &[u8]) -> Option<Json> {
    let mut reader = serde_json::Deserializer::from_slice(text);
    let value = Seed.deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(value)
}

struct Seed;

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(i64::try_from(v).map_or(Json::UInt(v), Json::Int))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        // serde_json reads the integer `-0` as the double -0.0; ClickHouse
        // reads it as the integer 0 (a written `-0.0` reads the same here).
        if v == 0.0 && v.is_sign_negative() {
            return Ok(Json::Int(0));
        }
        Ok(Json::Double(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            members.push((key, map.next_value_seed(Seed)?));
        }
        Ok(Json::Object(members))
    }
}

impl Json {
    /// The member `key` of an object (the first of that name), compared
    /// exactly or ignoring ASCII case.
    pub(crate) fn member(&self, key: &[u8], ignore_case: bool) -> Option<(&str, &Json)> {
        let Json::Object(members) = self else {
            return None;
        };
        let matches = |k: &str| {
            if ignore_case {
                k.as_bytes().eq_ignore_ascii_case(key)
            } else {
                k.as_bytes() == key
            }
        };
        members
            .iter()
            .find(|(k, _)| matches(k))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The element at a 1-based `index` of an array or object (negative:
    /// from the end), with the key when it is an object member.
    pub(crate) fn at(&self, index: i64) -> Option<(Option<&str>, &Json)> {
        let len = match self {
            Json::Array(items) => items.len(),
            Json::Object(members) => members.len(),
            _ => return None,
        } as i64;
        let position = match index {
            1.. if index <= len => index - 1,
            ..=-1 if -index <= len => len + index,
            _ => return None,
        } as usize;
        match self {
            Json::Array(items) => Some((None, &items[position])),
            Json::Object(members) => {
                let (k, v) = &members[position];
                Some((Some(k.as_str()), v))
            }
            _ => None,
        }
    }

    /// The number of elements of an array or members of an object.
    pub(crate) fn len(&self) -> Option<usize> {
        match self {
            Json::Array(items) => Some(items.len()),
            Json::Object(members) => Some(members.len()),
            _ => None,
        }
    }

    /// The name `JSONType` gives the value's kind.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "Null",
            Json::Bool(_) => "Bool",
            Json::Int(_) => "Int64",
            Json::UInt(_) => "UInt64",
            Json::Double(_) => "Double",
            Json::Str(_) => "String",
            Json::Array(_) => "Array",
            Json::Object(_) => "Object",
        }
    }
}

/// Appends the value in ClickHouse's compact JSON form.
pub(crate) fn write_raw(value: &Json, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Json::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Json::Double(v) => write_double(*v, out),
        Json::Str(s) => write_string(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_raw(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_raw(item, out);
            }
            out.push('}');
        }
    }
}

/// A double as ClickHouse writes a Float64.
pub(crate) fn write_double(v: f64, out: &mut String) {
    let array = Float64Array::from(vec![v]);
    write_value(&array, 0, Style::Raw, ValueOptions::default(), out);
}

/// A JSON string: quotes, backslashes and control characters escaped
/// (`\u001F` in upper case), and U+2028/U+2029, which JavaScript refuses.
pub(crate) fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The value as text: a string as itself, null as nothing, anything else raw.
pub(crate) fn text_of(value: &Json) -> String {
    match value {
        Json::Str(s) => s.clone(),
        Json::Null => String::new(),
        other => {
            let mut out = String::new();
            write_raw(other, &mut out);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Option<String> {
        parse(text.as_bytes()).map(|v| {
            let mut out = String::new();
            write_raw(&v, &mut out);
            out
        })
    }

    #[test]
    fn parses_and_writes_like_clickhouse() {
        assert_eq!(
            raw(" {\"a\" :  1.0 , \"b\":[]} ").unwrap(),
            "{\"a\":1,\"b\":[]}"
        );
        assert_eq!(
            raw("[1e3, -0, 2.5e-5, 1e-7]").unwrap(),
            "[1000,0,0.000025,1e-7]"
        );
        assert_eq!(raw("\"\\u0001\\/\\n\"").unwrap(), "\"\\u0001/\\n\"");
        for bad in [
            "",
            "{\"a\":1} x",
            "[1,]",
            "01",
            "1e999",
            "\"\\ud800\"",
            "{a:1}",
        ] {
            assert!(parse(bad.as_bytes()).is_none(), "{bad}");
        }
        assert_eq!(parse(b"18446744073709551615"), Some(Json::UInt(u64::MAX)));
    }
}
