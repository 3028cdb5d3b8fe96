//! Query parameters: `{name:Type}` in a statement takes the value of the
//! request's `param_name`, written in the text form of `Type` with
//! TabSeparated escapes, as ClickHouse's HTTP interface defines them.
//!
//! A value is substituted as a literal cast to its type, never as SQL: a
//! scalar becomes a quoted string, so no value can change the statement's
//! shape; an array, tuple or map value is read in its quoted text form and
//! rebuilt from such scalars.

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
                    let after_in = ends_with_in(&out);
                    out.push_str(&literal(name, value, type_name, after_in)?);
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
    let valid_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
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

/// `type_name`'s structure, as far as writing a value of it needs.
enum Kind<'a> {
    Array(&'a str),
    Tuple(Vec<&'a str>),
    Map(&'a str, &'a str),
    Nullable(&'a str),
    Scalar(&'a str),
}

fn kind(type_name: &str) -> Kind<'_> {
    let type_name = type_name.trim();
    let wrapped = |prefix: &str| {
        type_name
            .strip_prefix(prefix)
            .and_then(|t| t.strip_suffix(')'))
    };
    if let Some(inner) = wrapped("LowCardinality(") {
        // Strata's types have no LowCardinality: the value is its inner type's.
        return kind(inner);
    }
    if let Some(inner) = wrapped("Nullable(") {
        return Kind::Nullable(inner.trim());
    }
    if let Some(inner) = wrapped("Array(") {
        return Kind::Array(inner.trim());
    }
    if let Some(inner) = wrapped("Tuple(") {
        return Kind::Tuple(top_level_args(inner).into_iter().map(unnamed).collect());
    }
    match wrapped("Map(").map(top_level_args).as_deref() {
        Some([key, value]) => Kind::Map(key, value),
        _ => Kind::Scalar(type_name),
    }
}

/// The comma-separated arguments of a type, split outside parentheses and
/// quotes.
pub(crate) fn top_level_args(args: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut start) = (0, false, 0);
    for (i, c) in args.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(args[start..].trim());
    parts
}

/// A named tuple element's type without its name: `a UInt8` is `UInt8`.
fn unnamed(element: &str) -> &str {
    match (element.find(char::is_whitespace), element.find('(')) {
        (Some(space), paren) if paren.is_none_or(|p| space < p) => element[space..].trim(),
        _ => element,
    }
}

fn literal(name: &str, value: &str, type_name: &str, after_in: bool) -> Result<String> {
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
    let kind = kind(type_name);
    let Some(text) = unescape(value) else {
        return match kind {
            Kind::Nullable(inner) => Ok(null_of(inner)),
            _ => Err(bad()),
        };
    };
    match kind {
        Kind::Scalar(scalar) => Ok(scalar_literal(&text, scalar)),
        Kind::Nullable(inner) if matches!(self::kind(inner), Kind::Scalar(_)) => {
            Ok(format!("toNullable({})", scalar_literal(&text, inner)))
        }
        // `x IN [1, 2]` is a set in ClickHouse; Strata's parser takes a tuple.
        Kind::Array(item) if after_in => {
            let items = Cursor::new(&text).whole(|c| c.items(item, '[', ']'));
            items.map(|items| format!("({})", items.join(", ")))
        }
        _ => Cursor::new(&text).whole(|c| c.value(type_name)),
    }
    .map_err(|_: ()| bad())
}

/// The NULL of `type_name`, typed where Strata can cast to it.
fn null_of(type_name: &str) -> String {
    match kind(type_name) {
        Kind::Scalar(scalar) => format!("CAST(NULL AS Nullable({scalar}))"),
        _ => "NULL".to_string(),
    }
}

/// A scalar value from its text: always a quoted string, so no value can
/// change the statement's shape.
fn scalar_literal(text: &str, type_name: &str) -> String {
    if type_name == "String" {
        return quote(text);
    }
    format!("CAST({} AS {type_name})", quote(text))
}

/// Reads a value in ClickHouse's quoted text form (`[1,2]`, `(1,'x')`,
/// `{'k':1}`, `NULL`) and writes it as a Strata expression.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

type Parsed<T> = std::result::Result<T, ()>;

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }

    /// `read`'s result, if it consumes the whole text.
    fn whole<T>(mut self, read: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        let value = read(&mut self)?;
        self.skip_space();
        (self.pos == self.text.len()).then_some(value).ok_or(())
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.pos += c.len_utf8();
        }
        found
    }

    fn expect(&mut self, c: char) -> Parsed<()> {
        self.eat(c).then_some(()).ok_or(())
    }

    fn value(&mut self, type_name: &str) -> Parsed<String> {
        match kind(type_name) {
            Kind::Nullable(inner) if self.at_null() => Ok(null_of(inner)),
            Kind::Nullable(inner) => Ok(format!("toNullable({})", self.value(inner)?)),
            Kind::Array(item) => self.array(item),
            Kind::Tuple(elements) => self.tuple(&elements),
            Kind::Map(key, value) => self.map(key, value),
            Kind::Scalar(scalar) => Ok(scalar_literal(&self.scalar_text()?, scalar)),
        }
    }

    /// Consumes a `NULL` if one is next.
    fn at_null(&mut self) -> bool {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let word = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(rest, |end| &rest[..end]);
        let null = word.eq_ignore_ascii_case("null");
        if null {
            self.pos += 4;
        }
        null
    }

    /// The items between `open` and `close`, separated by commas.
    fn items(&mut self, item: &str, open: char, close: char) -> Parsed<Vec<String>> {
        self.expect(open)?;
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.value(item)?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(',')?;
        }
    }

    fn array(&mut self, item: &str) -> Parsed<String> {
        let items = self.items(item, '[', ']')?;
        if items.is_empty() {
            // `[]` has no element type; these functions give one.
            return Ok(match item {
                "UInt8" | "UInt16" | "UInt32" | "UInt64" | "Int8" | "Int16" | "Int32" | "Int64"
                | "Float32" | "Float64" | "String" | "Date" | "DateTime" => {
                    format!("emptyArray{item}()")
                }
                _ => "[]".to_string(),
            });
        }
        Ok(format!("[{}]", items.join(", ")))
    }

    fn tuple(&mut self, elements: &[&str]) -> Parsed<String> {
        self.expect('(')?;
        let mut values = Vec::new();
        for (i, element) in elements.iter().enumerate() {
            if i > 0 {
                self.expect(',')?;
            }
            values.push(self.value(element)?);
        }
        self.expect(')')?;
        Ok(format!("tuple({})", values.join(", ")))
    }

    fn map(&mut self, key: &str, value: &str) -> Parsed<String> {
        self.expect('{')?;
        let mut entries = Vec::new();
        if self.eat('}') {
            return Ok("map()".to_string());
        }
        loop {
            entries.push(self.value(key)?);
            self.expect(':')?;
            entries.push(self.value(value)?);
            if self.eat('}') {
                return Ok(format!("map({})", entries.join(", ")));
            }
            self.expect(',')?;
        }
    }

    /// A quoted string's content, or a bare token such as a number.
    fn scalar_text(&mut self) -> Parsed<String> {
        if self.eat('\'') {
            return self.quoted_rest();
        }
        let rest = &self.text[self.pos..];
        let end = rest
            .find(|c: char| c.is_whitespace() || ",:[](){}'".contains(c))
            .unwrap_or(rest.len());
        self.pos += end;
        (end > 0).then(|| rest[..end].to_string()).ok_or(())
    }

    /// The rest of a quoted string after its opening quote, unescaped.
    fn quoted_rest(&mut self) -> Parsed<String> {
        let mut raw = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    raw.push(c);
                    raw.extend(chars.next().map(|(_, c)| c));
                }
                '\'' => {
                    self.pos += i + 1;
                    return unescape(&raw).ok_or(());
                }
                _ => raw.push(c),
            }
        }
        Err(())
    }
}

/// Whether `sql` ends with the keyword `IN`.
fn ends_with_in(sql: &str) -> bool {
    let sql = sql.trim_end().as_bytes();
    let n = sql.len();
    n >= 2
        && sql[n - 2..].eq_ignore_ascii_case(b"in")
        && (n == 2 || !(sql[n - 3].is_ascii_alphanumeric() || sql[n - 3] == b'_'))
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
             WHERE x IN (CAST('1' AS UInt8), CAST('2' AS UInt8)) AND y = CAST(NULL AS Nullable(Int8)) -- {id:UInt8}"
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

    #[test]
    fn names_may_hold_dollars() {
        let p = params(&[("id$x", "5"), ("$x$", "s"), ("a$$b", "1")]);
        assert_eq!(
            substitute("SELECT {id$x:Int32}, {$x$:String}, {a$$b:UInt8}", &p).unwrap(),
            "SELECT CAST('5' AS Int32), 's', CAST('1' AS UInt8)"
        );
    }

    #[test]
    fn containers_are_rebuilt_from_their_text() {
        let p = params(&[
            ("a", "['x\\\\'y', NULL]"),
            ("t", "(1,'x')"),
            ("m", "{'k':[1]}"),
            ("e", "[]"),
            ("n", "x"),
        ]);
        let text = "SELECT {a:Array(Nullable(String))}, {t:Tuple(a UInt8, b String)}, \
                    {m:Map(String, Array(UInt8))}, {e:Array(UInt8)}, {n:Nullable(String)}";
        assert_eq!(
            substitute(text, &p).unwrap(),
            "SELECT [toNullable('x\\'y'), CAST(NULL AS Nullable(String))], \
             tuple(CAST('1' AS UInt8), 'x'), map('k', [CAST('1' AS UInt8)]), \
             emptyArrayUInt8(), toNullable('x')"
        );
    }
}
