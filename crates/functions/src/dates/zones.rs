//! Time zone functions on DateTime and DateTime64: `toTimezone` (the same
//! instants shown on another zone's clock), `timezoneOf` (the zone a value
//! is shown in), `timezoneOffset` (the zone's offset from UTC at that
//! instant, in seconds) and `toUTCTimestamp` / `fromUTCTimestamp`, which
//! move a zone-less value by the named zone's offset at the value read as
//! UTC: a wall-clock time of that zone to UTC, and back.

use std::sync::Arc;

use chrono::{Offset, TimeZone};
use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::array::{Array, ArrayRef, Int32Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::args;
use super::moments;
use crate::calendar::{date_time_in_range, parse_zone, time_zone};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneKind {
    ToTimezone,
    TimezoneOf,
    TimezoneOffset,
    ToUtc,
    FromUtc,
}

impl ZoneKind {
    pub const ALL: [ZoneKind; 5] = [
        ZoneKind::ToTimezone,
        ZoneKind::TimezoneOf,
        ZoneKind::TimezoneOffset,
        ZoneKind::ToUtc,
        ZoneKind::FromUtc,
    ];

    fn name(self) -> &'static str {
        match self {
            ZoneKind::ToTimezone => "toTimezone",
            ZoneKind::TimezoneOf => "timezoneOf",
            ZoneKind::TimezoneOffset => "timezoneOffset",
            ZoneKind::ToUtc => "toUTCTimestamp",
            ZoneKind::FromUtc => "fromUTCTimestamp",
        }
    }

    fn aliases(self) -> &'static str {
        match self {
            ZoneKind::ToTimezone => "toTimeZone",
            ZoneKind::TimezoneOf => "timeZoneOf",
            ZoneKind::TimezoneOffset => "timeZoneOffset",
            ZoneKind::ToUtc => "to_utc_timestamp",
            ZoneKind::FromUtc => "from_utc_timestamp",
        }
    }

    fn takes_zone(self) -> bool {
        matches!(
            self,
            ZoneKind::ToTimezone | ZoneKind::ToUtc | ZoneKind::FromUtc
        )
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ZoneFunction {
    kind: ZoneKind,
    signature: Signature,
    aliases: Vec<String>,
}

impl ZoneFunction {
    pub fn new(kind: ZoneKind) -> Self {
        ZoneFunction {
            kind,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases: vec![kind.aliases().to_string()],
        }
    }

    /// The result type, and the zone argument of the functions taking one.
    fn output(
        &self,
        types: &[DataType],
        values: &[Option<&ScalarValue>],
    ) -> Result<(DataType, Option<Arc<str>>)> {
        let name = self.name();
        let count = if self.kind.takes_zone() { 2 } else { 1 };
        if types.len() != count {
            return Err(args::arity(name, types.len(), &count.to_string()));
        }
        let DataType::Timestamp(unit, own) = &types[0] else {
            if types[0] == DataType::Null {
                return Ok((DataType::Null, None));
            }
            return Err(args::illegal_type(name, &types[0]));
        };
        let zone = match self.kind.takes_zone() {
            true => Some(args::zone_argument(name, values[1], &types[1])?),
            false => None,
        };
        if matches!(self.kind, ZoneKind::ToUtc | ZoneKind::FromUtc) && own.is_some() {
            return Err(args::error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Function {name}'s 1st argument should not have explicit time zone"),
            ));
        }
        let data_type = match self.kind {
            ZoneKind::ToTimezone => DataType::Timestamp(*unit, zone.clone()),
            ZoneKind::TimezoneOf => DataType::Utf8,
            ZoneKind::TimezoneOffset => DataType::Int32,
            ZoneKind::ToUtc | ZoneKind::FromUtc => types[0].clone(),
        };
        Ok((data_type, zone))
    }
}

impl ScalarUDFImpl for ZoneFunction {
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
        Ok(self.output(arg_types, &values)?.0)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let (data_type, _) = self.output(&types, args.scalar_arguments)?;
        // The zone of a NULL is still its type's.
        let nullable = self.kind != ZoneKind::TimezoneOf && args.arg_fields[0].is_nullable();
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
        let (data_type, zone) = self.output(&types, &values)?;
        if data_type == DataType::Null {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let array = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let own = parse_zone(time_zone(array.data_type()).as_deref())?;
        let result: ArrayRef = match self.kind {
            ZoneKind::ToTimezone => moments::in_zone(array, zone.as_ref())?,
            ZoneKind::TimezoneOf => {
                let name = time_zone(&types[0]).unwrap_or_else(|| Arc::from("UTC"));
                Arc::new(StringArray::from(vec![name.as_ref(); array.len()]))
            }
            ZoneKind::TimezoneOffset => {
                let seconds = moments::moments(&array, None)?;
                let offsets = seconds.iter().map(|at| offset(own.as_ref(), at.utc));
                Arc::new(Int32Array::new(offsets.collect(), array.nulls().cloned()))
            }
            ZoneKind::ToUtc | ZoneKind::FromUtc => self.shift(&array, zone.as_deref())?,
        };
        crate::columnar(result, scalar)
    }
}

impl ZoneFunction {
    /// Every value moved by `zone`'s offset at it: back for `toUTCTimestamp`,
    /// forward for `fromUTCTimestamp`.
    fn shift(&self, array: &ArrayRef, zone: Option<&str>) -> Result<ArrayRef> {
        let zone = parse_zone(zone)?;
        let DataType::Timestamp(unit, _) = array.data_type() else {
            return Err(args::illegal_type(self.name(), array.data_type()));
        };
        let per_second = moments::ticks_per_second(*unit);
        let sign = if self.kind == ZoneKind::ToUtc { -1 } else { 1 };
        Ok(moments::map_ticks(array, None, |v| {
            let moved =
                v + sign * offset(zone.as_ref(), v.div_euclid(per_second)) as i64 * per_second;
            match per_second {
                1 => date_time_in_range(moved),
                _ => moved,
            }
        }))
    }
}

/// A zone's offset from UTC at a UTC second; UTC's is zero.
pub(crate) fn offset(zone: Option<&Tz>, second: i64) -> i32 {
    let Some(zone) = zone else {
        return 0;
    };
    let Some(at) = chrono::DateTime::from_timestamp(second, 0) else {
        return 0;
    };
    zone.offset_from_utc_datetime(&at.naive_utc())
        .fix()
        .local_minus_utc()
}
