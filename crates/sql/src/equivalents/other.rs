//! ClickHouse's other functions that are facts of the query or the session,
//! rewritten to literals like `currentDatabase()` (query id, start time,
//! user, database, roles, shard), `FORMAT_BYTES` as `formatReadableSize`, and
//! the gate ClickHouse puts on its block-wise window functions
//! (`runningDifference`, `neighbor`: DEPRECATED_FUNCTION unless
//! `allow_deprecated_error_prone_window_functions` is on), and
//! `firstNonDefault` as a `CASE`. Functions with
//! their own semantics are UDFs in `strata-functions`.

use datafusion::sql::sqlparser::ast::{Array, BinaryOperator, Expr, Value};
use strata_common::settings::SettingValue;
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::{AstContext, call, case};

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "FORMAT_BYTES",
    "queryID",
    "query_id",
    "currentQueryID",
    "current_query_id",
    "initialQueryID",
    "initial_query_id",
    "initialQueryStartTime",
    "initial_query_start_time",
    "DATABASE",
    "SCHEMA",
    "current_database",
    "currentSchemas",
    "current_schemas",
    "session_user",
    "authenticatedUser",
    "authUser",
    "currentRoles",
    "enabledRoles",
    "defaultRoles",
    "connectionId",
    "connection_id",
    "shardNum",
    "shardCount",
    "getSettingOrDefault",
    "firstNonDefault",
];

/// The names ClickHouse accepts in any letter case.
const CASE_INSENSITIVE: &[&str] = &[
    "FORMAT_BYTES",
    "query_id",
    "current_query_id",
    "initial_query_id",
    "initial_query_start_time",
    "DATABASE",
    "SCHEMA",
    "current_database",
    "currentSchemas",
    "current_schemas",
    "session_user",
    "connectionId",
    "connection_id",
];

/// Block-wise functions ClickHouse refuses unless a setting allows them.
const ERROR_PRONE: &[&str] = &[
    "runningDifference",
    "runningDifferenceStartingWithFirstValue",
    "neighbor",
];

/// The spelling in [`NAMES`] that `written` calls, if any.
fn canonical(written: &str) -> Option<&'static str> {
    NAMES.iter().copied().find(|name| {
        *name == written || CASE_INSENSITIVE.contains(name) && name.eq_ignore_ascii_case(written)
    })
}

/// `name(args)` as DataFusion plans it, if `name` needs no session facts.
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    match canonical(name) {
        Some("FORMAT_BYTES") => Ok(Some(call(
            "formatReadableSize",
            args.iter().map(|a| (*a).clone()).collect(),
        ))),
        Some("firstNonDefault") => first_non_default(args).map(Some),
        _ => Ok(None),
    }
}

/// `firstNonDefault(a, b, ...)`: the first argument that is neither NULL nor
/// its type's default, else the default of the arguments' common type.
fn first_non_default(args: &[&Expr]) -> Result<Expr> {
    let Some((last, _)) = args.split_last() else {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            "Function firstNonDefault takes at least one argument",
        ));
    };
    let mut branches = Vec::with_capacity(2 * args.len());
    for arg in args {
        let default = call("defaultValueOfArgumentType", vec![(*arg).clone()]);
        let set = Expr::BinaryOp {
            left: Box::new(Expr::IsNotNull(Box::new((*arg).clone()))),
            op: BinaryOperator::And,
            right: Box::new(Expr::BinaryOp {
                left: Box::new((*arg).clone()),
                op: BinaryOperator::NotEq,
                right: Box::new(default),
            }),
        };
        branches.extend([set, (*arg).clone()]);
    }
    // The common type, through the same branches with the last as the else.
    let common = match args.len() {
        1 => (*last).clone(),
        _ => case(&branches[..branches.len() - 2], Some((*last).clone())),
    };
    let otherwise = call("defaultValueOfArgumentType", vec![common]);
    Ok(case(&branches, Some(otherwise)))
}

/// `name(args)` as a literal of the query's or session's facts, if it is one.
pub fn query_constant(written: &str, args: &[&Expr], ctx: &AstContext) -> Result<Option<Expr>> {
    if ERROR_PRONE.contains(&written) {
        check_error_prone_allowed(written, ctx)?;
        return Ok(None);
    }
    let Some(name) = canonical(written) else {
        return Ok(None);
    };
    let expected = match name {
        "currentSchemas" | "current_schemas" => 1,
        "getSettingOrDefault" => 2,
        _ => 0,
    };
    if args.len() != expected {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {name} doesn't match: passed {}, should be {expected}",
                args.len()
            ),
        ));
    }
    Ok(Some(match name {
        "queryID" | "query_id" | "currentQueryID" | "current_query_id" | "initialQueryID"
        | "initial_query_id" => text(ctx.query_id),
        "initialQueryStartTime" | "initial_query_start_time" => {
            call("toDateTime", vec![number(ctx.query_start)])
        }
        "DATABASE" | "SCHEMA" | "current_database" => text(ctx.current_database),
        "currentSchemas" | "current_schemas" => current_schemas(name, args[0], ctx)?,
        "session_user" | "authenticatedUser" | "authUser" => text(ctx.current_user),
        // Strata has no roles.
        "currentRoles" | "enabledRoles" | "defaultRoles" => call("emptyArrayString", vec![]),
        // ClickHouse numbers only MySQL-protocol connections, which Strata does not serve.
        "connectionId" | "connection_id" => call("toUInt64", vec![number(0)]),
        // A single server is no shard of a distributed query.
        "shardNum" | "shardCount" => call("toUInt32", vec![number(0)]),
        "getSettingOrDefault" => setting_or_default(args, ctx)?,
        _ => return Ok(None),
    }))
}

fn check_error_prone_allowed(name: &str, ctx: &AstContext) -> Result<()> {
    match ctx
        .settings
        .get("allow_deprecated_error_prone_window_functions")?
    {
        SettingValue::Bool(false) => Err(StrataError::new(
            ErrorCode::DEPRECATED_FUNCTION,
            format!(
                "Function {name} is deprecated since its usage is error-prone (see docs). \
                 Please use proper window function or set \
                 `allow_deprecated_error_prone_window_functions` setting to enable it"
            ),
        )),
        _ => Ok(()),
    }
}

/// `currentSchemas(bool)`: the current database, whatever the flag.
fn current_schemas(name: &str, flag: &Expr, ctx: &AstContext) -> Result<Expr> {
    if !matches!(flag, Expr::Value(v) if matches!(v.value, Value::Boolean(_))) {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Argument for function {name} must be bool"),
        ));
    }
    Ok(Expr::Array(Array {
        elem: vec![text(ctx.current_database)],
        named: false,
    }))
}

/// `getSettingOrDefault('name', default)`: the setting's value as
/// `getSetting` gives it, or the constant default for an unknown name.
fn setting_or_default(args: &[&Expr], ctx: &AstContext) -> Result<Expr> {
    let Expr::Value(v) = args[0] else {
        return Err(setting_name_error());
    };
    let Value::SingleQuotedString(name) = &v.value else {
        return Err(setting_name_error());
    };
    if !is_constant(args[1]) {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "The 2nd argument of function getSettingOrDefault should be a constant \
             with the default value of a setting",
        ));
    }
    Ok(match ctx.settings.shown(name) {
        Ok(SettingValue::UInt64(v)) => Expr::value(Value::Number(v.to_string(), false)),
        Ok(SettingValue::Int64(v)) => Expr::value(Value::Number(v.to_string(), false)),
        Ok(SettingValue::Bool(b)) => Expr::value(Value::Boolean(b)),
        Ok(SettingValue::Float(v)) => Expr::value(Value::Number(format!("{v:?}"), false)),
        Ok(SettingValue::String(s)) => text(&s),
        Err(e) if e.code == ErrorCode::UNKNOWN_SETTING => args[1].clone(),
        Err(e) => return Err(e),
    })
}

fn setting_name_error() -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        "The argument of function getSettingOrDefault should be a constant string \
         with the name of a setting",
    )
}

/// Whether `expr` reads no column: literals and expressions of them.
fn is_constant(expr: &Expr) -> bool {
    use std::ops::ControlFlow;
    let reads_column = datafusion::sql::sqlparser::ast::visit_expressions(expr, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    reads_column.is_continue()
}

fn text(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

fn number(n: i64) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}
