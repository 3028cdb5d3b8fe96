//! The fractions of a second: `toMillisecond`, `toMicrosecond`,
//! `toNanosecond` (the fraction of a DateTime64's second in that unit, 0
//! for a DateTime), and `toStartOfSecond` to `toStartOfNanosecond` (a
//! DateTime64 rounded down to the unit, kept at least as precise as it
//! was).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, UInt16Array, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args;
use super::moments::{self, ticks_per_second};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fraction {
    Millisecond,
    Microsecond,
    Nanosecond,
    StartOfSecond,
    StartOfMillisecond,
    StartOfMicrosecond,
    StartOfNanosecond,
}

impl Fraction {
    pub const ALL: [Fraction; 7] = [
        Fraction::Millisecond,
        Fraction::Microsecond,
        Fraction::Nanosecond,
        Fraction::StartOfSecond,
        Fraction::StartOfMillisecond,
        Fraction::StartOfMicrosecond,
        Fraction::StartOfNanosecond,
    ];

    fn name(self) -> &'static str {
        match self {
            Fraction::Millisecond => "toMillisecond",
            Fraction::Microsecond => "toMicrosecond",
            Fraction::Nanosecond => "toNanosecond",
            Fraction::StartOfSecond => "toStartOfSecond",
            Fraction::StartOfMillisecond => "toStartOfMillisecond",
            Fraction::StartOfMicrosecond => "toStartOfMicrosecond",
            Fraction::StartOfNanosecond => "toStartOfNanosecond",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Fraction::Millisecond => &["MILLISECOND"],
            Fraction::Microsecond => &["MICROSECOND"],
            Fraction::Nanosecond => &["NANOSECOND"],
            _ => &[],
        }
    }

    /// The unit the function counts or rounds to.
    fn unit(self) -> TimeUnit {
        match self {
            Fraction::StartOfSecond => TimeUnit::Second,
            Fraction::Millisecond | Fraction::StartOfMillisecond => TimeUnit::Millisecond,
            Fraction::Microsecond | Fraction::StartOfMicrosecond => TimeUnit::Microsecond,
            Fraction::Nanosecond | Fraction::StartOfNanosecond => TimeUnit::Nanosecond,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SubSecond {
    fraction: Fraction,
    signature: Signature,
    aliases: Vec<String>,
}

impl SubSecond {
    pub fn new(fraction: Fraction) -> Self {
        SubSecond {
            fraction,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases: fraction.aliases().iter().map(|a| a.to_string()).collect(),
        }
    }

    /// The result type and the zone argument, if any; Null for a NULL.
    fn output(
        &self,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
    ) -> Result<(DataType, Option<Arc<str>>)> {
        let (zone, null) = args::trailing_zone(self.name(), types, values, 1)?;
        let (unit, own) = match &types[0] {
            DataType::Null => return Ok((DataType::Null, None)),
            // ClickHouse refuses a DateTime to the start functions, but a DateTime64(0)
            // has the same Arrow type here, so both are taken (the start is the value).
            DataType::Timestamp(unit, own) => (*unit, own.clone()),
            other => return Err(args::illegal_type(self.name(), other)),
        };
        if null {
            return Ok((DataType::Null, None));
        }
        let data_type = match self.fraction {
            Fraction::Millisecond => DataType::UInt16,
            Fraction::Microsecond | Fraction::Nanosecond => DataType::UInt32,
            _ => {
                let finer = if ticks_per_second(unit) >= ticks_per_second(self.fraction.unit()) {
                    unit
                } else {
                    self.fraction.unit()
                };
                DataType::Timestamp(finer, zone.clone().or(own))
            }
        };
        Ok((data_type, zone))
    }
}

impl ScalarUDFImpl for SubSecond {
    fn name(&self) -> &str {
        self.fraction.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let values = vec![None; arg_types.len()];
        Ok(self.output(arg_types, &values)?.0)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let (data_type, _) = self.output(&types, args.scalar_arguments)?;
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        let metadata = super::frame::kept_precision(self.name(), &data_type, args.arg_fields)
            .map(strata_common::types::datetime64_metadata)
            .unwrap_or_default();
        Ok(Arc::new(
            Field::new(self.name(), data_type, nullable).with_metadata(metadata),
        ))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let types = crate::field_types(&args.arg_fields);
        let values: Vec<Option<&ScalarValue>> = args.args.iter().map(args::constant).collect();
        let (data_type, _) = self.output(&types, &values)?;
        if data_type == DataType::Null {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let array = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let per_second = match array.data_type() {
            DataType::Timestamp(unit, _) => ticks_per_second(*unit),
            other => return Err(args::illegal_type(self.name(), other)),
        };
        let wanted = ticks_per_second(self.fraction.unit());
        let result: ArrayRef = match &data_type {
            DataType::Timestamp(unit, zone) => {
                // Same zone, finer unit: only the ticks change.
                let own = crate::calendar::time_zone(array.data_type());
                let finer = DataType::Timestamp(*unit, own);
                let array = datafusion::arrow::compute::cast(&array, &finer)?;
                let per_result = ticks_per_second(*unit);
                let step = (per_result / wanted).max(1);
                moments::map_ticks(&array, zone.clone(), |v| v - v.rem_euclid(step))
            }
            _ => {
                let ticks = moments::ticks(&array).unwrap_or_default();
                // The fraction of the second, in the wanted unit.
                let fraction = ticks.iter().map(|v| {
                    (v.rem_euclid(per_second) as i128 * wanted as i128 / per_second as i128) as u32
                });
                let nulls = array.nulls().cloned();
                match data_type {
                    DataType::UInt16 => Arc::new(UInt16Array::new(
                        fraction.map(|f| f as u16).collect(),
                        nulls,
                    )),
                    _ => Arc::new(UInt32Array::new(fraction.collect(), nulls)),
                }
            }
        };
        crate::columnar(result, scalar)
    }
}
