//! JSON values converted to ClickHouse types as `JSONExtract(..., 'Type')`
//! and the typed `JSONExtract*` functions do: a number that does not fit,
//! a string that is not a number, a value of the wrong kind fail, and a
//! failed value becomes NULL in a `Nullable` and the type's default
//! elsewhere (array and tuple elements included). Numbers truncate toward
//! zero; strings holding numbers convert; anything converts to a String,
//! as its own text for a string and its compact JSON otherwise. Any other
//! type (Date, DateTime, Decimal, UUID, Enum, ...) reads the value's text
//! as ClickHouse's CAST from String reads it.

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::new_empty_array;
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, FixedSizeBinaryBuilder, Float32Array, Float64Array, Int8Array,
    Int16Array, Int32Array, Int64Array, ListArray, MapArray, StringArray, StructArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, ScalarValue};
use strata_common::ErrorCode;
use strata_common::pretty_types::scan_unquoted;
use strata_common::types::{field_default_value, parse_clickhouse_type};

use super::dom::{Json, text_of};
use crate::encodings::udf::error;

/// A ClickHouse type a JSON value is extracted as.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    Int {
        bits: u32,
        signed: bool,
    },
    Float32,
    Float64,
    Bool,
    String,
    FixedString(usize),
    Nullable(Box<Target>),
    Array(Box<Target>),
    /// Elements with their names when the tuple's are given.
    Tuple(Vec<(Option<String>, Target)>),
    Map(Box<Target>),
    /// A type read from the value's text by CAST.
    Parsed(Field),
}

/// How strictly numbers read booleans: `JSONExtract(..., 'Int64')` takes
/// `true` as 1, `JSONExtractInt` refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Typed,
    Plain,
}

/// A converted value, before it becomes part of an Arrow column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Text(String),
    List(Vec<Val>),
    /// A tuple's elements, or a map's key and value.
    Tuple(Vec<Val>),
    Map(Vec<(String, Val)>),
}

impl Target {
    /// Parses a type name; code 50 for one it does not know.
    pub(crate) fn parse(name: &str) -> Result<Target> {
        let mut parser = TypeParser { text: name, pos: 0 };
        let target = parser.parse()?;
        parser.skip_spaces();
        if parser.pos != name.len() {
            return Err(unknown(name));
        }
        Ok(target)
    }

    pub(crate) fn is_nullable(&self) -> bool {
        matches!(self, Target::Nullable(_))
    }

    /// The Arrow type of a column of this type.
    pub(crate) fn data_type(&self) -> DataType {
        match self {
            Target::Int { bits, signed } => match (bits, signed) {
                (8, true) => DataType::Int8,
                (16, true) => DataType::Int16,
                (32, true) => DataType::Int32,
                (64, true) => DataType::Int64,
                (8, false) => DataType::UInt8,
                (16, false) => DataType::UInt16,
                (32, false) => DataType::UInt32,
                _ => DataType::UInt64,
            },
            Target::Float32 => DataType::Float32,
            Target::Float64 => DataType::Float64,
            Target::Bool => DataType::Boolean,
            Target::String => DataType::Utf8,
            Target::FixedString(n) => DataType::FixedSizeBinary(*n as i32),
            Target::Nullable(inner) => inner.data_type(),
            Target::Array(item) => DataType::List(Arc::new(item.field("item"))),
            Target::Tuple(elements) => DataType::Struct(tuple_fields(elements)),
            Target::Parsed(field) => field.data_type().clone(),
            Target::Map(value) => {
                let entries = Fields::from(vec![
                    Field::new("key", DataType::Utf8, false),
                    value.field("value"),
                ]);
                DataType::Map(
                    Arc::new(Field::new("entries", DataType::Struct(entries), false)),
                    false,
                )
            }
        }
    }

    pub(crate) fn field(&self, name: &str) -> Field {
        let inner = match self {
            Target::Nullable(inner) => inner.as_ref(),
            other => other,
        };
        // A parsed type's field keeps what marks it (UUID, Enum, ...).
        let field = match inner {
            Target::Parsed(field) => field.clone(),
            _ => Field::new(name, self.data_type(), false),
        };
        field.with_name(name).with_nullable(self.is_nullable())
    }

    /// The value of a column of this type where nothing was extracted.
    pub(crate) fn default_value(&self) -> Val {
        match self {
            Target::Int { signed: true, .. } => Val::Int(0),
            Target::Int { signed: false, .. } => Val::UInt(0),
            Target::Float32 | Target::Float64 => Val::Float(0.0),
            Target::Bool => Val::Bool(false),
            Target::String | Target::FixedString(_) => Val::Text(String::new()),
            Target::Nullable(_) => Val::Null,
            Target::Array(_) => Val::List(Vec::new()),
            Target::Tuple(elements) => {
                Val::Tuple(elements.iter().map(|(_, t)| t.default_value()).collect())
            }
            Target::Map(_) => Val::Map(Vec::new()),
            // Made the type's default as the column is built.
            Target::Parsed(_) => Val::Null,
        }
    }

    /// `json` as this type, or its default (NULL in a Nullable) when it
    /// does not convert.
    pub(crate) fn convert_or_default(&self, json: &Json, mode: Mode) -> Val {
        self.convert(json, mode)
            .unwrap_or_else(|| self.default_value())
    }

    /// `json` as this type, or None when it does not convert.
    pub(crate) fn convert(&self, json: &Json, mode: Mode) -> Option<Val> {
        match self {
            Target::Int { bits, signed } => int_of(json, *bits, *signed, mode),
            Target::Float32 | Target::Float64 => float_of(json, mode).map(Val::Float),
            Target::Bool => bool_of(json).map(Val::Bool),
            Target::String => match json {
                Json::Null => None,
                other => Some(Val::Text(text_of(other))),
            },
            Target::FixedString(n) => match json {
                Json::Null => None,
                other => Some(text_of(other))
                    .filter(|t| t.len() <= *n)
                    .map(Val::Text),
            },
            Target::Nullable(inner) => Some(inner.convert(json, mode).unwrap_or(Val::Null)),
            Target::Array(item) => match json {
                Json::Array(items) => Some(Val::List(
                    items
                        .iter()
                        .map(|v| item.convert_or_default(v, mode))
                        .collect(),
                )),
                _ => None,
            },
            Target::Tuple(elements) => tuple_of(elements, json, mode),
            Target::Parsed(_) => match json {
                Json::Null => None,
                other => Some(Val::Text(text_of(other))),
            },
            Target::Map(value) => match json {
                Json::Object(members) => Some(Val::Map(
                    members
                        .iter()
                        .map(|(k, v)| (k.clone(), value.convert_or_default(v, mode)))
                        .collect(),
                )),
                _ => None,
            },
        }
    }
}

fn tuple_fields(elements: &[(Option<String>, Target)]) -> Fields {
    elements
        .iter()
        .enumerate()
        .map(|(i, (name, t))| match name {
            Some(name) => t.field(name),
            None => t.field(&(i + 1).to_string()),
        })
        .collect()
}

/// A tuple from an array by position, or from an object by name (named
/// tuples) or by position; missing elements take their default.
fn tuple_of(elements: &[(Option<String>, Target)], json: &Json, mode: Mode) -> Option<Val> {
    let named = elements.iter().all(|(name, _)| name.is_some());
    let values = elements.iter().enumerate().map(|(i, (name, t))| {
        let item = match (json, name) {
            (Json::Object(_), Some(name)) if named => {
                json.member(name.as_bytes(), false).map(|(_, v)| v)
            }
            (Json::Object(members), _) => members.get(i).map(|(_, v)| v),
            (Json::Array(items), _) => items.get(i),
            _ => None,
        };
        item.map_or_else(|| t.default_value(), |v| t.convert_or_default(v, mode))
    });
    match json {
        Json::Object(_) | Json::Array(_) => Some(Val::Tuple(values.collect())),
        _ => None,
    }
}

/// A number from a JSON number, a boolean (in the typed mode) or a string
/// holding a number.
enum Number {
    Int(i64),
    UInt(u64),
    Double(f64),
}

fn number_of(json: &Json, mode: Mode) -> Option<Number> {
    match json {
        Json::Int(v) => Some(Number::Int(*v)),
        Json::UInt(v) => Some(Number::UInt(*v)),
        Json::Double(v) => Some(Number::Double(*v)),
        Json::Bool(b) if mode == Mode::Typed => Some(Number::Int(i64::from(*b))),
        Json::Str(s) => s
            .parse::<i64>()
            .map(Number::Int)
            .or_else(|_| s.parse::<u64>().map(Number::UInt))
            .or_else(|_| s.parse::<f64>().map(Number::Double))
            .ok(),
        _ => None,
    }
}

fn int_of(json: &Json, bits: u32, signed: bool, mode: Mode) -> Option<Val> {
    let (min, max): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let wide = match number_of(json, mode)? {
        Number::Int(v) => i128::from(v),
        Number::UInt(v) => i128::from(v),
        Number::Double(v)
            if v.is_finite() && v.trunc() >= min as f64 && v.trunc() <= max as f64 =>
        {
            v.trunc() as i128
        }
        Number::Double(_) => return None,
    };
    if wide < min || wide > max {
        return None;
    }
    Some(if signed {
        Val::Int(wide as i64)
    } else {
        Val::UInt(wide as u64)
    })
}

fn float_of(json: &Json, mode: Mode) -> Option<f64> {
    Some(match number_of(json, mode)? {
        Number::Int(v) => v as f64,
        Number::UInt(v) => v as f64,
        Number::Double(v) => v,
    })
}

fn bool_of(json: &Json) -> Option<bool> {
    match json {
        Json::Bool(b) => Some(*b),
        other => float_of(other, Mode::Typed).map(|v| v != 0.0),
    }
}

fn unknown(name: &str) -> datafusion::error::DataFusionError {
    error(
        ErrorCode::UNKNOWN_TYPE,
        format!("Unknown data type family: {name}"),
    )
}

/// The length of `text`'s leading parenthesized group, quotes respected.
fn arguments_end(text: &str) -> Option<usize> {
    let mut end = None;
    scan_unquoted(text, |i, c, depth| match (c, depth) {
        (')', 0) => {
            end = Some(i + 1);
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    end
}

struct TypeParser<'a> {
    text: &'a str,
    pos: usize,
}

impl TypeParser<'_> {
    fn skip_spaces(&mut self) {
        while self.text[self.pos..].starts_with(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn ident(&mut self) -> &str {
        self.skip_spaces();
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        &self.text[start..self.pos]
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        let found = self.text[self.pos..].starts_with(c);
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(unknown(self.text))
        }
    }

    fn inner(&mut self) -> Result<Target> {
        self.expect('(')?;
        let inner = self.parse()?;
        self.expect(')')?;
        Ok(inner)
    }

    fn parse(&mut self) -> Result<Target> {
        let name = self.ident().to_string();
        let int = |bits, signed| Ok(Target::Int { bits, signed });
        match name.to_ascii_lowercase().as_str() {
            "int8" => int(8, true),
            "int16" => int(16, true),
            "int32" => int(32, true),
            "int64" => int(64, true),
            "uint8" => int(8, false),
            "uint16" => int(16, false),
            "uint32" => int(32, false),
            "uint64" => int(64, false),
            // With the SQL aliases ClickHouse accepts in any case.
            "float32" | "float" | "real" => Ok(Target::Float32),
            "float64" | "double" => Ok(Target::Float64),
            "int" | "integer" => int(32, true),
            "bigint" => int(64, true),
            "smallint" => int(16, true),
            "tinyint" => int(8, true),
            "bool" | "boolean" => Ok(Target::Bool),
            "string" => Ok(Target::String),
            "fixedstring" => {
                self.expect('(')?;
                let digits = self.ident().to_string();
                self.expect(')')?;
                let n = digits.parse().map_err(|_| unknown(self.text))?;
                Ok(Target::FixedString(n))
            }
            "nullable" => Ok(Target::Nullable(Box::new(self.inner()?))),
            "lowcardinality" => self.inner(),
            "array" => Ok(Target::Array(Box::new(self.inner()?))),
            "tuple" => self.tuple(),
            "map" => self.map(),
            _ if name.is_empty() => Err(unknown(self.text)),
            _ => self.any_type(self.pos - name.len()),
        }
    }

    /// Any other type Strata knows, from its name at `start` through its
    /// parenthesized arguments.
    fn any_type(&mut self, start: usize) -> Result<Target> {
        self.skip_spaces();
        if self.text[self.pos..].starts_with('(') {
            self.pos = self.pos
                + arguments_end(&self.text[self.pos..]).ok_or_else(|| unknown(self.text))?;
        }
        let text = &self.text[start..self.pos];
        let parsed = parse_clickhouse_type(text).map_err(|_| unknown(text.trim()))?;
        Ok(Target::Parsed(parsed.field("")))
    }

    fn tuple(&mut self) -> Result<Target> {
        self.expect('(')?;
        let mut elements = Vec::new();
        loop {
            let save = self.pos;
            let first = self.ident().to_string();
            self.skip_spaces();
            let named = !first.is_empty()
                && self.text[self.pos..].starts_with(|c: char| c.is_ascii_alphabetic());
            if !named {
                self.pos = save;
            }
            elements.push((named.then_some(first), self.parse()?));
            if !self.eat(',') {
                break;
            }
        }
        self.expect(')')?;
        Ok(Target::Tuple(elements))
    }

    fn map(&mut self) -> Result<Target> {
        self.expect('(')?;
        if self.parse()? != Target::String {
            return Err(unknown(self.text));
        }
        self.expect(',')?;
        let value = self.parse()?;
        self.expect(')')?;
        Ok(Target::Map(Box::new(value)))
    }
}

/// The column of `values`, each of type `target`.
pub(crate) fn build(target: &Target, values: &[Val]) -> Result<ArrayRef> {
    let inner = match target {
        Target::Nullable(inner) => inner.as_ref(),
        other => other,
    };
    macro_rules! primitive {
        ($array:ty, $variant:ident, $t:ty) => {
            Arc::new(
                values
                    .iter()
                    .map(|v| match v {
                        Val::$variant(x) => Some(*x as $t),
                        _ => None,
                    })
                    .collect::<$array>(),
            ) as ArrayRef
        };
    }
    Ok(match inner {
        Target::Int { bits, signed } => match (bits, signed) {
            (8, true) => primitive!(Int8Array, Int, i8),
            (16, true) => primitive!(Int16Array, Int, i16),
            (32, true) => primitive!(Int32Array, Int, i32),
            (64, true) => primitive!(Int64Array, Int, i64),
            (8, false) => primitive!(UInt8Array, UInt, u8),
            (16, false) => primitive!(UInt16Array, UInt, u16),
            (32, false) => primitive!(UInt32Array, UInt, u32),
            _ => primitive!(UInt64Array, UInt, u64),
        },
        Target::Float32 => primitive!(Float32Array, Float, f32),
        Target::Float64 => primitive!(Float64Array, Float, f64),
        Target::Bool => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    Val::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<BooleanArray>(),
        ),
        Target::String => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    Val::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<StringArray>(),
        ),
        Target::FixedString(n) => fixed_strings(*n, values)?,
        Target::Array(item) => lists(item, values)?,
        Target::Tuple(elements) => tuples(elements, values)?,
        Target::Map(value) => maps(value, values)?,
        Target::Parsed(field) => parsed(field, values, target.is_nullable())?,
        Target::Nullable(_) => unreachable!("unwrapped above"),
    })
}

/// Texts read as `field`'s type by ClickHouse's CAST, one at a time: a text
/// that does not convert, or a value missing, is NULL in a Nullable and the
/// type's default elsewhere.
fn parsed(field: &Field, values: &[Val], nullable: bool) -> Result<ArrayRef> {
    if values.is_empty() {
        return Ok(new_empty_array(field.data_type()));
    }
    // Most columns convert whole; one that does not is converted a value at a time.
    let texts: StringArray = values
        .iter()
        .map(|value| match value {
            Val::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let texts: ArrayRef = Arc::new(texts);
    if let Ok(all) = crate::conversion::cast_to_field(&texts, field)
        && (nullable || all.null_count() == 0)
    {
        return Ok(all);
    }
    let missing = match nullable {
        true => ScalarValue::try_from(field.data_type())?,
        false => field_default_value(field)?,
    };
    let scalars = values.iter().map(|value| {
        let Val::Text(text) = value else {
            return missing.clone();
        };
        let one: ArrayRef = Arc::new(StringArray::from(vec![text.as_str()]));
        crate::conversion::cast_to_field(&one, field)
            .and_then(|converted| ScalarValue::try_from_array(&converted, 0))
            .unwrap_or_else(|_| missing.clone())
    });
    ScalarValue::iter_to_array(scalars)
}

fn nulls(values: &[Val]) -> Option<NullBuffer> {
    let valid: Vec<bool> = values.iter().map(|v| !matches!(v, Val::Null)).collect();
    valid.contains(&false).then(|| NullBuffer::from(valid))
}

fn fixed_strings(n: usize, values: &[Val]) -> Result<ArrayRef> {
    let mut out = FixedSizeBinaryBuilder::with_capacity(values.len(), n as i32);
    for value in values {
        match value {
            Val::Text(t) => {
                let mut bytes = t.as_bytes().to_vec();
                bytes.resize(n, 0);
                out.append_value(bytes)?;
            }
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn lists(item: &Target, values: &[Val]) -> Result<ArrayRef> {
    let mut lengths = Vec::with_capacity(values.len());
    let mut items = Vec::new();
    for value in values {
        match value {
            Val::List(elements) => {
                lengths.push(elements.len());
                items.extend(elements.iter().cloned());
            }
            _ => lengths.push(0),
        }
    }
    let child = build(item, &items)?;
    Ok(Arc::new(ListArray::try_new(
        Arc::new(item.field("item")),
        OffsetBuffer::from_lengths(lengths),
        child,
        nulls(values),
    )?))
}

fn tuples(elements: &[(Option<String>, Target)], values: &[Val]) -> Result<ArrayRef> {
    let mut columns = Vec::with_capacity(elements.len());
    for (i, (_, target)) in elements.iter().enumerate() {
        let column: Vec<Val> = values
            .iter()
            .map(|v| match v {
                Val::Tuple(items) => items[i].clone(),
                _ => target.default_value(),
            })
            .collect();
        columns.push(build(target, &column)?);
    }
    Ok(Arc::new(StructArray::try_new(
        tuple_fields(elements),
        columns,
        nulls(values),
    )?))
}

fn maps(value: &Target, values: &[Val]) -> Result<ArrayRef> {
    let mut lengths = Vec::with_capacity(values.len());
    let (mut keys, mut items) = (Vec::new(), Vec::new());
    for v in values {
        let members: &[(String, Val)] = match v {
            Val::Map(members) => members,
            _ => &[],
        };
        lengths.push(members.len());
        for (k, item) in members {
            keys.push(Val::Text(k.clone()));
            items.push(item.clone());
        }
    }
    let DataType::Map(entries_field, _) = Target::Map(Box::new(value.clone())).data_type() else {
        unreachable!("a map's type")
    };
    let DataType::Struct(entry_fields) = entries_field.data_type() else {
        unreachable!("a map's entries")
    };
    let entries = StructArray::try_new(
        entry_fields.clone(),
        vec![build(&Target::String, &keys)?, build(value, &items)?],
        None,
    )?;
    Ok(Arc::new(MapArray::try_new(
        entries_field,
        OffsetBuffer::from_lengths(lengths),
        entries,
        nulls(values),
        false,
    )?))
}
