//! ClickHouse comparison, logical and arithmetic functions that are the
//! SQL operators under a function's name (`equals(a, b)` is `a = b`,
//! `and(a, b, c)` is `a AND b AND c`, `mod` is `modulo`), rewritten to those
//! operators (see the parent module); functions with their own semantics
//! are UDFs in `strata-functions`.

use datafusion::sql::sqlparser::ast::{BinaryOperator, Expr, UnaryOperator};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::{call, case};

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "equals",
    "notEquals",
    "less",
    "greater",
    "lessOrEquals",
    "greaterOrEquals",
    "and",
    "or",
    "not",
    "isNotDistinctFrom",
    "isDistinctFrom",
    "mod",
    "caseWithoutExpr",
    "caseWithoutExpression",
];

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    // `not` and `mod` are case-insensitive in ClickHouse.
    let name = match name.to_ascii_lowercase().as_str() {
        "not" => "not",
        "mod" => "mod",
        _ => name,
    };
    let binary = |op: BinaryOperator| -> Result<Expr> {
        exactly(name, args, 2)?;
        Ok(operation(args[0].clone(), op, args[1].clone()))
    };
    let expr = match name {
        "equals" => binary(BinaryOperator::Eq)?,
        "notEquals" => binary(BinaryOperator::NotEq)?,
        "less" => binary(BinaryOperator::Lt)?,
        "greater" => binary(BinaryOperator::Gt)?,
        "lessOrEquals" => binary(BinaryOperator::LtEq)?,
        "greaterOrEquals" => binary(BinaryOperator::GtEq)?,
        "and" => chained(name, args, BinaryOperator::And)?,
        "or" => chained(name, args, BinaryOperator::Or)?,
        "not" => {
            exactly(name, args, 1)?;
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr: Box::new(Expr::Nested(Box::new(args[0].clone()))),
            }
        }
        "isNotDistinctFrom" => {
            exactly(name, args, 2)?;
            Expr::IsNotDistinctFrom(Box::new(args[0].clone()), Box::new(args[1].clone()))
        }
        "isDistinctFrom" => {
            exactly(name, args, 2)?;
            Expr::IsDistinctFrom(Box::new(args[0].clone()), Box::new(args[1].clone()))
        }
        "mod" => {
            exactly(name, args, 2)?;
            call("modulo", args.iter().map(|a| (*a).clone()).collect())
        }
        // multiIf's other names: conditions and results, then the default.
        "caseWithoutExpr" | "caseWithoutExpression" => {
            if args.len() < 3 || args.len() % 2 == 0 {
                return Err(StrataError::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Invalid number of arguments for function {name}"),
                ));
            }
            let (otherwise, pairs) = args.split_last().expect("at least three arguments");
            let pairs: Vec<Expr> = pairs.iter().map(|a| (*a).clone()).collect();
            case(&pairs, Some((*otherwise).clone()))
        }
        _ => return Ok(None),
    };
    Ok(Some(expr))
}

fn operation(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }))
}

/// `and`/`or` of two or more operands, left to right.
fn chained(name: &str, args: &[&Expr], op: BinaryOperator) -> Result<Expr> {
    if args.len() < 2 {
        return Err(StrataError::new(
            ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
            format!(
                "Number of arguments for function \"{name}\" should be at least 2: passed {}",
                args.len()
            ),
        ));
    }
    let mut operands = args.iter().map(|a| (*a).clone());
    let first = operands.next().expect("two operands");
    Ok(operands.fold(first, |acc, next| operation(acc, op.clone(), next)))
}

fn exactly(name: &str, args: &[&Expr], count: usize) -> Result<()> {
    if args.len() == count {
        return Ok(());
    }
    Err(StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {name} doesn't match: passed {}, should be {count}",
            args.len()
        ),
    ))
}
