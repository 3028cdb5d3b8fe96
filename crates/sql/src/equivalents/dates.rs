//! ClickHouse date and time functions that are rewritten to DataFusion expressions
//! (see the parent module); functions with their own semantics are UDFs in
//! `strata-functions`.
//!
//! - `DATE_DIFF`, `TIMESTAMP_DIFF`, `timestampDiff` and `timestamp_diff`
//!   are `dateDiff` under other names.
//! - `DATE_FORMAT` (any case) is `formatDateTime`, not DataFusion's
//!   `date_format`, which takes strftime's specifiers.
//! - `time_bucket` (any case) is `toStartOfInterval`.
//! - `date_add(DAY, n, d)`, `date_add(d, INTERVAL n DAY)` and their
//!   other names and `_sub` forms are `d + toIntervalDay(n)` (or `-`);
//!   `addDate(d, i)` and `subDate(d, i)` are `d + i` and `d - i`.
//!
//! [`cast`]: `CAST(x AS T)` and `x::T` to ClickHouse's date types are the
//! conversion functions (`toDate`, `toDate32`, `toDateTime`,
//! `toDateTime64`), which DataFusion's casts are not; `Nullable(T)` is `T`,
//! as every Strata column may hold NULLs.

use datafusion::sql::sqlparser::ast::{BinaryOperator, DataType, Expr, Value};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::dates::intervals::IntervalKind;

use crate::ast_rewrite::call;
use crate::clickhouse_tokens::ZONED_DATE_TIME_SCALE;

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "DATE_DIFF",
    "timeDiff",
    "TIMEDIFF",
    "TIMESTAMP_DIFF",
    "timestampDiff",
    "timestamp_diff",
    "DATE_FORMAT",
    "time_bucket",
    "dateName",
    "date_add",
    "dateAdd",
    "DATE_ADD",
    "timestamp_add",
    "timestampAdd",
    "TIMESTAMP_ADD",
    "date_sub",
    "dateSub",
    "DATE_SUB",
    "timestamp_sub",
    "timestampSub",
    "TIMESTAMP_SUB",
    "addDate",
    "ADDDATE",
    "subDate",
    "SUBDATE",
    "DATE",
    "timestamp",
    "toDateTime64OrNull",
    "toDateTime64OrZero",
    "toDateTime64OrDefault",
    "timeSlots",
];

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

/// `dateName('part', d[, zone])`: the part's number as text, or the
/// English name of a month or weekday.
fn date_name(args: &[&Expr]) -> Result<Expr> {
    let part = match args[0] {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    };
    let moment = match args.get(2) {
        Some(zone) => call("toTimeZone", vec![args[1].clone(), (*zone).clone()]),
        None => args[1].clone(),
    };
    let number = |function: &str| call("toString", vec![call(function, vec![moment.clone()])]);
    Ok(match part {
        Some("year") => number("toYear"),
        Some("quarter") => number("toQuarter"),
        Some("month") => call("monthName", vec![moment]),
        Some("week") => number("toISOWeek"),
        Some("dayofyear") => number("toDayOfYear"),
        Some("day") => number("toDayOfMonth"),
        Some("weekday") => call(
            "formatDateTime",
            vec![moment, crate::ast_rewrite::string_literal("%W")],
        ),
        Some("hour") => number("toHour"),
        Some("minute") => number("toMinute"),
        Some("second") => number("toSecond"),
        _ => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Function dateName takes a constant part first: year, quarter, month, week, dayofyear, day, weekday, hour, minute or second, not {}",
                    args[0]
                ),
            ));
        }
    })
}

/// `date_add` and its other names: `+`; `date_sub` and its: `-`.
fn moved_by(name: &str) -> Option<BinaryOperator> {
    match name.to_ascii_lowercase().as_str() {
        "date_add" | "dateadd" | "timestamp_add" | "timestampadd" => Some(BinaryOperator::Plus),
        "date_sub" | "datesub" | "timestamp_sub" | "timestampsub" => Some(BinaryOperator::Minus),
        "adddate" => Some(BinaryOperator::Plus),
        "subdate" => Some(BinaryOperator::Minus),
        _ => None,
    }
}

/// `date_add(DAY, n, d)` as `d + toIntervalDay(n)` (ClickHouse's parser
/// reads it so, and names the column after that), `date_add(d, i)` as
/// `d + i`; the `_sub` forms with `-`.
pub(crate) fn moved(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let Some(sign) = moved_by(name) else {
        return Ok(None);
    };
    let two_only = name.eq_ignore_ascii_case("addDate") || name.eq_ignore_ascii_case("subDate");
    takes(name, args, if two_only { &[2] } else { &[2, 3] })?;
    Ok(Some(match args {
        [moment, interval] => super::binary_op((*moment).clone(), sign, (*interval).clone()),
        [unit, amount, moment] => {
            let kind = unit_keyword(name, unit)?;
            super::shifted(moment, sign, kind, amount)
        }
        _ => unreachable!("takes checked the count"),
    }))
}

/// The unit keyword `date_add(DAY, n, d)` starts with (a bare word, as
/// ClickHouse's parser reads it).
fn unit_keyword(name: &str, unit: &Expr) -> Result<IntervalKind> {
    let word = match unit {
        Expr::Identifier(ident) if ident.quote_style.is_none() => Some(ident.value.as_str()),
        _ => None,
    };
    word.and_then(IntervalKind::from_keyword).ok_or_else(|| {
        // ClickHouse reads any other first argument as `plus` of three.
        StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Function {name} of three arguments takes a unit keyword first (DAY, MONTH, ...), not {unit}"
            ),
        )
    })
}

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
/// An `INTERVAL` literal or a `toInterval*` call.
fn is_interval(expr: &Expr) -> bool {
    match expr {
        Expr::Interval(_) => true,
        Expr::Function(f) => f
            .name
            .to_string()
            .trim_matches('"')
            .starts_with("toInterval"),
        _ => false,
    }
}

pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let all = || args.iter().map(|a| (*a).clone()).collect::<Vec<_>>();
    let expr = match name {
        // ClickHouse reads these names in any letter case.
        _ if ["dateDiff", "date_diff", "timestampDiff", "timestamp_diff"]
            .iter()
            .any(|spelling| spelling.eq_ignore_ascii_case(name)) =>
        {
            takes(name, args, &[3, 4])?;
            super::date_diff(args[0], args[1], args[2], args.get(3).copied())?
        }
        _ if name.eq_ignore_ascii_case("timeDiff") => {
            takes(name, args, &[2])?;
            let second = Expr::value(Value::SingleQuotedString("second".into()));
            super::date_diff(&second, args[0], args[1], None)?
        }
        "timeSlots" => {
            takes(name, args, &[2, 3])?;
            time_slots(args)
        }
        // `toDate32(moment, zone)`: the date on that zone's clock.
        "toDate32" if args.len() == 2 => {
            let zero = Expr::value(Value::Number("0".into(), false));
            let moment = call("toDateTime64", vec![args[0].clone(), zero, args[1].clone()]);
            call("toDate32", vec![moment])
        }
        // ClickHouse's `date_bin(moment, interval)`, not DataFusion's
        // `date_bin(interval, moment)` (which the rewrites themselves call).
        _ if (name.eq_ignore_ascii_case("date_bin")
            || name.eq_ignore_ascii_case("time_bucket"))
            && args.len() == 2
            && is_interval(args[1])
            && !is_interval(args[0]) =>
        {
            super::start_of_interval(args[0], args[1])
        }
        _ if name.eq_ignore_ascii_case("DATE_FORMAT") => {
            takes(name, args, &[2])?;
            call("formatDateTime", all())
        }
        _ if name.eq_ignore_ascii_case("time_bucket") => {
            takes(name, args, &[2])?;
            call("date_bin", vec![args[1].clone(), args[0].clone()])
        }
        _ if let Some(moved) = moved(name, args)? => moved,
        // `toString(moment, zone)`: the moment shown on that zone's clock.
        "toString" if args.len() == 2 => {
            let moment = call("toTimeZone", all());
            call("toString", vec![moment])
        }
        "dateName" => {
            takes(name, args, &[2, 3])?;
            date_name(args)?
        }
        _ if name.eq_ignore_ascii_case("DATE") => {
            takes(name, args, &[1])?;
            call("toDate", all())
        }
        // MySQL's TIMESTAMP(expr [, time]): a DateTime64(6), moved by the time.
        _ if name.eq_ignore_ascii_case("timestamp") => {
            takes(name, args, &[1, 2])?;
            let moment = call("toDateTime64", vec![args[0].clone(), super::number(6)]);
            match args {
                [_, time] => call("addMicroseconds", vec![moment, time_micros(time)]),
                _ => moment,
            }
        }
        "toDateTime64OrNull" | "toDateTime64OrZero" | "toDateTime64OrDefault" => {
            date_time64_or(name, args)?
        }
        _ => return Ok(None),
    };
    Ok(Some(expr))
}

/// The microseconds a time text `[-]hh:mm:ss[.ffffff]` spans.
/// `timeSlots(start, duration[, size])`: the starts of the slots of `size`
/// seconds (1800 by default) from the one holding `start` to the one holding
/// `start + duration`, as DateTimes.
fn time_slots(args: &[&Expr]) -> Expr {
    let number = |n: &str| Expr::value(Value::Number(n.into(), false));
    let size = args.get(2).map_or_else(|| number("1800"), |s| (*s).clone());
    let seconds = call("toUInt32", vec![args[0].clone()]);
    let first = call(
        "multiply",
        vec![
            call("intDiv", vec![seconds.clone(), size.clone()]),
            size.clone(),
        ],
    );
    let end = call(
        "plus",
        vec![call("plus", vec![seconds, args[1].clone()]), number("1")],
    );
    let slots = call("range", vec![first, end, size]);
    let to_date_time = |item: Expr| call("toDateTime", vec![item]);
    call(
        "array_transform",
        vec![slots, super::arrays::lambda_of(to_date_time)],
    )
}

fn time_micros(time: &Expr) -> Expr {
    let unsigned = call("replaceOne", vec![time.clone(), text("-"), text("")]);
    let on_the_epoch = call("concat", vec![text("1970-01-01 "), unsigned]);
    let moment = call(
        "toDateTime64",
        vec![on_the_epoch, super::number(6), text("UTC")],
    );
    let micros = call("toUnixTimestamp64Micro", vec![moment]);
    let negative = call("starts_with", vec![time.clone(), text("-")]);
    let minus_one = Expr::value(Value::Number("-1".to_string(), false));
    let sign = crate::ast_rewrite::case(&[negative, minus_one], Some(super::number(1)));
    super::binary_op(sign, BinaryOperator::Multiply, micros)
}

fn text(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

/// `toDateTime64OrNull(s, precision [, zone])` and its `OrZero` and
/// `OrDefault(..., default)` forms: the checked conversion to the
/// DateTime64 type those constants name.
fn date_time64_or(name: &str, args: &[&Expr]) -> Result<Expr> {
    let with_default = name == "toDateTime64OrDefault";
    takes(name, args, if with_default { &[2, 3, 4] } else { &[2, 3] })?;
    let constant = |i: usize| match args.get(i) {
        Some(Expr::Value(v)) => match &v.value {
            Value::Number(n, _) => Some(n.clone()),
            Value::SingleQuotedString(s) => Some(format!("'{}'", s.replace('\'', "\\'"))),
            _ => None,
        },
        _ => None,
    };
    let Some(precision) = constant(1) else {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Second argument for function {name} must be a constant precision"),
        ));
    };
    let zone = match args.len() {
        3 | 4 => Some(constant(2).ok_or_else(|| {
            StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Third argument for function {name} must be a constant time zone"),
            )
        })?),
        _ => None,
    };
    let type_name = match zone {
        Some(zone) => format!("DateTime64({precision}, {zone})"),
        None => format!("DateTime64({precision})"),
    };
    let mut converted = vec![args[0].clone(), text(&type_name)];
    let checked = match name {
        "toDateTime64OrNull" => "accurateCastOrNull",
        _ => "accurateCastOrDefault",
    };
    if with_default && args.len() == 4 {
        converted.push(args[3].clone());
    }
    Ok(call(checked, converted))
}

/// `CAST(value AS data_type)` as ClickHouse converts, if `data_type` is a
/// date type. `DateTime('zone')`, which sqlparser does not read, comes as
/// a DateTime64 of [`ZONED_DATE_TIME_SCALE`] from the tokens.
pub fn cast(value: &Expr, data_type: &DataType) -> Option<Expr> {
    let text = |s: &str| Expr::value(Value::SingleQuotedString(s.to_string()));
    let mut args = vec![value.clone()];
    let name = match data_type {
        DataType::Nullable(inner) => {
            return cast(value, inner).map(|converted| call("toNullable", vec![converted]));
        }
        DataType::LowCardinality(inner) => return cast(value, inner),
        DataType::Date => "toDate",
        DataType::Date32 => "toDate32",
        // `TIMESTAMP` is ClickHouse's DateTime, `TIMESTAMP(p)` its DateTime64(p).
        DataType::Datetime(None) | DataType::Timestamp(None, _) => "toDateTime",
        DataType::Timestamp(Some(precision), _) => {
            args.push(Expr::value(Value::Number(precision.to_string(), false)));
            "toDateTime64"
        }
        DataType::Datetime64(ZONED_DATE_TIME_SCALE, Some(zone)) => {
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
