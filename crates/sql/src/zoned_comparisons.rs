//! DateTimes in different time zones compare as instants, as in ClickHouse:
//! `toTimeZone(t, 'Asia/Tokyo') = t` is true. DataFusion would refuse two
//! zones, and give a zone-less timestamp the other's zone by reading its
//! wall-clock time there (Arrow's cast), which moves the instant.
//!
//! So where a comparison (`=`, `<`, ..., `BETWEEN`, `IN`) mixes a zoned
//! DateTime with another zone, a zone-less one or a Date, every zoned
//! operand drops its zone (Arrow keeps the instant when it does), a Date
//! becomes its midnight in the first zoned operand's zone, and text is read
//! on that zone's clock, as ClickHouse reads both.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::{Between, InList};
use datafusion::logical_expr::{BinaryExpr, Cast, Expr, ExprSchemable};

use crate::plan_rewrite::is_comparison;

/// `expr` with its operands moved to zone-less instants, where it compares
/// DateTimes of several zones.
pub fn compare_instants(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) if is_comparison(op) => {
            match instants(&[&left, &right], schema)? {
                Some(mut operands) => {
                    let right = Box::new(operands.pop().expect("two operands"));
                    let left = Box::new(operands.pop().expect("two operands"));
                    Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr {
                        left,
                        op,
                        right,
                    })))
                }
                None => Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr {
                    left,
                    op,
                    right,
                }))),
            }
        }
        Expr::Between(between) => {
            let operands = [&*between.expr, &*between.low, &*between.high];
            let Some(mut operands) = instants(&operands, schema)? else {
                return Ok(Transformed::no(Expr::Between(between)));
            };
            let high = operands.pop().expect("three operands");
            let low = operands.pop().expect("three operands");
            let value = operands.pop().expect("three operands");
            let rewritten = Between::new(
                Box::new(value),
                between.negated,
                Box::new(low),
                Box::new(high),
            );
            Ok(Transformed::yes(Expr::Between(rewritten)))
        }
        Expr::InList(in_list) => {
            let mut operands = vec![&*in_list.expr];
            operands.extend(in_list.list.iter());
            let Some(mut operands) = instants(&operands, schema)? else {
                return Ok(Transformed::no(Expr::InList(in_list)));
            };
            let value = operands.remove(0);
            let rewritten = InList::new(Box::new(value), operands, in_list.negated);
            Ok(Transformed::yes(Expr::InList(rewritten)))
        }
        other => Ok(Transformed::no(other)),
    }
}

/// The operands as zone-less instants, or None when they need no change:
/// no zoned DateTime, or every moment in the same zone.
fn instants(operands: &[&Expr], schema: &DFSchema) -> Result<Option<Vec<Expr>>> {
    let types = operands
        .iter()
        .map(|e| e.get_type(schema))
        .collect::<Result<Vec<_>>>()?;
    let Some(zone) = types.iter().find_map(|t| match t {
        DataType::Timestamp(_, Some(zone)) => Some(Arc::clone(zone)),
        _ => None,
    }) else {
        return Ok(None);
    };
    let elsewhere = types.iter().any(|t| match t {
        DataType::Timestamp(_, other) => other.as_ref() != Some(&zone),
        DataType::Date32 => true,
        _ => false,
    });
    if !elsewhere {
        return Ok(None);
    }
    let cast = |e: Expr, t: DataType| Expr::Cast(Cast::new(Box::new(e), t));
    let zoned = |unit| DataType::Timestamp(unit, Some(Arc::clone(&zone)));
    let rewritten = operands.iter().zip(&types).map(|(e, t)| {
        let e = (*e).clone();
        match t {
            DataType::Timestamp(unit, Some(_)) => cast(e, DataType::Timestamp(*unit, None)),
            // Midnight on the zone's clock: a zone-less midnight given the
            // zone is read there.
            DataType::Date32 => {
                let midnight = cast(e, DataType::Timestamp(TimeUnit::Second, None));
                let there = cast(midnight, zoned(TimeUnit::Second));
                cast(there, DataType::Timestamp(TimeUnit::Second, None))
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let there = cast(e, zoned(TimeUnit::Nanosecond));
                cast(there, DataType::Timestamp(TimeUnit::Nanosecond, None))
            }
            _ => e,
        }
    });
    Ok(Some(rewritten.collect()))
}
