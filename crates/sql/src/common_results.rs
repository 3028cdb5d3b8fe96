//! Results that ClickHouse brings to a common type DataFusion gets wrong, in
//! a CASE (and `if`, `?:`, `multiIf`, which are CASEs by now) and in an
//! array literal's elements:
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

/// `expr`, a CASE or an array literal, with its results converted to the
/// type ClickHouse gives them together; `convert` calls a Strata function.
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
        Expr::ScalarFunction(f) if f.func.name() == "make_array" => f.args.iter_mut().collect(),
        _ => return Ok(Transformed::no(expr)),
    };
    let types = results
        .iter()
        .map(|e| e.get_type(schema))
        .collect::<Result<Vec<_>>>()?;
    let changed = match moment_conversion(&types, &convert) {
        Some(to_moment) => {
            convert_where(&mut results, &types, |t| *t == DataType::Date32, to_moment)
        }
        None if mixes_fixed_strings(&types) => convert_where(
            &mut results,
            &types,
            |t| matches!(t, DataType::FixedSizeBinary(_)),
            |e| convert("toString", vec![e]),
        ),
        None => false,
    };
    drop(results);
    Ok(Transformed::new_transformed(expr, changed))
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
