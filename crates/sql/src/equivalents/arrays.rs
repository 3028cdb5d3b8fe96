//! ClickHouse array, map and tuple functions that are rewritten to DataFusion expressions
//! (see the parent module); functions with their own semantics are UDFs in
//! `strata-functions`.
//!
//! ClickHouse's lambda functions (`arrayFirst(x -> x > 1, a)`) become
//! DataFusion's `array_transform` of the lambda over the array, whose
//! result (the lambda's value for each element) goes to Strata's UDF with
//! the function's array semantics. A lambda over several arrays
//! (`(x, y) -> ...`) ranges over their `arrayZip`, its parameters read as
//! the tuple's elements.

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, LambdaFunction, LambdaFunctionParameter, LambdaSyntax, OneOrManyWithParens, Value,
    visit_expressions_mut,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[
    "arrayFirst",
    "arrayFirstOrNull",
    "arrayLast",
    "arrayLastOrNull",
    "arrayFirstIndex",
    "arrayLastIndex",
    "arrayFill",
    "arrayReverseFill",
    "arraySplit",
    "arrayReverseSplit",
    "arraySort",
    "arrayReverseSort",
    "arrayMin",
    "arrayMax",
    "arrayCumSum",
    "arrayCumSumNonNegative",
    "mapFilter",
    "mapApply",
    "mapExists",
    "mapAll",
    "mapSort",
    "mapReverseSort",
    "replicate",
    "arrayFold",
    "arrayPartialSort",
    "arrayPartialReverseSort",
    "arrayTopK",
    "arrayBottomK",
];

/// The name of the one parameter of a lambda over zipped arrays.
const TUPLE_PARAMETER: &str = "__strata_tuple";

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let lambda = matches!(args.first(), Some(Expr::Lambda(_)));
    let expr = match name {
        // Without a lambda these are Strata's UDFs as called.
        "arraySort" | "arrayReverseSort" if !lambda => call(name, cloned(args)),
        "arrayMin"
        | "arrayMax"
        | "arrayCumSum"
        | "arrayCumSumNonNegative"
        | "arraySort"
        | "arrayReverseSort"
            if lambda =>
        {
            let values = mapped(name, args)?;
            match name {
                "arraySort" | "arrayReverseSort" => call(name, vec![args[1].clone(), values]),
                _ => call(name, vec![values]),
            }
        }
        "arrayFold" => fold(args)?,
        // A full sort is a partial sort: ClickHouse leaves the order past
        // the limit unspecified.
        "arrayPartialSort" | "arrayPartialReverseSort" => {
            let sort = name.replace("Partial", "");
            return equivalent(&sort, &without_limit(name, args)?);
        }
        // The first `k` elements of the array sorted (the greatest first for
        // the top ones).
        "arrayTopK" | "arrayBottomK" => {
            let sort = if name == "arrayTopK" {
                "arrayReverseSort"
            } else {
                "arraySort"
            };
            let rest = without_limit(name, args)?;
            let sorted = equivalent(sort, &rest)?.expect("a sort is rewritten");
            let k = args[usize::from(lambda)].clone();
            let one = Expr::value(Value::Number("1".to_string(), false));
            call("arraySlice", vec![sorted, one, k])
        }
        "arrayFirstIndex" | "arrayLastIndex" => call(name, vec![mapped(name, args)?]),
        "arrayFirst" | "arrayFirstOrNull" | "arrayLast" | "arrayLastOrNull" => {
            let index = if name.starts_with("arrayFirst") {
                "arrayFirstIndex"
            } else {
                "arrayLastIndex"
            };
            let element = if name.ends_with("OrNull") {
                "arrayElementOrNull"
            } else {
                "arrayElement"
            };
            let position = call(index, vec![mapped(name, args)?]);
            call(element, vec![args[1].clone(), position])
        }
        // The lambda's values first: they check the arguments.
        "arrayFill" | "arrayReverseFill" | "arraySplit" | "arrayReverseSplit" => {
            let values = mapped(name, args)?;
            call(name, vec![args[1].clone(), values])
        }
        "mapFilter" | "mapSort" | "mapReverseSort" if lambda => {
            let values = over_entries(name, args)?;
            call(name, vec![args[1].clone(), values])
        }
        "mapExists" | "mapAll" => call(name, vec![over_entries(name, args)?]),
        // `replicate(x, arr, ...)`: `x` once for each element of `arr`.
        "replicate" => {
            if args.len() < 2 {
                return Err(crate::ast_rewrite::arity(name, args.len(), "at least 2"));
            }
            let length = call("length", vec![args[1].clone()]);
            call("arrayWithConstant", vec![length, args[0].clone()])
        }
        // The lambda gives each entry's new (key, value) tuple. Keys and
        // values are each read in one transform: DataFusion cannot type a
        // transform over another's result.
        "mapApply" => {
            let (entries, body) = entries_and_body(name, args)?;
            let element = |i| {
                let read = tuple_lambda(tuple_element(body.clone(), i));
                call("array_transform", vec![entries.clone(), read])
            };
            call("mapFromArrays", vec![element(1), element(2)])
        }
        _ => return Ok(None),
    };
    Ok(Some(expr))
}

/// The arguments of `name([f,] limit, a...)` less the limit.
fn without_limit<'a>(name: &str, args: &[&'a Expr]) -> Result<Vec<&'a Expr>> {
    let at = usize::from(matches!(args.first(), Some(Expr::Lambda(_))));
    if args.len() < at + 2 {
        return Err(crate::ast_rewrite::arity(name, args.len(), "at least 2"));
    }
    let mut rest = args.to_vec();
    rest.remove(at);
    Ok(rest)
}

/// `arrayFold(lambda, a[, b...], initial)` as the higher-order function
/// that takes the lambda last, its parameters checked against the arrays.
fn fold(args: &[&Expr]) -> Result<Expr> {
    const NAME: &str = "arrayFold";
    if args.len() < 3 {
        return Err(StrataError::new(
            ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
            format!(
                "Function {NAME} requires as arguments a lambda function, at least one array and an accumulator"
            ),
        ));
    }
    let Expr::Lambda(lambda) = args[0] else {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("First argument for function {NAME} must be a function"),
        ));
    };
    let parameters = match &lambda.params {
        OneOrManyWithParens::One(_) => 1,
        OneOrManyWithParens::Many(ps) => ps.len(),
    };
    if parameters != args.len() - 1 {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "First argument of function {NAME} must be a lambda function with {} arguments, found one with {parameters} instead",
                args.len() - 1
            ),
        ));
    }
    let mut values = cloned(&args[1..]);
    values.push(args[0].clone());
    Ok(call(strata_functions::arrays::fold::PLANNED_NAME, values))
}

/// A `(k, v) -> ...` lambda (the first argument) evaluated over the
/// entries of a map (the second), as an array of its values.
fn over_entries(name: &str, args: &[&Expr]) -> Result<Expr> {
    let (entries, body) = entries_and_body(name, args)?;
    Ok(call("array_transform", vec![entries, tuple_lambda(body)]))
}

/// The entries of a map (the second argument) as (key, value) tuples, and
/// the body of the `(k, v) -> ...` lambda (the first) over one of them.
fn entries_and_body(name: &str, args: &[&Expr]) -> Result<(Expr, Expr)> {
    let [Expr::Lambda(lambda), map] = args else {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Function {name} takes a lambda function and a map"),
        ));
    };
    let OneOrManyWithParens::Many(parameters) = &lambda.params else {
        return Err(key_and_value(name));
    };
    if parameters.len() != 2 {
        return Err(key_and_value(name));
    }
    let parameters: Vec<Ident> = parameters.iter().map(|p| p.name.clone()).collect();
    // The zip of keys and values rather than DataFusion's `map_entries`,
    // which cannot take the non-nullable values of Strata's maps.
    let entries = call(
        "arrayZip",
        vec![
            call("map_keys", vec![(*map).clone()]),
            call("map_values", vec![(*map).clone()]),
        ],
    );
    Ok((entries, tuple_body(lambda, &parameters)))
}

fn key_and_value(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("The lambda of function {name} must take a key and a value"),
    )
}

fn cloned(args: &[&Expr]) -> Vec<Expr> {
    args.iter().map(|a| (*a).clone()).collect()
}

/// The lambda (the first argument) evaluated over the arrays (the rest),
/// as an array of its values.
pub(super) fn mapped(name: &str, args: &[&Expr]) -> Result<Expr> {
    let (lambda, arrays) = lambda_over_arrays(name, args)?;
    Ok(call("array_transform", vec![arrays, lambda]))
}

/// The array a lambda ranges over and the lambda to apply to its elements:
/// one array as it is, several as their `arrayZip` with a [`tuple_lambda`].
fn lambda_over_arrays(name: &str, args: &[&Expr]) -> Result<(Expr, Expr)> {
    let Some((Expr::Lambda(lambda), arrays)) = args.split_first() else {
        if args.len() < 2 {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Function {name} needs at least 2 arguments, passed {}",
                    args.len()
                ),
            ));
        }
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("The first argument of function {name} must be a lambda function"),
        ));
    };
    let parameters: Vec<Ident> = match &lambda.params {
        OneOrManyWithParens::One(p) => vec![p.name.clone()],
        OneOrManyWithParens::Many(ps) => ps.iter().map(|p| p.name.clone()).collect(),
    };
    if arrays.is_empty() || parameters.len() != arrays.len() {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "The lambda of function {name} takes {} arguments, but {} arrays are passed",
                parameters.len(),
                arrays.len()
            ),
        ));
    }
    if let [array] = arrays {
        return Ok((Expr::Lambda(lambda.clone()), (*array).clone()));
    }
    let zipped = call("arrayZip", cloned(arrays));
    let body = tuple_body(lambda, &parameters);
    Ok((tuple_lambda(body), zipped))
}

/// The body of `(x, y) -> body` with `x` and `y` read from the parameter of
/// a [`tuple_lambda`].
fn tuple_body(lambda: &LambdaFunction, parameters: &[Ident]) -> Expr {
    let mut body = (*lambda.body).clone();
    let _ = visit_expressions_mut(&mut body, |e| {
        match e {
            Expr::Identifier(ident) => {
                if let Some(i) = parameters.iter().position(|p| p.value == ident.value) {
                    *e = tuple_element(Expr::Identifier(Ident::new(TUPLE_PARAMETER)), i + 1);
                }
            }
            // DataFusion's planner takes a tuple for a struct only when it
            // starts with a name or a literal, which a read element is not.
            Expr::Tuple(items) => *e = call("struct", std::mem::take(items)),
            _ => {}
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    body
}

fn tuple_element(tuple: Expr, position: usize) -> Expr {
    let position = Expr::value(Value::Number(position.to_string(), false));
    call("tupleElement", vec![tuple, position])
}

/// `array` without its NULL elements.
pub(super) fn without_nulls(array: Expr) -> Expr {
    let lambda = lambda_of(|item| Expr::IsNotNull(Box::new(item)));
    call("array_filter", vec![array, lambda])
}

/// `item -> body(item)`, a lambda of one parameter.
pub(super) fn lambda_of(body: impl FnOnce(Expr) -> Expr) -> Expr {
    const ITEM: &str = "__strata_item";
    Expr::Lambda(LambdaFunction {
        params: OneOrManyWithParens::One(LambdaFunctionParameter {
            name: Ident::new(ITEM),
            data_type: None,
        }),
        body: Box::new(body(Expr::Identifier(Ident::new(ITEM)))),
        syntax: LambdaSyntax::Arrow,
    })
}

/// `t -> body`, a lambda over tuples.
fn tuple_lambda(body: Expr) -> Expr {
    Expr::Lambda(LambdaFunction {
        params: OneOrManyWithParens::One(LambdaFunctionParameter {
            name: Ident::new(TUPLE_PARAMETER),
            data_type: None,
        }),
        body: Box::new(body),
        syntax: LambdaSyntax::Arrow,
    })
}
