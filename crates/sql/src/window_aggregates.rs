//! ClickHouse aggregates over a window that DataFusion's window planner
//! does not find under ClickHouse's names:
//! - `any` and `anyLast` are `first_value` and `last_value`, and all four
//!   skip NULLs as ClickHouse's do (unless written `RESPECT NULLS`);
//! - the -If combinator (`sumIf(x, c) OVER w`) passes only the rows where
//!   the condition holds: each argument is NULL elsewhere, which aggregates
//!   skip (a FILTER clause is not planned over a window), and `sum`'s is 0,
//!   so a frame with no such row sums to 0 as in ClickHouse;
//! - `ntile`, `cume_dist` and `percent_rank` refuse the frames ClickHouse
//!   refuses.

use datafusion::sql::sqlparser::ast::{
    Expr, Function, NullTreatment, Value, WindowFrame, WindowFrameBound, WindowFrameUnits,
    WindowType,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::{AstContext, case, function_args, if_combinator_base, with_arguments};
use crate::combinators::quoted;

/// `f`, called over a window, as DataFusion plans it; None when it plans
/// `f` as written.
pub(crate) fn rewrite(f: &Function, written: &str, ctx: &AstContext) -> Result<Option<Expr>> {
    debug_assert!(f.over.is_some(), "only calls over a window");
    check_frame(f, written)?;
    if let Some(value) = value_function(written)
        && f.null_treatment.is_none()
    {
        let mut renamed = f.clone();
        renamed.name = quoted(value);
        renamed.null_treatment = Some(NullTreatment::IgnoreNulls);
        return Ok(Some(Expr::Function(renamed)));
    }
    Ok(if_combinator(f, written, ctx))
}

/// Ranking functions that need a whole partition refuse other frames, as
/// ClickHouse does: `ntile` wants an ORDER BY and, if a frame is written,
/// every row of the partition in it; `cume_dist` and `percent_rank` a
/// written frame of RANGE over the whole partition. (A named window is not
/// checked.)
fn check_frame(f: &Function, written: &str) -> Result<()> {
    let Some(WindowType::WindowSpec(spec)) = &f.over else {
        return Ok(());
    };
    let whole = |frame: &WindowFrame| {
        matches!(frame.start_bound, WindowFrameBound::Preceding(None))
            && matches!(frame.end_bound, Some(WindowFrameBound::Following(None)))
    };
    let frame = spec.window_frame.as_ref();
    let supported = match written {
        "ntile" => !spec.order_by.is_empty() && frame.is_none_or(whole),
        "cume_dist" | "percent_rank" | "percentRank" => {
            frame.is_none_or(|frame| frame.units == WindowFrameUnits::Range && whole(frame))
        }
        _ => true,
    };
    match supported {
        true => Ok(()),
        false => Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Unsupported window frame type for function '{written}'"),
        )),
    }
}

fn value_function(written: &str) -> Option<&'static str> {
    match written {
        "any" | "first_value" => Some("first_value"),
        "anyLast" | "last_value" => Some("last_value"),
        _ => None,
    }
}

/// `fIf(args..., condition) OVER w` as `f(CASE WHEN condition THEN arg END,
/// ...) OVER w`.
fn if_combinator(f: &Function, written: &str, ctx: &AstContext) -> Option<Expr> {
    let registered = if_combinator_base(f, written, ctx)?;
    let args = function_args(&f.args)?;
    let (condition, arguments) = args.split_last()?;
    let otherwise = (registered == "sum").then(|| Expr::value(Value::Number("0".into(), false)));
    let only_where = |value: Expr| case(&[(*condition).clone(), value], otherwise.clone());
    let arguments: Vec<Expr> = match arguments {
        // `countIf(c)` counts the rows where `c` holds.
        [] => vec![only_where(Expr::value(Value::Number("1".into(), false)))],
        arguments => arguments.iter().map(|a| only_where((*a).clone())).collect(),
    };
    let value = written.strip_suffix("If").and_then(value_function);
    let mut conditioned = with_arguments(f, value.unwrap_or(&registered), arguments);
    if value.is_some() {
        conditioned.null_treatment = Some(NullTreatment::IgnoreNulls);
    }
    Some(Expr::Function(conditioned))
}
