//! `untuple(t)` in a select list is one column per element of the tuple,
//! named `tupleElement(t, 'name')`, or `x.name` under the alias `x`, as in
//! ClickHouse. The function itself is the identity (`strata-functions`);
//! the columns are made here, where the plan knows the tuple's type.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::common::tree_node::Transformed;
use datafusion::logical_expr::expr::{Alias, ScalarFunction};
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, Projection, ScalarUDF, lit};

/// `node` with each `untuple(t)` of a projection made the tuple's elements.
pub fn expand(
    node: LogicalPlan,
    tuple_element: &Arc<ScalarUDF>,
) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Projection(projection) = node else {
        return Ok(Transformed::no(node));
    };
    if !projection.expr.iter().any(|e| untupled(e).is_some()) {
        return Ok(Transformed::no(LogicalPlan::Projection(projection)));
    }
    let schema = Arc::clone(projection.input.schema());
    let mut exprs = Vec::with_capacity(projection.expr.len());
    for expr in projection.expr {
        let Some((tuple, prefix)) = untupled(&expr) else {
            exprs.push(expr);
            continue;
        };
        let DataType::Struct(fields) = tuple.get_type(&schema)? else {
            exprs.push(expr);
            continue;
        };
        let named = strata_common::types::is_named_tuple(&fields);
        for (i, field) in fields.iter().enumerate() {
            let element = match named {
                true => field.name().clone(),
                false => (i + 1).to_string(),
            };
            let name = match &prefix {
                Prefix::Alias(alias) => format!("{alias}.{element}"),
                Prefix::Argument(argument) => format!("tupleElement({argument}, '{element}')"),
            };
            let args = vec![tuple.clone(), lit((i + 1) as u64)];
            let call =
                Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(tuple_element), args));
            exprs.push(call.alias(name));
        }
    }
    let projection = Projection::try_new(exprs, projection.input)?;
    Ok(Transformed::yes(LogicalPlan::Projection(projection)))
}

/// What the elements' names start with.
enum Prefix {
    /// A name the user gave the call.
    Alias(String),
    /// The call's argument, as its name spells it.
    Argument(String),
}

/// The tuple an `untuple` call in a select list takes, and its columns' prefix.
fn untupled(expr: &Expr) -> Option<(&Expr, Prefix)> {
    let (call, name) = match expr {
        Expr::Alias(Alias { expr, name, .. }) => (expr.as_ref(), Some(name.as_str())),
        other => (other, None),
    };
    let Expr::ScalarFunction(ScalarFunction { func, args }) = call else {
        return None;
    };
    if func.name() != "untuple" || args.len() != 1 {
        return None;
    }
    let named = |n: &str| {
        n.strip_prefix("untuple(")?
            .strip_suffix(')')
            .map(str::to_string)
    };
    let prefix = match name {
        Some(name) if let Some(argument) = named(name) => Prefix::Argument(argument),
        Some(name) => Prefix::Alias(name.to_string()),
        None => Prefix::Argument(args[0].schema_name().to_string()),
    };
    Some((&args[0], prefix))
}
