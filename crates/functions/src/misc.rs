//! Small ClickHouse functions: `toTypeName`, `toColumnTypeName`, `today`,
//! `now([zone])`.

use std::sync::Arc;

use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use strata_common::pretty_types::{Spread, pretty_type_name};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, StrataError};

/// `toTypeName(x)`, or with `column` set `toColumnTypeName(x)`: the type
/// of the column holding `x` in memory, as ClickHouse names it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToTypeName {
    signature: Signature,
    column: bool,
}

impl ToTypeName {
    pub fn new(column: bool) -> Self {
        ToTypeName {
            signature: Signature::variadic_any(Volatility::Immutable),
            column,
        }
    }
}

impl ScalarUDFImpl for ToTypeName {
    fn name(&self) -> &str {
        match self.column {
            false => "toTypeName",
            true => "toColumnTypeName",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        if args.arg_fields.len() != 1 {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {} doesn't match: passed {}, should be 1",
                    self.name(),
                    args.arg_fields.len()
                ),
            )
            .into_datafusion());
        }
        Ok(Arc::new(Field::new(self.name(), DataType::Utf8, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let field = &args.arg_fields[0];
        let name = pretty_type_name(&field_type_name(field), 0, Spread::Named);
        let name = match (self.column, &args.args[0]) {
            (false, _) => name,
            (true, ColumnarValue::Scalar(_)) => format!("Const({})", column_type_name(&name)),
            (true, ColumnarValue::Array(_)) => column_type_name(&name),
        };
        Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(name))))
    }
}

/// The name ClickHouse gives the column holding values of type `name`:
/// dates and times by their numbers, Decimals by width, tuples without
/// element names.
fn column_type_name(name: &str) -> String {
    let (head, arguments) = match name.split_once('(') {
        Some((head, rest)) => (head, rest.strip_suffix(')').unwrap_or(rest)),
        None => (name, ""),
    };
    let inner = |f: &dyn Fn(&str) -> String| {
        let items: Vec<String> = top_level_items(arguments).into_iter().map(f).collect();
        format!("{head}({})", items.join(", "))
    };
    match head {
        "Nullable" | "Array" | "Map" => inner(&column_type_name),
        "Tuple" => inner(&|item| column_type_name(unnamed(item))),
        "SimpleAggregateFunction" => top_level_items(arguments)
            .get(1)
            .map_or(name.to_string(), |t| column_type_name(t)),
        "Date" => "UInt16".to_string(),
        "Date32" => "Int32".to_string(),
        "DateTime" => "UInt32".to_string(),
        "Bool" => "UInt8".to_string(),
        "Enum8" => "Int8".to_string(),
        "Enum16" => "Int16".to_string(),
        "DateTime64" | "Decimal32" | "Decimal64" | "Decimal128" | "Decimal256" => head.to_string(),
        "Decimal" => {
            let precision: u32 = top_level_items(arguments)
                .first()
                .and_then(|p| p.parse().ok())
                .unwrap_or(76);
            let bits = match precision {
                0..=9 => 32,
                10..=18 => 64,
                19..=38 => 128,
                _ => 256,
            };
            format!("Decimal{bits}")
        }
        interval if interval.starts_with("Interval") => "Int64".to_string(),
        _ => name.to_string(),
    }
}

/// The comma-separated items of a type's arguments, commas inside
/// parentheses and quotes left alone.
fn top_level_items(arguments: &str) -> Vec<&str> {
    let (mut items, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in arguments.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                items.push(arguments[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !arguments.trim().is_empty() {
        items.push(arguments[start..].trim());
    }
    items
}

/// A named tuple element's type: `a UInt8` is `UInt8`.
fn unnamed(item: &str) -> &str {
    match item.split_once(' ') {
        Some((name, rest)) if !name.contains(['(', '\'']) => rest.trim(),
        _ => item,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    Today,
    Now,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ClockFunction {
    clock: Clock,
    signature: Signature,
    aliases: Vec<String>,
}

impl ClockFunction {
    pub fn new(clock: Clock) -> Self {
        // ClickHouse's other names, MySQL's among them.
        let aliases = match clock {
            Clock::Today => ["curdate", "current_date"],
            Clock::Now => ["current_timestamp", "localtimestamp"],
        };
        ClockFunction {
            clock,
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::Any(1)],
                Volatility::Stable,
            ),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
        }
    }

    /// `now('zone')` shows the moment on that zone's clock.
    fn zone(
        &self,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
    ) -> Result<Option<Arc<str>>> {
        use crate::dates::args;
        match (self.clock, types) {
            (_, []) => Ok(None),
            (Clock::Now, [data_type]) => Ok(Some(args::zone_argument(
                self.name(),
                values[0],
                data_type,
            )?)),
            _ => Err(args::arity(self.name(), types.len(), "0")),
        }
    }
}

impl ScalarUDFImpl for ClockFunction {
    fn name(&self) -> &str {
        match self.clock {
            Clock::Today => "today",
            Clock::Now => "now",
        }
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.clock {
            Clock::Today => DataType::Date32,
            Clock::Now => DataType::Timestamp(TimeUnit::Second, None),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let data_type = match self.zone(&types, args.scalar_arguments)? {
            Some(zone) => DataType::Timestamp(TimeUnit::Second, Some(zone)),
            None => self.return_type(&[])?,
        };
        Ok(Arc::new(Field::new(self.name(), data_type, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let now = chrono::Utc::now();
        let zone = match args.return_field.data_type() {
            DataType::Timestamp(_, zone) => zone.clone(),
            _ => None,
        };
        Ok(ColumnarValue::Scalar(match self.clock {
            Clock::Today => ScalarValue::Date32(Some((now.timestamp().div_euclid(86_400)) as i32)),
            Clock::Now => ScalarValue::TimestampSecond(Some(now.timestamp()), zone),
        }))
    }
}

/// `toLowCardinality(x)`: `x` typed `LowCardinality(T)`. Strata stores such
/// values as plain `T`, so only the field's type marker changes.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToLowCardinality {
    signature: Signature,
}

impl Default for ToLowCardinality {
    fn default() -> Self {
        ToLowCardinality {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ToLowCardinality {
    fn name(&self) -> &str {
        "toLowCardinality"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let arg = &args.arg_fields[0];
        let name = field_type_name(arg);
        let inner = name
            .strip_prefix("Nullable(")
            .and_then(|n| n.strip_suffix(')'))
            .unwrap_or(&name);
        let low = strata_common::types::parse_clickhouse_type(&format!("LowCardinality({inner})"))
            .map_err(StrataError::into_datafusion)?;
        let field = low.field(self.name()).with_nullable(arg.is_nullable());
        if !field_type_name(&field).contains("LowCardinality(") {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "DataTypeLowCardinality is supported only for numbers, strings, Date or DateTime, but got {name}"
                ),
            )
            .into_datafusion());
        }
        Ok(Arc::new(field))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Ok(args.args[0].clone())
    }
}

/// `_simpleAggregate(value, 'f')`: an aggregate's result typed
/// `SimpleAggregateFunction(f, T)`, as `fSimpleState(x)` returns it: the
/// values are `T`'s, only the field's type marker changes.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SimpleAggregate {
    signature: Signature,
}

/// The marker's name, which the `-SimpleState` rewrite calls.
pub const SIMPLE_AGGREGATE: &str = "_simpleAggregate";

impl Default for SimpleAggregate {
    fn default() -> Self {
        SimpleAggregate {
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for SimpleAggregate {
    fn name(&self) -> &str {
        SIMPLE_AGGREGATE
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let Some(ScalarValue::Utf8(Some(function))) = args.scalar_arguments[1] else {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_COLUMN,
                format!("Function {SIMPLE_AGGREGATE} takes the aggregate's name as a constant"),
            )
            .into_datafusion());
        };
        let field = args.arg_fields[0].as_ref().clone().with_name(self.name());
        let mut metadata = field.metadata().clone();
        metadata.insert(
            strata_common::types::SIMPLE_AGGREGATE_KEY.to_string(),
            function.clone(),
        );
        Ok(Arc::new(field.with_metadata(metadata)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Ok(args.args[0].clone())
    }
}

/// `_nullWhereNull(x, v)`: `v`, NULL in the rows where `x` is NULL, and
/// Nullable only when either is. `x IN (subquery)` outside a filter's
/// conjuncts is a search whose answer for a NULL `x` is NULL, as
/// ClickHouse's is, while a non-Nullable `x` keeps a non-Nullable answer.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NullWhereNull {
    signature: Signature,
}

/// The function's name, which the IN rewrite calls.
pub const NULL_WHERE_NULL: &str = "_nullWhereNull";

impl Default for NullWhereNull {
    fn default() -> Self {
        NullWhereNull {
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for NullWhereNull {
    fn name(&self) -> &str {
        NULL_WHERE_NULL
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[1].clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let [x, v] = args.arg_fields else {
            unreachable!("the signature takes two arguments");
        };
        let nullable = x.is_nullable() || v.is_nullable() || x.data_type().is_null();
        Ok(Arc::new(
            v.as_ref()
                .clone()
                .with_name(self.name())
                .with_nullable(nullable),
        ))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [x, v] = &args.args[..] else {
            unreachable!("the signature takes two arguments");
        };
        match (x, v) {
            (ColumnarValue::Scalar(x), v) if x.is_null() => {
                Ok(ColumnarValue::Scalar(ScalarValue::try_from(v.data_type())?))
            }
            (ColumnarValue::Scalar(_), v) => Ok(v.clone()),
            (ColumnarValue::Array(x), v) => {
                let v = v.to_array(x.len())?;
                let nulls = datafusion::arrow::buffer::NullBuffer::union(
                    x.logical_nulls().as_ref(),
                    v.nulls(),
                );
                let data = v.to_data().into_builder().nulls(nulls).build()?;
                Ok(ColumnarValue::Array(datafusion::arrow::array::make_array(
                    data,
                )))
            }
        }
    }
}
