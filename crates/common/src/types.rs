//! ClickHouse type names and their Arrow representation.
//!
//! Strata computes on Arrow arrays but speaks ClickHouse's type language to users
//! (`toTypeName`, `DESCRIBE`, JSON `meta`, column definitions in DDL). This module is
//! the single translation table between the two.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};

use crate::error::{ErrorCode, Result, StrataError};

/// The ClickHouse name of an Arrow type; `nullable` wraps it in `Nullable(...)`.
pub fn clickhouse_type_name(data_type: &DataType, nullable: bool) -> String {
    let inner = match data_type {
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
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) => {
            format!("Decimal({p}, {s})")
        }
        DataType::Decimal256(p, s) => format!("Decimal({p}, {s})"),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f) => {
            format!(
                "Array({})",
                clickhouse_type_name(f.data_type(), f.is_nullable())
            )
        }
        DataType::Struct(fields) => {
            let parts: Vec<String> = fields
                .iter()
                .map(|f| clickhouse_type_name(f.data_type(), f.is_nullable()))
                .collect();
            format!("Tuple({})", parts.join(", "))
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "Map({}, {})",
                clickhouse_type_name(kv[0].data_type(), false),
                clickhouse_type_name(kv[1].data_type(), kv[1].is_nullable())
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

/// A parsed ClickHouse column type: the Arrow type and whether it is `Nullable`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnType {
    pub data_type: DataType,
    pub nullable: bool,
}

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

impl TypeParser<'_> {
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

    fn parse_type(&mut self) -> Result<ColumnType> {
        let name = self.ident().to_string();
        let plain = |data_type| {
            Ok(ColumnType {
                data_type,
                nullable: false,
            })
        };
        match name.to_ascii_lowercase().as_str() {
            "nullable" => {
                self.expect('(')?;
                let inner = self.parse_type()?;
                self.expect(')')?;
                Ok(ColumnType {
                    data_type: inner.data_type,
                    nullable: true,
                })
            }
            "lowcardinality" => {
                self.expect('(')?;
                let inner = self.parse_type()?;
                self.expect(')')?;
                Ok(inner)
            }
            "array" => {
                self.expect('(')?;
                let inner = self.parse_type()?;
                self.expect(')')?;
                plain(DataType::List(Arc::new(Field::new(
                    "item",
                    inner.data_type,
                    inner.nullable,
                ))))
            }
            "tuple" => {
                self.expect('(')?;
                let mut fields = Vec::new();
                loop {
                    let item = self.parse_type()?;
                    fields.push(Field::new(
                        format!("{}", fields.len() + 1),
                        item.data_type,
                        item.nullable,
                    ));
                    if !self.eat(',') {
                        break;
                    }
                }
                self.expect(')')?;
                plain(DataType::Struct(fields.into()))
            }
            "fixedstring" => {
                self.expect('(')?;
                let n = self.number()?;
                self.expect(')')?;
                plain(DataType::FixedSizeBinary(n as i32))
            }
            "decimal" | "decimal32" | "decimal64" | "decimal128" | "decimal256" => {
                let lower = name.to_ascii_lowercase();
                self.expect('(')?;
                let first = self.number()? as u8;
                let (precision, scale) = if lower == "decimal" {
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
                let tz = if self.eat('(') {
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
                let unit = match precision {
                    0 => TimeUnit::Second,
                    1..=3 => TimeUnit::Millisecond,
                    4..=6 => TimeUnit::Microsecond,
                    _ => TimeUnit::Nanosecond,
                };
                plain(DataType::Timestamp(unit, tz))
            }
            "uint8" => plain(DataType::UInt8),
            "uint16" => plain(DataType::UInt16),
            "uint32" => plain(DataType::UInt32),
            "uint64" => plain(DataType::UInt64),
            "int8" | "tinyint" => plain(DataType::Int8),
            "int16" | "smallint" => plain(DataType::Int16),
            "int32" | "int" | "integer" => plain(DataType::Int32),
            "int64" | "bigint" => plain(DataType::Int64),
            "float32" | "float" | "real" => plain(DataType::Float32),
            "float64" | "double" => plain(DataType::Float64),
            "string" | "text" | "varchar" => plain(DataType::Utf8),
            "bool" | "boolean" => plain(DataType::Boolean),
            "date" | "date32" => plain(DataType::Date32),
            "uuid" => plain(DataType::FixedSizeBinary(16)),
            "nothing" => Ok(ColumnType {
                data_type: DataType::Null,
                nullable: true,
            }),
            _ => Err(unknown_type(self.input)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            let parsed = parse_clickhouse_type(name).unwrap();
            assert_eq!(
                clickhouse_type_name(&parsed.data_type, parsed.nullable),
                name
            );
        }
    }

    #[test]
    fn rejects_unknown_and_malformed_types() {
        assert!(parse_clickhouse_type("Strin").is_err());
        assert!(parse_clickhouse_type("Nullable(UInt8").is_err());
        assert!(parse_clickhouse_type("UInt8 garbage").is_err());
        assert!(parse_clickhouse_type("").is_err());
    }
}
