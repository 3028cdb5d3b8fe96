//! Small ClickHouse functions: `toTypeName`, `today`, `now([zone])`,
//! `formatReadableSize`, `formatReadableQuantity`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, StringArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use strata_common::pretty_types::{Spread, pretty_type_name};
use strata_common::readable::{readable_quantity, readable_size};
use strata_common::types::{clickhouse_type_name, field_type_name};
use strata_common::{ErrorCode, StrataError};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToTypeName {
    signature: Signature,
}

impl Default for ToTypeName {
    fn default() -> Self {
        ToTypeName {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ToTypeName {
    fn name(&self) -> &str {
        "toTypeName"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, _args: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(Arc::new(Field::new(self.name(), DataType::Utf8, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let field = &args.arg_fields[0];
        let name = pretty_type_name(&field_type_name(field), 0, Spread::Named);
        Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(name))))
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
        let types: Vec<DataType> = args
            .arg_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Readable {
    Size,
    Quantity,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FormatReadable {
    kind: Readable,
    signature: Signature,
}

impl FormatReadable {
    pub fn new(kind: Readable) -> Self {
        FormatReadable {
            kind,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

/// `value` scaled down by `base` until it is below it, with two decimals and the unit.
impl ScalarUDFImpl for FormatReadable {
    fn name(&self) -> &str {
        match self.kind {
            Readable::Size => "formatReadableSize",
            Readable::Quantity => "formatReadableQuantity",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        if !input.data_type().is_numeric() {
            return Err(strata_common::StrataError::new(
                strata_common::ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function {}",
                    clickhouse_type_name(input.data_type(), false),
                    self.name()
                ),
            )
            .into_datafusion());
        }
        let values = cast::cast(&input, &DataType::Float64)?;
        let values = values
            .as_any()
            .downcast_ref::<datafusion::arrow::array::Float64Array>()
            .expect("cast to f64");
        let out: StringArray = values
            .iter()
            .map(|v| {
                v.map(|v| match self.kind {
                    Readable::Size => readable_size(v),
                    Readable::Quantity => readable_quantity(v),
                })
            })
            .collect();
        let out: ArrayRef = Arc::new(out);
        crate::columnar(out, scalar)
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
