//! ClickHouse has no boolean results: comparisons, `IN`, `LIKE`, `AND`, `NOT`
//! and friends return UInt8 0 or 1, and any number is a condition (non-zero
//! is true). DataFusion's return Boolean and take only Boolean conditions.
//!
//! So wherever such a result is a value (a projected or grouped column, an
//! argument of a function or aggregate, an arithmetic operand, a side of a
//! comparison with a number) it is cast to UInt8, and wherever a number
//! became a condition (a filter over a subquery's comparison column, `AND`,
//! `OR`, `NOT`, `CASE WHEN`, an aggregate's `FILTER`) it is compared with
//! zero. Columns of type Bool and `true`/`false` stay Bool, as in ClickHouse.
//!
//! Most of this is a rewrite of the planned plan; mixes DataFusion refuses
//! while planning (`(x = 1) AND 1`) are caught as they are planned
//! ([`MixedOperands`]), and a WHERE, PREWHERE, HAVING or `NOT` operand that
//! may be a number is planned as `toBool(...)`, which DataFusion takes as a
//! condition, and rewritten to `x != 0` once its type is known.
//!
//! A Bool column summed or averaged (`sum(b)`, `avg(x)` over a subquery's
//! comparison) counts its trues, as in ClickHouse; DataFusion refuses the
//! type while planning, before any rewrite sees it, so the planner wraps
//! such arguments in [`BoolAsNumber`] and the rewrite unwraps the ones that
//! turn out not to be Bool.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::{AggregateFunction, Case, ScalarFunction};
use datafusion::logical_expr::planner::{
    ExprPlanner, PlannerResult, RawAggregateExpr, RawBinaryExpr,
};
use datafusion::logical_expr::{
    BinaryExpr, Cast, ColumnarValue, Expr, ExprSchemable, Operator, ReturnFieldArgs,
    ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility, lit,
};
use datafusion::sql::sqlparser::ast::BinaryOperator as SqlOperator;

/// ClickHouse's conversion to Bool, which the SQL front also wraps around a
/// WHERE or `NOT` operand that may be a number.
pub const TO_BOOL: &str = "toBool";

/// Whether `expr` computes a condition: ClickHouse's result is UInt8 where
/// DataFusion's is Boolean.
pub fn is_condition(expr: &Expr, schema: &DFSchema) -> bool {
    match expr {
        // ClickHouse's `not`, `and` and `or` return Bool when given one.
        Expr::Not(inner) => !is_bool_value(inner, schema),
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And | Operator::Or,
            right,
        }) => !is_bool_value(left, schema) && !is_bool_value(right, schema),
        Expr::BinaryExpr(BinaryExpr { op, .. }) => {
            crate::plan_rewrite::is_comparison(*op)
                || matches!(
                    op,
                    Operator::LikeMatch
                        | Operator::NotLikeMatch
                        | Operator::ILikeMatch
                        | Operator::NotILikeMatch
                        | Operator::RegexMatch
                        | Operator::RegexNotMatch
                        | Operator::RegexIMatch
                        | Operator::RegexNotIMatch
                )
        }
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotTrue(_)
        | Expr::IsNotFalse(_)
        | Expr::Like(_)
        | Expr::SimilarTo(_)
        | Expr::InList(_)
        | Expr::Between(_)
        | Expr::InSubquery(_)
        | Expr::Exists(_) => true,
        // `toBool` and a CAST to `Bool` or `Nullable(Bool)` make a Bool of
        // ClickHouse's too.
        Expr::ScalarFunction(f) => {
            ![
                TO_BOOL,
                "_CAST",
                strata_functions::cast_not_null::CAST_NOT_NULL,
            ]
            .contains(&f.name())
                && expr.get_type(schema).is_ok_and(|t| t == DataType::Boolean)
        }
        _ => false,
    }
}

/// Whether `expr` is a Bool of ClickHouse's too: a Bool column, `true`.
fn is_bool_value(expr: &Expr, schema: &DFSchema) -> bool {
    expr.get_type(schema).is_ok_and(|t| t == DataType::Boolean) && !is_condition(expr, schema)
}

/// `expr` as a value: a condition becomes UInt8.
fn as_value(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    if is_condition(&expr, schema) {
        Transformed::yes(Expr::Cast(Cast::new(Box::new(expr), DataType::UInt8)))
    } else {
        Transformed::no(expr)
    }
}

/// `expr` as a condition: a number is true where it is not zero. The SQL
/// front wraps a WHERE that may be a number in `toBool`, which goes here, so
/// the filter is a plain comparison that scans can prune with.
pub fn as_condition(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    let expr = match expr {
        Expr::ScalarFunction(ScalarFunction { func, mut args })
            if func.name() == TO_BOOL && args.len() == 1 =>
        {
            let inner = args.pop().expect("one argument");
            if inner.get_type(schema).is_ok_and(|t| t.is_numeric()) {
                return Transformed::yes(inner.not_eq(lit(0u8)));
            }
            if inner.get_type(schema).is_ok_and(|t| t == DataType::Boolean) {
                return Transformed::yes(inner);
            }
            Expr::ScalarFunction(ScalarFunction {
                func,
                args: vec![inner],
            })
        }
        other => other,
    };
    match expr.get_type(schema) {
        Ok(t) if t.is_numeric() => Transformed::yes(expr.not_eq(lit(0u8))),
        _ => Transformed::no(expr),
    }
}

/// A projected or grouped expression as a value, keeping its output name.
pub fn output_as_value(expr: Expr, schema: &DFSchema) -> Transformed<Expr> {
    let (inner, alias) = match expr {
        Expr::Alias(alias) => (*alias.expr, Some((alias.relation, alias.name))),
        other => (other, None),
    };
    if !is_condition(&inner, schema) {
        let expr = match alias {
            Some((relation, name)) => inner.alias_qualified(relation, name),
            None => inner,
        };
        return Transformed::no(expr);
    }
    let name = inner.schema_name().to_string();
    let cast = Expr::Cast(Cast::new(Box::new(inner), DataType::UInt8));
    Transformed::yes(match alias {
        Some((relation, name)) => cast.alias_qualified(relation, name),
        None => cast.alias(name),
    })
}

/// Rewrites the operands of `expr` itself (not of its children, which a
/// bottom-up traversal has already seen) to the roles ClickHouse gives them.
pub fn operands(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let mut changed = false;
    let mut value = |e: Expr| {
        let t = as_value(e, schema);
        changed |= t.transformed;
        t.data
    };
    let expr = match expr {
        Expr::ScalarFunction(ScalarFunction { func, args }) => {
            let args = args.into_iter().map(&mut value).collect();
            Expr::ScalarFunction(ScalarFunction { func, args })
        }
        Expr::AggregateFunction(mut f) => {
            let unwrapped: Vec<_> = f
                .params
                .args
                .into_iter()
                .map(|arg| unwrap_non_bool(arg, schema))
                .collect();
            let any_unwrapped = unwrapped.iter().any(|t| t.transformed);
            f.params.args = unwrapped.into_iter().map(|t| value(t.data)).collect();
            changed |= any_unwrapped;
            if let Some(filter) = f.params.filter.take() {
                let t = as_condition(*filter, schema);
                changed |= t.transformed;
                f.params.filter = Some(Box::new(t.data));
            }
            Expr::AggregateFunction(AggregateFunction { ..f })
        }
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (left, right) = match op {
                Operator::And | Operator::Or => {
                    let (l, r) = (as_condition(*left, schema), as_condition(*right, schema));
                    changed |= l.transformed || r.transformed;
                    (l.data, r.data)
                }
                _ if op.is_numerical_operators()
                    || matches!(
                        op,
                        Operator::BitwiseAnd
                            | Operator::BitwiseOr
                            | Operator::BitwiseXor
                            | Operator::BitwiseShiftLeft
                            | Operator::BitwiseShiftRight
                    ) =>
                {
                    (value(*left), value(*right))
                }
                // `(x = 1) = 1`: a condition compared with a number is one.
                Operator::Eq
                | Operator::NotEq
                | Operator::Lt
                | Operator::LtEq
                | Operator::Gt
                | Operator::GtEq => {
                    let numeric = |e: &Expr| e.get_type(schema).is_ok_and(|t| t.is_numeric());
                    if numeric(&right) || numeric(&left) {
                        (value(*left), value(*right))
                    } else {
                        (*left, *right)
                    }
                }
                _ => (*left, *right),
            };
            Expr::BinaryExpr(BinaryExpr::new(Box::new(left), op, Box::new(right)))
        }
        Expr::Not(inner) => match inner.get_type(schema) {
            Ok(t) if t.is_integer() => {
                changed = true;
                (*inner).eq(lit(0u8))
            }
            _ => {
                let inner = as_condition(*inner, schema);
                changed |= inner.transformed;
                Expr::Not(Box::new(inner.data))
            }
        },
        Expr::Case(Case {
            expr: None,
            when_then_expr,
            else_expr,
        }) => {
            let when_then_expr = when_then_expr
                .into_iter()
                .map(|(when, then)| {
                    let when = as_condition(*when, schema);
                    changed |= when.transformed;
                    (Box::new(when.data), then)
                })
                .collect();
            Expr::Case(Case {
                expr: None,
                when_then_expr,
                else_expr,
            })
        }
        other => other,
    };
    Ok(if changed {
        Transformed::yes(expr)
    } else {
        Transformed::no(expr)
    })
}

/// Mixes of conditions and numbers in one binary operator, which DataFusion
/// refuses as it plans the operator: `(x = 1) AND 1`, `(x > 0) = 1`.
#[derive(Debug, Default)]
pub struct MixedOperands;

impl ExprPlanner for MixedOperands {
    fn plan_aggregate(&self, expr: RawAggregateExpr) -> Result<PlannerResult<RawAggregateExpr>> {
        if !COUNTS_BOOLS.contains(&expr.func.name()) {
            return Ok(PlannerResult::Original(expr));
        }
        let args = expr.args.into_iter().map(bool_as_number).collect();
        Ok(PlannerResult::Original(RawAggregateExpr { args, ..expr }))
    }

    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        let boolean = |e: &Expr| e.get_type(schema).is_ok_and(|t| t == DataType::Boolean);
        let numeric = |e: &Expr| e.get_type(schema).is_ok_and(|t| t.is_numeric());
        let RawBinaryExpr { op, left, right } = expr;
        let logical = matches!(op, SqlOperator::And | SqlOperator::Or);
        let mixed = (boolean(&left) && numeric(&right))
            || (numeric(&left) && boolean(&right))
            || (logical && (numeric(&left) || numeric(&right)));
        if !mixed {
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        }
        let (left, right) = match op {
            SqlOperator::And | SqlOperator::Or => (
                as_condition(left, schema).data,
                as_condition(right, schema).data,
            ),
            SqlOperator::Eq
            | SqlOperator::NotEq
            | SqlOperator::Lt
            | SqlOperator::LtEq
            | SqlOperator::Gt
            | SqlOperator::GtEq
            | SqlOperator::Plus
            | SqlOperator::Minus
            | SqlOperator::Multiply
            | SqlOperator::Divide
            | SqlOperator::Modulo => (as_number(left, schema), as_number(right, schema)),
            _ => (left, right),
        };
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}

/// A Boolean as UInt8, whatever computed it.
fn as_number(expr: Expr, schema: &DFSchema) -> Expr {
    if expr.get_type(schema).is_ok_and(|t| t == DataType::Boolean) {
        Expr::Cast(Cast::new(Box::new(expr), DataType::UInt8))
    } else {
        expr
    }
}

/// Aggregates of numbers that ClickHouse also gives Bool, as 0 and 1.
const COUNTS_BOOLS: [&str; 12] = [
    "sum",
    "avg",
    "sumWithOverflow",
    "sumKahan",
    "var_pop",
    "var_samp",
    "stddev_pop",
    "stddev_samp",
    "median",
    "quantile",
    "quantileExact",
    "corr",
];

/// `arg` under [`BoolAsNumber`], unless its type is plain from the syntax.
fn bool_as_number(arg: Expr) -> Expr {
    if matches!(arg, Expr::Literal(..)) {
        return arg;
    }
    static UDF: LazyLock<Arc<ScalarUDF>> =
        LazyLock::new(|| Arc::new(ScalarUDF::new_from_impl(BoolAsNumber::default())));
    Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(&UDF), vec![arg]))
}

/// The argument of a [`BoolAsNumber`] that is not Bool, so plans keep the
/// shape they had without it.
fn unwrap_non_bool(arg: Expr, schema: &DFSchema) -> Transformed<Expr> {
    match arg {
        Expr::ScalarFunction(ScalarFunction { func, mut args })
            if func.name() == BoolAsNumber::NAME
                && args[0]
                    .get_type(schema)
                    .is_ok_and(|t| t != DataType::Boolean) =>
        {
            Transformed::yes(args.pop().expect("one argument"))
        }
        other => Transformed::no(other),
    }
}

/// A Bool as UInt8 and any other value unchanged, named as its argument so
/// that `sum(b)` keeps its name.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BoolAsNumber {
    signature: Signature,
}

impl Default for BoolAsNumber {
    fn default() -> Self {
        BoolAsNumber {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl BoolAsNumber {
    pub const NAME: &'static str = "_boolAsNumber";
}

impl ScalarUDFImpl for BoolAsNumber {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn display_name(&self, args: &[Expr]) -> Result<String> {
        Ok(args[0].to_string())
    }

    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        Ok(args[0].schema_name().to_string())
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let argument = &args.arg_fields[0];
        let data_type = match argument.data_type() {
            DataType::Boolean => DataType::UInt8,
            other => other.clone(),
        };
        Ok(Arc::new(Field::new(
            Self::NAME,
            data_type,
            argument.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let target = args.return_field.data_type();
        Ok(match &args.args[0] {
            ColumnarValue::Array(array) => ColumnarValue::Array(cast(array, target)?),
            ColumnarValue::Scalar(scalar) => ColumnarValue::Scalar(scalar.cast_to(target)?),
        })
    }
}
