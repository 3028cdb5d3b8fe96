//! ClickHouse aggregates DataFusion has under another name or form.

use datafusion::sql::sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    NullTreatment, ObjectName, ObjectNamePart, Value,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// The ClickHouse names rewritten here.
pub(super) const NAMES: &[&str] = &["countDistinct", "groupUniqArray"];

/// The DataFusion aggregate a ClickHouse one is, and whether it is its DISTINCT form.
pub fn renamed(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "countDistinct" => ("count", true),
        "groupUniqArray" => ("array_agg", true),
        _ => return None,
    })
}

/// The aggregate call `f`, named `name`, as DataFusion plans it, if it is
/// one of [`NAMES`]; DISTINCT, FILTER and OVER stay as written.
pub fn aggregate(f: &Function, name: &str) -> Result<Option<Expr>> {
    if let Some(uniq) = distinct_tuples(f, name) {
        return Ok(Some(uniq));
    }
    let Some((to, distinct)) = renamed(name) else {
        return Ok(None);
    };
    let max_size = max_size(f, name)?;
    let mut renamed_call = f.clone();
    renamed_call.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(to))]);
    renamed_call.parameters = FunctionArguments::None;
    let FunctionArguments::List(list) = &mut renamed_call.args else {
        return Ok(None);
    };
    if distinct {
        list.duplicate_treatment = Some(DuplicateTreatment::Distinct);
    }
    // ClickHouse's aggregates skip NULLs; DataFusion's array_agg keeps them.
    if to == "array_agg" {
        renamed_call.null_treatment = Some(NullTreatment::IgnoreNulls);
    }
    let Some(max_size) = max_size else {
        return Ok(Some(Expr::Function(renamed_call)));
    };
    // `groupUniqArray(N)`: any N of the distinct values.
    Ok(Some(call(
        "array_slice",
        vec![
            Expr::Function(renamed_call),
            Expr::value(Value::Number("1".to_string(), false)),
            max_size,
        ],
    )))
}

/// `count(DISTINCT a, b)` (or `countDistinct(a, b)`): the distinct tuples,
/// which DataFusion's count of several arguments does not count.
fn distinct_tuples(f: &Function, name: &str) -> Option<Expr> {
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let distinct = name == "countDistinct"
        || name.eq_ignore_ascii_case("count")
            && list.duplicate_treatment == Some(DuplicateTreatment::Distinct);
    if !distinct || list.args.len() < 2 {
        return None;
    }
    let mut uniq = f.clone();
    uniq.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
        '"',
        "uniqExact",
    ))]);
    let FunctionArguments::List(list) = &mut uniq.args else {
        unreachable!("checked above");
    };
    list.duplicate_treatment = None;
    Some(Expr::Function(uniq))
}

/// The `N` of `groupUniqArray(N)(x)`: one positive integer, or none.
fn max_size(f: &Function, name: &str) -> Result<Option<Expr>> {
    let FunctionArguments::List(list) = &f.parameters else {
        return Ok(None);
    };
    match list.args.as_slice() {
        [] => Ok(None),
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(expr))] => {
            let positive = matches!(expr, Expr::Value(v)
                if matches!(&v.value, Value::Number(n, _) if n.parse::<u64>().is_ok_and(|n| n > 0)));
            if !positive {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Parameter for aggregate function {name} should be positive number"),
                ));
            }
            Ok(Some(expr.clone()))
        }
        _ => Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Incorrect number of parameters for aggregate function {name}, should be 0 or 1"
            ),
        )),
    }
}
