//! ClickHouse aggregates over a window that DataFusion's window planner
//! does not find under ClickHouse's names:
//! - `any` and `anyLast` are `first_value` and `last_value`, skipping NULLs
//!   as ClickHouse's do;
//! - the -If combinator (`sumIf(x, c) OVER w`) passes only the rows where
//!   the condition holds: each argument is NULL elsewhere, which aggregates
//!   skip (a FILTER clause is not planned over a window), and `sum`'s is 0,
//!   so a frame with no such row sums to 0 as in ClickHouse.

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, NullTreatment,
    ObjectName, ObjectNamePart, Value,
};
use strata_common::Result;

use crate::ast_rewrite::{AstContext, case, function_args};

/// `f`, called over a window, as DataFusion plans it; None when it plans
/// `f` as written.
pub(crate) fn rewrite(f: &Function, written: &str, ctx: &AstContext) -> Result<Option<Expr>> {
    debug_assert!(f.over.is_some(), "only calls over a window");
    if let Some(value) = value_function(written)
        && f.null_treatment.is_none()
    {
        let mut renamed = named(f, value);
        renamed.null_treatment = Some(NullTreatment::IgnoreNulls);
        return Ok(Some(Expr::Function(renamed)));
    }
    Ok(if_combinator(f, written, ctx))
}

fn value_function(written: &str) -> Option<&'static str> {
    match written {
        "any" => Some("first_value"),
        "anyLast" => Some("last_value"),
        _ => None,
    }
}

/// `fIf(args..., condition) OVER w` as `f(CASE WHEN condition THEN arg END,
/// ...) OVER w`.
fn if_combinator(f: &Function, written: &str, ctx: &AstContext) -> Option<Expr> {
    let base = written.strip_suffix("If")?;
    let spelling = |name: &str| (ctx.resolve_function)(name).unwrap_or(name.to_string());
    let registered = spelling(base);
    if f.filter.is_some()
        || (ctx.is_aggregate)(&spelling(written))
        || !(ctx.is_aggregate)(&registered)
    {
        return None;
    }
    let args = function_args(&f.args)?;
    let (condition, arguments) = args.split_last()?;
    let otherwise = (registered == "sum").then(|| Expr::value(Value::Number("0".into(), false)));
    let only_where = |value: Expr| case(&[(*condition).clone(), value], otherwise.clone());
    let arguments: Vec<Expr> = match arguments {
        // `countIf(c)` counts the rows where `c` holds.
        [] => vec![only_where(Expr::value(Value::Number("1".into(), false)))],
        arguments => arguments.iter().map(|a| only_where((*a).clone())).collect(),
    };
    let mut conditioned = named(f, value_function(base).unwrap_or(&registered));
    if value_function(base).is_some() {
        conditioned.null_treatment = Some(NullTreatment::IgnoreNulls);
    }
    if let FunctionArguments::List(list) = &mut conditioned.args {
        list.args = arguments
            .into_iter()
            .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
            .collect();
    }
    Some(Expr::Function(conditioned))
}

/// `f` under `name`, quoted so DataFusion keeps its case.
fn named(f: &Function, name: &str) -> Function {
    let mut renamed = f.clone();
    renamed.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
        '"', name,
    ))]);
    renamed
}
