//! Clocks beyond `now` and `today` (in `misc`): `now64([precision[, zone]])`,
//! the current moment as a DateTime64 (milliseconds by default);
//! `nowInBlock` and `nowInBlock64`, the same read anew for every block
//! rather than once per query; and `UTCTimestamp()`, the current moment
//! as a DateTime in UTC.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use strata_common::types::{
    datetime64_metadata, datetime64_unit, declared_precision, precision_step, unit_digits,
};

use super::args;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockKind {
    Now64,
    NowInBlock,
    NowInBlock64,
    UtcTimestamp,
}

impl ClockKind {
    pub const ALL: [ClockKind; 4] = [
        ClockKind::Now64,
        ClockKind::NowInBlock,
        ClockKind::NowInBlock64,
        ClockKind::UtcTimestamp,
    ];

    fn name(self) -> &'static str {
        match self {
            ClockKind::Now64 => "now64",
            ClockKind::NowInBlock => "nowInBlock",
            ClockKind::NowInBlock64 => "nowInBlock64",
            ClockKind::UtcTimestamp => "UTCTimestamp",
        }
    }

    /// Whether a precision comes before the zone.
    fn takes_precision(self) -> bool {
        matches!(self, ClockKind::Now64 | ClockKind::NowInBlock64)
    }

    fn most_arguments(self) -> usize {
        match self {
            ClockKind::UtcTimestamp => 0,
            ClockKind::NowInBlock => 1,
            ClockKind::Now64 | ClockKind::NowInBlock64 => 2,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ClockFunction {
    kind: ClockKind,
    signature: Signature,
    aliases: Vec<String>,
}

impl ClockFunction {
    pub fn new(kind: ClockKind) -> Self {
        let volatility = match kind {
            ClockKind::NowInBlock | ClockKind::NowInBlock64 => Volatility::Volatile,
            _ => Volatility::Stable,
        };
        let aliases = match kind {
            ClockKind::UtcTimestamp => vec!["UTC_timestamp".to_string()],
            _ => Vec::new(),
        };
        ClockFunction {
            kind,
            signature: Signature::one_of(
                vec![
                    TypeSignature::Nullary,
                    TypeSignature::Any(1),
                    TypeSignature::Any(2),
                ],
                volatility,
            ),
            aliases,
        }
    }

    fn output(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<DataType> {
        let most = self.kind.most_arguments();
        if types.len() > most {
            let expected = (0..=most)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(args::arity(self.name(), types.len(), &expected));
        }
        if self.kind == ClockKind::UtcTimestamp {
            return Ok(DataType::Timestamp(
                TimeUnit::Second,
                Some(Arc::from("UTC")),
            ));
        }
        let (unit, zone_index) = match self.precision(types, values)? {
            Some(precision) => (datetime64_unit(precision), 1),
            None => (TimeUnit::Second, 0),
        };
        let zone = match types.get(zone_index) {
            Some(data_type) => Some(args::zone_argument(
                self.name(),
                values[zone_index],
                data_type,
            )?),
            None => None,
        };
        Ok(DataType::Timestamp(unit, zone))
    }
}

impl ClockFunction {
    /// The precision of a `now64`-like result: its first argument's, else 3;
    /// `None` for a DateTime result.
    fn precision(&self, types: &[DataType], values: &[Option<&ScalarValue>]) -> Result<Option<u8>> {
        match (self.kind.takes_precision(), types.first()) {
            (true, Some(data_type)) => {
                Ok(Some(args::precision(self.name(), values[0], data_type)?))
            }
            (true, None) => Ok(Some(3)),
            (false, _) => Ok(None),
        }
    }
}

impl ScalarUDFImpl for ClockFunction {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let values = vec![None; arg_types.len()];
        self.output(arg_types, &values)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let data_type = self.output(&types, args.scalar_arguments)?;
        let metadata = match self.precision(&types, args.scalar_arguments)? {
            Some(precision) => datetime64_metadata(precision),
            None => Default::default(),
        };
        Ok(Arc::new(
            Field::new(self.name(), data_type, false).with_metadata(metadata),
        ))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let now = chrono::Utc::now();
        let DataType::Timestamp(unit, zone) = args.return_field.data_type().clone() else {
            return Err(args::illegal_type(
                self.name(),
                args.return_field.data_type(),
            ));
        };
        // A precision its unit does not show counts in coarser steps.
        let step = declared_precision(&args.return_field).map_or(1, |p| precision_step(unit, p));
        let nanos = now.timestamp_nanos_opt().unwrap_or_default();
        let nanos = nanos
            - nanos.rem_euclid(step * precision_step(TimeUnit::Nanosecond, unit_digits(unit)));
        Ok(ColumnarValue::Scalar(match unit {
            TimeUnit::Second => ScalarValue::TimestampSecond(Some(now.timestamp()), zone),
            TimeUnit::Millisecond => {
                ScalarValue::TimestampMillisecond(Some(nanos / 1_000_000), zone)
            }
            TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(nanos / 1_000), zone),
            TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(Some(nanos), zone),
        }))
    }
}
