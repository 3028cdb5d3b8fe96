//! Results that ClickHouse brings to a common type DataFusion gets wrong, in
//! a CASE (and `if`, `?:`, `multiIf`, which are CASEs by now), an array
//! literal's elements, the arguments of `least`, `greatest`, `coalesce` and
//! `ifNull`, and a union's columns ([`unify_results`]):
//!
//! - A DateTime and a Date make a DateTime, the Date taken as its midnight
//!   on the DateTime's clock. DataFusion's common type of the two is a
//!   zone-less nanosecond timestamp, which shows the wrong clock and nine
//!   digits; the Dates are converted first here.
//! - A FixedString and a String make a String; DataFusion finds no common
//!   type. The FixedStrings are converted to text first here, and as
//!   operands of `||` by [`FixedStringConcat`] as the operator is planned.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{Expr, ExprSchemable, ScalarUDF, lit};
use datafusion::sql::sqlparser::ast::BinaryOperator;

/// `expr`, a CASE, an array literal or a call of [`UNIFYING_FUNCTIONS`],
/// with its results converted to the type ClickHouse gives them together;
/// `convert` calls a Strata function.
pub fn unify(
    expr: Expr,
    schema: &DFSchema,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<Transformed<Expr>> {
    let mut expr = expr;
    let mut results: Vec<&mut Expr> = match &mut expr {
        Expr::Case(case) => {
            let mut results: Vec<&mut Expr> = case
                .when_then_expr
                .iter_mut()
                .map(|(_, result)| result.as_mut())
                .collect();
            results.extend(case.else_expr.as_deref_mut());
            results
        }
        Expr::ScalarFunction(f) if UNIFYING_FUNCTIONS.contains(&f.func.name()) => {
            f.args.iter_mut().collect()
        }
        _ => return Ok(Transformed::no(expr)),
    };
    let types = results
        .iter()
        .map(|e| e.get_type(schema))
        .collect::<Result<Vec<_>>>()?;
    let changed = unify_results(&mut results, &types, convert);
    drop(results);
    Ok(Transformed::new_transformed(expr, changed))
}

/// `coalesce(a, b, c)` (or `ifNull`) without the arguments after the first
/// that cannot be NULL, which ClickHouse leaves out of the call and of its
/// type: `coalesce(NULL, toUInt8(1), toInt64(2))` is a UInt8.
pub fn stop_at_non_nullable(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    let Expr::ScalarFunction(mut f) = expr else {
        return Transformed::no(expr);
    };
    if !matches!(f.func.name(), "coalesce" | "ifNull" | "nvl") {
        return Transformed::no(Expr::ScalarFunction(f));
    }
    let first = f
        .args
        .iter()
        .position(|arg| arg.nullable(schema).is_ok_and(|nullable| !nullable));
    match first {
        Some(first) if first + 1 < f.args.len() => {
            f.args.truncate(first + 1);
            Transformed::yes(Expr::ScalarFunction(f))
        }
        _ => Transformed::no(Expr::ScalarFunction(f)),
    }
}

/// Functions whose arguments are all results of one common type.
const UNIFYING_FUNCTIONS: &[&str] = &[
    "make_array",
    "least",
    "greatest",
    "coalesce",
    "ifNull",
    "nvl",
];

/// Converts `results` of `types` where ClickHouse's common type of them is
/// not DataFusion's; whether any was converted.
pub fn unify_results(
    results: &mut [&mut Expr],
    types: &[DataType],
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> bool {
    match moment_conversion(types, &convert) {
        Some(to_moment) => convert_where(results, types, |t| *t == DataType::Date32, to_moment),
        None if mixes_fixed_strings(types) => convert_where(
            results,
            types,
            |t| matches!(t, DataType::FixedSizeBinary(_)),
            |e| convert("toString", vec![e]),
        ),
        None => false,
    }
}

/// The conversion of a Date to the one DateTime type among `types`, if
/// `types` hold Dates and moments of exactly one type.
fn moment_conversion<'a>(
    types: &[DataType],
    convert: &'a impl Fn(&str, Vec<Expr>) -> Expr,
) -> Option<impl Fn(Expr) -> Expr + 'a> {
    let moments: Vec<&DataType> = types
        .iter()
        .filter(|t| matches!(t, DataType::Timestamp(..)))
        .collect();
    // Moments of several types are left to DataFusion's common type.
    let [DataType::Timestamp(unit, zone), rest @ ..] = moments.as_slice() else {
        return None;
    };
    if rest
        .iter()
        .any(|t| **t != DataType::Timestamp(*unit, zone.clone()))
        || !types.contains(&DataType::Date32)
    {
        return None;
    }
    let (unit, zone) = (*unit, zone.as_ref().map(|z| lit(z.to_string())));
    Some(move |date: Expr| match unit {
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
    })
}

/// Whether `types` hold a FixedString beside a String.
fn mixes_fixed_strings(types: &[DataType]) -> bool {
    types
        .iter()
        .any(|t| matches!(t, DataType::FixedSizeBinary(_)))
        && types
            .iter()
            .any(|t| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View))
}

/// Converts each of `results` whose type `converts`; whether any was.
fn convert_where(
    results: &mut [&mut Expr],
    types: &[DataType],
    converts: impl Fn(&DataType) -> bool,
    conversion: impl Fn(Expr) -> Expr,
) -> bool {
    let mut changed = false;
    for (result, data_type) in results.iter_mut().zip(types) {
        if converts(data_type) {
            **result = conversion(std::mem::replace(*result, lit(0)));
            changed = true;
        }
    }
    changed
}

/// `||` with a FixedString operand, which DataFusion refuses as it plans
/// the operator: the FixedString is converted to text by `toString`.
#[derive(Debug)]
pub struct FixedStringConcat {
    to_string: Arc<ScalarUDF>,
}

impl FixedStringConcat {
    pub fn new(to_string: Arc<ScalarUDF>) -> Self {
        FixedStringConcat { to_string }
    }

    fn as_text(&self, operand: Expr, schema: &DFSchema) -> Expr {
        match operand.get_type(schema) {
            Ok(DataType::FixedSizeBinary(_)) => Expr::ScalarFunction(ScalarFunction::new_udf(
                Arc::clone(&self.to_string),
                vec![operand],
            )),
            _ => operand,
        }
    }
}

impl ExprPlanner for FixedStringConcat {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        let RawBinaryExpr { op, left, right } = expr;
        if op != BinaryOperator::StringConcat {
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        }
        let (left, right) = (self.as_text(left, schema), self.as_text(right, schema));
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}
