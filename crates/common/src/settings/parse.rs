//! Setting values from text as users write them, checked against the
//! setting's kind with ClickHouse's codes for what is wrong.

use super::{SettingDef, SettingKind, SettingValue};
use crate::error::{ErrorCode, Result, StrataError};

pub(super) fn parse_value(def: &SettingDef, value: &str) -> Result<SettingValue> {
    let trimmed = value.trim();
    // `auto(4)` is how ClickHouse shows an `auto` it resolved.
    let auto = trimmed.eq_ignore_ascii_case("auto")
        || trimmed
            .strip_prefix("auto(")
            .is_some_and(|rest| rest.ends_with(')'));
    match def.kind {
        SettingKind::Bool => parse_bool(def, trimmed),
        SettingKind::BoolAuto if auto => Ok(SettingValue::String("auto".to_string())),
        SettingKind::BoolAuto => parse_bool(def, trimmed),
        SettingKind::UInt64 => parse_u64(def, trimmed).map(SettingValue::UInt64),
        SettingKind::NonZeroUInt64 => match parse_u64(def, trimmed)? {
            0 => Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("A setting's value has to be greater than 0 ({})", def.name),
            )),
            n => Ok(SettingValue::UInt64(n)),
        },
        SettingKind::MaxThreads | SettingKind::UInt64Auto if auto => Ok(SettingValue::UInt64(0)),
        SettingKind::MaxThreads | SettingKind::UInt64Auto => {
            parse_u64(def, trimmed).map(SettingValue::UInt64)
        }
        SettingKind::Int64 => parse_i64(def, trimmed).map(SettingValue::Int64),
        SettingKind::Float => parse_f64(def, trimmed).map(SettingValue::Float),
        SettingKind::FloatAuto if auto => Ok(SettingValue::String("auto".to_string())),
        SettingKind::FloatAuto => parse_f64(def, trimmed).map(SettingValue::Float),
        SettingKind::Ratio | SettingKind::Seconds | SettingKind::Milliseconds => {
            match parse_f64(def, trimmed)? {
                v if v >= 0.0 => Ok(SettingValue::Float(v)),
                _ => Err(cannot_parse(def, value)),
            }
        }
        SettingKind::String => Ok(SettingValue::String(value.to_string())),
        SettingKind::Char if value.chars().count() == 1 => {
            Ok(SettingValue::String(value.to_string()))
        }
        SettingKind::Char => Err(StrataError::new(
            ErrorCode::SIZE_OF_FIXED_STRING_DOESNT_MATCH,
            format!(
                "A setting's value string has to be an exactly one character long ({})",
                def.name
            ),
        )),
        SettingKind::Enum(words) => parse_enum(def, words, trimmed),
    }
}

fn parse_bool(def: &SettingDef, text: &str) -> Result<SettingValue> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(SettingValue::Bool(true)),
        "0" | "false" => Ok(SettingValue::Bool(false)),
        _ if text.parse::<f64>().is_ok() => Err(StrataError::new(
            ErrorCode::CANNOT_CONVERT_TYPE,
            format!(
                "Field value {text} is out of range of bool type ({})",
                def.name
            ),
        )),
        _ => Err(cannot_parse(def, text)),
    }
}

/// ClickHouse's code for a word its enum type does not have.
fn enum_error_code(type_name: &str) -> ErrorCode {
    match type_name {
        "OverflowMode" | "OverflowModeGroupBy" => ErrorCode::UNKNOWN_OVERFLOW_MODE,
        "TotalsMode" => ErrorCode::UNKNOWN_TOTALS_MODE,
        "LoadBalancing" => ErrorCode::UNKNOWN_LOAD_BALANCING,
        "DistributedProductMode" => ErrorCode::UNKNOWN_DISTRIBUTED_PRODUCT_MODE,
        "JoinStrictness" => ErrorCode::UNKNOWN_JOIN,
        _ => ErrorCode::BAD_ARGUMENTS,
    }
}

/// An enum word, as listed or matching one but for case (stored as listed);
/// or several, separated by commas, for the types that take a list
/// (`join_algorithm = 'direct,hash'`).
fn parse_enum(def: &SettingDef, words: &[&str], text: &str) -> Result<SettingValue> {
    let find = |piece: &str| {
        words
            .iter()
            .find(|w| **w == piece)
            .or_else(|| words.iter().find(|w| w.eq_ignore_ascii_case(piece)))
    };
    let found: Option<Vec<&str>> = if text.contains(',') {
        text.split(',').map(|p| find(p.trim()).copied()).collect()
    } else {
        find(text).map(|w| vec![*w])
    };
    match found {
        Some(found) => Ok(SettingValue::String(found.join(","))),
        None => Err(StrataError::new(
            enum_error_code(def.type_name_or_name()),
            format!(
                "Unexpected value of {}: '{text}'. Must be one of [{}]",
                def.type_name_or_name(),
                words
                    .iter()
                    .map(|w| format!("'{w}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Integers as ClickHouse reads them in settings: plain, a whole float
/// (`1e9`), or with a size suffix (`10G` is 10^10, `2GiB` 2^31).
fn parse_u64(def: &SettingDef, text: &str) -> Result<u64> {
    parse_size(text).ok_or_else(|| cannot_parse(def, text))
}

/// A count of bytes as ClickHouse reads sizes in settings and its
/// configuration: plain, a whole float, or with a size suffix.
pub fn parse_size(text: &str) -> Option<u64> {
    if let Ok(v) = text.parse::<u64>() {
        return Some(v);
    }
    let (number, scale) = split_suffix(text);
    let v = number.parse::<f64>().ok()? * scale;
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 1.8e19).then_some(v as u64)
}

fn parse_i64(def: &SettingDef, text: &str) -> Result<i64> {
    if let Ok(v) = text.parse::<i64>() {
        return Ok(v);
    }
    let f: f64 = text.parse().map_err(|_| cannot_parse(def, text))?;
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        Ok(f as i64)
    } else {
        Err(cannot_parse(def, text))
    }
}

fn parse_f64(def: &SettingDef, text: &str) -> Result<f64> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| cannot_parse(def, text))
}

/// `10G` as (`10`, 1e9); `2GiB` as (`2`, 2^30); text without a suffix as (text, 1).
fn split_suffix(text: &str) -> (&str, f64) {
    let body = text.strip_suffix(['B', 'b']).unwrap_or(text);
    let (body, binary) = match body.strip_suffix(['i', 'I']) {
        Some(rest) => (rest, true),
        None => (body, false),
    };
    let Some(last) = body.chars().last() else {
        return (text, 1.0);
    };
    let power = match last.to_ascii_uppercase() {
        'K' => 1,
        'M' => 2,
        'G' => 3,
        'T' => 4,
        'P' => 5,
        'E' => 6,
        _ => return (text, 1.0),
    };
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    (&body[..body.len() - 1], base.powi(power))
}

fn cannot_parse(def: &SettingDef, value: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
        format!(
            "Cannot parse input: '{value}' as {} for setting '{}'",
            def.type_name_or_name(),
            def.name
        ),
    )
}

impl SettingDef {
    fn type_name_or_name(&self) -> &'static str {
        if self.type_name.is_empty() {
            self.kind.type_name()
        } else {
            self.type_name
        }
    }
}
