//! ClickHouse's parametric aggregate calls and aggregate combinators, as
//! calls DataFusion plans.
//!
//! - `f(p1, p2)(x)` of a Strata aggregate is `f(x, named_struct('__parameter_1', p1, ...))`:
//!   the parameters travel as one constant struct argument.
//! - A name that is no function but an aggregate followed by combinator
//!   suffixes (`sumArrayIf`, `avgOrNull`, `uniqForEach`) is a call of
//!   [`COMBINED`] with the chain in a constant marker struct; an outermost
//!   -If is `FILTER (WHERE condition)`. A lone -If without parameters is left
//!   to the rewrite that already handles it.
//! - `f(DISTINCT x)` is `fDistinct(x)`, as in ClickHouse, except for the
//!   aggregates DataFusion runs DISTINCT for itself (Strata's own aggregates
//!   do not see the keyword).

use datafusion::sql::sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::aggregate::combinators::{COMBINED, Combinator, SEPARATOR};
use strata_functions::aggregate::frame::PARAMETER_PREFIX;
use strata_functions::aggregate::states::split_chain;

use crate::ast_rewrite::{AstContext, call, string_literal};

/// ClickHouse's other names of combinator chains.
const CHAIN_ALIASES: [(&str, &str); 1] = [("array_concat_agg", "groupArrayArray")];

fn unaliased(written: &str) -> &str {
    CHAIN_ALIASES
        .iter()
        .find(|(alias, _)| *alias == written)
        .map_or(written, |(_, chain)| chain)
}

/// `f` as DataFusion plans it, if it is a parametric call of a Strata
/// aggregate or a combinator chain.
pub fn rewrite(f: &Function, written: &str, ctx: &AstContext) -> Result<Option<Expr>> {
    let written = unaliased(written);
    // A plain groupUniqArray is rewritten with the renamed aggregates.
    let unique_chain = unique_array_chain(written).filter(|_| written != UNIQUE_ARRAY);
    let written = unique_chain.as_deref().unwrap_or(written);
    let spelling = |name: &str| (ctx.resolve_function)(name).unwrap_or_else(|| name.to_string());
    if (ctx.is_aggregate)(&spelling(written)) {
        if let Some(plain) = distinct_as_combinator(f, &spelling(written)) {
            return rewrite(&plain, &format!("{written}Distinct"), ctx);
        }
        return parametric(f, &spelling(written));
    }
    let Some((base, chain)) = split_chain(written, &|name| base_aggregate(name, ctx)) else {
        return Ok(None);
    };
    let params = parameters(f);
    if chain == [Combinator::If] && params.is_empty()
        || f.filter.is_some() && chain[0] == Combinator::If
    {
        return Ok(None);
    }
    let mut args = arguments(f).ok_or_else(|| {
        StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Unsupported arguments of {written}"),
        )
    })?;
    let mut inner = chain.as_slice();
    let mut condition = None;
    if chain[0] == Combinator::If {
        condition = Some(args.pop().ok_or_else(|| {
            StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {written} requires at least one argument"),
            )
        })?);
        inner = &chain[1..];
    }
    let mut rewritten = f.clone();
    rewritten.parameters = FunctionArguments::None;
    if inner.is_empty() {
        rewritten.name = quoted(&base);
    } else {
        let spec: String = std::iter::once(base.clone())
            .chain(inner.iter().rev().map(|c| c.suffix().to_string()))
            .collect::<Vec<_>>()
            .join(&SEPARATOR.to_string());
        // The parameters as written name a state's type: `quantile(0.5)`.
        let mut marker = vec![string_literal(&spec), Expr::value(Value::Null)];
        if !params.is_empty() {
            let written: Vec<String> = params.iter().map(|p| p.to_string()).collect();
            marker.extend([
                string_literal(&written.join(", ")),
                Expr::value(Value::Null),
            ]);
        }
        let marker = call("named_struct", marker);
        args.insert(0, marker);
        rewritten.name = quoted(COMBINED);
    }
    if !params.is_empty() {
        args.push(parameter_struct(params));
    }
    set_arguments(&mut rewritten, args);
    if let Some(condition) = condition {
        rewritten.filter = Some(Box::new(condition));
    }
    Ok(Some(Expr::Function(rewritten)))
}

/// The aggregates whose state is their result, which `-SimpleState` takes.
const SIMPLE_STATES: &[&str] = &[
    "any",
    "any_respect_nulls",
    "anyLast",
    "anyLast_respect_nulls",
    "min",
    "max",
    "sum",
    "sumWithOverflow",
    "groupBitAnd",
    "groupBitOr",
    "groupBitXor",
    "sumMap",
    "minMap",
    "maxMap",
    "groupArrayArray",
    "groupArrayLastArray",
    "groupUniqArrayArray",
    "groupUniqArrayArrayMap",
    "sumMappedArrays",
    "minMappedArrays",
    "maxMappedArrays",
    "timeSeriesGroupArray",
];

/// `fSimpleState(x)`: the aggregate `f` and its plain call `f(x)`, whose
/// result the caller types `SimpleAggregateFunction(f, T)`. An aggregate
/// whose state is not its result is refused, as in ClickHouse.
pub fn simple_state(
    f: &Function,
    written: &str,
    ctx: &AstContext,
) -> Result<Option<(String, Expr)>> {
    let Some(base) = written
        .strip_suffix("SimpleState")
        .filter(|b| !b.is_empty())
    else {
        return Ok(None);
    };
    if !SIMPLE_STATES.contains(&base) {
        if !names_aggregate(base, ctx) {
            return Ok(None);
        }
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Unsupported aggregate function {base}, supported functions are {}",
                SIMPLE_STATES.join(",")
            ),
        ));
    }
    let mut plain = f.clone();
    plain.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(base))]);
    Ok(Some((base.to_string(), Expr::Function(plain))))
}

/// Whether `written` calls an aggregate, plain or with combinators.
pub fn names_aggregate(written: &str, ctx: &AstContext) -> bool {
    let written = unaliased(written);
    let base = |name: &str| base_aggregate(name, ctx);
    let unique_chain = unique_array_chain(written);
    let written = unique_chain.as_deref().unwrap_or(written);
    base(written).is_some() || split_chain(written, &base).is_some()
}

const UNIQUE_ARRAY: &str = "groupUniqArray";

/// groupUniqArray is groupArray's DISTINCT form, so its names, combined or
/// not (`groupUniqArrayArray`), are groupArrayDistinct's.
fn unique_array_chain(written: &str) -> Option<String> {
    let chain = written.strip_prefix(UNIQUE_ARRAY)?;
    Some(format!("groupArrayDistinct{chain}"))
}

/// The registered name of an aggregate a chain can start from.
fn base_aggregate(name: &str, ctx: &AstContext) -> Option<String> {
    let registered = (ctx.resolve_function)(name).unwrap_or_else(|| name.to_string());
    (ctx.is_aggregate)(&registered).then_some(registered)
}

/// A Strata aggregate's parameters as its trailing struct argument. An
/// aggregate that takes none refuses them rather than ignore them.
fn parametric(f: &Function, registered: &str) -> Result<Option<Expr>> {
    if !matches!(f.parameters, FunctionArguments::List(_)) {
        return Ok(delimiter_argument(f, registered));
    }
    if matches!(registered, "uniqCombined" | "uniqCombined64") {
        return uniq_combined_precision(f, registered).map(Some);
    }
    if !strata_functions::aggregate::takes_parameters(registered) {
        return Err(StrataError::new(
            ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS,
            format!("Aggregate function {} cannot have parameters", f.name),
        ));
    }
    let params = parameters(f);
    let mut rewritten = f.clone();
    rewritten.parameters = FunctionArguments::None;
    rewritten.name = quoted(registered);
    if !params.is_empty() {
        let Some(mut args) = arguments(f) else {
            return Ok(None);
        };
        args.push(parameter_struct(params));
        set_arguments(&mut rewritten, args);
    }
    Ok(Some(Expr::Function(rewritten)))
}

/// `groupConcat(x, delimiter)`, which ClickHouse also accepts, as
/// `groupConcat(delimiter)(x)`.
fn delimiter_argument(f: &Function, registered: &str) -> Option<Expr> {
    let concat = matches!(registered, "groupConcat" | "group_concat");
    let mut args = arguments(f).filter(|args| args.len() == 2 && concat)?;
    let delimiter = args.pop()?;
    args.push(parameter_struct(vec![delimiter]));
    let mut rewritten = f.clone();
    rewritten.name = quoted(registered);
    set_arguments(&mut rewritten, args);
    Some(Expr::Function(rewritten))
}

/// Aggregates whose DISTINCT DataFusion runs (or that a repeat cannot
/// change), kept as they are for its faster distinct paths.
const NATIVE_DISTINCT: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "uniq",
    "uniqExact",
    "uniqCombined",
    "uniqCombined64",
    "uniqHLL12",
    "groupUniqArray",
    "any",
    "anyLast",
    "first_value",
    "last_value",
    "groupBitOr",
    "groupBitAnd",
    "array_agg",
    "string_agg",
    "median",
];

/// `f(DISTINCT args)` without the keyword, named `fDistinct`, where
/// `registered` does not run DISTINCT itself.
fn distinct_as_combinator(f: &Function, registered: &str) -> Option<Function> {
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
    if !distinct || f.over.is_some() || NATIVE_DISTINCT.contains(&registered) {
        return None;
    }
    let mut plain = f.clone();
    if let FunctionArguments::List(list) = &mut plain.args {
        list.duplicate_treatment = None;
    }
    Some(plain)
}

/// `uniqCombined(p)(x)`: the precision `p` (12 to 20) of ClickHouse's
/// HyperLogLog only changes how close a large count comes; Strata's sketch
/// keeps its own, so the call is `uniqCombined(x)`.
fn uniq_combined_precision(f: &Function, registered: &str) -> Result<Expr> {
    let precision = match parameters(f).as_slice() {
        [Expr::Value(v)] => match &v.value {
            Value::Number(n, _) => n.parse::<u64>().ok(),
            _ => None,
        },
        _ => None,
    };
    if !precision.is_some_and(|p| (12..=20).contains(&p)) {
        return Err(StrataError::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!(
                "Parameter for aggregate function {} is out of range: [12, 20]",
                f.name
            ),
        ));
    }
    let mut plain = f.clone();
    plain.parameters = FunctionArguments::None;
    plain.name = quoted(registered);
    Ok(Expr::Function(plain))
}

fn parameters(f: &Function) -> Vec<Expr> {
    match &f.parameters {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn arguments(f: &Function) -> Option<Vec<Expr>> {
    match &f.args {
        FunctionArguments::None => Some(Vec::new()),
        FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        FunctionArguments::Subquery(_) => None,
    }
}

fn set_arguments(f: &mut Function, args: Vec<Expr>) {
    let args: Vec<FunctionArg> = args
        .into_iter()
        .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
        .collect();
    match &mut f.args {
        FunctionArguments::List(list) => list.args = args,
        other => {
            if let Expr::Function(g) = call("f", Vec::new()) {
                *other = g.args;
            }
            if let FunctionArguments::List(list) = other {
                list.args = args;
            }
        }
    }
}

/// `name` as a function name, quoted so DataFusion keeps its case.
pub(crate) fn quoted(name: &str) -> ObjectName {
    ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
        '"', name,
    ))])
}

/// `named_struct('__parameter_1', p1, ...)`.
fn parameter_struct(values: Vec<Expr>) -> Expr {
    let mut fields = Vec::with_capacity(values.len() * 2);
    for (i, value) in values.into_iter().enumerate() {
        fields.push(string_literal(&format!("{PARAMETER_PREFIX}{}", i + 1)));
        fields.push(value);
    }
    call("named_struct", fields)
}
