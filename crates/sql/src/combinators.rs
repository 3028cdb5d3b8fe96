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

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName,
    ObjectNamePart, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::aggregate::combinators::{COMBINED, Combinator, SEPARATOR};
use strata_functions::aggregate::frame::PARAMETER_PREFIX;

use crate::ast_rewrite::{AstContext, call};

/// `f` as DataFusion plans it, if it is a parametric call of a Strata
/// aggregate or a combinator chain.
pub fn rewrite(f: &Function, written: &str, ctx: &AstContext) -> Result<Option<Expr>> {
    let spelling = |name: &str| (ctx.resolve_function)(name).unwrap_or_else(|| name.to_string());
    if (ctx.is_aggregate)(&spelling(written)) {
        return Ok(parametric(f, &spelling(written)));
    }
    let Some((base, chain)) = parse(written, &|name| base_aggregate(name, ctx)) else {
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
        let marker = call(
            "named_struct",
            vec![string(&spec), Expr::value(Value::Null)],
        );
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

/// The registered name of an aggregate a chain can start from.
fn base_aggregate(name: &str, ctx: &AstContext) -> Option<String> {
    let registered = (ctx.resolve_function)(name).unwrap_or_else(|| name.to_string());
    (ctx.is_aggregate)(&registered).then_some(registered)
}

/// `name` as a base aggregate and its combinators, outermost first.
fn parse(name: &str, base: &dyn Fn(&str) -> Option<String>) -> Option<(String, Vec<Combinator>)> {
    let mut chain = Vec::new();
    let mut rest = name;
    loop {
        let combinator = Combinator::ALL
            .into_iter()
            .find(|c| rest.len() > c.suffix().len() && rest.ends_with(c.suffix()))?;
        chain.push(combinator);
        rest = &rest[..rest.len() - combinator.suffix().len()];
        if let Some(registered) = base(rest) {
            return Some((registered, chain));
        }
    }
}

/// A Strata aggregate's parameters as its trailing struct argument.
fn parametric(f: &Function, registered: &str) -> Option<Expr> {
    if !strata_functions::aggregate::takes_parameters(registered) {
        return None;
    }
    let params = parameters(f);
    if !matches!(f.parameters, FunctionArguments::List(_)) {
        return None;
    }
    let mut rewritten = f.clone();
    rewritten.parameters = FunctionArguments::None;
    rewritten.name = quoted(registered);
    if !params.is_empty() {
        let mut args = arguments(f)?;
        args.push(parameter_struct(params));
        set_arguments(&mut rewritten, args);
    }
    Some(Expr::Function(rewritten))
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

fn quoted(name: &str) -> ObjectName {
    ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
        '"', name,
    ))])
}

fn string(text: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(text.to_string()))
}

/// `named_struct('__parameter_1', p1, ...)`.
fn parameter_struct(values: Vec<Expr>) -> Expr {
    let mut fields = Vec::with_capacity(values.len() * 2);
    for (i, value) in values.into_iter().enumerate() {
        fields.push(string(&format!("{PARAMETER_PREFIX}{}", i + 1)));
        fields.push(value);
    }
    call("named_struct", fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_parse_from_the_outside_in() {
        let base = |name: &str| {
            ["sum", "uniq", "groupArray"]
                .contains(&name)
                .then(|| name.to_string())
        };
        assert_eq!(
            parse("sumArrayIf", &base),
            Some(("sum".into(), vec![Combinator::If, Combinator::Array]))
        );
        assert_eq!(
            parse("uniqOrDefault", &base),
            Some(("uniq".into(), vec![Combinator::OrDefault]))
        );
        assert_eq!(
            parse("groupArrayArray", &base),
            Some(("groupArray".into(), vec![Combinator::Array]))
        );
        assert_eq!(parse("nothing", &base), None);
    }
}
