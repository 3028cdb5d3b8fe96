//! Query parameters: `{name:Type}` in a statement takes the value of the
//! request's `param_name`, written in the text form of `Type` with
//! TabSeparated escapes, as ClickHouse's HTTP interface defines them.
//!
//! A value is substituted as a literal cast to its type, never as SQL: a
//! scalar becomes a quoted string, so no value can change the statement's
//! shape; an array, tuple or map value must consist of literals only.

use std::collections::HashMap;

use strata_common::{ErrorCode, Result, StrataError};

/// `text` with every `{name:Type}` outside quotes and comments replaced by
/// the value of `params[name]`.
pub fn substitute(text: &str, params: &HashMap<String, String>) -> Result<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let skip_to = match bytes[i] {
            b'\'' | b'"' | b'`' => quoted_end(bytes, i),
            b'-' if bytes.get(i + 1) == Some(&b'-') => line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => comment_end(bytes, i),
            b'{' => {
                if let Some((end, name, type_name)) = placeholder(text, i) {
                    out.push_str(&text[copied..i]);
                    let value = params.get(name).ok_or_else(|| {
                        StrataError::new(
                            ErrorCode::UNKNOWN_QUERY_PARAMETER,
                            format!("Substitution `{name}` is not set"),
                        )
                    })?;
                    out.push_str(&literal(name, value, type_name)?);
                    copied = end;
                    end
                } else {
                    i + 1
                }
            }
            _ => i + 1,
        };
        i = skip_to;
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

fn quoted_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of the string literal at `start`, if it is closed.
fn closed_string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn line_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| start + p + 1)
}

fn comment_end(bytes: &[u8], start: usize) -> usize {
    bytes[start + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| start + 2 + p + 2)
}

/// `{name:Type}` at `start`: its end and its parts.
fn placeholder(text: &str, start: usize) -> Option<(usize, &str, &str)> {
    let close = start + text[start..].find('}')?;
    let inner = &text[start + 1..close];
    let (name, type_name) = inner.split_once(':')?;
    let name = name.trim();
    let valid_name =
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let type_name = type_name.trim();
    (valid_name && !type_name.is_empty()).then_some((close + 1, name, type_name))
}

/// The value's text with TabSeparated escapes resolved; `None` for `\N`.
fn unescape(value: &str) -> Option<String> {
    if value == "\\N" {
        return None;
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn literal(name: &str, value: &str, type_name: &str) -> Result<String> {
    let bad = || {
        StrataError::new(
            ErrorCode::BAD_QUERY_PARAMETER,
            format!("Value {value} cannot be parsed as {type_name} for query parameter '{name}'"),
        )
    };
    if type_name == "Identifier" {
        let text = unescape(value).ok_or_else(bad)?;
        return Ok(format!("`{}`", text.replace('`', "\\`")));
    }
    let Some(text) = unescape(value) else {
        if type_name.starts_with("Nullable(") {
            return Ok(format!("CAST(NULL AS {type_name})"));
        }
        return Err(bad());
    };
    let inner = type_name
        .strip_prefix("Nullable(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(type_name);
    if ["Array(", "Tuple(", "Map("]
        .iter()
        .any(|p| inner.starts_with(p))
    {
        if !only_literals(&text) {
            return Err(bad());
        }
        return Ok(format!("CAST({text} AS {type_name})"));
    }
    if inner == "String" {
        return Ok(quote(&text));
    }
    Ok(format!("CAST({} AS {type_name})", quote(&text)))
}

/// Whether `text` holds only literals, brackets, commas and colons: the
/// text form of an array, tuple or map value, and no SQL.
fn only_literals(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => match closed_string_end(bytes, i) {
                Some(end) => i = end,
                None => return false,
            },
            b'[' | b']' | b'(' | b')' | b'{' | b'}' | b',' | b':' | b'.' | b'-' | b'+' => i += 1,
            b if b.is_ascii_whitespace() || b.is_ascii_digit() => i += 1,
            b if b.is_ascii_alphabetic() => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric())
                    .map_or(bytes.len(), |p| i + p);
                let word = text[i..end].to_ascii_lowercase();
                let numeric =
                    word.starts_with('e') && word[1..].bytes().all(|b| b.is_ascii_digit());
                if !["null", "true", "false", "nan", "inf"].contains(&word.as_str()) && !numeric {
                    return false;
                }
                i = end;
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn values_become_typed_literals() {
        let p = params(&[
            ("id", "42"),
            ("s", "it's\\ta"),
            ("t", "events"),
            ("a", "[1, 2]"),
            ("n", "\\N"),
        ]);
        let text = "SELECT {id:UInt8}, {s:String}, '{id:UInt8}' FROM {t:Identifier} \
                    WHERE x IN {a:Array(UInt8)} AND y = {n:Nullable(Int8)} -- {id:UInt8}";
        assert_eq!(
            substitute(text, &p).unwrap(),
            "SELECT CAST('42' AS UInt8), 'it\\'s\ta', '{id:UInt8}' FROM `events` \
             WHERE x IN CAST([1, 2] AS Array(UInt8)) AND y = CAST(NULL AS Nullable(Int8)) -- {id:UInt8}"
        );
    }

    #[test]
    fn missing_and_malicious_values_are_refused() {
        let missing = substitute("SELECT {x:UInt8}", &params(&[])).unwrap_err();
        assert_eq!(missing.code, ErrorCode::UNKNOWN_QUERY_PARAMETER);
        let sql = params(&[("a", "[1]) UNION ALL SELECT secret FROM t WHERE (1")]);
        let refused = substitute("SELECT {a:Array(UInt8)}", &sql).unwrap_err();
        assert_eq!(refused.code, ErrorCode::BAD_QUERY_PARAMETER);
        // Unescaped, `['x\']`: the string never closes.
        let open = params(&[("a", "['x\\\\\\']")]);
        assert!(substitute("SELECT {a:Array(String)}, 'y'", &open).is_err());
        let quoted = params(&[("s", "x' OR '1")]);
        assert_eq!(
            substitute("SELECT {s:String}", &quoted).unwrap(),
            "SELECT 'x\\' OR \\'1'"
        );
    }
}
