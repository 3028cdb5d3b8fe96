//! ClickHouse functions that DataFusion has under another name or form:
//! `startsWith` is `starts_with`, `has` is `array_has`, `isNull(x)` is
//! `x IS NULL`, `toInt32OrNull(s)` is `TRY_CAST(s AS INT)`.
//!
//! Each is rewritten in the parsed statement, so the result is planned as
//! DataFusion's own; the column keeps the ClickHouse name it was given
//! before the rewrite. Functions whose semantics differ from every
//! DataFusion function are implemented in `strata-functions` instead.

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, CastKind, DataType, ExactNumberInfo, Expr, Value,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// The ClickHouse names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "isNull",
    "isNotNull",
    "like",
    "notLike",
    "ilike",
    "notILike",
    "match",
    "startsWith",
    "endsWith",
    "replaceAll",
    "replaceRegexpAll",
    "replaceRegexpOne",
    "splitByChar",
    "splitByString",
    "arrayStringConcat",
    "has",
    "hasAll",
    "hasAny",
    "indexOf",
    "arrayDistinct",
    "arrayReverse",
    "arraySort",
    "arrayConcat",
    "arrayJoin",
    "empty",
    "notEmpty",
    "tuple",
    "bitAnd",
    "bitOr",
    "bitXor",
    "bitShiftLeft",
    "bitShiftRight",
    "leftPad",
    "rightPad",
    "toDecimal32",
    "toDecimal64",
    "toDecimal128",
    "toDecimal256",
    "toInt8OrNull",
    "toInt16OrNull",
    "toInt32OrNull",
    "toInt64OrNull",
    "toUInt8OrNull",
    "toUInt16OrNull",
    "toUInt32OrNull",
    "toUInt64OrNull",
    "toFloat32OrNull",
    "toFloat64OrNull",
    "toInt8OrZero",
    "toInt16OrZero",
    "toInt32OrZero",
    "toInt64OrZero",
    "toUInt8OrZero",
    "toUInt16OrZero",
    "toUInt32OrZero",
    "toUInt64OrZero",
    "toFloat32OrZero",
    "toFloat64OrZero",
    "toStartOfInterval",
];

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
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
    let length_compared = |op: BinaryOperator| -> Result<Expr> {
        takes(&[1])?;
        Ok(Expr::BinaryOp {
            left: Box::new(call("length", all())),
            op,
            right: Box::new(number(0)),
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
        "match" => renamed("regexp_like", &[2])?,
        "startsWith" => renamed("starts_with", &[2])?,
        "endsWith" => renamed("ends_with", &[2])?,
        "replaceAll" => renamed("replace", &[3])?,
        "replaceRegexpOne" => renamed("regexp_replace", &[3])?,
        "replaceRegexpAll" => {
            takes(&[3])?;
            let mut global = all();
            global.push(Expr::value(Value::SingleQuotedString("g".into())));
            call("regexp_replace", global)
        }
        // ClickHouse takes the separator first.
        "splitByChar" | "splitByString" => {
            takes(&[2])?;
            call("string_to_array", vec![args[1].clone(), args[0].clone()])
        }
        "arrayStringConcat" => {
            takes(&[1, 2])?;
            let mut with_separator = all();
            if with_separator.len() == 1 {
                with_separator.push(Expr::value(Value::SingleQuotedString(String::new())));
            }
            call("array_to_string", with_separator)
        }
        "has" => renamed("array_has", &[2])?,
        "hasAll" => renamed("array_has_all", &[2])?,
        "hasAny" => renamed("array_has_any", &[2])?,
        // ClickHouse's index of a missing element is 0, DataFusion's NULL.
        "indexOf" => {
            takes(&[2])?;
            call("coalesce", vec![call("array_position", all()), number(0)])
        }
        "arrayDistinct" => renamed("array_distinct", &[1])?,
        "arrayReverse" => renamed("array_reverse", &[1])?,
        "arraySort" => renamed("array_sort", &[1])?,
        "arrayConcat" => {
            if args.is_empty() {
                takes(&[1])?;
            }
            call("array_concat", all())
        }
        "arrayJoin" => renamed("unnest", &[1])?,
        "empty" => length_compared(BinaryOperator::Eq)?,
        "notEmpty" => length_compared(BinaryOperator::Gt)?,
        "tuple" => call("struct", all()),
        "bitAnd" => binary(BinaryOperator::BitwiseAnd)?,
        "bitOr" => binary(BinaryOperator::BitwiseOr)?,
        "bitXor" => binary(BinaryOperator::PGBitwiseXor)?,
        "bitShiftLeft" => binary(BinaryOperator::PGBitwiseShiftLeft)?,
        "bitShiftRight" => binary(BinaryOperator::PGBitwiseShiftRight)?,
        "leftPad" => renamed("lpad", &[2, 3])?,
        "rightPad" => renamed("rpad", &[2, 3])?,
        "toDecimal32" | "toDecimal64" | "toDecimal128" | "toDecimal256" => {
            takes(&[2])?;
            let precision = match name {
                "toDecimal32" => 9,
                "toDecimal64" => 18,
                "toDecimal128" => 38,
                _ => 76,
            };
            let scale = constant_scale(name, args[1])?;
            if scale > precision {
                return Err(StrataError::new(
                    ErrorCode::ARGUMENT_OUT_OF_BOUND,
                    format!("Decimal scale {scale} is out of bounds (max scale: {precision})"),
                ));
            }
            cast(
                CastKind::Cast,
                args[0].clone(),
                DataType::Decimal(ExactNumberInfo::PrecisionAndScale(precision, scale as i64)),
            )
        }
        "toStartOfInterval" => {
            takes(&[2])?;
            call("date_bin", vec![args[1].clone(), args[0].clone()])
        }
        _ => match parsed_number_type(name) {
            Some((data_type, or_zero)) => {
                takes(&[1])?;
                let parsed = cast(CastKind::TryCast, args[0].clone(), data_type);
                if or_zero {
                    call("coalesce", vec![parsed, number(0)])
                } else {
                    parsed
                }
            }
            None => return Ok(None),
        },
    };
    Ok(Some(expr))
}

/// The type `to<Type>OrNull` / `to<Type>OrZero` parse into, and whether a
/// failure is zero rather than NULL.
fn parsed_number_type(name: &str) -> Option<(DataType, bool)> {
    let (target, or_zero) = match name.strip_suffix("OrNull") {
        Some(target) => (target, false),
        None => (name.strip_suffix("OrZero")?, true),
    };
    let data_type = match target {
        "toInt8" => DataType::TinyInt(None),
        "toInt16" => DataType::SmallInt(None),
        "toInt32" => DataType::Int(None),
        "toInt64" => DataType::BigInt(None),
        "toUInt8" => DataType::TinyIntUnsigned(None),
        "toUInt16" => DataType::SmallIntUnsigned(None),
        "toUInt32" => DataType::IntUnsigned(None),
        "toUInt64" => DataType::BigIntUnsigned(None),
        "toFloat32" => DataType::Real,
        "toFloat64" => DataType::Double(ExactNumberInfo::None),
        _ => return None,
    };
    Some((data_type, or_zero))
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
