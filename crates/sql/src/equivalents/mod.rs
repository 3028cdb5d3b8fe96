//! ClickHouse functions that DataFusion has under another name or form:
//! `replaceAll` is `replace`, `has` is `array_has`, `isNull(x)` is
//! `x IS NULL`, `toInt32OrNull(s)` is `TRY_CAST(s AS INT)`.
//!
//! Each is rewritten in the parsed statement, so the result is planned as
//! DataFusion's own; the column keeps the ClickHouse name it was given
//! before the rewrite. Functions whose semantics differ from every
//! DataFusion function are implemented in `strata-functions` instead.

use datafusion::sql::sqlparser::ast::{
    Array, BinaryOperator, CastKind, DataType, ExactNumberInfo, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::dates::intervals::IntervalKind;

use crate::ast_rewrite::{call, string_literal};

pub use aggregates::aggregate;
pub use other::query_constant;

pub(crate) mod aggregates;
mod arrays;
pub(crate) mod dates;
mod encodings;
mod numeric;
mod other;
mod strings;
mod time_windows;

/// Every name rewritten here or in a family's module, for `system.functions`.
pub fn names() -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .chain(strings::NAMES)
        .chain(numeric::NAMES)
        .chain(dates::NAMES)
        .chain(time_windows::NAMES)
        .chain(arrays::NAMES)
        .chain(encodings::NAMES)
        .chain(other::NAMES)
        .chain(aggregates::NAMES)
        .chain(IN_FUNCTIONS)
        .copied()
}

/// `in(x, set)` and its forms, `x [GLOBAL] [NOT] IN set` as functions,
/// and `nullIn(x, set)` and its forms, whose answer is never NULL.
pub const IN_FUNCTIONS: &[&str] = &[
    "in",
    "notIn",
    "globalIn",
    "globalNotIn",
    "nullIn",
    "notNullIn",
    "globalNullIn",
    "globalNotNullIn",
];

/// The ClickHouse names rewritten in this module.
const NAMES: &[&str] = &[
    "isNull",
    "isNotNull",
    "like",
    "notLike",
    "ilike",
    "notILike",
    "replaceAll",
    "replaceRegexpAll",
    "replaceRegexpOne",
    "arrayStringConcat",
    "has",
    "hasAll",
    "hasAny",
    "indexOf",
    "arrayDistinct",
    "arrayReverse",
    "arraySort",
    "arrayJoin",
    "tuple",
    "bitAnd",
    "bitOr",
    "bitXor",
    "toDecimal32",
    "toDecimal64",
    "toDecimal128",
    "toDecimal256",
    "toDecimal32OrNull",
    "toDecimal64OrNull",
    "toDecimal128OrNull",
    "toDecimal256OrNull",
    "toDecimal32OrZero",
    "toDecimal64OrZero",
    "toDecimal128OrZero",
    "toDecimal256OrZero",
    "toDecimal32OrDefault",
    "toDecimal64OrDefault",
    "toDecimal128OrDefault",
    "toDecimal256OrDefault",
    "toStartOfInterval",
    "toUnixTimestamp",
    "dateDiff",
    "date_diff",
    "addSeconds",
    "addMinutes",
    "addHours",
    "addDays",
    "addWeeks",
    "addMonths",
    "addQuarters",
    "addYears",
    "subtractSeconds",
    "subtractMinutes",
    "subtractHours",
    "subtractDays",
    "subtractWeeks",
    "subtractMonths",
    "subtractQuarters",
    "subtractYears",
    "materialize",
    "identity",
    "ifNull",
    "nullIf",
    "isZeroOrNull",
    "trimLeft",
    "trimRight",
    "trimBoth",
    "sign",
    "reverseUTF8",
    "yesterday",
    "arrayMap",
    "arrayFilter",
    "arrayExists",
    "arrayAll",
    "arrayCount",
    "transform",
    "arraySum",
    "arrayAvg",
    "arrayProduct",
    "mapKeys",
    "mapValues",
];

/// `name(lambda, array)` as DataFusion's `to(array, lambda)`; DataFusion's
/// higher-order functions take one array.
fn higher_order(name: &str, to: &str, args: &[&Expr]) -> Result<Expr> {
    match args {
        [lambda @ Expr::Lambda(_), array] => {
            Ok(call(to, vec![(*array).clone(), (*lambda).clone()]))
        }
        // Over several arrays, the lambda's values as conditions.
        [Expr::Lambda(_), _, ..] if to == "array_filter" => Ok(call(
            name,
            vec![args[1].clone(), arrays::mapped(name, args)?],
        )),
        // The lambda's values over the zipped arrays.
        [Expr::Lambda(_), ..] => arrays::mapped(name, args),
        _ => Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("The first argument of function {name} must be a lambda function"),
        )),
    }
}

/// `transform(x, [from...], [to...][, default])` as a CASE over the constant
/// arrays; without a default, an unmatched `x` is itself.
fn transform(args: &[&Expr]) -> Result<Expr> {
    if !(3..=4).contains(&args.len()) {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function transform doesn't match: passed {}, should be 3 or 4",
                args.len()
            ),
        ));
    }
    let (Expr::Array(from), Expr::Array(to)) = (args[1], args[2]) else {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "transform with arrays that are not literal is not supported yet",
        ));
    };
    if from.elem.len() != to.elem.len() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "Second and third arguments of function transform must have equal sizes",
        ));
    }
    let pairs: Vec<Expr> = from
        .elem
        .iter()
        .zip(&to.elem)
        .flat_map(|(from, to)| {
            let matches = Expr::BinaryOp {
                left: Box::new(args[0].clone()),
                op: BinaryOperator::Eq,
                right: Box::new(from.clone()),
            };
            [matches, to.clone()]
        })
        .collect();
    let otherwise = args
        .get(3)
        .map_or_else(|| args[0].clone(), |d| (*d).clone());
    Ok(crate::ast_rewrite::case(&pairs, Some(otherwise)))
}

/// Whether `array` holds a NULL element.
fn has_null(array: &Expr) -> Expr {
    let nulls = call(
        "array_transform",
        vec![array.clone(), parse_lambda("x -> x IS NULL")],
    );
    call("array_has", vec![nulls, Expr::value(Value::Boolean(true))])
}

/// A lambda written in SQL, for rewrites that need one of their own.
fn parse_lambda(text: &str) -> Expr {
    let dialect = datafusion::sql::sqlparser::dialect::ClickHouseDialect {};
    datafusion::sql::sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_expr())
        .expect("a lambda of our own parses")
}

/// `in(x, set)` (one of [`IN_FUNCTIONS`]) as `x [NOT] IN set` is read
/// where it stands: an array is searched, a subquery's set too.
pub fn in_function(name: &str, args: &[&Expr]) -> Result<Expr> {
    if args.len() != 2 {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {name} doesn't match: passed {}, should be 2",
                args.len()
            ),
        ));
    }
    let negated = matches!(
        name,
        "notIn" | "globalNotIn" | "notNullIn" | "globalNotNullIn"
    );
    let not = if negated { "NOT " } else { "" };
    let text = match args[1] {
        Expr::Array(_) => format!("{not}has({}, {})", args[1], args[0]),
        set => format!("({}) {not}IN {set}", args[0]),
    };
    let mut written = crate::parse_expr_text(&text)?;
    crate::in_subquery::as_array_search(&mut written);
    // ClickHouse's `nullIn` answers a NULL value as not found (0, and
    // `notNullIn` 1), where `in` answers NULL.
    if matches!(
        name,
        "nullIn" | "notNullIn" | "globalNullIn" | "globalNotNullIn"
    ) {
        let answer = |e: Expr| call("toUInt8", vec![e]);
        written = call(
            "coalesce",
            vec![answer(written), answer(number(u8::from(negated).into()))],
        );
    }
    Ok(written)
}

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    // No argument is a NULL of no type, or no pairs (DataFusion wants one
    // argument at least).
    if args.is_empty() {
        if name.eq_ignore_ascii_case("coalesce") {
            return Ok(Some(Expr::value(Value::Null)));
        }
        if name == "arrayZip" {
            return Ok(Some(Expr::Array(Array {
                elem: Vec::new(),
                named: false,
            })));
        }
    }
    for family in [
        strings::equivalent,
        numeric::equivalent,
        dates::equivalent,
        time_windows::equivalent,
        arrays::equivalent,
        encodings::equivalent,
        other::equivalent,
    ] {
        if let Some(expr) = family(name, args)? {
            return Ok(Some(expr));
        }
    }
    let takes = |counts: &[usize]| -> Result<()> {
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
    };
    let arg = |i: usize| Box::new(args[i].clone());
    let all = || args.iter().map(|a| (*a).clone()).collect::<Vec<_>>();
    let renamed = |to: &str, counts: &[usize]| -> Result<Expr> {
        takes(counts)?;
        Ok(call(to, all()))
    };
    let binary = |op: BinaryOperator| -> Result<Expr> {
        takes(&[2])?;
        Ok(Expr::BinaryOp {
            left: arg(0),
            op,
            right: arg(1),
        })
    };
    let like = |negated: bool, case_insensitive: bool| -> Result<Expr> {
        takes(&[2])?;
        let (expr, pattern) = (arg(0), arg(1));
        Ok(if case_insensitive {
            Expr::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            }
        } else {
            Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            }
        })
    };
    let expr = match name {
        "isNull" => {
            takes(&[1])?;
            Expr::IsNull(arg(0))
        }
        "isNotNull" => {
            takes(&[1])?;
            Expr::IsNotNull(arg(0))
        }
        "like" => like(false, false)?,
        "notLike" => like(true, false)?,
        "ilike" => like(false, true)?,
        "notILike" => like(true, true)?,
        "replaceAll" => renamed("replace", &[3])?,
        // An empty pattern replaces nothing in ClickHouse.
        "replaceRegexpOne" | "replaceRegexpAll"
            if args.len() == 3
                && matches!(args[1], Expr::Value(v) if v.value == Value::SingleQuotedString(String::new())) =>
        {
            Expr::Nested(Box::new(args[0].clone()))
        }
        "replaceRegexpOne" => renamed("regexp_replace", &[3])?,
        "replaceRegexpAll" => {
            takes(&[3])?;
            let mut global = all();
            global.push(Expr::value(Value::SingleQuotedString("g".into())));
            call("regexp_replace", global)
        }
        "arrayStringConcat" => {
            takes(&[1, 2])?;
            let mut with_separator = all();
            if with_separator.len() == 1 {
                with_separator.push(Expr::value(Value::SingleQuotedString(String::new())));
            }
            call("array_to_string", with_separator)
        }
        // ClickHouse looks for a NULL needle as a value; DataFusion answers NULL.
        "has" if args.len() == 2 && matches!(args[1], Expr::Value(v) if v.value == Value::Null) => {
            has_null(args[0])
        }
        "has" => renamed("array_has", &[2])?,
        "hasAll" => renamed("array_has_all", &[2])?,
        "hasAny" => renamed("array_has_any", &[2])?,
        // ClickHouse's index of a missing element is 0, DataFusion's NULL.
        "indexOf" => {
            takes(&[2])?;
            call("coalesce", vec![call("array_position", all()), number(0)])
        }
        // ClickHouse leaves NULL out of the distinct elements.
        "arrayDistinct" => arrays::without_nulls(renamed("array_distinct", &[1])?),
        "arrayReverse" => renamed("array_reverse", &[1])?,
        "arraySort" => renamed("array_sort", &[1])?,
        "arrayJoin" => renamed("unnest", &[1])?,
        // The value itself: constants and full columns compute alike here.
        "materialize" | "identity" => {
            takes(&[1])?;
            args[0].clone()
        }
        // No arguments: the empty map and the empty string, which
        // DataFusion's `map` and `concat` refuse to build.
        "map" if args.is_empty() => {
            let empty = || {
                Expr::Array(Array {
                    elem: vec![],
                    named: false,
                })
            };
            call("mapFromArrays", vec![empty(), empty()])
        }
        "concat" if args.is_empty() => string_literal(""),
        "yesterday" => {
            takes(&[0])?;
            Expr::BinaryOp {
                left: Box::new(call("today", vec![])),
                op: BinaryOperator::Minus,
                right: Box::new(number(1)),
            }
        }
        // ClickHouse passes the lambda first, DataFusion the array.
        "arrayMap" => higher_order(name, "array_transform", args)?,
        "arrayFilter" => {
            // DataFusion's filter takes a Boolean, ClickHouse's any number.
            let mut args: Vec<Expr> = args.iter().map(|a| (*a).clone()).collect();
            if let Some(Expr::Lambda(lambda)) = args.first_mut() {
                crate::ast_rewrite::as_condition(&mut lambda.body);
            }
            higher_order(name, "array_filter", &args.iter().collect::<Vec<_>>())?
        }
        // The conditions each element gives, as Strata's UDFs take them;
        // without a lambda, the elements are the conditions.
        "arrayExists" | "arrayAll" => {
            let conditions = match args.first() {
                Some(Expr::Lambda(_)) => higher_order(name, "array_transform", args)?,
                _ => {
                    takes(&[1])?;
                    args[0].clone()
                }
            };
            let udf = if name == "arrayExists" {
                "mapExists"
            } else {
                "mapAll"
            };
            call(udf, vec![conditions])
        }
        "arrayCount" => match args.first() {
            Some(Expr::Lambda(_)) => call(name, vec![higher_order(name, "array_transform", args)?]),
            // Without a lambda, the elements that are not zero.
            _ => {
                takes(&[1])?;
                call(name, all())
            }
        },
        "transform" => transform(args)?,
        "arraySum" | "arrayAvg" | "arrayProduct" => {
            // With a lambda, as many arrays as it takes.
            if !matches!(args.first(), Some(Expr::Lambda(_))) {
                takes(&[1])?;
            }
            let to = match name {
                "arraySum" => "array_sum",
                "arrayAvg" => "array_avg",
                _ => "array_product",
            };
            let values = match args.len() {
                1 => args[0].clone(),
                _ => higher_order(name, "array_transform", args)?,
            };
            if name == "arraySum" {
                // `sum`'s types: UInt64 or Int64 for integers, exact past
                // 2^53; 0 for an empty array.
                let sum = Expr::value(Value::SingleQuotedString("sum".into()));
                return Ok(Some(call("arrayReduce", vec![sum, values])));
            }
            // ClickHouse's aggregate of an empty array is 0; DataFusion's is
            // NULL. ClickHouse takes no NULL elements, so its result is
            // never NULL (nor typed Nullable): `coalesce` says so.
            let empty = binary_op(
                call("cardinality", vec![values.clone()]),
                BinaryOperator::Eq,
                number(0),
            );
            let aggregate =
                crate::ast_rewrite::case(&[empty, number(0)], Some(call(to, vec![values])));
            call("coalesce", vec![aggregate, number(0)])
        }
        "mapKeys" => renamed("map_keys", &[1])?,
        "mapValues" => renamed("map_values", &[1])?,
        "ifNull" => renamed("coalesce", &[2])?,
        "nullIf" => renamed("nullif", &[2])?,
        "isZeroOrNull" => {
            takes(&[1])?;
            Expr::Nested(Box::new(Expr::BinaryOp {
                left: Box::new(Expr::IsNull(arg(0))),
                op: BinaryOperator::Or,
                right: Box::new(Expr::BinaryOp {
                    left: arg(0),
                    op: BinaryOperator::Eq,
                    right: Box::new(number(0)),
                }),
            }))
        }
        // ClickHouse trims spaces only, as DataFusion's default does; a
        // FixedString is trimmed as its text.
        "trimLeft" | "trimRight" | "trimBoth" => {
            takes(&[1])?;
            let trim = match name {
                "trimLeft" => "ltrim",
                "trimRight" => "rtrim",
                _ => "btrim",
            };
            call(trim, vec![call("toString", all())])
        }
        // DataFusion's reverse counts characters, as the UTF-8 form does.
        "reverseUTF8" => renamed("reverse", &[1])?,
        // -1, 0 or 1 as Int8, where DataFusion's signum gives a float.
        "sign" => {
            takes(&[1])?;
            cast(
                CastKind::Cast,
                call("signum", all()),
                DataType::TinyInt(None),
            )
        }
        "tuple" => call("struct", all()),
        "bitAnd" => binary(BinaryOperator::BitwiseAnd)?,
        "bitOr" => binary(BinaryOperator::BitwiseOr)?,
        "bitXor" => binary(BinaryOperator::PGBitwiseXor)?,
        "toDecimal32" | "toDecimal64" | "toDecimal128" | "toDecimal256" => {
            takes(&[2])?;
            let decimal = decimal_type(name, args[1])?;
            // Strata's conversion cuts extra digits off (DataFusion's rounds)
            // and reads exponents.
            call(
                "_CAST",
                vec![
                    args[0].clone(),
                    Expr::value(Value::SingleQuotedString(decimal.to_string())),
                ],
            )
        }
        _ if decimal_or_else(name).is_some() => {
            let (width, failure) = decimal_or_else(name).expect("matched");
            takes(match failure {
                "Default" => &[2, 3],
                _ => &[2],
            })?;
            let decimal = decimal_type(width, args[1])?;
            let mut cast_args = vec![
                args[0].clone(),
                Expr::value(Value::SingleQuotedString(decimal.to_string())),
            ];
            cast_args.extend(args.get(2).map(|d| (*d).clone()));
            match failure {
                "Null" => call("accurateCastOrNull", cast_args),
                _ => call("accurateCastOrDefault", cast_args),
            }
        }
        // A zone given moves the moment onto that zone's clock first; a
        // third argument that is not a zone is the bins' origin.
        "toStartOfInterval" => {
            takes(&[2, 3, 4])?;
            let zoned =
                |moment: &Expr, zone: &Expr| call("toTimeZone", vec![moment.clone(), zone.clone()]);
            match args {
                [moment, interval, zone] if is_text(zone) => {
                    start_of_interval(&zoned(moment, zone), interval)
                }
                [moment, interval, origin] => start_from_origin(moment, interval, origin)?,
                [moment, interval, origin, zone] => {
                    start_from_origin(&zoned(moment, zone), interval, origin)?
                }
                _ => start_of_interval(args[0], args[1]),
            }
        }
        // A zone reads text on that zone's clock.
        "toUnixTimestamp" => {
            takes(&[1, 2])?;
            call("toUInt32", vec![call("toDateTime", all())])
        }
        _ if let Some((sign, kind)) = shifted_unit(name) => {
            takes(&[2])?;
            shifted(args[0], sign, kind, args[1])
        }
        _ => return Ok(None),
    };
    Ok(Some(expr))
}

/// `toStartOfInterval(moment, interval)` as DataFusion's `date_bin`, whose
/// bins start at the epoch unless [`interval_origin`] says otherwise; bins of weeks, months, quarters or years are Dates, of
/// seconds to days DateTimes in the moment's zone, and of smaller units
/// DateTime64s of the unit's precision in the moment's zone.
fn start_of_interval(moment: &Expr, interval: &Expr) -> Expr {
    let kind = interval_kind(interval);
    // Days and hours start on the moment's own clock: DataFusion's
    // `date_bin` bins in UTC. A bin of n days starts on a day counted from
    // the epoch that n divides, as in ClickHouse.
    match (kind, unit_amount(interval)) {
        (Some(IntervalKind::Day), Some(1)) => return call("toStartOfDay", vec![moment.clone()]),
        (Some(IntervalKind::Day), Some(days)) => {
            let day = call("toRelativeDayNum", vec![moment.clone()]);
            let into_bin = binary_op(day, BinaryOperator::Modulo, number(days));
            let start = call("toStartOfDay", vec![moment.clone()]);
            return shifted(&start, BinaryOperator::Minus, IntervalKind::Day, &into_bin);
        }
        (Some(IntervalKind::Hour), Some(1)) => return call("toStartOfHour", vec![moment.clone()]),
        (
            Some(
                kind @ (IntervalKind::Week
                | IntervalKind::Month
                | IntervalKind::Quarter
                | IntervalKind::Year),
            ),
            Some(n),
        ) if n > 0 => {
            return calendar_bin(moment, kind, n);
        }
        _ => {}
    }
    let mut args = vec![interval.clone(), moment.clone()];
    if let Some(origin) = interval_origin(kind, &unit_amount(interval)) {
        // A DateTime64, as a DateTime cannot be before 1970.
        let origin = Expr::value(Value::SingleQuotedString(origin));
        args.push(call("toDateTime64", vec![origin, number(0)]));
    }
    let binned = call("date_bin", args);
    use IntervalKind::*;
    match kind {
        // A bin starting before 1970 is the Date's first day, as in ClickHouse.
        Some(Week | Month | Quarter | Year) => {
            let epoch = Expr::value(Value::SingleQuotedString("1970-01-01 00:00:00".into()));
            let epoch = call("toDateTime64", vec![epoch, number(0)]);
            call("toDate", vec![call("greatest", vec![binned, epoch])])
        }
        Some(Second | Minute | Hour | Day) => call("toDateTime", vec![binned]),
        Some(Millisecond) => call("toDateTime64", vec![binned, number(3)]),
        Some(Microsecond) => call("toDateTime64", vec![binned, number(6)]),
        Some(Nanosecond) | None => binned,
    }
}

/// The unit of an interval (`INTERVAL 15 MINUTE`, `toIntervalMinute(15)`).
fn interval_kind(interval: &Expr) -> Option<IntervalKind> {
    let unit = match interval {
        Expr::Interval(interval) => crate::ast_rewrite::interval_function(interval),
        other => Some(other.clone()),
    };
    let unit = match unit {
        Some(Expr::Function(f)) => f.name.to_string().trim_matches('"').to_string(),
        _ => String::new(),
    };
    IntervalKind::ALL
        .into_iter()
        .find(|kind| unit == kind.function_name())
}

fn is_text(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_))
    )
}

/// `toStartOfInterval(moment, interval, origin)`: bins of a fixed length
/// (seconds to weeks) counted from `origin`, as DataFusion's `date_bin`
/// counts them; the result's type as without an origin.
fn start_from_origin(moment: &Expr, interval: &Expr, origin: &Expr) -> Result<Expr> {
    let kind = interval_kind(interval);
    use IntervalKind::*;
    let as_seconds = |e: &Expr| call("toDateTime64", vec![e.clone(), number(0)]);
    let binned = call(
        "date_bin",
        vec![interval.clone(), as_seconds(moment), as_seconds(origin)],
    );
    Ok(match kind {
        Some(Week) => call("toDate", vec![binned]),
        Some(Second | Minute | Hour | Day) => call("toDateTime", vec![binned]),
        _ => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "toStartOfInterval with an origin takes an interval of seconds to weeks; months, quarters, years and sub-second units are not supported yet",
            ));
        }
    })
}

/// The Date starting the bin of `n` weeks, months, quarters or years that
/// holds `moment`, on the moment's own calendar: weeks counted from the
/// Monday after the epoch, months and quarters from 1900-01, years from
/// year 0, as ClickHouse counts them. A bin starting before 1970 is the
/// Date's first day.
fn calendar_bin(moment: &Expr, kind: IntervalKind, n: u64) -> Expr {
    let first = match kind {
        IntervalKind::Week => "toMonday",
        IntervalKind::Month => "toStartOfMonth",
        IntervalKind::Quarter => "toStartOfQuarter",
        _ => "toStartOfYear",
    };
    if n == 1 {
        return call(first, vec![moment.clone()]);
    }
    let of = |function: &str| call(function, vec![moment.clone()]);
    // How far into its bin the moment's unit is, and that unit's start.
    let (into_bin, start, unit) = match kind {
        IntervalKind::Week => {
            // 1970-01-05, day 4, was the first Monday.
            let day = binary_op(
                of("toRelativeDayNum"),
                BinaryOperator::Plus,
                number(7 * n - 4),
            );
            (
                binary_op(day, BinaryOperator::Modulo, number(7 * n)),
                of("toDate32"),
                IntervalKind::Day,
            )
        }
        IntervalKind::Month | IntervalKind::Quarter => {
            let months = if kind == IntervalKind::Month {
                n
            } else {
                3 * n
            };
            let years = binary_op(of("toYear"), BinaryOperator::Minus, number(1900));
            let month = binary_op(
                binary_op(years, BinaryOperator::Multiply, number(12)),
                BinaryOperator::Plus,
                binary_op(of("toMonth"), BinaryOperator::Minus, number(1)),
            );
            let start = call("toDate32", vec![of("toStartOfMonth")]);
            (
                binary_op(month, BinaryOperator::Modulo, number(months)),
                start,
                IntervalKind::Month,
            )
        }
        _ => {
            let start = call("toDate32", vec![of("toStartOfYear")]);
            (
                binary_op(of("toYear"), BinaryOperator::Modulo, number(n)),
                start,
                IntervalKind::Year,
            )
        }
    };
    let binned = shifted(&start, BinaryOperator::Minus, unit, &into_bin);
    let epoch = call("toDate32", vec![string_literal("1970-01-01")]);
    call("toDate", vec![call("greatest", vec![binned, epoch])])
}

/// Where ClickHouse's bins of `kind` start, where not at the epoch: weeks on
/// a Monday (the epoch was a Thursday), months and quarters counted from
/// 1900-01 (its calendar's first month), years from year 0 (so the bin of
/// a literal `n` years starts at the last multiple of `n` before 1970).
fn interval_origin(kind: Option<IntervalKind>, amount: &Option<u64>) -> Option<String> {
    let origin = match kind? {
        IntervalKind::Week => "1970-01-05".to_string(),
        IntervalKind::Month | IntervalKind::Quarter => "1900-01-01".to_string(),
        IntervalKind::Year => {
            // A DateTime64 goes back to 1900.
            let year = amount.filter(|&n| n > 0).map(|n| 1970 / n * n)?;
            (year >= 1900).then(|| format!("{year:04}-01-01"))?
        }
        _ => return None,
    };
    Some(format!("{origin} 00:00:00"))
}

/// The literal amount of `interval` (`INTERVAL 3 YEAR`, `toIntervalYear(3)`).
fn unit_amount(interval: &Expr) -> Option<u64> {
    let amount = match interval {
        Expr::Interval(interval) => interval.value.as_ref(),
        Expr::Function(f) => match &f.args {
            FunctionArguments::List(list) => match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(amount))] => amount,
                _ => return None,
            },
            _ => return None,
        },
        _ => return None,
    };
    match amount {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            Value::SingleQuotedString(s) => s.split_whitespace().next()?.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// `add<Unit>s` / `subtract<Unit>s`: the direction and the interval unit.
fn shifted_unit(name: &str) -> Option<(BinaryOperator, IntervalKind)> {
    let (sign, unit) = match name.strip_prefix("add") {
        Some(unit) => (BinaryOperator::Plus, unit),
        None => (BinaryOperator::Minus, name.strip_prefix("subtract")?),
    };
    let kind = match unit {
        "Seconds" => IntervalKind::Second,
        "Minutes" => IntervalKind::Minute,
        "Hours" => IntervalKind::Hour,
        "Days" => IntervalKind::Day,
        "Weeks" => IntervalKind::Week,
        "Months" => IntervalKind::Month,
        "Quarters" => IntervalKind::Quarter,
        "Years" => IntervalKind::Year,
        _ => return None,
    };
    Some((sign, kind))
}

/// `moment ± toInterval<Unit>(amount)`: DataFusion adds calendar intervals
/// (a month to January 31st is February's last day, as in ClickHouse).
fn shifted(moment: &Expr, sign: BinaryOperator, kind: IntervalKind, amount: &Expr) -> Expr {
    let interval = call(kind.function_name(), vec![amount.clone()]);
    // ClickHouse's `plus`/`minus`, as `+`/`-` are written by now, so that
    // the result is typed as theirs (a Date32 stays a Date32).
    let function = match sign {
        BinaryOperator::Plus => "plus",
        _ => "minus",
    };
    call(function, vec![moment.clone(), interval])
}

/// `dateDiff('unit', a, b)` (or a bare `unit`): how many unit boundaries
/// lie between a and b, counted as ClickHouse counts them, on the calendar
/// of each value's zone.
pub(super) fn date_diff(unit: &Expr, from: &Expr, to: &Expr, zone: Option<&Expr>) -> Result<Expr> {
    let unit = match unit {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.to_ascii_lowercase(),
            _ => String::new(),
        },
        Expr::Identifier(ident) => ident.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    let (Some(later), Some(earlier)) = (
        units_since_epoch(&unit, to, zone),
        units_since_epoch(&unit, from, zone),
    ) else {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Function dateDiff does not support '{unit}' as a unit: expected a constant nanosecond, microsecond, millisecond, second, minute, hour, day, week, month, quarter or year"
            ),
        ));
    };
    Ok(binary_op(later, BinaryOperator::Minus, earlier))
}

/// The whole `unit`s from the epoch to `moment`, as Int64, counted on the
/// clock of `zone` where one is given (a Date is then its midnight there).
fn units_since_epoch(unit: &str, moment: &Expr, zone: Option<&Expr>) -> Option<Expr> {
    // DateTime64 reaches before 1970, where DateTime stops.
    let at = |scale: u64| {
        let mut args = vec![moment.clone(), number(scale)];
        args.extend(zone.cloned());
        call("toDateTime64", args)
    };
    let local = || match zone {
        Some(_) => at(0),
        None => moment.clone(),
    };
    let int64 = |f: &str, e: Expr| call("toInt64", vec![call(f, vec![e])]);
    let seconds = || call("toInt64", vec![at(0)]);
    // Date32 reaches before 1970, where Date wraps.
    let days = || int64("toDate32", local());
    let ticks = |f: &str, scale: u64| call(f, vec![at(scale)]);
    let per = |count: Expr, n: u64| call("intDiv", vec![count, number(n)]);
    let field = |f: &str| int64(f, local());
    Some(match unit {
        "nanosecond" | "nanoseconds" | "ns" => ticks("toUnixTimestamp64Nano", 9),
        "microsecond" | "microseconds" | "us" | "u" | "mcs" => ticks("toUnixTimestamp64Micro", 6),
        "millisecond" | "milliseconds" | "ms" => ticks("toUnixTimestamp64Milli", 3),
        "second" | "seconds" | "ss" | "s" => seconds(),
        "minute" | "minutes" | "mi" | "n" => per(seconds(), 60),
        "hour" | "hours" | "hh" | "h" => per(seconds(), 3600),
        "day" | "days" | "dd" | "d" => days(),
        // Weeks start on Monday; the epoch was a Thursday.
        "week" | "weeks" | "wk" | "ww" => {
            per(binary_op(days(), BinaryOperator::Plus, number(3)), 7)
        }
        "month" | "months" | "mm" | "m" => binary_op(
            binary_op(field("toYear"), BinaryOperator::Multiply, number(12)),
            BinaryOperator::Plus,
            field("toMonth"),
        ),
        "quarter" | "quarters" | "qq" | "q" => binary_op(
            binary_op(field("toYear"), BinaryOperator::Multiply, number(4)),
            BinaryOperator::Plus,
            field("toQuarter"),
        ),
        "year" | "years" | "yyyy" | "yy" => field("toYear"),
        _ => return None,
    })
}

fn binary_op(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

/// `toDecimal<width>Or<failure>`: the plain function's name and the failure.
fn decimal_or_else(name: &str) -> Option<(&str, &str)> {
    let (width, failure) = name.split_at(name.find("Or")?);
    let failure = failure.strip_prefix("Or")?;
    let known = matches!(
        width,
        "toDecimal32" | "toDecimal64" | "toDecimal128" | "toDecimal256"
    ) && matches!(failure, "Null" | "Zero" | "Default");
    known.then_some((width, failure))
}

/// The type `toDecimal<width>(x, scale)` converts to.
fn decimal_type(name: &str, scale: &Expr) -> Result<DataType> {
    let precision = match name {
        "toDecimal32" => 9,
        "toDecimal64" => 18,
        "toDecimal128" => 38,
        _ => 76,
    };
    let scale = constant_scale(name, scale)?;
    if scale > precision {
        return Err(StrataError::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Decimal scale {scale} is out of bounds (max scale: {precision})"),
        ));
    }
    Ok(DataType::Decimal(ExactNumberInfo::PrecisionAndScale(
        precision,
        scale as i64,
    )))
}

fn constant_scale(name: &str, scale: &Expr) -> Result<u64> {
    if let Expr::Value(v) = scale
        && let Value::Number(text, _) = &v.value
        && let Ok(scale) = text.parse()
    {
        return Ok(scale);
    }
    Err(StrataError::new(
        ErrorCode::ILLEGAL_COLUMN,
        format!("Second argument for function {name} must be a constant unsigned integer"),
    ))
}

fn number(n: u64) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}

fn cast(kind: CastKind, expr: Expr, data_type: DataType) -> Expr {
    Expr::Cast {
        kind,
        expr: Box::new(expr),
        data_type,
        array: false,
        format: None,
    }
}
