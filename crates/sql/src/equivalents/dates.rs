//! ClickHouse date and time functions that are rewritten to DataFusion expressions
//! (see the parent module); functions with their own semantics are UDFs in
//! `strata-functions`.
//!
//! - `DATE_DIFF`, `TIMESTAMP_DIFF`, `timestampDiff` and `timestamp_diff`
//!   are `dateDiff` under other names.
//! - `DATE_FORMAT` (any case) is `formatDateTime`, not DataFusion's
//!   `date_format`, which takes strftime's specifiers.
//! - `time_bucket` (any case) is `toStartOfInterval`.
//! - `toIntervalDay(n)` and the other units are `INTERVAL n DAY`, so the
//!   same literals work (not yet a computed `n`).
//!
//! [`cast`]: `CAST(x AS T)` and `x::T` to ClickHouse's date types are the
//! conversion functions (`toDate`, `toDate32`, `toDateTime`,
//! `toDateTime64`), which DataFusion's casts are not; `Nullable(T)` is `T`,
//! as every Strata column may hold NULLs.

use datafusion::sql::sqlparser::ast::{DataType, DateTimeField, Expr, Interval, Value};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "DATE_DIFF",
    "TIMESTAMP_DIFF",
    "timestampDiff",
    "timestamp_diff",
    "DATE_FORMAT",
    "time_bucket",
    "toIntervalSecond",
    "toIntervalMinute",
    "toIntervalHour",
    "toIntervalDay",
    "toIntervalWeek",
    "toIntervalMonth",
    "toIntervalQuarter",
    "toIntervalYear",
];

/// `toIntervalDay(n)` and its kind as `INTERVAL n DAY`, the unit each names.
fn interval_unit(name: &str) -> Option<DateTimeField> {
    Some(match name {
        "toIntervalSecond" => DateTimeField::Second,
        "toIntervalMinute" => DateTimeField::Minute,
        "toIntervalHour" => DateTimeField::Hour,
        "toIntervalDay" => DateTimeField::Day,
        "toIntervalWeek" => DateTimeField::Week(None),
        "toIntervalMonth" => DateTimeField::Month,
        "toIntervalYear" => DateTimeField::Year,
        _ => return None,
    })
}

fn takes(name: &str, args: &[&Expr], counts: &[usize]) -> Result<()> {
    if counts.contains(&args.len()) {
        return Ok(());
    }
    let expected: Vec<String> = counts.iter().map(usize::to_string).collect();
    Err(StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {name} doesn't match: passed {}, should be {}",
            args.len(),
            expected.join(" or ")
        ),
    ))
}

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let all = || args.iter().map(|a| (*a).clone()).collect::<Vec<_>>();
    let expr = match name {
        "DATE_DIFF" | "TIMESTAMP_DIFF" | "timestampDiff" | "timestamp_diff" => {
            takes(name, args, &[3])?;
            super::date_diff(args[0], args[1], args[2])?
        }
        _ if name.eq_ignore_ascii_case("DATE_FORMAT") => {
            takes(name, args, &[2])?;
            call("formatDateTime", all())
        }
        _ if name.eq_ignore_ascii_case("time_bucket") => {
            takes(name, args, &[2])?;
            call("date_bin", vec![args[1].clone(), args[0].clone()])
        }
        // DataFusion reads no quarters: three months each.
        "toIntervalQuarter" => {
            takes(name, args, &[1])?;
            let months = match args[0] {
                Expr::Value(v) => match &v.value {
                    Value::Number(n, _) => n.parse::<i64>().ok().map(|n| n * 3),
                    _ => None,
                },
                _ => None,
            }
            .ok_or_else(|| {
                StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "toIntervalQuarter takes a whole number literal here",
                )
            })?;
            let months = Expr::value(Value::Number(months.to_string(), false));
            return equivalent("toIntervalMonth", &[&months]);
        }
        _ if let Some(unit) = interval_unit(name) => {
            takes(name, args, &[1])?;
            Expr::Interval(Interval {
                value: Box::new(args[0].clone()),
                leading_field: Some(unit),
                leading_precision: None,
                last_field: None,
                fractional_seconds_precision: None,
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(expr))
}

/// `CAST(value AS data_type)` as ClickHouse converts, if `data_type` is a
/// date type. `DateTime('zone')`, which sqlparser does not read, comes as
/// `DateTime64(0, 'zone')` from the tokens (`clickhouse_tokens`).
pub fn cast(value: &Expr, data_type: &DataType) -> Option<Expr> {
    let text = |s: &str| Expr::value(Value::SingleQuotedString(s.to_string()));
    let mut args = vec![value.clone()];
    let name = match data_type {
        DataType::Nullable(inner) | DataType::LowCardinality(inner) => return cast(value, inner),
        DataType::Date => "toDate",
        DataType::Date32 => "toDate32",
        DataType::Datetime(None) => "toDateTime",
        DataType::Datetime64(0, Some(zone)) => {
            args.push(text(zone));
            "toDateTime"
        }
        DataType::Datetime64(precision, zone) => {
            args.push(Expr::value(Value::Number(precision.to_string(), false)));
            args.extend(zone.as_deref().map(text));
            "toDateTime64"
        }
        _ => return None,
    };
    Some(call(name, args))
}
