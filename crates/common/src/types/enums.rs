//! ClickHouse's `Enum8` and `Enum16`: a closed set of names, each with a
//! number.
//!
//! Strata holds an enum's values as their names (Arrow `Utf8`), with the
//! declared type in the field's metadata. Names are what almost every use
//! reads and writes (output, comparisons with strings, `IN`, `GROUP BY`), so
//! a value stays right wherever DataFusion drops the metadata; the numbers
//! matter where ClickHouse orders by them (`ORDER BY`), casts to a number or
//! sends them in a binary format, and those places look the type up here.

use datafusion::arrow::array::{Array, AsArray, Int16Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};

use crate::error::{ErrorCode, Result, StrataError};

/// An enum type: its elements ordered by number, as ClickHouse shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumType {
    /// `Enum16` rather than `Enum8`.
    wide: bool,
    elements: Vec<(String, i16)>,
}

impl EnumType {
    /// Reads the elements between the parentheses of `Enum8(...)`,
    /// `Enum16(...)` or `Enum(...)` (`family`, any case): `'name' = number`
    /// or `'name'` ([`number_elements`]); `Enum` is `Enum8` when every number
    /// fits a byte.
    pub fn parse(family: &str, elements: &str) -> Result<EnumType> {
        let listed = split_elements(elements)?;
        if listed.is_empty() {
            return Err(StrataError::new(
                ErrorCode::EMPTY_DATA_PASSED,
                "Enum data type cannot be empty",
            ));
        }
        let elements = number_elements(listed)?;
        let wide = match family.to_ascii_lowercase().as_str() {
            "enum8" => false,
            "enum16" => true,
            _ => elements.iter().any(|(_, n)| i8::try_from(*n).is_err()),
        };
        EnumType::new(wide, elements)
    }

    fn new(wide: bool, elements: Vec<(String, i64)>) -> Result<EnumType> {
        let family = if wide { "Enum16" } else { "Enum8" };
        let (low, high) = if wide {
            (i16::MIN as i64, i16::MAX as i64)
        } else {
            (i8::MIN as i64, i8::MAX as i64)
        };
        let mut checked: Vec<(String, i16)> = Vec::with_capacity(elements.len());
        for (name, number) in elements {
            if !(low..=high).contains(&number) {
                return Err(StrataError::new(
                    ErrorCode::ARGUMENT_OUT_OF_BOUND,
                    format!("Value {number} for element '{name}' exceeds range of {family}"),
                ));
            }
            let number = number as i16;
            if let Some((_, other)) = checked.iter().find(|(n, _)| *n == name) {
                return Err(StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!("Duplicate names in enum: '{name}' = {other} and {number}"),
                ));
            }
            if let Some((other, _)) = checked.iter().find(|(_, v)| *v == number) {
                return Err(StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!("Duplicate values in enum: '{name}' = {number} and '{other}'"),
                ));
            }
            checked.push((name, number));
        }
        checked.sort_by_key(|(_, number)| *number);
        Ok(EnumType {
            wide,
            elements: checked,
        })
    }

    /// Whether the type is `Enum16` (two bytes a value) rather than `Enum8`.
    pub fn is_wide(&self) -> bool {
        self.wide
    }

    /// The type as ClickHouse writes it: `Enum8('a' = 1, 'b' = 2)`.
    pub fn name(&self) -> String {
        let elements: Vec<String> = self
            .elements
            .iter()
            .map(|(name, number)| format!("'{}' = {number}", escape(name)))
            .collect();
        let family = if self.wide { "Enum16" } else { "Enum8" };
        format!("{family}({})", elements.join(", "))
    }

    /// The elements' names, by number.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.elements.iter().map(|(name, _)| name.as_str())
    }

    /// The number of the element `name`.
    pub fn number_of(&self, name: &str) -> Option<i16> {
        self.elements
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, number)| *number)
    }

    /// The name of the element numbered `number`.
    pub fn name_of(&self, number: i64) -> Option<&str> {
        self.elements
            .iter()
            .find(|(_, n)| i64::from(*n) == number)
            .map(|(name, _)| name.as_str())
    }

    /// The type's default: its element with the smallest number.
    pub fn default_name(&self) -> &str {
        &self.elements[0].0
    }

    /// The name a text stands for: an element's name, else the name of the
    /// element whose number it is (ClickHouse reads `'1'` as element 1).
    pub fn read_text(&self, text: &str) -> Result<&str> {
        if let Some((name, _)) = self.elements.iter().find(|(n, _)| n == text) {
            return Ok(name);
        }
        match text.trim().parse::<i64>() {
            Ok(number) => self.read_number(number),
            Err(_) => Err(StrataError::new(
                ErrorCode::UNKNOWN_ELEMENT_OF_ENUM,
                format!("Unknown element '{text}' for enum"),
            )),
        }
    }

    /// The name of the element numbered `number`, or ClickHouse's error.
    pub fn read_number(&self, number: i64) -> Result<&str> {
        self.name_of(number).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_ELEMENT_OF_ENUM,
                format!("Unexpected value {number} in enum"),
            )
        })
    }
}

impl EnumType {
    /// The names `values` stand for: texts read by [`Self::read_text`],
    /// numbers by [`Self::read_number`] (a fraction dropped). NULL stays
    /// NULL. The error says which row failed.
    pub fn names_from(&self, values: &dyn Array) -> Result<StringArray, (usize, StrataError)> {
        let failed = |row, error| (row, error);
        if let Some(texts) = values.as_string_opt::<i32>() {
            return (0..texts.len())
                .map(|row| match texts.is_valid(row) {
                    true => self.read_text(texts.value(row)).map(Some),
                    false => Ok(None),
                })
                .enumerate()
                .map(|(row, name)| name.map_err(|e| failed(row, e)))
                .collect();
        }
        // Arrow's cast drops a float's fraction, as ClickHouse does.
        let numbers = cast(values, &DataType::Int64).map_err(|error| {
            let error = StrataError::new(ErrorCode::CANNOT_CONVERT_TYPE, error.to_string());
            failed(0, error)
        })?;
        let numbers = numbers.as_primitive::<Int64Type>();
        (0..numbers.len())
            .map(|row| match numbers.is_valid(row) {
                true => self.read_number(numbers.value(row)).map(Some),
                false => Ok(None),
            })
            .enumerate()
            .map(|(row, name)| name.map_err(|e| failed(row, e)))
            .collect()
    }

    /// The numbers of the names in `names`; a name not of the enum (the
    /// empty string under a NULL) is 0.
    pub fn numbers_of(&self, names: &StringArray) -> Int16Array {
        let numbers = names
            .iter()
            .map(|name| name.and_then(|n| self.number_of(n)).unwrap_or(0));
        Int16Array::new(numbers.collect(), names.nulls().cloned())
    }
}

/// Numbers the elements written without one, as ClickHouse does: counting
/// on from the first element's number (1 when it has none); either every
/// element after the first has one or none has.
fn number_elements(listed: Vec<(String, Option<i64>)>) -> Result<Vec<(String, i64)>> {
    let count = listed.len();
    let start = listed[0].1.unwrap_or(1);
    let mut counted = 0;
    let mut elements = Vec::with_capacity(count);
    for (i, (name, number)) in listed.into_iter().enumerate() {
        let number = match number {
            Some(number) => number,
            None => {
                counted += usize::from(i > 0);
                start + counted as i64
            }
        };
        elements.push((name, number));
    }
    if counted != 0 && counted != count - 1 {
        return Err(StrataError::new(
            ErrorCode::UNEXPECTED_AST_STRUCTURE,
            "All elements of Enum data type must be of form: 'name' = number or 'name', \
             where name is string literal and number is an integer",
        ));
    }
    Ok(elements)
}

/// The elements of an enum's text, each with its number if given.
fn split_elements(text: &str) -> Result<Vec<(String, Option<i64>)>> {
    let malformed = || {
        StrataError::new(
            ErrorCode::UNEXPECTED_AST_STRUCTURE,
            format!("Elements of Enum data type must be of form: 'name' = number, got: {text}"),
        )
    };
    let mut elements = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (name, after) = quoted_name(rest).ok_or_else(malformed)?;
        rest = after.trim_start();
        let mut number = None;
        if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            let digits = after
                .char_indices()
                .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                .count();
            number = Some(after[..digits].parse::<i64>().map_err(|_| malformed())?);
            rest = after[digits..].trim_start();
        }
        elements.push((name, number));
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start(),
            None if rest.is_empty() => break,
            None => return Err(malformed()),
        }
    }
    Ok(elements)
}

/// A single-quoted name at the start of `text` (backslash escapes and
/// doubled quotes read), and the text after it.
fn quoted_name(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('\'')?;
    let mut name = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, escaped) = chars.next()?;
                name.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    other => other,
                });
            }
            '\'' if body[i + 1..].starts_with('\'') => {
                name.push('\'');
                chars.next();
            }
            '\'' => return Some((name, &body[i + 1..])),
            other => name.push(other),
        }
    }
    None
}

/// A name quoted as ClickHouse writes it in a type.
fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_ordered_by_number_and_named_canonically() {
        let e = EnumType::parse("Enum8", "'x' = 5, 'b'=2, 'a' = -1").unwrap();
        assert_eq!(e.name(), "Enum8('a' = -1, 'b' = 2, 'x' = 5)");
        assert_eq!(e.default_name(), "a");
        assert_eq!(e.number_of("x"), Some(5));
        assert_eq!(e.name_of(2), Some("b"));
        let auto = EnumType::parse("Enum", "'a', 'b'").unwrap();
        assert_eq!(auto.name(), "Enum8('a' = 1, 'b' = 2)");
        let wide = EnumType::parse("Enum", "'a' = 200").unwrap();
        assert_eq!(wide.name(), "Enum16('a' = 200)");
        let quoted = EnumType::parse("Enum8", r"'it\'s' = 1, 'b\\c' = 2").unwrap();
        assert_eq!(quoted.name_of(1), Some("it's"));
        assert_eq!(quoted.name(), r"Enum8('it\'s' = 1, 'b\\c' = 2)");
    }

    #[test]
    fn malformed_enums_get_clickhouse_codes() {
        let code = |family, text| EnumType::parse(family, text).unwrap_err().code.code;
        assert_eq!(code("Enum8", ""), 92);
        assert_eq!(code("Enum8", "'a' = 1, 'a' = 2"), 62);
        assert_eq!(code("Enum8", "'a' = 1, 'b' = 1"), 62);
        assert_eq!(code("Enum8", "'a' = 200"), 69);
        assert_eq!(code("Enum", "'a', 'b' = 5, 'c'"), 223);
        let start = EnumType::parse("Enum", "'a' = 3, 'b'").unwrap();
        assert_eq!(start.name(), "Enum8('a' = 3, 'b' = 4)");
        let second = EnumType::parse("Enum", "'a', 'b' = 5").unwrap();
        assert_eq!(second.name(), "Enum8('a' = 1, 'b' = 5)");
        assert_eq!(code("Enum8", "a = 1"), 223);
    }

    #[test]
    fn texts_read_as_names_or_numbers() {
        let e = EnumType::parse("Enum8", "'a' = 1, 'b' = 2").unwrap();
        assert_eq!(e.read_text("b").unwrap(), "b");
        assert_eq!(e.read_text("1").unwrap(), "a");
        assert_eq!(e.read_text("zz").unwrap_err().code.code, 691);
        assert_eq!(e.read_number(3).unwrap_err().code.code, 691);
    }
}
