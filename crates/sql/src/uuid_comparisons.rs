//! A UUID compared with a string compares with the string read as a UUID,
//! as in ClickHouse: `id = '61f0c404-...'`, `id IN ('...', '...')`,
//! `id BETWEEN '...' AND '...'`.
//!
//! DataFusion refuses to compare a `FixedSizeBinary(16)` with text while it
//! plans a binary operator, so those are caught as they are planned
//! ([`UuidComparisons`], an `ExprPlanner`); `IN` lists and `BETWEEN` are only
//! typed later and are rewritten with the logical plan ([`read_as_uuids`]).

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::{Between, InList, ScalarFunction};
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{Expr, ExprSchemable, ScalarUDF};
use datafusion::sql::sqlparser::ast::BinaryOperator;
use strata_common::types::is_uuid;

/// Reads the text side of a comparison with a UUID through `toUUID`.
#[derive(Debug)]
pub struct UuidComparisons {
    to_uuid: Arc<ScalarUDF>,
}

impl UuidComparisons {
    /// `to_uuid` is the registered `toUUID` function.
    pub fn new(to_uuid: Arc<ScalarUDF>) -> Self {
        assert_eq!(to_uuid.name(), "toUUID");
        UuidComparisons { to_uuid }
    }

    fn read_as_uuid(&self, text: Expr) -> Expr {
        Expr::ScalarFunction(ScalarFunction::new_udf(
            Arc::clone(&self.to_uuid),
            vec![text],
        ))
    }

    /// `expr` with the strings it compares with a UUID read as UUIDs, for the
    /// comparisons DataFusion types after planning (`IN`, `BETWEEN`).
    pub fn read_as_uuids(&self, expr: Expr, schema: &DFSchema) -> Result<(Expr, bool)> {
        match expr {
            Expr::InList(InList {
                expr,
                mut list,
                negated,
            }) if holds_uuids(&expr, schema)? => {
                let mut changed = false;
                for item in &mut list {
                    if holds_text(item, schema)? {
                        *item = self.read_as_uuid(std::mem::take(item));
                        changed = true;
                    }
                }
                Ok((Expr::InList(InList::new(expr, list, negated)), changed))
            }
            Expr::Between(Between {
                expr,
                negated,
                low,
                high,
            }) if holds_uuids(&expr, schema)? => {
                let mut changed = false;
                let mut bound = |side: Box<Expr>| -> Result<Box<Expr>> {
                    Ok(if holds_text(&side, schema)? {
                        changed = true;
                        Box::new(self.read_as_uuid(*side))
                    } else {
                        side
                    })
                };
                let (low, high) = (bound(low)?, bound(high)?);
                Ok((
                    Expr::Between(Between::new(expr, negated, low, high)),
                    changed,
                ))
            }
            other => Ok((other, false)),
        }
    }
}

fn holds_uuids(expr: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(is_uuid(&expr.to_field(schema)?.1))
}

fn holds_text(expr: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(matches!(
        expr.get_type(schema)?,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ))
}

impl ExprPlanner for UuidComparisons {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        let comparison = matches!(
            expr.op,
            BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
        );
        if !comparison {
            return Ok(PlannerResult::Original(expr));
        }
        let RawBinaryExpr { op, left, right } = expr;
        let (left, right) = if holds_uuids(&left, schema)? && holds_text(&right, schema)? {
            (left, self.read_as_uuid(right))
        } else if holds_text(&left, schema)? && holds_uuids(&right, schema)? {
            (self.read_as_uuid(left), right)
        } else {
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        };
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}
