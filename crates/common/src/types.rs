//! ClickHouse type names and their Arrow representation.
//!
//! Strata computes on Arrow arrays but speaks ClickHouse's type language to users
//! (`toTypeName`, `DESCRIBE`, JSON `meta`, column definitions in DDL). This module is
//! the single translation table between the two.
//!
//! Most ClickHouse types have an Arrow type of their own. `UUID` does not: it
//! is Arrow's canonical `arrow.uuid` extension, a `FixedSizeBinary(16)` field
//! whose metadata names the extension, so that a UUID column can be told from
//! a `FixedString(16)` one wherever its field travels (results, parts, Parquet).
//!
//! `Date32` (shares Arrow's `Date32` with `Date`) and `LowCardinality(T)`
//! (stored and computed as plain `T`) are told apart the same way, by a
//! field metadata entry naming the declared type, so a column keeps the
//! type its DDL gave it in `DESCRIBE`, `SHOW CREATE TABLE` and `toTypeName`.
//! `Enum8`/`Enum16` are `Utf8` names marked the same way ([`EnumType`]),
//! and so are `IPv4` (a `UInt32`) and `IPv6` (16 bytes).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::AsArray;
use datafusion::arrow::buffer::{OffsetBuffer, ScalarBuffer};
use datafusion::common::ScalarValue;

use datafusion::arrow::datatypes::{
    DataType, Field, Fields, IntervalMonthDayNano, IntervalUnit, TimeUnit,
};

use crate::error::{ErrorCode, Result, StrataError};

mod big_int;
mod datetime64;
mod enums;
pub use big_int::BigInt;
pub use datetime64::{
    MAX_DATETIME64_PRECISION, cut_to_precision, datetime64_metadata, datetime64_unit,
    declared_precision, precision_step, shown_digits, stated_precision_metadata, unit_digits,
};
pub use enums::EnumType;

/// The metadata key Arrow names an extension type with.
const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
/// Arrow's canonical extension name for UUIDs.
const UUID_EXTENSION: &str = "arrow.uuid";
/// A UUID's width in bytes.
pub const UUID_BYTES: i32 = 16;

/// The field metadata that marks a `FixedSizeBinary(16)` as a UUID.
pub fn uuid_metadata() -> HashMap<String, String> {
    HashMap::from([(EXTENSION_NAME_KEY.to_string(), UUID_EXTENSION.to_string())])
}

/// The metadata key naming a declared type that Arrow's type does not show.
const DECLARED_TYPE_KEY: &str = "clickhouse.type";
/// Its value on a `Date32` column (a `Date` one has none).
const DATE32: &str = "Date32";
/// Its values on IPv4 (`UInt32`) and IPv6 (`FixedSizeBinary(16)`) columns.
const IPV4: &str = "IPv4";
const IPV6: &str = "IPv6";
/// The metadata key marking a `LowCardinality` column.
const LOW_CARDINALITY_KEY: &str = "clickhouse.low_cardinality";
/// The metadata key naming the function of a `SimpleAggregateFunction(f, T)`
/// column, whose values are `T`'s.
pub const SIMPLE_AGGREGATE_KEY: &str = "clickhouse.simple_aggregate";

/// How an `AggregateFunction(...)` type is laid out in Arrow: a struct of
/// one field, named by the type's ClickHouse name, holding the function's
/// intermediate state as a struct of its state fields. The name travels in
/// the type itself, so every expression, part and cast keeps it.
const AGGREGATE_FUNCTION: &str = "AggregateFunction";

/// Builds the Arrow type of `AggregateFunction(<arguments>)` from the text
/// between its parentheses. The function registry installs it: only it
/// knows each function's state.
pub type AggregateStateType = fn(&str) -> Result<DataType>;

static AGGREGATE_STATE_TYPE: OnceLock<AggregateStateType> = OnceLock::new();

/// Installs the builder of `AggregateFunction(...)` types (once per process).
pub fn set_aggregate_state_type(builder: AggregateStateType) {
    let _ = AGGREGATE_STATE_TYPE.set(builder);
}

/// The Arrow type of an `AggregateFunction` whose ClickHouse name is
/// `name` and whose state fields are `state`.
pub fn aggregate_function_type(name: String, state: Fields) -> DataType {
    debug_assert!(name.starts_with(AGGREGATE_FUNCTION));
    let wrapped = Field::new(name, DataType::Struct(state), false);
    DataType::Struct(Fields::from(vec![wrapped]))
}

/// The ClickHouse name and state fields of an `AggregateFunction` type.
pub fn aggregate_function_parts(data_type: &DataType) -> Option<(&str, &Fields)> {
    let DataType::Struct(fields) = data_type else {
        return None;
    };
    match (
        fields.len(),
        fields.first().map(|f| (f.name(), f.data_type())),
    ) {
        (1, Some((name, DataType::Struct(state))))
            if name.starts_with(AGGREGATE_FUNCTION) && name.ends_with(')') =>
        {
            Some((name.as_str(), state))
        }
        _ => None,
    }
}

/// True when `field` holds UUIDs.
pub fn is_uuid(field: &Field) -> bool {
    field.data_type() == &DataType::FixedSizeBinary(UUID_BYTES)
        && field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) == Some(UUID_EXTENSION)
}

/// The ClickHouse name of the type of `field`, the one name callers holding a
/// field should use: only the field knows whether its bytes are a UUID.
pub fn field_type_name(field: &Field) -> String {
    let metadata = field.metadata();
    let declared = if is_uuid(field) {
        Some("UUID")
    } else if field.data_type() == &DataType::Date32
        && metadata.get(DECLARED_TYPE_KEY).map(String::as_str) == Some(DATE32)
    {
        Some(DATE32)
    } else if field.data_type() == &DataType::Utf8 {
        metadata
            .get(DECLARED_TYPE_KEY)
            .map(String::as_str)
            .filter(|t| t.starts_with("Enum"))
    } else if let Some(interval) = interval_type(field) {
        Some(interval)
    } else if is_ipv4(field) {
        Some(IPV4)
    } else if is_ipv6(field) {
        Some(IPV6)
    } else {
        None
    };
    let datetime64 = declared_precision(field).map(|precision| datetime64_name(field, precision));
    let declared = declared.or(datetime64.as_deref());
    let name = match declared {
        Some(name) if field.is_nullable() => format!("Nullable({name})"),
        Some(name) => name.to_string(),
        None => clickhouse_type_name(field.data_type(), field.is_nullable()),
    };
    if let Some(function) = metadata.get(SIMPLE_AGGREGATE_KEY) {
        return format!("SimpleAggregateFunction({function}, {name})");
    }
    if metadata.contains_key(LOW_CARDINALITY_KEY) && can_be_low_cardinality(field.data_type()) {
        format!("LowCardinality({name})")
    } else {
        name
    }
}

/// `DateTime64(precision[, 'zone'])` for a field of that type.
fn datetime64_name(field: &Field, precision: u8) -> String {
    match field.data_type() {
        DataType::Timestamp(_, Some(zone)) => format!("DateTime64({precision}, '{zone}')"),
        _ => format!("DateTime64({precision})"),
    }
}

/// The ClickHouse interval type (`IntervalDay`) a MonthDayNano interval
/// field is marked as: its values count that one unit.
pub fn interval_type(field: &Field) -> Option<&str> {
    let is_interval = field.data_type() == &DataType::Interval(IntervalUnit::MonthDayNano);
    declared(field).filter(|name| is_interval && name.starts_with("Interval"))
}

/// ClickHouse's type of an integer literal: the narrowest that holds it,
/// unsigned unless it is negative.
pub fn literal_integer_type(v: i64) -> DataType {
    match v {
        0..=0xFF => DataType::UInt8,
        0..=0xFFFF => DataType::UInt16,
        0..=0xFFFF_FFFF => DataType::UInt32,
        0.. => DataType::UInt64,
        -0x80.. => DataType::Int8,
        -0x8000.. => DataType::Int16,
        -0x8000_0000.. => DataType::Int32,
        _ => DataType::Int64,
    }
}

/// The least and greatest value of an integer type; None for another type.
pub fn integer_range(data_type: &DataType) -> Option<(i128, i128)> {
    Some(match data_type {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// ClickHouse's interval types, one per unit.
pub const INTERVAL_TYPES: [&str; 11] = [
    "IntervalNanosecond",
    "IntervalMicrosecond",
    "IntervalMillisecond",
    "IntervalSecond",
    "IntervalMinute",
    "IntervalHour",
    "IntervalDay",
    "IntervalWeek",
    "IntervalMonth",
    "IntervalQuarter",
    "IntervalYear",
];

/// `count` units of the interval type `interval_name` (`IntervalDay`) as a
/// MonthDayNano value (a week is seven days, a quarter three months); None
/// past the value's range or for another name.
pub fn interval_of_count(interval_name: &str, count: i64) -> Option<IntervalMonthDayNano> {
    const SECOND: i64 = 1_000_000_000;
    let (months, days, nanos) = match interval_name {
        "IntervalNanosecond" => (0, 0, 1),
        "IntervalMicrosecond" => (0, 0, 1_000),
        "IntervalMillisecond" => (0, 0, 1_000_000),
        "IntervalSecond" => (0, 0, SECOND),
        "IntervalMinute" => (0, 0, 60 * SECOND),
        "IntervalHour" => (0, 0, 3_600 * SECOND),
        "IntervalDay" => (0, 1, 0),
        "IntervalWeek" => (0, 7, 0),
        "IntervalMonth" => (1, 0, 0),
        "IntervalQuarter" => (3, 0, 0),
        "IntervalYear" => (12, 0, 0),
        _ => return None,
    };
    let part = |per_unit: i64| count.checked_mul(per_unit);
    Some(IntervalMonthDayNano::new(
        i32::try_from(part(months)?).ok()?,
        i32::try_from(part(days)?).ok()?,
        part(nanos)?,
    ))
}

/// The field metadata that marks an interval as counting one unit
/// (`interval_name` is `IntervalDay`, `IntervalYear`, ...).
pub fn interval_metadata(interval_name: &str) -> HashMap<String, String> {
    HashMap::from([(DECLARED_TYPE_KEY.to_string(), interval_name.to_string())])
}

/// True when `field` holds IPv4 addresses: a `UInt32` marked `IPv4`.
pub fn is_ipv4(field: &Field) -> bool {
    field.data_type() == &DataType::UInt32 && declared(field) == Some(IPV4)
}

/// True when `field` holds IPv6 addresses: 16 bytes marked `IPv6`.
pub fn is_ipv6(field: &Field) -> bool {
    field.data_type() == &DataType::FixedSizeBinary(16) && declared(field) == Some(IPV6)
}

/// The field metadata that marks a `UInt32` as an IPv4 address, or (`v6`)
/// a `FixedSizeBinary(16)` as an IPv6 one.
pub fn ip_metadata(v6: bool) -> HashMap<String, String> {
    let name = if v6 { IPV6 } else { IPV4 };
    HashMap::from([(DECLARED_TYPE_KEY.to_string(), name.to_string())])
}

fn declared(field: &Field) -> Option<&str> {
    field.metadata().get(DECLARED_TYPE_KEY).map(String::as_str)
}

/// The enum type of `field`, when it holds an `Enum8` or `Enum16`.
pub fn enum_type(field: &Field) -> Option<EnumType> {
    if field.data_type() != &DataType::Utf8 {
        return None;
    }
    let declared = field.metadata().get(DECLARED_TYPE_KEY)?;
    let (family, elements) = declared.strip_suffix(')')?.split_once('(')?;
    EnumType::parse(family, elements).ok()
}

/// The field metadata that marks a `Utf8` column as holding `enum_type`.
pub fn enum_metadata(enum_type: &EnumType) -> HashMap<String, String> {
    HashMap::from([(DECLARED_TYPE_KEY.to_string(), enum_type.name())])
}

/// Whether a tuple's elements have names: elements named by position
/// (ClickHouse's 1, 2, ... or DataFusion's c0, c1, ...) are an unnamed
/// tuple's.
pub fn is_named_tuple(fields: &Fields) -> bool {
    !fields
        .iter()
        .enumerate()
        .all(|(i, f)| *f.name() == (i + 1).to_string() || *f.name() == format!("c{i}"))
}

/// The default value of a column: [`default_value`] of its Arrow type, or
/// the first element of an enum.
pub fn field_default_value(field: &Field) -> datafusion::common::Result<ScalarValue> {
    match enum_type(field) {
        Some(enum_type) => Ok(ScalarValue::Utf8(Some(
            enum_type.default_name().to_string(),
        ))),
        None => default_value(field.data_type()),
    }
}

/// ClickHouse allows `LowCardinality` over strings, numbers and dates only.
fn can_be_low_cardinality(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8 | DataType::FixedSizeBinary(_) | DataType::Date32 | DataType::Timestamp(..)
    ) || data_type.is_numeric()
}

/// The ClickHouse name of an Arrow type; `nullable` wraps it in `Nullable(...)`.
/// A bare type cannot say it is a UUID: prefer [`field_type_name`].
pub fn clickhouse_type_name(data_type: &DataType, nullable: bool) -> String {
    let inner = match data_type {
        // `[]` holds elements of Nothing, `[NULL]` of Nullable(Nothing).
        DataType::Null if !nullable => return "Nothing".to_string(),
        DataType::Null => return "Nullable(Nothing)".to_string(),
        DataType::Boolean => "Bool".to_string(),
        DataType::UInt8 => "UInt8".to_string(),
        DataType::UInt16 => "UInt16".to_string(),
        DataType::UInt32 => "UInt32".to_string(),
        DataType::UInt64 => "UInt64".to_string(),
        DataType::Int8 => "Int8".to_string(),
        DataType::Int16 => "Int16".to_string(),
        DataType::Int32 => "Int32".to_string(),
        DataType::Int64 => "Int64".to_string(),
        DataType::Float16 | DataType::Float32 => "Float32".to_string(),
        DataType::Float64 => "Float64".to_string(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "String".to_string(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "String".to_string(),
        DataType::FixedSizeBinary(n) => format!("FixedString({n})"),
        DataType::Date32 | DataType::Date64 => "Date".to_string(),
        DataType::Timestamp(unit, tz) => {
            let tz_suffix = tz.as_ref().map(|tz| format!("'{tz}'"));
            match (unit, tz_suffix) {
                (TimeUnit::Second, None) => "DateTime".to_string(),
                (TimeUnit::Second, Some(tz)) => format!("DateTime({tz})"),
                (unit, tz) => {
                    let precision = match unit {
                        TimeUnit::Millisecond => 3,
                        TimeUnit::Microsecond => 6,
                        _ => 9,
                    };
                    match tz {
                        None => format!("DateTime64({precision})"),
                        Some(tz) => format!("DateTime64({precision}, {tz})"),
                    }
                }
            }
        }
        data_type if let Some(big) = BigInt::of(data_type) => big.name().to_string(),
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) => {
            format!("Decimal({p}, {s})")
        }
        DataType::Decimal256(p, s) => format!("Decimal({p}, {s})"),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f) => {
            format!("Array({})", field_type_name(f))
        }
        DataType::Struct(_) if aggregate_function_parts(data_type).is_some() => {
            return aggregate_function_parts(data_type)
                .map(|(name, _)| name.to_string())
                .unwrap_or_default();
        }
        DataType::Struct(fields) => {
            let positional = !is_named_tuple(fields);
            let parts: Vec<String> = fields
                .iter()
                .map(|f| match positional {
                    true => field_type_name(f),
                    false => format!("{} {}", element_name(f.name()), field_type_name(f)),
                })
                .collect();
            format!("Tuple({})", parts.join(", "))
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "Map({}, {})",
                clickhouse_type_name(kv[0].data_type(), false),
                field_type_name(&kv[1])
            ),
            other => format!("Map({other})"),
        },
        DataType::Dictionary(_, value) => {
            return format!("LowCardinality({})", clickhouse_type_name(value, nullable));
        }
        other => other.to_string(),
    };
    if nullable && can_be_inside_nullable(data_type) {
        format!("Nullable({inner})")
    } else {
        inner
    }
}

/// A tuple element's name as a type name spells it: back-quoted unless a
/// plain word.
fn element_name(name: &str) -> String {
    let word = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match word {
        true => name.to_string(),
        false => format!("`{}`", name.replace('`', "\\`")),
    }
}

/// ClickHouse forbids `Nullable(Array(...))` and `Nullable(Tuple(...))`: those types
/// are shown without the wrapper even when Arrow marks the field nullable.
fn can_be_inside_nullable(data_type: &DataType) -> bool {
    !matches!(
        data_type,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(..)
            | DataType::Struct(_)
            | DataType::Map(..)
    )
}

/// A parsed ClickHouse column type: the Arrow type, whether it is `Nullable`,
/// and the field metadata that tells the declared type where the Arrow type
/// cannot (UUID, Date32, LowCardinality).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnType {
    pub data_type: DataType,
    pub nullable: bool,
    pub metadata: HashMap<String, String>,
}

impl ColumnType {
    fn plain(data_type: DataType) -> Self {
        ColumnType {
            data_type,
            nullable: false,
            metadata: HashMap::new(),
        }
    }

    /// The Arrow field of a column of this type.
    pub fn field(&self, name: impl Into<String>) -> Field {
        Field::new(name, self.data_type.clone(), self.nullable).with_metadata(self.metadata.clone())
    }

    /// The field of an array's items or a tuple's elements of this type.
    /// Only a UUID keeps its metadata there (a DateTime64 its unit's digits): DataFusion builds nested arrays
    /// of inserted values without their items' metadata and then refuses
    /// them, so `Array(Date32)` and `Array(LowCardinality(String))` are
    /// `Array(Date)` and `Array(String)`, which hold the same values.
    fn nested_field(&self, name: impl Into<String>) -> Field {
        let mut metadata = self.metadata.clone();
        metadata.remove(DECLARED_TYPE_KEY);
        metadata.remove(LOW_CARDINALITY_KEY);
        metadata.remove(datetime64::PRECISION_KEY);
        Field::new(name, self.data_type.clone(), self.nullable).with_metadata(metadata)
    }
}

/// The type names [`parse_clickhouse_type`] reads (any letter case), each
/// with the name it stands for if it is an alias, for
/// `system.data_type_families`.
pub const TYPE_FAMILIES: &[(&str, &str)] = &[
    ("UInt8", ""),
    ("UInt16", ""),
    ("UInt32", ""),
    ("UInt64", ""),
    ("Int8", ""),
    ("Int16", ""),
    ("Int32", ""),
    ("Int64", ""),
    ("Int128", ""),
    ("UInt128", ""),
    ("Int256", ""),
    ("UInt256", ""),
    ("Float32", ""),
    ("Float64", ""),
    ("Decimal", ""),
    ("Decimal32", ""),
    ("Decimal64", ""),
    ("Decimal128", ""),
    ("Decimal256", ""),
    ("Bool", ""),
    ("String", ""),
    ("Enum8", ""),
    ("Enum16", ""),
    ("Enum", ""),
    ("FixedString", ""),
    ("UUID", ""),
    ("IPv4", ""),
    ("IPv6", ""),
    ("Date", ""),
    ("Date32", ""),
    ("DateTime", ""),
    ("DateTime64", ""),
    ("Nothing", ""),
    ("Nullable", ""),
    ("LowCardinality", ""),
    ("Array", ""),
    ("Tuple", ""),
    ("Map", ""),
    ("AggregateFunction", ""),
    ("SimpleAggregateFunction", ""),
    ("TINYINT", "Int8"),
    ("SMALLINT", "Int16"),
    ("INT", "Int32"),
    ("INTEGER", "Int32"),
    ("BIGINT", "Int64"),
    ("MEDIUMINT", "Int32"),
    ("FLOAT", "Float32"),
    ("REAL", "Float32"),
    ("DOUBLE", "Float64"),
    ("TEXT", "String"),
    ("VARCHAR", "String"),
    ("CHAR", "String"),
    ("BOOLEAN", "Bool"),
    ("DEC", "Decimal"),
    ("NUMERIC", "Decimal"),
    ("FIXED", "Decimal"),
];

/// Parses a ClickHouse type name such as `Nullable(UInt64)` or `Array(String)`.
pub fn parse_clickhouse_type(name: &str) -> Result<ColumnType> {
    let mut parser = TypeParser {
        input: name,
        pos: 0,
    };
    let parsed = parser.parse_type()?;
    parser.skip_ws();
    if parser.pos != name.len() {
        return Err(unknown_type(name));
    }
    Ok(parsed)
}

fn unknown_type(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::UNKNOWN_TYPE,
        format!("Unknown data type family: {name}"),
    )
}

struct TypeParser<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> TypeParser<'a> {
    fn skip_ws(&mut self) {
        while self.input[self.pos..].starts_with(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn ident(&mut self) -> &str {
        self.skip_ws();
        let start = self.pos;
        while let Some(c) = self.input[self.pos..].chars().next() {
            if c.is_ascii_alphanumeric() || c == '_' {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        &self.input[start..self.pos]
    }

    fn peek_is(&mut self, ch: char) -> bool {
        self.skip_ws();
        self.input[self.pos..].starts_with(ch)
    }

    fn eat(&mut self, ch: char) -> bool {
        self.skip_ws();
        if self.input[self.pos..].starts_with(ch) {
            self.pos += ch.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, ch: char) -> Result<()> {
        if self.eat(ch) {
            Ok(())
        } else {
            Err(unknown_type(self.input))
        }
    }

    /// The name of a named tuple's element (`a` in `Tuple(a UInt8)`, or
    /// back-quoted, `` `a.b` ``): a name followed by a word, the type.
    /// Nothing is consumed otherwise.
    fn element_name(&mut self) -> Option<String> {
        let start = self.pos;
        self.skip_ws();
        let name = match self.input[self.pos..].strip_prefix('`') {
            Some(rest) => {
                let end = rest.find('`')?;
                self.pos += end + 2;
                rest[..end].to_string()
            }
            None => self.ident().to_string(),
        };
        let before_type = self.pos;
        self.skip_ws();
        let typed = self.pos > before_type
            && self.input[self.pos..].starts_with(|c: char| c.is_ascii_alphabetic());
        if !name.is_empty() && typed {
            return Some(name);
        }
        self.pos = start;
        None
    }

    fn number(&mut self) -> Result<u64> {
        self.skip_ws();
        let start = self.pos;
        while self.input[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.input[start..self.pos]
            .parse()
            .map_err(|_| unknown_type(self.input))
    }

    fn quoted(&mut self) -> Result<String> {
        self.skip_ws();
        if !self.eat('\'') {
            return Err(unknown_type(self.input));
        }
        let rest = &self.input[self.pos..];
        let end = rest.find('\'').ok_or_else(|| unknown_type(self.input))?;
        let value = rest[..end].to_string();
        self.pos += end + 1;
        Ok(value)
    }

    /// The text up to the `)` that closes the one just read, which it consumes.
    fn balanced(&mut self) -> Result<&'a str> {
        let start = self.pos;
        let mut depth = 0usize;
        let mut quoted = false;
        let mut escaped = false;
        let input = self.input;
        for (i, c) in input[start..].char_indices() {
            if escaped {
                escaped = false;
                continue;
            }
            match c {
                '\\' if quoted => escaped = true,
                '\'' => quoted = !quoted,
                '(' if !quoted => depth += 1,
                ')' if !quoted && depth == 0 => {
                    self.pos = start + i + 1;
                    return Ok(input[start..start + i].trim());
                }
                ')' if !quoted => depth -= 1,
                _ => {}
            }
        }
        Err(unknown_type(self.input))
    }

    /// An aggregate function's name with its parameters, if any: `sum`, `quantile(0.5)`.
    fn function_name(&mut self) -> Result<String> {
        let name = self.ident().to_string();
        if name.is_empty() {
            return Err(unknown_type(self.input));
        }
        if !self.eat('(') {
            return Ok(name);
        }
        let parameters = self.balanced()?;
        Ok(format!("{name}({parameters})"))
    }

    /// The SQL integer type `name`, past its ignored display width (`INT(11)`)
    /// and an `UNSIGNED` or `SIGNED` after it, as ClickHouse reads MySQL's.
    fn sql_integer(&mut self, name: &str) -> Result<DataType> {
        if self.eat('(') {
            self.number()?;
            self.expect(')')?;
        }
        let before = self.pos;
        let unsigned = match self.ident().to_ascii_lowercase().as_str() {
            "unsigned" => true,
            "signed" => false,
            _ => {
                self.pos = before;
                false
            }
        };
        Ok(match (name, unsigned) {
            ("tinyint", false) => DataType::Int8,
            ("tinyint", true) => DataType::UInt8,
            ("smallint", false) => DataType::Int16,
            ("smallint", true) => DataType::UInt16,
            ("bigint", false) => DataType::Int64,
            ("bigint", true) => DataType::UInt64,
            (_, false) => DataType::Int32,
            (_, true) => DataType::UInt32,
        })
    }

    fn parse_type(&mut self) -> Result<ColumnType> {
        let name = self.ident().to_string();
        let plain = |data_type| Ok(ColumnType::plain(data_type));
        match name.to_ascii_lowercase().as_str() {
            "nullable" => {
                self.expect('(')?;
                let inner = self.parse_type()?;
                self.expect(')')?;
                Ok(ColumnType {
                    nullable: true,
                    ..inner
                })
            }
            "lowcardinality" => {
                self.expect('(')?;
                let mut inner = self.parse_type()?;
                self.expect(')')?;
                if !can_be_low_cardinality(&inner.data_type) {
                    return Err(StrataError::new(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "Creating columns of type {} is prohibited by default due to expected negative impact on performance",
                            self.input
                        ),
                    ));
                }
                inner
                    .metadata
                    .insert(LOW_CARDINALITY_KEY.to_string(), "true".to_string());
                Ok(inner)
            }
            "array" => {
                self.expect('(')?;
                let inner = self.parse_type()?;
                self.expect(')')?;
                plain(DataType::List(Arc::new(inner.nested_field("item"))))
            }
            "tuple" => {
                self.expect('(')?;
                let mut fields = Vec::new();
                loop {
                    let name = self.element_name();
                    let item = self.parse_type()?;
                    let name = name.unwrap_or_else(|| format!("{}", fields.len() + 1));
                    fields.push(item.nested_field(name));
                    if !self.eat(',') {
                        break;
                    }
                }
                self.expect(')')?;
                plain(DataType::Struct(fields.into()))
            }
            "map" => {
                self.expect('(')?;
                let key = self.parse_type()?;
                self.expect(',')?;
                let value = self.parse_type()?;
                self.expect(')')?;
                let entries = vec![
                    key.nested_field("key").with_nullable(false),
                    value.nested_field("value"),
                ];
                let entries = Field::new("entries", DataType::Struct(entries.into()), false);
                plain(DataType::Map(Arc::new(entries), false))
            }
            "aggregatefunction" => {
                self.expect('(')?;
                let arguments = self.balanced()?;
                let build = AGGREGATE_STATE_TYPE
                    .get()
                    .ok_or_else(|| unknown_type(self.input))?;
                plain(build(arguments)?)
            }
            "simpleaggregatefunction" => {
                self.expect('(')?;
                let function = self.function_name()?;
                self.expect(',')?;
                let mut inner = self.parse_type()?;
                self.expect(')')?;
                inner
                    .metadata
                    .insert(SIMPLE_AGGREGATE_KEY.to_string(), function);
                Ok(inner)
            }
            "enum8" | "enum16" | "enum" => {
                self.expect('(')?;
                let enum_type = EnumType::parse(&name, self.balanced()?)?;
                Ok(ColumnType {
                    metadata: enum_metadata(&enum_type),
                    ..ColumnType::plain(DataType::Utf8)
                })
            }
            "fixedstring" => {
                self.expect('(')?;
                let n = self.number()?;
                self.expect(')')?;
                plain(DataType::FixedSizeBinary(n as i32))
            }
            "decimal" | "dec" | "numeric" | "fixed" if !self.peek_is('(') => {
                plain(DataType::Decimal128(10, 0))
            }
            "decimal" | "decimal32" | "decimal64" | "decimal128" | "decimal256" | "dec"
            | "numeric" | "fixed" => {
                let lower = name.to_ascii_lowercase();
                self.expect('(')?;
                let first = self.number()? as u8;
                let (precision, scale) =
                    if matches!(lower.as_str(), "decimal" | "dec" | "numeric" | "fixed") {
                        let scale = if self.eat(',') {
                            self.number()? as i8
                        } else {
                            0
                        };
                        (first, scale)
                    } else {
                        let precision = match lower.as_str() {
                            "decimal32" => 9,
                            "decimal64" => 18,
                            "decimal128" => 38,
                            _ => 76,
                        };
                        (precision, first as i8)
                    };
                self.expect(')')?;
                if precision > 38 {
                    plain(DataType::Decimal256(precision, scale))
                } else {
                    plain(DataType::Decimal128(precision, scale))
                }
            }
            "datetime" => {
                let tz = if self.eat('(') && !self.eat(')') {
                    let tz = self.quoted()?;
                    self.expect(')')?;
                    Some(tz.into())
                } else {
                    None
                };
                plain(DataType::Timestamp(TimeUnit::Second, tz))
            }
            "datetime64" => {
                self.expect('(')?;
                let precision = self.number()?;
                let tz = if self.eat(',') {
                    Some(self.quoted()?.into())
                } else {
                    None
                };
                self.expect(')')?;
                let Some(precision) = u8::try_from(precision)
                    .ok()
                    .filter(|p| *p <= MAX_DATETIME64_PRECISION)
                else {
                    return Err(StrataError::new(
                        ErrorCode::ARGUMENT_OUT_OF_BOUND,
                        format!(
                            "Scale {precision} is too large for DateTime64. Maximum is up to nanoseconds (9)"
                        ),
                    ));
                };
                let mut column =
                    ColumnType::plain(DataType::Timestamp(datetime64_unit(precision), tz));
                column.metadata = datetime64_metadata(precision);
                Ok(column)
            }
            "uint8" => plain(DataType::UInt8),
            "uint16" => plain(DataType::UInt16),
            "uint32" => plain(DataType::UInt32),
            "uint64" => plain(DataType::UInt64),
            "int8" => plain(DataType::Int8),
            "int16" => plain(DataType::Int16),
            "int32" => plain(DataType::Int32),
            "int64" => plain(DataType::Int64),
            lower if let Some(big) = BigInt::from_name(lower) => plain(big.data_type()),
            sql @ ("tinyint" | "smallint" | "mediumint" | "int" | "integer" | "bigint") => {
                plain(self.sql_integer(sql)?)
            }
            "float32" | "float" | "real" => plain(DataType::Float32),
            "float64" | "double" => plain(DataType::Float64),
            "string" => plain(DataType::Utf8),
            // SQL's text types, their length ignored as ClickHouse does.
            "text" | "varchar" | "char" => {
                if self.eat('(') {
                    self.number()?;
                    self.expect(')')?;
                }
                plain(DataType::Utf8)
            }
            "bool" | "boolean" => plain(DataType::Boolean),
            "date" => plain(DataType::Date32),
            "date32" => Ok(ColumnType {
                metadata: HashMap::from([(DECLARED_TYPE_KEY.to_string(), DATE32.to_string())]),
                ..ColumnType::plain(DataType::Date32)
            }),
            "ipv4" => Ok(ColumnType {
                metadata: ip_metadata(false),
                ..ColumnType::plain(DataType::UInt32)
            }),
            "ipv6" => Ok(ColumnType {
                metadata: ip_metadata(true),
                ..ColumnType::plain(DataType::FixedSizeBinary(16))
            }),
            "uuid" => Ok(ColumnType {
                metadata: uuid_metadata(),
                ..ColumnType::plain(DataType::FixedSizeBinary(UUID_BYTES))
            }),
            lower
                if let Some(interval) = INTERVAL_TYPES
                    .iter()
                    .find(|t| t.eq_ignore_ascii_case(lower)) =>
            {
                Ok(ColumnType {
                    metadata: interval_metadata(interval),
                    ..ColumnType::plain(DataType::Interval(IntervalUnit::MonthDayNano))
                })
            }
            "nothing" => Ok(ColumnType {
                nullable: true,
                ..ColumnType::plain(DataType::Null)
            }),
            _ => Err(unknown_type(self.input)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_family_is_read() {
        for (family, _) in TYPE_FAMILIES {
            let example = match *family {
                "Decimal" | "Decimal32" | "Decimal64" | "Decimal128" | "Decimal256"
                | "FixedString" | "DateTime64" => format!("{family}(3)"),
                "Nullable" | "LowCardinality" | "Array" | "Tuple" => format!("{family}(String)"),
                "Map" => "Map(String, UInt8)".to_string(),
                "Enum8" | "Enum16" | "Enum" => format!("{family}('a' = 1)"),
                "SimpleAggregateFunction" => "SimpleAggregateFunction(sum, UInt64)".to_string(),
                // Its state types come from the function registry, which
                // installs the builder: tested there.
                "AggregateFunction" => continue,
                _ => family.to_string(),
            };
            assert!(parse_clickhouse_type(&example).is_ok(), "{example}");
        }
    }

    #[test]
    fn names_round_trip() {
        for name in [
            "UInt8",
            "Int64",
            "Float64",
            "String",
            "Date",
            "DateTime",
            "DateTime64(3)",
            "Nullable(UInt32)",
            "Array(Nullable(String))",
            "Tuple(UInt8, String)",
            "Decimal(18, 4)",
            "FixedString(16)",
            "Bool",
            "UUID",
            "Nullable(UUID)",
            "Array(UUID)",
            "Date32",
            "Nullable(Date32)",
            "LowCardinality(String)",
            "LowCardinality(Nullable(String))",
            "SimpleAggregateFunction(sum, UInt64)",
            "SimpleAggregateFunction(anyLast, Nullable(String))",
            "Enum8('a' = -1, 'b' = 2)",
            "IPv4",
            "Nullable(IPv6)",
            "Nullable(Enum16('q' = 1000))",
            "Int128",
            "Array(UInt128)",
            "Nullable(Int256)",
            "Map(String, UInt256)",
        ] {
            let parsed = parse_clickhouse_type(name).unwrap();
            assert_eq!(field_type_name(&parsed.field("c")), name);
        }
    }

    #[test]
    fn a_uuid_is_not_a_fixed_string() {
        let uuid = parse_clickhouse_type("UUID").unwrap().field("u");
        let fixed = parse_clickhouse_type("FixedString(16)").unwrap().field("f");
        assert_eq!(uuid.data_type(), fixed.data_type());
        assert!(is_uuid(&uuid));
        assert!(!is_uuid(&fixed));
        assert_eq!(field_type_name(&fixed), "FixedString(16)");
    }

    #[test]
    fn declared_types_share_arrow_types() {
        let date = parse_clickhouse_type("Date").unwrap();
        let date32 = parse_clickhouse_type("Date32").unwrap();
        assert_eq!(date.data_type, date32.data_type);
        let low = parse_clickhouse_type("LowCardinality(String)").unwrap();
        assert_eq!(low.data_type, DataType::Utf8);
        assert!(parse_clickhouse_type("LowCardinality(Array(String))").is_err());
        let items = parse_clickhouse_type("Array(LowCardinality(String))").unwrap();
        assert_eq!(field_type_name(&items.field("a")), "Array(String)");
    }

    #[test]
    fn rejects_unknown_and_malformed_types() {
        assert!(parse_clickhouse_type("Strin").is_err());
        assert!(parse_clickhouse_type("Nullable(UInt8").is_err());
        assert!(parse_clickhouse_type("UInt8 garbage").is_err());
        assert!(parse_clickhouse_type("").is_err());
    }
}

/// The default value of a type: zero, empty, the epoch. Arrow's own
/// (`ScalarValue::new_default`) panics for a Map, whose default here is the
/// empty map.
pub fn default_value(data_type: &DataType) -> datafusion::common::Result<ScalarValue> {
    if let DataType::Struct(fields) = data_type {
        // Element by element: DataFusion's default of a Map inside panics.
        let elements = fields
            .iter()
            .map(|f| default_value(f.data_type())?.to_array())
            .collect::<datafusion::common::Result<Vec<_>>>()?;
        let tuple = datafusion::arrow::array::StructArray::try_new(fields.clone(), elements, None)?;
        return Ok(ScalarValue::Struct(Arc::new(tuple)));
    }
    let DataType::Map(entries, sorted) = data_type else {
        return ScalarValue::new_default(data_type);
    };
    let empty = datafusion::arrow::array::new_empty_array(entries.data_type());
    let map = datafusion::arrow::array::MapArray::try_new(
        Arc::clone(entries),
        OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 0])),
        empty.as_struct().clone(),
        None,
        *sorted,
    )?;
    Ok(ScalarValue::Map(Arc::new(map)))
}
