//! Schema inference: the columns of data that arrives without a structure
//! (`file('data.csv')`, `format(JSONEachRow, '...')`), found as ClickHouse
//! finds them with its default settings.
//!
//! The first rows are read and each value is given the narrowest kind it
//! reads as; a column's kind is the merge of its values' kinds, and it is
//! Nullable, as ClickHouse makes every inferred column but arrays.
//! Numbers written as strings stay strings; dates and date-times written as
//! strings become dates, as in ClickHouse.

use std::io::Read;

use serde_json::Value;
use strata_common::{ErrorCode, Result, StrataError};

use super::InputFormat;
use super::delimited::{Dialect, FieldKind, Records};

/// Rows read to infer a structure (`input_format_max_rows_to_read_for_schema_inference`).
pub const ROWS_TO_READ: usize = 25_000;

/// A structure found in the data, and the format to read the data with:
/// CSV whose first row turns out to be a header is read as CSVWithNames.
#[derive(Debug, Clone, PartialEq)]
pub struct Inferred {
    pub format: InputFormat,
    /// Column names and ClickHouse type names, in the data's order.
    pub columns: Vec<(String, String)>,
}

/// What a value reads as, narrowest first; `Unknown` is NULL or empty.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Unknown,
    Bool,
    Int64,
    UInt64,
    Float64,
    Date,
    DateTime,
    DateTime64,
    String,
    Array(Box<Kind>),
}

impl Kind {
    /// The kind both `self` and `other` read as. Booleans merge with
    /// numbers only in JSON, where `true` is also a number.
    fn merge(self, other: Kind, json: bool) -> Kind {
        use Kind::*;
        match (self, other) {
            (Unknown, k) | (k, Unknown) => k,
            (a, b) if a == b => a,
            (Int64, UInt64) | (UInt64, Int64) => UInt64,
            (Int64 | UInt64, Float64) | (Float64, Int64 | UInt64) => Float64,
            (Bool, n @ (Int64 | UInt64 | Float64)) | (n @ (Int64 | UInt64 | Float64), Bool)
                if json =>
            {
                n
            }
            (Date, DateTime) | (DateTime, Date) => DateTime,
            (Date | DateTime, DateTime64) | (DateTime64, Date | DateTime) => DateTime64,
            (Array(a), Array(b)) => Array(Box::new(a.merge(*b, json))),
            _ => String,
        }
    }

    /// ClickHouse's name of the column type: Nullable but for arrays.
    fn type_name(&self) -> String {
        match self {
            Kind::Array(item) => format!("Array({})", item.type_name()),
            scalar => format!("Nullable({})", scalar.scalar_name()),
        }
    }

    fn scalar_name(&self) -> &'static str {
        match self {
            Kind::Unknown | Kind::String | Kind::Array(_) => "String",
            Kind::Bool => "Bool",
            Kind::Int64 => "Int64",
            Kind::UInt64 => "UInt64",
            Kind::Float64 => "Float64",
            Kind::Date => "Date",
            Kind::DateTime => "DateTime",
            Kind::DateTime64 => "DateTime64(9)",
        }
    }
}

/// Infers the columns of `source`, data in `format`, from its first rows.
pub fn infer(format: InputFormat, source: Box<dyn Read + Send>) -> Result<Inferred> {
    match format {
        InputFormat::Csv { names, types } => infer_delimited(Dialect::Csv, names, types, source),
        InputFormat::TabSeparated { names, types } => {
            infer_delimited(Dialect::TabSeparated, names, types, source)
        }
        InputFormat::JsonEachRow => infer_json_each_row(source),
        InputFormat::JsonCompactEachRow { names, types } => {
            infer_json_compact(names, types, source).map(|columns| Inferred { format, columns })
        }
        InputFormat::Parquet => {
            super::parquet::columns(source).map(|columns| Inferred { format, columns })
        }
        InputFormat::AsString(piece) => Ok(Inferred {
            format,
            columns: vec![(piece.column_name().to_string(), "String".to_string())],
        }),
        _ => Err(cannot_infer(format!(
            "Strata does not infer the structure of {format:?} data: give the columns"
        ))),
    }
}

fn cannot_infer(why: String) -> StrataError {
    StrataError::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, why)
}

/// CSV and TabSeparated: columns `c1`, `c2`, ... unless the format has
/// names or the first row is all strings over rows that are not.
fn infer_delimited(
    dialect: Dialect,
    names: bool,
    types: bool,
    source: Box<dyn Read + Send>,
) -> Result<Inferred> {
    let mut records = Records::new(dialect, source);
    let mut rows: Vec<Vec<(Kind, String)>> = Vec::new();
    while rows.len() < ROWS_TO_READ && records.read_record(rows.len() as u64 + 1)? {
        let row = (0..records.len())
            .map(|i| {
                let (text, kind) = records.field(i);
                let text = String::from_utf8_lossy(text).into_owned();
                (field_kind(dialect, &text, kind), text)
            })
            .collect();
        rows.push(row);
    }
    let Some(width) = rows.iter().map(Vec::len).max() else {
        return Err(cannot_infer(
            "Cannot extract table structure from empty data: give the columns".to_string(),
        ));
    };
    let header = names || (!types && looks_like_header(&rows));
    let (names, body) = if header {
        let names: Vec<String> = rows[0].iter().map(|(_, text)| text.clone()).collect();
        (names, &rows[1..])
    } else {
        ((1..=width).map(|i| format!("c{i}")).collect(), &rows[..])
    };
    let columns = if types {
        let types: Option<Vec<String>> = body
            .first()
            .map(|row| row.iter().map(|(_, t)| t.clone()).collect());
        names.into_iter().zip(types.unwrap_or_default()).collect()
    } else {
        let kinds = merged_kinds(
            body.iter().map(|row| row.iter().map(|(k, _)| k.clone())),
            false,
        );
        names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let kind = kinds.get(i).cloned().unwrap_or(Kind::Unknown);
                (name, kind.type_name())
            })
            .collect()
    };
    let format = match dialect {
        Dialect::Csv => InputFormat::Csv {
            names: header,
            types,
        },
        Dialect::TabSeparated => InputFormat::TabSeparated {
            names: header,
            types,
        },
    };
    Ok(Inferred { format, columns })
}

/// ClickHouse's header detection: the first row holds only strings, and
/// some column of the rows after it reads as something else.
fn looks_like_header(rows: &[Vec<(Kind, String)>]) -> bool {
    let Some((first, rest)) = rows.split_first() else {
        return false;
    };
    if rest.is_empty() || first.iter().any(|(kind, _)| *kind != Kind::String) {
        return false;
    }
    let kinds = merged_kinds(
        rest.iter().map(|row| row.iter().map(|(k, _)| k.clone())),
        false,
    );
    kinds
        .iter()
        .any(|kind| !matches!(kind, Kind::String | Kind::Unknown))
}

/// Each column's kind over `rows`, by position.
fn merged_kinds(rows: impl Iterator<Item = impl Iterator<Item = Kind>>, json: bool) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for row in rows {
        for (i, kind) in row.enumerate() {
            if i == kinds.len() {
                kinds.push(Kind::Unknown);
            }
            kinds[i] = std::mem::replace(&mut kinds[i], Kind::Unknown).merge(kind, json);
        }
    }
    kinds
}

/// The kind of one CSV or TabSeparated field. A quoted CSV field is a
/// string unless it reads as an array or a date; an unquoted one is never
/// an array (ClickHouse's `input_format_csv_*` defaults).
fn field_kind(dialect: Dialect, text: &str, kind: FieldKind) -> Kind {
    match (dialect, kind) {
        (_, FieldKind::Null) => Kind::Unknown,
        (Dialect::Csv, FieldKind::Quoted) => match array_kind(text) {
            Some(array) => array,
            None => date_kind(text).unwrap_or(Kind::String),
        },
        (Dialect::Csv, FieldKind::Unquoted) if text.is_empty() || text == "NULL" => Kind::Unknown,
        (Dialect::Csv, FieldKind::Unquoted) => scalar_kind(text),
        (Dialect::TabSeparated, _) => array_kind(text).unwrap_or_else(|| scalar_kind(text)),
    }
}

/// The kind of an unquoted value: a boolean, a number (without an
/// exponent, as `input_format_try_infer_exponent_floats = 0`), a date or
/// date-time, or else a string.
fn scalar_kind(text: &str) -> Kind {
    if text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false") {
        return Kind::Bool;
    }
    number_kind(text)
        .or_else(|| date_kind(text))
        .unwrap_or(Kind::String)
}

fn number_kind(text: &str) -> Option<Kind> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole)
        || !fraction.is_none_or(all_digits)
        || whole.len() + fraction.map_or(0, str::len) == 0
    {
        return None;
    }
    if fraction.is_some() {
        return Some(Kind::Float64);
    }
    if text.parse::<i64>().is_ok() {
        Some(Kind::Int64)
    } else if text.parse::<u64>().is_ok() {
        Some(Kind::UInt64)
    } else {
        Some(Kind::Float64)
    }
}

/// `YYYY-MM-DD` is a Date; with ` hh:mm:ss` (or `T`) a DateTime, and with
/// a fraction of a second a DateTime64(9).
fn date_kind(text: &str) -> Option<Kind> {
    use chrono::{NaiveDate, NaiveDateTime};
    if text.len() == 10 {
        return NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .map(|_| Kind::Date);
    }
    let (seconds, fraction) = match text.split_once('.') {
        Some((seconds, fraction)) => (seconds, Some(fraction)),
        None => (text, None),
    };
    let whole = NaiveDateTime::parse_from_str(seconds, "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(seconds, "%Y-%m-%dT%H:%M:%S"));
    match (whole, fraction) {
        (Ok(_), None) => Some(Kind::DateTime),
        (Ok(_), Some(f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            Some(Kind::DateTime64)
        }
        _ => None,
    }
}

/// `[v1, v2, ...]` in ClickHouse's text form: elements quoted with `'`
/// are strings (or dates), the rest read as unquoted values.
fn array_kind(text: &str) -> Option<Kind> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let mut item = Kind::Unknown;
    for element in split_elements(inner)? {
        let element = element.trim();
        let kind = if let Some(quoted) = element
            .strip_prefix('\'')
            .and_then(|e| e.strip_suffix('\''))
        {
            date_kind(quoted).unwrap_or(Kind::String)
        } else if element.starts_with('[') {
            array_kind(element)?
        } else if element == "NULL" || element == "null" {
            Kind::Unknown
        } else {
            scalar_kind(element)
        };
        item = item.merge(kind, false);
    }
    Some(Kind::Array(Box::new(item)))
}

/// The elements of an array's inside, split at commas outside quotes and
/// brackets; `None` if quotes or brackets do not close.
fn split_elements(inner: &str) -> Option<Vec<&str>> {
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut elements = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0usize, false, false, 0);
    for (i, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '\'' => quoted = !quoted,
            '[' if !quoted => depth += 1,
            ']' if !quoted => depth = depth.checked_sub(1)?,
            ',' if !quoted && depth == 0 => {
                elements.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted || depth != 0 {
        return None;
    }
    elements.push(&inner[start..]);
    Some(elements)
}

/// JSONEachRow: the keys of the objects in the order they first appear.
fn infer_json_each_row(source: Box<dyn Read + Send>) -> Result<Inferred> {
    // Rows as the reader takes them: commas between them, or all in one array.
    let rows = super::json_each_row::RowsOnly::new(source, true);
    let reader = std::io::BufReader::with_capacity(1 << 20, rows);
    let mut columns: Vec<(String, Kind)> = Vec::new();
    let objects = serde_json::Deserializer::from_reader(reader).into_iter::<Value>();
    for (row, object) in objects.take(ROWS_TO_READ).enumerate() {
        let object = match object {
            Ok(Value::Object(object)) => object,
            Ok(_) | Err(_) => {
                return Err(cannot_infer(format!(
                    "Cannot extract table structure from JSONEachRow data: row {} is not a JSON object",
                    row + 1
                )));
            }
        };
        for (key, value) in object {
            let kind = json_kind(&value);
            match columns.iter_mut().find(|(name, _)| *name == key) {
                Some((_, known)) => {
                    *known = std::mem::replace(known, Kind::Unknown).merge(kind, true)
                }
                None => columns.push((key, kind)),
            }
        }
    }
    if columns.is_empty() {
        return Err(cannot_infer(
            "Cannot extract table structure from empty data: give the columns".to_string(),
        ));
    }
    Ok(Inferred {
        format: InputFormat::JsonEachRow,
        columns: columns
            .into_iter()
            .map(|(name, kind)| (name, kind.type_name()))
            .collect(),
    })
}

/// JSONCompactEachRow: columns `c1`, ... unless the format has names, of
/// the types a header of types gives or the values' merged kinds.
fn infer_json_compact(
    names: bool,
    types: bool,
    source: Box<dyn Read + Send>,
) -> Result<Vec<(String, String)>> {
    let rows = super::json_each_row::RowsOnly::new(source, false);
    let reader = std::io::BufReader::with_capacity(1 << 20, rows);
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for (row, values) in serde_json::Deserializer::from_reader(reader)
        .into_iter::<Value>()
        .take(ROWS_TO_READ)
        .enumerate()
    {
        match values {
            Ok(Value::Array(values)) => rows.push(values),
            _ => {
                return Err(cannot_infer(format!(
                    "Cannot extract table structure from JSONCompactEachRow data: row {} is not a JSON array",
                    row + 1
                )));
            }
        }
    }
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut rows = rows.into_iter();
    let header: Option<Vec<String>> = names
        .then(|| rows.next())
        .flatten()
        .map(|r| r.iter().map(text).collect());
    let declared: Option<Vec<String>> = types
        .then(|| rows.next())
        .flatten()
        .map(|r| r.iter().map(text).collect());
    let types = match declared {
        Some(types) => types,
        None => merged_kinds(
            rows.map(|row| row.iter().map(json_kind).collect::<Vec<_>>().into_iter()),
            true,
        )
        .iter()
        .map(Kind::type_name)
        .collect(),
    };
    if types.is_empty() {
        return Err(cannot_infer(
            "Cannot extract table structure from empty data: give the columns".to_string(),
        ));
    }
    let names = header.unwrap_or_else(|| (1..=types.len()).map(|i| format!("c{i}")).collect());
    Ok(names.into_iter().zip(types).collect())
}

/// A JSON value's kind. Objects are read as their JSON text (String):
/// Strata has no Nullable(Tuple) or JSON type to infer them as.
fn json_kind(value: &Value) -> Kind {
    match value {
        Value::Null => Kind::Unknown,
        Value::Bool(_) => Kind::Bool,
        Value::Number(n) if n.is_i64() => Kind::Int64,
        Value::Number(n) if n.is_u64() => Kind::UInt64,
        Value::Number(_) => Kind::Float64,
        Value::String(text) => date_kind(text).unwrap_or(Kind::String),
        Value::Array(items) => Kind::Array(Box::new(
            items
                .iter()
                .map(json_kind)
                .fold(Kind::Unknown, |a, b| a.merge(b, true)),
        )),
        Value::Object(_) => Kind::String,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn columns(format: &str, data: &str) -> Vec<(String, String)> {
        let format = InputFormat::from_name(format).unwrap();
        infer(format, Box::new(Cursor::new(data.as_bytes().to_vec())))
            .unwrap()
            .columns
    }

    fn types(format: &str, data: &str) -> Vec<String> {
        columns(format, data).into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn csv_values_read_as_clickhouse_reads_them() {
        assert_eq!(
            types(
                "CSV",
                "true,1e5,-3,2020-01-01 10:00:00.123,\"2020-01-01\",\"1\",\"[1,2]\",[3]"
            ),
            [
                "Nullable(Bool)",
                "Nullable(String)",
                "Nullable(Int64)",
                "Nullable(DateTime64(9))",
                "Nullable(Date)",
                "Nullable(String)",
                "Array(Nullable(Int64))",
                "Nullable(String)",
            ]
        );
        assert_eq!(
            types("CSV", "1,\n2.5,3\n-1,18446744073709551615"),
            ["Nullable(Float64)", "Nullable(UInt64)"]
        );
        assert_eq!(types("CSV", "true\n1"), ["Nullable(String)"]);
        assert_eq!(
            types("CSV", ",NULL"),
            ["Nullable(String)", "Nullable(String)"]
        );
    }

    #[test]
    fn a_header_is_a_row_of_strings_over_rows_that_are_not() {
        let found = columns("CSV", "a,b\n1,x\n2,y\n");
        assert_eq!(
            found,
            [
                ("a".to_string(), "Nullable(Int64)".to_string()),
                ("b".to_string(), "Nullable(String)".to_string())
            ]
        );
        let names: Vec<String> = columns("CSV", "a,b\nx,y")
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(names, ["c1", "c2"]);
        let format = InputFormat::from_name("TSV").unwrap();
        let inferred = infer(format, Box::new(Cursor::new(b"a\tb\n1\t2\n".to_vec()))).unwrap();
        assert_eq!(
            inferred.format,
            InputFormat::TabSeparated {
                names: true,
                types: false
            }
        );
    }

    #[test]
    fn json_values_merge_across_rows() {
        let found = columns(
            "JSONEachRow",
            r#"{"a":1,"b":[1,2.5],"c":null,"d":"2020-01-01"} {"a":true,"e":{"x":1},"b":[]}"#,
        );
        let expected = [
            ("a", "Nullable(Int64)"),
            ("b", "Array(Nullable(Float64))"),
            ("c", "Nullable(String)"),
            ("d", "Nullable(Date)"),
            ("e", "Nullable(String)"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn empty_data_has_no_structure() {
        let format = InputFormat::from_name("CSV").unwrap();
        let error = infer(format, Box::new(Cursor::new(Vec::new()))).unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE);
    }
}
