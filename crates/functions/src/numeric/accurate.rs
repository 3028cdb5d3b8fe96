//! Conversions that check the value fits: `accurateCast(x, 'T')`,
//! `accurateCastOrNull`, `accurateCastOrDefault`, the `to<Type>OrDefault`
//! family, `toDate`/`toDate32`/`toDateTime` with `OrNull`/`OrZero`, and
//! `toDate32`/`toDateTime32` themselves.
//!
//! A number converts only when the target holds it exactly (a float must be
//! integral and in range for an integer; Float32 must hold the Float64
//! value); decimals truncate toward zero first. Text must be exactly a
//! number of the target type (no spaces, no exponent for integers, no sign
//! for unsigned ones). A value that does not convert is an error, NULL, or
//! the default (the type's zero, or the given value of the target type).

use std::sync::Arc;

use chrono::{NaiveDate, NaiveDateTime};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Date32Array, Float64Array, PrimitiveArray,
    TimestampSecondArray, new_null_array,
};
use datafusion::arrow::compute::kernels::{cast, zip};
use datafusion::arrow::compute::nullif;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::{BigInt, clickhouse_type_name, field_type_name, parse_clickhouse_type};

use super::{error, is_float, is_integer};
use crate::hashing::is_text;

/// What a failed conversion becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnFailure {
    Error,
    Null,
    Zero,
    Default,
}

/// A conversion to a fixed target (`toInt8OrDefault`) or to the type named
/// by a constant second argument (`accurateCast`).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Accurate {
    name: String,
    /// The ClickHouse name of the target type, when fixed.
    target: Option<&'static str>,
    on_failure: OnFailure,
    /// `OrNull`/`OrZero` of dates take only text.
    text_only: bool,
    signature: Signature,
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions = Vec::new();
    for (name, on_failure) in [
        ("accurateCast", OnFailure::Error),
        ("accurateCastOrNull", OnFailure::Null),
        ("accurateCastOrDefault", OnFailure::Default),
    ] {
        functions.push(Accurate::new(name, None, on_failure, false));
    }
    let numbers = [
        ("toInt8", "Int8"),
        ("toInt16", "Int16"),
        ("toInt32", "Int32"),
        ("toInt64", "Int64"),
        ("toUInt8", "UInt8"),
        ("toUInt16", "UInt16"),
        ("toUInt32", "UInt32"),
        ("toUInt64", "UInt64"),
        ("toInt128", "Int128"),
        ("toUInt128", "UInt128"),
        ("toInt256", "Int256"),
        ("toUInt256", "UInt256"),
        ("toFloat32", "Float32"),
        ("toFloat64", "Float64"),
    ];
    for (plain, target) in numbers {
        let names = [
            (format!("{plain}OrDefault"), OnFailure::Default, false),
            // Text only, parsed strictly.
            (format!("{plain}OrNull"), OnFailure::Null, true),
            (format!("{plain}OrZero"), OnFailure::Zero, true),
        ];
        for (name, on_failure, text_only) in names {
            functions.push(Accurate::new(name, Some(target), on_failure, text_only));
        }
    }
    let dates = [
        ("toDate32", "Date32", OnFailure::Error),
        ("toDateTime32", "DateTime", OnFailure::Error),
        ("toDateOrNull", "Date", OnFailure::Null),
        ("toDateOrZero", "Date", OnFailure::Zero),
        ("toDateOrDefault", "Date", OnFailure::Default),
        ("toDate32OrNull", "Date32", OnFailure::Null),
        ("toDate32OrZero", "Date32", OnFailure::Zero),
        ("toDate32OrDefault", "Date32", OnFailure::Default),
        ("toDateTimeOrNull", "DateTime", OnFailure::Null),
        ("toDateTimeOrZero", "DateTime", OnFailure::Zero),
        ("toDateTimeOrDefault", "DateTime", OnFailure::Default),
    ];
    for (name, target, on_failure) in dates {
        let text_only = matches!(on_failure, OnFailure::Null | OnFailure::Zero);
        functions.push(Accurate::new(name, Some(target), on_failure, text_only));
    }
    functions
        .into_iter()
        .map(ScalarUDF::new_from_impl)
        .collect()
}

impl Accurate {
    fn new(
        name: impl Into<String>,
        target: Option<&'static str>,
        on_failure: OnFailure,
        text_only: bool,
    ) -> Self {
        Accurate {
            name: name.into(),
            target,
            on_failure,
            text_only,
            signature: super::any_arguments(Volatility::Immutable),
        }
    }

    /// Where the default value is, when one may be given.
    fn default_position(&self) -> Option<usize> {
        match (self.on_failure, &self.target) {
            (OnFailure::Default, Some(_)) => Some(1),
            (OnFailure::Default, None) => Some(2),
            _ => None,
        }
    }

    fn arity(&self) -> (usize, usize) {
        let fixed = if self.target.is_some() { 1 } else { 2 };
        let optional = usize::from(self.default_position().is_some());
        (fixed, fixed + optional)
    }

    /// The target field: the fixed type, or the constant type name.
    fn target_field(&self, args: &ReturnFieldArgs) -> Result<Field> {
        let name = match (self.target, args.scalar_arguments.get(1)) {
            (Some(target), _) => target.to_string(),
            (None, Some(Some(ScalarValue::Utf8(Some(name))))) => name.clone(),
            _ => {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Second argument to {} must be a constant string describing type",
                        self.name
                    ),
                ));
            }
        };
        let parsed = parse_clickhouse_type(&name).map_err(|e| e.into_datafusion())?;
        Ok(parsed.field(&self.name))
    }
}

impl ScalarUDFImpl for Accurate {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let (least, most) = self.arity();
        if !(least..=most).contains(&arg_types.len()) {
            let expected = if least == most {
                least.to_string()
            } else {
                format!("{least} or {most}")
            };
            return Err(super::arity_error(&self.name, arg_types.len(), &expected));
        }
        if self.text_only && !(is_text(&arg_types[0]) || arg_types[0] == DataType::Null) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of function {}. Conversion functions with postfix 'OrZero' or 'OrNull' should take String argument",
                    clickhouse_type_name(&arg_types[0], false),
                    self.name
                ),
            ));
        }
        match self.target {
            Some(target) => Ok(parse_clickhouse_type(target)
                .map_err(|e| e.into_datafusion())?
                .data_type),
            None => Ok(DataType::Null),
        }
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        self.return_type(&types)?;
        let field = self.target_field(&args)?;
        if let Some(position) = self.default_position()
            && let Some(default) = args.arg_fields.get(position)
            && default.data_type() != field.data_type()
            && super::argument_types(&args).get(position) != Some(field.data_type())
        {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Default value type should be same as cast type. Expected {}. Actual {}",
                    clickhouse_type_name(field.data_type(), false),
                    clickhouse_type_name(default.data_type(), false)
                ),
            ));
        }
        let nullable = match self.on_failure {
            OnFailure::Null => true,
            OnFailure::Error => args.arg_fields[0].is_nullable() || field.is_nullable(),
            // A NULL stays NULL with OrZero, and converts to the default.
            OnFailure::Zero => args.arg_fields[0].is_nullable() || field.is_nullable(),
            OnFailure::Default => field.is_nullable(),
        };
        Ok(Arc::new(field.with_nullable(nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let mut values = args.args[0].to_array(rows)?;
        if matches!(values.data_type(), DataType::FixedSizeBinary(_)) {
            values = crate::conversion::convert(&values, &DataType::Utf8)?;
        }
        let target = args.return_field.data_type().clone();
        let (converted, failed) = convert(&values, &args.return_field)?;
        let out = match self.on_failure {
            OnFailure::Error => {
                if failed.true_count() > 0 {
                    return Err(conversion_error(&values, &failed, &target));
                }
                converted
            }
            OnFailure::Null => nullif(&converted, &failed)?,
            OnFailure::Zero | OnFailure::Default => {
                // NULL arguments take the default as well, not the zero.
                let keeps_null = self.on_failure == OnFailure::Zero;
                let missing = BooleanArray::from_iter(
                    (0..values.len())
                        .map(|r| Some(failed.value(r) || (converted.is_null(r) && !keeps_null))),
                );
                let default = match self.default_position().and_then(|p| args.args.get(p)) {
                    Some(given) => given.to_array(rows)?,
                    None => zero_of(&args.return_field)?.to_array_of_size(rows)?,
                };
                zip::zip(&missing, &default, &converted)?
            }
        };
        crate::columnar(out, scalar)
    }
}

/// The zero of a type: Date32's is its first day, 1900-01-01.
fn zero_of(field: &Field) -> Result<ScalarValue> {
    if field_type_name(field).contains("Date32") {
        return Ok(ScalarValue::Date32(Some(-25_567)));
    }
    strata_common::types::default_value(field.data_type())
}

fn conversion_error(
    values: &ArrayRef,
    failed: &BooleanArray,
    target: &DataType,
) -> datafusion::error::DataFusionError {
    let target_name = clickhouse_type_name(target, false);
    if is_text(values.data_type()) {
        let row = (0..failed.len()).find(|r| failed.value(*r)).unwrap_or(0);
        let text = cast::cast(values, &DataType::Utf8)
            .ok()
            .map(|t| t.as_string::<i32>().value(row).to_string())
            .unwrap_or_default();
        let code = match target {
            DataType::Date32 => ErrorCode::CANNOT_PARSE_DATE,
            DataType::Timestamp(..) => ErrorCode::CANNOT_PARSE_DATETIME,
            _ => ErrorCode::CANNOT_PARSE_TEXT,
        };
        return error(
            code,
            format!("Cannot parse string '{text}' as {target_name}"),
        );
    }
    error(
        ErrorCode::CANNOT_CONVERT_TYPE,
        format!(
            "Value in column {} cannot be safely converted into type {target_name}",
            clickhouse_type_name(values.data_type(), false)
        ),
    )
}

/// The converted values, and the rows that did not convert.
fn convert(values: &ArrayRef, target_field: &Field) -> Result<(ArrayRef, BooleanArray)> {
    let target = target_field.data_type();
    let numeric_target = is_integer(target) || is_float(target);
    let source = values.data_type();
    if *source == DataType::Null {
        let none = BooleanArray::from(vec![false; values.len()]);
        return Ok((new_null_array(target, values.len()), none));
    }
    if let Some(big) = BigInt::of(target) {
        return crate::big_int::accurate(values, big);
    }
    if numeric_target && is_text(source) {
        return parse_numbers(values, target);
    }
    if numeric_target {
        return numbers(values, target);
    }
    // DateTime64 text has fractions, read by the plain conversion below.
    if matches!(
        target,
        DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
    ) && is_text(source)
    {
        return parse_dates(values, target_field);
    }
    // Other targets: the plain conversion, row by row where it fails.
    let plain = |values: &ArrayRef| match target {
        // ClickHouse checks against the type it stores the precision in
        // (Decimal32, 64 or 128): text by its digits, a number by whether
        // its scaled integer fits that type's integer (`Decimal32(9)` holds
        // the number 1 but not the text '1').
        DataType::Decimal128(precision, scale) => {
            let converted = crate::decimal_conversion::to_decimal(values, *precision, *scale)?;
            let (digits, bits) = match *precision {
                ..=9 => (9, 32),
                10..=18 => (18, 64),
                _ => (38, 128),
            };
            let decimals = converted.as_primitive::<Decimal128Type>();
            if is_text(source) {
                decimals.validate_decimal_precision(digits)?;
                return Ok(converted);
            }
            let fits = |v: i128| match bits {
                32 => i32::try_from(v).is_ok(),
                64 => i64::try_from(v).is_ok(),
                _ => true,
            };
            match decimals.iter().flatten().all(fits) {
                true => Ok(converted),
                false => exec_err!("a value outside {target}"),
            }
        }
        DataType::Decimal256(..) => {
            let fail = cast::CastOptions {
                safe: false,
                ..Default::default()
            };
            Ok(cast::cast_with_options(values, target, &fail)?)
        }
        // A number of seconds fits a DateTime from 0 to UInt32's largest,
        // and a Date too (past 65535 days a number is seconds, as in toDate).
        DataType::Timestamp(TimeUnit::Second, _) | DataType::Date32
            if is_integer(source) && !field_type_name(target_field).contains("Date32") =>
        {
            within(values, target_field, |v| u32::try_from(v).is_ok())
        }
        _ => crate::conversion::convert(values, target),
    };
    if let Ok(all) = plain(values) {
        let none = BooleanArray::from(vec![false; values.len()]);
        return Ok((all, none));
    }
    let mut failed = Vec::with_capacity(values.len());
    let mut parts = Vec::with_capacity(values.len());
    for row in 0..values.len() {
        match plain(&values.slice(row, 1)) {
            Ok(one) => {
                failed.push(false);
                parts.push(one);
            }
            Err(_) => {
                failed.push(true);
                parts.push(new_null_array(target, 1));
            }
        }
    }
    let parts: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
    let all = datafusion::arrow::compute::concat(&parts)?;
    Ok((all, BooleanArray::from(failed)))
}

/// Integers converted as CAST converts them to `target` where `fits` each
/// of them, else an error.
fn within(values: &ArrayRef, target: &Field, fits: impl Fn(i64) -> bool) -> Result<ArrayRef> {
    let numbers = cast::cast(values, &DataType::Int64)?;
    match numbers
        .as_primitive::<Int64Type>()
        .iter()
        .flatten()
        .all(fits)
    {
        true => crate::conversion::cast_to_field(values, target),
        false => exec_err!("a value outside {}", target.data_type()),
    }
}

/// An exact integer or float value of any numeric source row.
#[derive(Clone, Copy)]
enum Exact {
    Integer(i128),
    Float(f64),
}

fn exact_values(values: &ArrayRef) -> Result<Vec<Option<Exact>>> {
    Ok(match values.data_type() {
        DataType::Float32 | DataType::Float64 => {
            let floats = cast::cast(values, &DataType::Float64)?;
            floats
                .as_primitive::<Float64Type>()
                .iter()
                .map(|v| v.map(Exact::Float))
                .collect()
        }
        DataType::UInt64 => values
            .as_primitive::<UInt64Type>()
            .iter()
            .map(|v| v.map(|v| Exact::Integer(i128::from(v))))
            .collect(),
        DataType::Decimal128(_, scale) => {
            let divisor = 10i128.pow(u32::from(scale.unsigned_abs()));
            values
                .as_primitive::<Decimal128Type>()
                .iter()
                .map(|v| v.map(|v| Exact::Integer(v / divisor)))
                .collect()
        }
        // Past i128, or a UInt256 past 2^255: no target here holds it.
        DataType::Decimal256(_, scale) => {
            let divisor = i256::from_i128(10).wrapping_pow(u32::from(scale.unsigned_abs()));
            let unsigned = BigInt::of(values.data_type()) == Some(BigInt::UInt256);
            values
                .as_primitive::<Decimal256Type>()
                .iter()
                .map(|v| {
                    v.map(|v| match v.is_negative() && unsigned {
                        true => Exact::Integer(i128::MAX),
                        false => {
                            Exact::Integer(v.wrapping_div(divisor).to_i128().unwrap_or(i128::MAX))
                        }
                    })
                })
                .collect()
        }
        _ => crate::int_cast::to_i64_wrapping(values)?
            .iter()
            .map(|v| v.map(|v| Exact::Integer(i128::from(v))))
            .collect(),
    })
}

/// The range of an integer type.
fn integer_range(t: &DataType) -> (i128, i128) {
    match t {
        DataType::Int8 => (i128::from(i8::MIN), i128::from(i8::MAX)),
        DataType::Int16 => (i128::from(i16::MIN), i128::from(i16::MAX)),
        DataType::Int32 => (i128::from(i32::MIN), i128::from(i32::MAX)),
        DataType::Int64 => (i128::from(i64::MIN), i128::from(i64::MAX)),
        DataType::UInt8 => (0, i128::from(u8::MAX)),
        DataType::UInt16 => (0, i128::from(u16::MAX)),
        DataType::UInt32 => (0, i128::from(u32::MAX)),
        _ => (0, i128::from(u64::MAX)),
    }
}

/// The value in `target` exactly, if it has it.
fn fit(value: Exact, target: &DataType) -> Option<Exact> {
    match (value, target) {
        (Exact::Integer(v), DataType::Float64) => {
            ((v as f64) as i128 == v).then_some(Exact::Float(v as f64))
        }
        (Exact::Integer(v), DataType::Float32) => {
            ((v as f32) as i128 == v).then_some(Exact::Float(v as f64))
        }
        (Exact::Float(v), DataType::Float64) => Some(Exact::Float(v)),
        (Exact::Float(v), DataType::Float32) => {
            (v.is_nan() || f64::from(v as f32) == v).then_some(Exact::Float(v))
        }
        (Exact::Float(v), t) => {
            let (low, high) = integer_range(t);
            let integral = v.is_finite() && v.fract() == 0.0;
            let inside = v >= low as f64 && v <= high as f64 && (v as i128) <= high;
            (integral && inside).then_some(Exact::Integer(v as i128))
        }
        (Exact::Integer(v), t) => {
            let (low, high) = integer_range(t);
            (low..=high).contains(&v).then_some(Exact::Integer(v))
        }
    }
}

/// Rows of exact values (None where NULL or failed) as a `target` array.
fn build(fitted: &[Option<Exact>], target: &DataType) -> Result<ArrayRef> {
    if is_float(target) {
        let floats: Float64Array = fitted
            .iter()
            .map(|v| match v {
                Some(Exact::Float(f)) => Some(*f),
                Some(Exact::Integer(i)) => Some(*i as f64),
                None => None,
            })
            .collect();
        return Ok(cast::cast(&floats, target)?);
    }
    let bits: PrimitiveArray<UInt64Type> = fitted
        .iter()
        .map(|v| match v {
            Some(Exact::Integer(i)) => Some(*i as u64),
            _ => None,
        })
        .collect();
    crate::int_cast::narrow_from_u64(&bits, target)
}

fn numbers(values: &ArrayRef, target: &DataType) -> Result<(ArrayRef, BooleanArray)> {
    let exact = exact_values(values)?;
    let fitted: Vec<Option<Exact>> = exact
        .iter()
        .map(|v| v.and_then(|v| fit(v, target)))
        .collect();
    let failed: BooleanArray = exact
        .iter()
        .zip(&fitted)
        .map(|(v, f)| Some(v.is_some() && f.is_none()))
        .collect();
    Ok((build(&fitted, target)?, failed))
}

/// Text that is exactly a number of the target type.
fn parse_number(text: &str, target: &DataType) -> Option<Exact> {
    if is_float(target) {
        let v: f64 = match text.to_ascii_lowercase().as_str() {
            "inf" | "+inf" | "infinity" => f64::INFINITY,
            "-inf" | "-infinity" => f64::NEG_INFINITY,
            "nan" | "+nan" | "-nan" => f64::NAN,
            _ if text.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E') => {
                return None;
            }
            _ => text.parse().ok()?,
        };
        return Some(Exact::Float(v));
    }
    let (low, _) = integer_range(target);
    if low == 0 && text.starts_with('-') {
        return None;
    }
    let v: i128 = text.parse().ok()?;
    fit(Exact::Integer(v), target)
}

fn parse_numbers(values: &ArrayRef, target: &DataType) -> Result<(ArrayRef, BooleanArray)> {
    let texts = cast::cast(values, &DataType::Utf8)?;
    let texts = texts.as_string::<i32>();
    let fitted: Vec<Option<Exact>> = texts
        .iter()
        .map(|t| t.and_then(|t| parse_number(t, target)))
        .collect();
    let failed: BooleanArray = texts
        .iter()
        .zip(&fitted)
        .map(|(t, f)| Some(t.is_some() && f.is_none()))
        .collect();
    Ok((build(&fitted, target)?, failed))
}

/// A date as ClickHouse reads one: `YYYY-MM-DD` with any one-character
/// separators and one- or two-digit month and day, or `YYYYMMDD`; a time
/// may follow. As in ClickHouse, a day or hour past its end carries into
/// the next month or day.
pub(crate) fn parse_date_text(text: &str) -> Option<NaiveDateTime> {
    let bytes = text.as_bytes();
    let (date, time) = if bytes.len() == 8 && bytes.iter().all(u8::is_ascii_digit) {
        let parts = [&text[..4], &text[4..6], &text[6..]];
        (parts.map(str::to_string), None)
    } else {
        let (date, time) = match text.find([' ', 'T']) {
            Some(at) if at >= 8 => (&text[..at], Some(&text[at + 1..])),
            _ => (text, None),
        };
        let mut parts = date.splitn(3, |c: char| !c.is_ascii_digit());
        let parts = [parts.next()?, parts.next()?, parts.next()?];
        (parts.map(str::to_string), time)
    };
    let year: i32 = digits(&date[0], 4, 4)?;
    let month: u32 = digits(&date[1], 1, 2)?;
    let day: i64 = digits(&date[2], 1, 2)?;
    if (year, month, day) == (0, 0, 0) {
        // ClickHouse's zero date: each type's least (Date saturates to 1970).
        return NaiveDate::from_ymd_opt(1900, 1, 1)?.and_hms_opt(0, 0, 0);
    }
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let seconds = match time {
        None => 0,
        Some(time) => {
            let mut fields = time.splitn(3, ':');
            let mut next = || digits::<i64>(fields.next()?, 1, 2);
            next()? * 3600 + next()? * 60 + next()?
        }
    };
    let start = first.and_hms_opt(0, 0, 0)?;
    start.checked_add_signed(chrono::TimeDelta::seconds((day - 1) * 86_400 + seconds))
}

fn digits<T: std::str::FromStr>(text: &str, least: usize, most: usize) -> Option<T> {
    let fits = (least..=most).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit());
    fits.then(|| text.parse().ok()).flatten()
}

const EPOCH_DAYS_FROM_CE: i32 = 719_163;

/// Text read as a Date, Date32 or DateTime. A moment outside a Date's or
/// DateTime's range takes its nearest end, as ClickHouse's `toDate` does.
fn parse_dates(values: &ArrayRef, target_field: &Field) -> Result<(ArrayRef, BooleanArray)> {
    let target = target_field.data_type();
    let texts = cast::cast(values, &DataType::Utf8)?;
    let texts = texts.as_string::<i32>();
    let date_time = matches!(target, DataType::Timestamp(..));
    let range = match (date_time, field_type_name(target_field).contains("Date32")) {
        (true, _) => Some((0, i64::from(u32::MAX))),
        (false, false) => Some((0, i64::from(u16::MAX))),
        (false, true) => None,
    };
    let parsed: Vec<Option<i64>> = texts
        .iter()
        .map(|t| {
            let t = t?;
            if date_time && !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && t.len() != 8 {
                return t.parse::<u32>().ok().map(i64::from);
            }
            let moment = parse_date_text(t)?;
            let value = if date_time {
                moment.and_utc().timestamp()
            } else {
                i64::from(chrono::Datelike::num_days_from_ce(&moment.date()) - EPOCH_DAYS_FROM_CE)
            };
            Some(range.map_or(value, |(least, most)| value.clamp(least, most)))
        })
        .collect();
    let failed: BooleanArray = texts
        .iter()
        .zip(&parsed)
        .map(|(t, p)| Some(t.is_some() && p.is_none()))
        .collect();
    let out: ArrayRef = match target {
        DataType::Timestamp(_, zone) => Arc::new(
            parsed
                .iter()
                .copied()
                .collect::<TimestampSecondArray>()
                .with_timezone_opt(zone.clone()),
        ),
        _ => Arc::new(
            parsed
                .iter()
                .map(|d| d.map(|d| d as i32))
                .collect::<Date32Array>(),
        ),
    };
    Ok((out, failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fit_only_exactly() {
        assert!(fit(Exact::Float(1.5), &DataType::Int8).is_none());
        assert!(fit(Exact::Float(2.0), &DataType::UInt8).is_some());
        assert!(fit(Exact::Integer(300), &DataType::UInt8).is_none());
        assert!(fit(Exact::Integer(-1), &DataType::UInt64).is_none());
        assert!(fit(Exact::Float(0.1), &DataType::Float32).is_none());
        assert!(fit(Exact::Integer(16_777_217), &DataType::Float32).is_none());
        assert!(fit(Exact::Float(f64::NAN), &DataType::Int32).is_none());
    }

    #[test]
    fn text_parses_strictly() {
        assert!(parse_number(" 12", &DataType::Int32).is_none());
        assert!(parse_number("1e2", &DataType::Int32).is_none());
        assert!(parse_number("-0", &DataType::UInt8).is_none());
        assert!(parse_number("+1", &DataType::Int8).is_some());
        assert!(parse_number("1e3", &DataType::Float64).is_some());
        assert!(parse_date_text("2020-1-1").is_some());
        assert!(parse_date_text("20200101").is_some());
        assert!(parse_date_text("2020-01-01 10:00:00").is_some());
        assert!(parse_date_text("2020-13-01").is_none());
        let overflow = parse_date_text("2020-02-30").unwrap();
        assert_eq!(
            overflow.date(),
            NaiveDate::from_ymd_opt(2020, 3, 1).unwrap()
        );
    }
}
