//! `errorCodeToName(code)`: the name of one of ClickHouse's error codes as
//! LowCardinality(String), empty for a number that names none. The code is
//! the argument as ClickHouse's Int32 error code: integers keep their low
//! 32 bits, decimals their unscaled value, floats are truncated (a float out
//! of Int64's range reads as Int64's minimum, as on x86), a NULL of a
//! Nullable column reads as 0. The table (`error_codes.tsv`) lists every
//! code ClickHouse names, Strata's own among them.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Decimal256Type, Field, Float64Type};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::parse_clickhouse_type;

use super::frame::{Call, Spec, Typing, failure};
use crate::int_cast::to_i64_wrapping;

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "errorCodeToName",
    aliases: &[],
    args: (1, 1),
    volatility: Volatility::Immutable,
    typing: name_typing,
    eval: code_names,
}];

fn names() -> &'static HashMap<i32, &'static str> {
    static NAMES: OnceLock<HashMap<i32, &'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        include_str!("error_codes.tsv")
            .lines()
            .filter_map(|line| {
                let (code, name) = line.split_once('\t')?;
                Some((code.parse().ok()?, name))
            })
            .collect()
    })
}

fn name_typing(t: &Typing) -> Result<Field> {
    let data_type = t.fields[0].data_type();
    match data_type {
        DataType::Null => Ok(t.propagating(DataType::Null)),
        d if d.is_numeric() || d == &DataType::Boolean => {
            let low_cardinality =
                parse_clickhouse_type("LowCardinality(String)").map_err(|e| e.into_datafusion())?;
            Ok(low_cardinality.field(t.name))
        }
        _ => Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "The argument of function {} must have simple numeric type, possibly Nullable",
                t.name
            ),
        )),
    }
}

/// A float as x86 truncates it to Int64: out of range (or NaN) is the minimum.
fn float_code(value: f64) -> i64 {
    if value >= -9.223_372_036_854_775_808e18 && value < 9.223_372_036_854_775_808e18 {
        value as i64
    } else {
        i64::MIN
    }
}

fn codes(column: &ArrayRef) -> Result<Vec<i32>> {
    Ok(match column.data_type() {
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            let floats = cast::cast(column, &DataType::Float64)?;
            let floats = floats.as_primitive::<Float64Type>();
            floats
                .values()
                .iter()
                .map(|v| float_code(*v) as i32)
                .collect()
        }
        DataType::Decimal32(_, scale) | DataType::Decimal64(_, scale) => {
            // At the same scale, the unscaled value is kept.
            let wide = cast::cast(column, &DataType::Decimal128(38, *scale))?;
            let wide = wide.as_primitive::<Decimal128Type>();
            wide.values().iter().map(|v| *v as i32).collect()
        }
        DataType::Decimal128(..) => {
            let decimals = column.as_primitive::<Decimal128Type>();
            decimals.values().iter().map(|v| *v as i32).collect()
        }
        DataType::Decimal256(..) => {
            let values = column.as_primitive::<Decimal256Type>();
            values.values().iter().map(|v| v.as_i128() as i32).collect()
        }
        _ => {
            let ints = to_i64_wrapping(column)?;
            ints.values().iter().map(|v| *v as i32).collect()
        }
    })
}

fn code_names(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    if column.data_type() == &DataType::Null {
        return call.output(column);
    }
    // A NULL reads as the 0 beneath it, as in ClickHouse.
    let codes = codes(&column)?;
    let names = names();
    let out: StringArray = codes
        .iter()
        .map(|code| Some(names.get(code).copied().unwrap_or("")))
        .collect();
    let out: ArrayRef = Arc::new(out);
    call.output(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_as_clickhouse_reads_them() {
        assert_eq!(names()[&0], "OK");
        assert_eq!(names()[&721], "DEPRECATED_FUNCTION");
        for code in ErrorCode::ALL {
            assert_eq!(names()[&code.code], code.name);
        }
        assert_eq!(float_code(1e20), i64::MIN);
        assert_eq!(float_code(-0.5), 0);
        assert_eq!(float_code(f64::NAN), i64::MIN);
    }
}
