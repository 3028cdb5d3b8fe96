//! A UUID, a FixedString or an IP address compared with a string compares
//! with the string read as its type, as in ClickHouse: `id = '61f0c404-...'`,
//! `code IN ('ab', 'cd')`, `id BETWEEN '...' AND '...'`, `ip > '10.0.0.0'`.
//! So does an integer with a string literal (`n = '42'`, `n IN ('1', '2')`):
//! text that is no integer of the type's sign is TYPE_MISMATCH, and one out
//! of the type's range makes the comparison constant as ClickHouse does
//! (`!=` true, every other operator false; an `IN` list drops it).
//!
//! DataFusion refuses to compare a `FixedSizeBinary` with text while it
//! plans a binary operator, so those are caught as they are planned
//! ([`TextComparisons`], an `ExprPlanner`); `IN` lists and `BETWEEN` are only
//! typed later and are rewritten with the logical plan
//! ([`TextComparisons::read_texts`]).

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::{Between, InList, ScalarFunction};
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{Expr, ExprSchemable, ScalarUDF, lit};
use datafusion::sql::sqlparser::ast::BinaryOperator;
use strata_common::types::{
    clickhouse_type_name, integer_range, is_ipv4, is_ipv6, is_uuid, literal_integer_type,
};
use strata_common::{ErrorCode, StrataError};

/// Reads the text side of a comparison with a UUID through `toUUID`, with
/// a `FixedString(N)` through `toFixedString(text, N)`, and with an address
/// through `toIPv4` or `toIPv6`.
#[derive(Debug)]
pub struct TextComparisons {
    to_uuid: Arc<ScalarUDF>,
    to_fixed_string: Arc<ScalarUDF>,
    to_ipv4: Arc<ScalarUDF>,
    to_ipv6: Arc<ScalarUDF>,
}

/// The function named `name` among the registered `functions`.
fn registered(functions: &[Arc<ScalarUDF>], name: &str) -> Arc<ScalarUDF> {
    let function = functions
        .iter()
        .find(|f| f.name() == name)
        .unwrap_or_else(|| panic!("{name} is registered"));
    Arc::clone(function)
}

/// What text compared with a value of this type is read as.
enum ReadAs {
    Uuid,
    FixedString(i32),
    Ipv4,
    Ipv6,
}

impl TextComparisons {
    /// Takes `toUUID` and `toFixedString` from the registered `functions`.
    pub fn new(functions: &[Arc<ScalarUDF>]) -> Self {
        TextComparisons {
            to_uuid: registered(functions, "toUUID"),
            to_fixed_string: registered(functions, "toFixedString"),
            to_ipv4: registered(functions, "toIPv4"),
            to_ipv6: registered(functions, "toIPv6"),
        }
    }

    fn read(&self, text: Expr, read_as: &ReadAs) -> Expr {
        let (function, args) = match read_as {
            ReadAs::Uuid => (&self.to_uuid, vec![text]),
            ReadAs::FixedString(width) => (&self.to_fixed_string, vec![text, lit(*width as u64)]),
            ReadAs::Ipv4 => (&self.to_ipv4, vec![text]),
            ReadAs::Ipv6 => (&self.to_ipv6, vec![text]),
        };
        Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(function), args))
    }

    /// `expr` with the strings it compares with a UUID or FixedString read
    /// as that type, for the comparisons DataFusion types after planning
    /// (`IN`, `BETWEEN`).
    pub fn read_texts(&self, expr: Expr, schema: &DFSchema) -> Result<(Expr, bool)> {
        match expr {
            Expr::InList(InList {
                expr,
                list,
                negated,
            }) if list_has_integer_texts(&expr, &list, schema)? => {
                let mut kept = Vec::with_capacity(list.len());
                for item in list {
                    match integer_text(&expr, &item, schema)? {
                        Some(IntegerText::Fits(value)) => kept.push(value),
                        Some(IntegerText::OutOfRange) => {}
                        None => kept.push(item),
                    }
                }
                let read = match kept.is_empty() {
                    // Nothing the column can hold: the constant answer, as
                    // an IN (NULL where the column is) so it stays UInt8.
                    true => {
                        let operand = match expr.nullable(schema)? && !expr.is_volatile() {
                            true => *expr,
                            false => lit(0u8),
                        };
                        Expr::InList(InList::new(
                            Box::new(operand.clone()),
                            vec![operand],
                            !negated,
                        ))
                    }
                    false => Expr::InList(InList::new(expr, kept, negated)),
                };
                Ok((read, true))
            }
            Expr::InList(InList {
                expr,
                mut list,
                negated,
            }) if let Some(read_as) = read_as(&expr, schema)? => {
                let mut changed = false;
                for item in &mut list {
                    if holds_text(item, schema)? {
                        *item = self.read(std::mem::take(item), &read_as);
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
            }) if let Some(read_as) = read_as(&expr, schema)? => {
                let mut changed = false;
                let mut bound = |side: Box<Expr>| -> Result<Box<Expr>> {
                    Ok(if holds_text(&side, schema)? {
                        changed = true;
                        Box::new(self.read(*side, &read_as))
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

/// A string literal read as an integer column's type.
enum IntegerText {
    Fits(Expr),
    OutOfRange,
}

/// `text` read as the type of `column` where `column` is a plain integer
/// (not an Enum, Interval or other type kept as one) and `text` a string
/// literal.
fn integer_text(column: &Expr, text: &Expr, schema: &DFSchema) -> Result<Option<IntegerText>> {
    let Expr::Literal(
        ScalarValue::Utf8(Some(text))
        | ScalarValue::LargeUtf8(Some(text))
        | ScalarValue::Utf8View(Some(text)),
        _,
    ) = text
    else {
        return Ok(None);
    };
    let field = column.to_field(schema)?.1;
    let data_type = field.data_type();
    if !field.metadata().is_empty() {
        return Ok(None);
    }
    // A number written in the query has the least type that holds it.
    let shown_type = match column {
        Expr::Literal(ScalarValue::Int64(Some(n)), _) => literal_integer_type(*n),
        _ => data_type.clone(),
    };
    let Some((least, greatest)) = integer_range(&shown_type) else {
        return Ok(None);
    };
    let mismatch = || {
        StrataError::new(
            ErrorCode::TYPE_MISMATCH,
            format!(
                "Cannot convert string '{text}' to type {}",
                clickhouse_type_name(&shown_type, false)
            ),
        )
        .into_datafusion()
    };
    let value: i128 = text.parse().map_err(|_| mismatch())?;
    if value < 0 && least == 0 {
        return Err(mismatch());
    }
    if value < least || value > greatest {
        return Ok(Some(IntegerText::OutOfRange));
    }
    let value = match value < 0 {
        true => ScalarValue::Int64(Some(value as i64)),
        false => ScalarValue::UInt64(Some(value as u64)),
    };
    Ok(Some(IntegerText::Fits(lit(value.cast_to(data_type)?))))
}

fn list_has_integer_texts(expr: &Expr, list: &[Expr], schema: &DFSchema) -> Result<bool> {
    for item in list {
        if integer_text(expr, item, schema)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What text compared with `expr` must be read as, if not as text.
fn read_as(expr: &Expr, schema: &DFSchema) -> Result<Option<ReadAs>> {
    let field = expr.to_field(schema)?.1;
    Ok(match field.data_type() {
        _ if is_uuid(&field) => Some(ReadAs::Uuid),
        _ if is_ipv4(&field) => Some(ReadAs::Ipv4),
        _ if is_ipv6(&field) => Some(ReadAs::Ipv6),
        DataType::FixedSizeBinary(width) => Some(ReadAs::FixedString(*width)),
        _ => None,
    })
}

fn holds_text(expr: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(matches!(
        expr.get_type(schema)?,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ))
}

impl ExprPlanner for TextComparisons {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        if !crate::ast_rewrite::is_comparison(&expr.op) {
            return Ok(PlannerResult::Original(expr));
        }
        let RawBinaryExpr { op, left, right } = expr;
        let integer = match integer_text(&left, &right, schema)? {
            Some(read) => Some((read, &left, true)),
            None => integer_text(&right, &left, schema)?.map(|read| (read, &right, false)),
        };
        match integer {
            Some((IntegerText::Fits(value), _, text_right)) => {
                let (left, right) = match text_right {
                    true => (left, value),
                    false => (value, right),
                };
                return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
            }
            Some((IntegerText::OutOfRange, column, _)) => {
                // Still a comparison, so its result is UInt8 as any other's:
                // a column with itself is NULL where it is NULL.
                let operand = match column.nullable(schema)? && !column.is_volatile() {
                    true => column.clone(),
                    false => lit(0u8),
                };
                let op = match op {
                    BinaryOperator::NotEq => BinaryOperator::Eq,
                    _ => BinaryOperator::NotEq,
                };
                return Ok(PlannerResult::Original(RawBinaryExpr {
                    op,
                    left: operand.clone(),
                    right: operand,
                }));
            }
            None => {}
        }
        let (left, right) = match (read_as(&left, schema)?, read_as(&right, schema)?) {
            (Some(read_as), None) if holds_text(&right, schema)? => {
                (left, self.read(right, &read_as))
            }
            (None, Some(read_as)) if holds_text(&left, schema)? => {
                (self.read(left, &read_as), right)
            }
            _ => return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right })),
        };
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}
