//! `toDecimalString(number, scale)`: a number's text with exactly `scale`
//! digits after the point, rounded half away from zero, as ClickHouse
//! writes it. A float is written from its exact binary value (0.1 to 20
//! digits is 0.10000000000000000555); a Decimal always has its point, even
//! with no digits after it (`3.`), as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int64Type, UInt64Type,
};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::udf::{Call, Output, Param, Spec, failure, text_rows};
use crate::int_cast::to_i64_wrapping;

/// The most digits after the point ClickHouse writes.
const MAX_SCALE: i64 = 77;

/// Digits past `scale` a float is first written with: enough that the one
/// deciding the rounding is exact.
const GUARD_DIGITS: usize = 30;

fn to_decimal_string(call: &Call) -> Result<ArrayRef> {
    let values = call.expanded(0)?;
    // Integers are written from one 64-bit column, converted once.
    let values = match values.data_type() {
        t if t.is_integer() && t != &DataType::UInt64 => {
            Arc::new(to_i64_wrapping(&values)?) as ArrayRef
        }
        _ => values,
    };
    let scale = call.int(1)?;
    text_rows(call, |row, out| {
        let digits = scale.get(row).unwrap_or_default();
        if !(0..=MAX_SCALE).contains(&digits) {
            return Err(failure(
                ErrorCode::CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER,
                format!("Too many fractional digits requested, shall not be more than {MAX_SCALE}"),
            ));
        }
        out.extend(number_text(values.as_ref(), row, digits as usize)?.into_bytes());
        Ok(Some(()))
    })
}

fn number_text(values: &dyn Array, row: usize, digits: usize) -> Result<String> {
    Ok(match values.data_type() {
        DataType::Float64 => float_text(values.as_primitive::<Float64Type>().value(row), digits),
        DataType::Float32 => float_text(
            f64::from(values.as_primitive::<Float32Type>().value(row)),
            digits,
        ),
        DataType::Decimal128(_, scale) => {
            let value = values.as_primitive::<Decimal128Type>().value(row);
            decimal_text(&value.to_string(), *scale as usize, digits)
        }
        DataType::Decimal256(_, scale) => {
            let value = values.as_primitive::<Decimal256Type>().value(row);
            decimal_text(&value.to_string(), *scale as usize, digits)
        }
        DataType::UInt64 => {
            let value = values.as_primitive::<UInt64Type>().value(row);
            with_zeros(value.to_string(), digits)
        }
        DataType::Int64 => {
            let value = values.as_primitive::<Int64Type>().value(row);
            with_zeros(value.to_string(), digits)
        }
        other => {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of function toDecimalString",
                    strata_common::types::clickhouse_type_name(other, false)
                ),
            ));
        }
    })
}

fn with_zeros(whole: String, digits: usize) -> String {
    match digits {
        0 => whole,
        n => format!("{whole}.{}", "0".repeat(n)),
    }
}

fn float_text(value: f64, digits: usize) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let exact = format!("{:.*}", digits + GUARD_DIGITS, value.abs());
    let (whole, fraction) = exact.split_once('.').expect("written with a fraction");
    let sign = if value < 0.0 { "-" } else { "" };
    let rounded = rounded(whole, fraction, digits);
    let (whole, fraction) = rounded.split_at(rounded.len() - digits);
    match digits {
        0 => format!("{sign}{whole}"),
        _ => format!("{sign}{whole}.{fraction}"),
    }
}

/// A Decimal's text from its integer's text and scale.
fn decimal_text(integer: &str, scale: usize, digits: usize) -> String {
    let (sign, magnitude) = match integer.strip_prefix('-') {
        Some(magnitude) => ("-", magnitude),
        None => ("", integer),
    };
    let padded = format!("{magnitude:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    let fraction = format!("{fraction:0<digits$}");
    let rounded = rounded(whole, &fraction, digits);
    let (whole, fraction) = rounded.split_at(rounded.len() - digits);
    format!("{sign}{whole}.{fraction}")
}

/// The digits of `whole` and the first `digits` of `fraction`, rounded half
/// away from zero by the fraction's next digit.
fn rounded(whole: &str, fraction: &str, digits: usize) -> String {
    let mut kept: Vec<u8> = whole.bytes().chain(fraction.bytes().take(digits)).collect();
    if fraction.as_bytes().get(digits).is_some_and(|&d| d >= b'5') {
        let mut carry = true;
        for digit in kept.iter_mut().rev() {
            if *digit == b'9' {
                *digit = b'0';
            } else {
                *digit += 1;
                carry = false;
                break;
            }
        }
        if carry {
            kept.insert(0, b'1');
        }
    }
    String::from_utf8(kept).expect("digits")
}

pub(crate) const SPECS: &[Spec] = &[Spec {
    name: "toDecimalString",
    aliases: &[],
    params: &[Param::Any, Param::Int],
    required: 2,
    output: Output::Text,
    eval: to_decimal_string,
}];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_clickhouse() {
        // Values from ClickHouse 26.9 (chdb).
        assert_eq!(float_text(1.5, 3), "1.500");
        assert_eq!(float_text(-0.125, 2), "-0.13");
        assert_eq!(float_text(0.375, 2), "0.38");
        assert_eq!(float_text(0.25, 1), "0.3");
        assert_eq!(float_text(2.5, 0), "3");
        assert_eq!(float_text(0.1, 20), "0.10000000000000000555");
        assert_eq!(float_text(1e20, 1), "100000000000000000000.0");
        assert_eq!(float_text(9.96, 1), "10.0");
        assert_eq!(decimal_text("125", 2, 1), "1.3");
        assert_eq!(decimal_text("25", 1, 0), "3.");
        assert_eq!(decimal_text("-245", 2, 1), "-2.5");
        assert_eq!(decimal_text("5", 2, 4), "0.0500");
        assert_eq!(with_zeros("12".to_string(), 0), "12");
    }
}
