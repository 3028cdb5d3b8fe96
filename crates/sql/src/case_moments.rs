//! A CASE (and `if`, `?:`, `multiIf`, which are CASEs by now) choosing
//! between a DateTime and a Date is a DateTime in ClickHouse, the Date
//! taken as its midnight on the DateTime's clock. DataFusion's common type
//! of the two is a zone-less nanosecond timestamp, which shows the wrong
//! clock and nine digits; the Date results are converted first here.

use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::{Expr, ExprSchemable, lit};

pub fn widen_dates(
    expr: Expr,
    schema: &DFSchema,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<Transformed<Expr>> {
    let Expr::Case(mut case) = expr else {
        return Ok(Transformed::no(expr));
    };
    let mut types = Vec::with_capacity(case.when_then_expr.len() + 1);
    for (_, result) in &case.when_then_expr {
        types.push(result.get_type(schema)?);
    }
    if let Some(otherwise) = &case.else_expr {
        types.push(otherwise.get_type(schema)?);
    }
    let moments: Vec<&DataType> = types
        .iter()
        .filter(|t| matches!(t, DataType::Timestamp(..)))
        .collect();
    // Moments of several types are left to DataFusion's common type.
    let [DataType::Timestamp(unit, zone), rest @ ..] = moments.as_slice() else {
        return Ok(Transformed::no(Expr::Case(case)));
    };
    if rest
        .iter()
        .any(|t| **t != DataType::Timestamp(*unit, zone.clone()))
        || !types.contains(&DataType::Date32)
    {
        return Ok(Transformed::no(Expr::Case(case)));
    }
    let zone = zone.as_ref().map(|z| lit(z.to_string()));
    let to_moment = |date: Expr| match unit {
        TimeUnit::Second => convert(
            "toDateTime",
            std::iter::once(date).chain(zone.clone()).collect(),
        ),
        unit => {
            let digits: i64 = match unit {
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                _ => 9,
            };
            let args = [date, lit(digits)].into_iter().chain(zone.clone());
            convert("toDateTime64", args.collect())
        }
    };
    let mut at = 0;
    for (_, result) in case.when_then_expr.iter_mut() {
        if types[at] == DataType::Date32 {
            *result = Box::new(to_moment(std::mem::replace(result.as_mut(), lit(0))));
        }
        at += 1;
    }
    if let Some(otherwise) = case.else_expr.as_mut()
        && types[at] == DataType::Date32
    {
        *otherwise = Box::new(to_moment(std::mem::replace(otherwise.as_mut(), lit(0))));
    }
    Ok(Transformed::yes(Expr::Case(case)))
}
