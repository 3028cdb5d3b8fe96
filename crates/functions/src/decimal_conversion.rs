//! Conversion to a Decimal as ClickHouse converts (`toDecimal32`, `CAST`):
//! digits past the scale are cut off, not rounded (`1.999` is `1.99` at
//! scale 2, a float `0.29` is `0.28`, as `0.29 * 100` is just below 29),
//! and a value the width's integer cannot hold is an error. Precision
//! itself is not checked, as ClickHouse does not.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Decimal128Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Float64Type};
use datafusion::common::Result;
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

/// `array` as a Decimal128 of `precision` and `scale`.
pub(crate) fn to_decimal(array: &ArrayRef, precision: u8, scale: i8) -> Result<ArrayRef> {
    let target = DataType::Decimal128(precision, scale);
    let limit = width_limit(precision);
    let checked = |value: Option<i128>, shown: &dyn Fn() -> String| match value {
        Some(v) if v.unsigned_abs() <= limit => Ok(v),
        _ => Err(overflow(&shown(), precision)),
    };
    let values: Vec<Option<i128>> = match array.data_type() {
        DataType::Decimal128(_, from) => {
            let decimals = array.as_primitive::<Decimal128Type>();
            decimals
                .iter()
                .map(|v| {
                    v.map(|v| checked(rescale(v, scale - from), &|| v.to_string()))
                        .transpose()
                })
                .collect::<Result<_>>()?
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            let floats = cast::cast(array, &DataType::Float64)?;
            let factor = 10f64.powi(scale.into());
            floats
                .as_primitive::<Float64Type>()
                .iter()
                .map(|v| {
                    v.map(|v| {
                        let scaled = (v * factor).trunc();
                        let fits = scaled.is_finite() && scaled.abs() < 1.7e38;
                        checked(fits.then_some(scaled as i128), &|| v.to_string())
                    })
                    .transpose()
                })
                .collect::<Result<_>>()?
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let strings = cast::cast(array, &DataType::Utf8)?;
            strings
                .as_string::<i32>()
                .iter()
                .map(|text| {
                    text.map(|text| {
                        let value =
                            parse_decimal(text, scale).ok_or_else(|| parse_error(text, &target))?;
                        checked(value, &|| text.to_string())
                    })
                    .transpose()
                })
                .collect::<Result<_>>()?
        }
        _ => {
            let whole = cast::cast(array, &DataType::Decimal128(38, 0))?;
            return to_decimal(&whole, precision, scale);
        }
    };
    let decimals = Decimal128Array::from(values).with_precision_and_scale(precision, scale)?;
    Ok(Arc::new(decimals))
}

/// `value` moved `shift` decimal places up (down, cutting digits off, when
/// negative); None on overflow.
fn rescale(value: i128, shift: i8) -> Option<i128> {
    let factor = 10i128.checked_pow(u32::from(shift.unsigned_abs()))?;
    match shift >= 0 {
        true => value.checked_mul(factor),
        false => Some(value / factor),
    }
}

/// Decimal text (`-1.5`, `.5`, `+3.14`, `1e3`) as an integer at `scale`;
/// None when it is not such text. Outer `Some(None)` is an overflow.
fn parse_decimal(text: &str, scale: i8) -> Option<Option<i128>> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    // Digits of the value with `fraction.len() - exponent` places.
    let mut value: i128 = 0;
    for digit in whole.bytes().chain(fraction.bytes()) {
        value = match value.checked_mul(10) {
            Some(v) => v + i128::from(digit - b'0'),
            None => return Some(None),
        };
    }
    let places = fraction.len() as i32 - exponent;
    let shift = i32::from(scale) - places;
    let shifted = match i8::try_from(shift) {
        Ok(shift) => rescale(value, shift),
        Err(_) if shift < 0 => Some(0),
        Err(_) => None,
    };
    Some(shifted.map(|v| if negative { -v } else { v }))
}

/// Decimal text with its exponent written out (`1e5` is `100000`, `1.5e-2`
/// is `0.015`), as Arrow's cast to Decimal256 reads it; other text as it is.
pub(crate) fn without_exponent(text: &str) -> std::borrow::Cow<'_, str> {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.strip_prefix('+').unwrap_or(text)),
    };
    let Some((mantissa, exponent)) = rest.split_once(['e', 'E']) else {
        return text.into();
    };
    let Ok(exponent) = exponent.parse::<i64>() else {
        return text.into();
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    // Beyond Decimal256's 76 digits the text fails as it did.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || exponent.abs() > 100 {
        return text.into();
    }
    let point = whole.len() as i64 + exponent;
    let plain = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{plain}").into()
}

/// The largest magnitude the integer of a Decimal's width holds.
pub(crate) fn width_limit(precision: u8) -> u128 {
    match precision {
        ..=9 => i32::MAX as u128,
        ..=18 => i64::MAX as u128,
        _ => i128::MAX as u128,
    }
}

fn overflow(value: &str, precision: u8) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::DECIMAL_OVERFLOW,
        format!("Decimal convert overflow: {value} is out of the range of a Decimal of precision {precision}"),
    )
    .into_datafusion()
}

fn parse_error(text: &str, target: &DataType) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::CANNOT_PARSE_TEXT,
        format!(
            "Cannot parse string '{text}' as {}: syntax error",
            clickhouse_type_name(target, false)
        ),
    )
    .into_datafusion()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_are_written_out() {
        assert_eq!(without_exponent("1e5"), "100000");
        assert_eq!(without_exponent("-1.5e-2"), "-0.015");
        assert_eq!(without_exponent("12.5E1"), "125");
        assert_eq!(without_exponent("1.25e1"), "12.5");
        assert_eq!(without_exponent("123.456"), "123.456");
        assert_eq!(without_exponent("xe5"), "xe5");
    }

    #[test]
    fn text_is_cut_at_the_scale() {
        assert_eq!(parse_decimal("1.999", 2), Some(Some(199)));
        assert_eq!(parse_decimal("-0.001", 2), Some(Some(0)));
        assert_eq!(parse_decimal(".5", 2), Some(Some(50)));
        assert_eq!(parse_decimal("+3.14159", 3), Some(Some(3141)));
        assert_eq!(parse_decimal("1e3", 2), Some(Some(100_000)));
        assert_eq!(parse_decimal(" 1.5", 2), None);
        assert_eq!(parse_decimal("abc", 2), None);
        assert_eq!(parse_decimal(".", 2), None);
    }

    #[test]
    fn floats_truncate_and_overflow_is_an_error() {
        let floats: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(vec![
            0.29, -2.675,
        ]));
        let out = to_decimal(&floats, 9, 2).unwrap();
        assert_eq!(
            out.as_primitive::<Decimal128Type>().values().to_vec(),
            vec![28, -267]
        );
        let big: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(vec![1e10]));
        assert!(to_decimal(&big, 9, 2).is_err());
    }
}
