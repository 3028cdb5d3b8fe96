//! Arguments the date functions share: the constant time zone name most of
//! them take last, the constant week mode, and ClickHouse's errors for
//! wrong ones.

use std::str::FromStr;
use std::sync::Arc;

use datafusion::arrow::array::timezone::Tz;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::logical_expr::ColumnarValue;
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

/// A constant argument as planning and execution both see it: the value of
/// a literal, `None` for a column.
pub fn constant(value: &ColumnarValue) -> Option<&ScalarValue> {
    match value {
        ColumnarValue::Scalar(scalar) => Some(scalar),
        ColumnarValue::Array(_) => None,
    }
}

pub fn error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    StrataError::new(code, message.into()).into_datafusion()
}

pub fn arity(name: &str, passed: usize, expected: &str) -> DataFusionError {
    error(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {name} doesn't match: passed {passed}, should be {expected}"
        ),
    )
}

pub fn illegal_type(name: &str, data_type: &DataType) -> DataFusionError {
    error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument of function {name}",
            clickhouse_type_name(data_type, false)
        ),
    )
}

/// The text of a constant string argument.
pub fn text_constant(value: Option<&ScalarValue>) -> Option<&str> {
    match value? {
        ScalarValue::Utf8(Some(text))
        | ScalarValue::LargeUtf8(Some(text))
        | ScalarValue::Utf8View(Some(text)) => Some(text),
        _ => None,
    }
}

/// Whether a constant argument is NULL, which makes the whole result NULL.
pub fn is_null_constant(value: Option<&ScalarValue>) -> bool {
    value.is_some_and(ScalarValue::is_null)
}

/// The time zone named by argument `index`, which must be a constant string.
pub fn zone_argument(
    name: &str,
    value: Option<&ScalarValue>,
    data_type: &DataType,
) -> datafusion::common::Result<Arc<str>> {
    if !matches!(
        data_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "The time zone argument of function {name} must be a constant string, not {}",
                clickhouse_type_name(data_type, false)
            ),
        ));
    }
    let text = match value {
        Some(
            ScalarValue::Utf8(Some(text))
            | ScalarValue::LargeUtf8(Some(text))
            | ScalarValue::Utf8View(Some(text)),
        ) => text,
        _ => {
            return Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!("The time zone argument of function {name} must be a constant string"),
            ));
        }
    };
    parse_zone(text)?;
    Ok(Arc::from(text.as_str()))
}

/// A zone name as chrono-tz knows it.
pub fn parse_zone(name: &str) -> datafusion::common::Result<Tz> {
    Tz::from_str(name).map_err(|_| {
        error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Cannot load time zone {name}"),
        )
    })
}

/// A constant UInt8 argument such as a week mode (integer literals of
/// any type, as Strata types them late).
pub fn mode_argument(
    name: &str,
    value: Option<&ScalarValue>,
    data_type: &DataType,
) -> datafusion::common::Result<u8> {
    let illegal = || {
        error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "The mode argument of function {name} must be a UInt8, not {}",
                clickhouse_type_name(data_type, false)
            ),
        )
    };
    if !data_type.is_integer() {
        return Err(illegal());
    }
    // A column must at least have the type a constant would have.
    let Some(value) = value else {
        if data_type != &DataType::UInt8 {
            return Err(illegal());
        }
        return Err(error(
            ErrorCode::ILLEGAL_COLUMN,
            format!("The mode argument of function {name} must be constant"),
        ));
    };
    match value.cast_to(&DataType::Int64) {
        Ok(ScalarValue::Int64(Some(mode))) => u8::try_from(mode).map_err(|_| illegal()),
        _ => Err(illegal()),
    }
}

/// The optional constant time zone that follows `fixed` arguments, and
/// whether some argument is a NULL constant (a NULL result).
pub fn trailing_zone(
    name: &str,
    types: &[DataType],
    values: &[Option<&ScalarValue>],
    fixed: usize,
) -> datafusion::common::Result<(Option<Arc<str>>, bool)> {
    if types.len() < fixed || types.len() > fixed + 1 {
        let expected = format!("{fixed} or {}", fixed + 1);
        return Err(arity(name, types.len(), &expected));
    }
    // A typed NULL moment is a NULL of its type; a NULL zone or untyped
    // NULL make the whole result NULL. The zone is read whenever it is
    // given, so that an untyped NULL can still take a zoned type.
    let zone_null = types.get(fixed) == Some(&DataType::Null)
        || values.iter().skip(fixed).any(|v| is_null_constant(*v));
    let null = zone_null || types.iter().any(|t| t == &DataType::Null);
    let zone = match types.get(fixed) {
        Some(data_type) if !zone_null => Some(zone_argument(name, values[fixed], data_type)?),
        _ => None,
    };
    Ok((zone, null))
}

/// The precision of a DateTime64 result, a constant integer argument
/// from 0 to 9.
pub fn precision(
    name: &str,
    value: Option<&ScalarValue>,
    data_type: &DataType,
) -> datafusion::common::Result<u8> {
    let precision = match (
        data_type.is_integer(),
        value.map(|v| v.cast_to(&DataType::Int64)),
    ) {
        (true, Some(Ok(ScalarValue::Int64(Some(p))))) => p,
        (true, _) => {
            return Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!("The precision argument of function {name} must be constant"),
            ));
        }
        (false, _) => return Err(illegal_type(name, data_type)),
    };
    u8::try_from(precision)
        .ok()
        .filter(|p| *p <= strata_common::types::MAX_DATETIME64_PRECISION)
        .ok_or_else(|| {
            error(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!(
                    "Scale {precision} is too large for DateTime64. Maximum is up to nanoseconds (9)"
                ),
            )
        })
}
