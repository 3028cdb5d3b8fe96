//! ClickHouse's LIMIT and OFFSET relative to the result's end or size:
//! `LIMIT -n` keeps the last n rows, `OFFSET -m` drops the last m, and a
//! fraction in (0, 1) is that share of all the rows, rounded up
//! (`LIMIT 0.1`, `OFFSET 0.5`). A fraction of a fraction's rows is of the
//! whole result, not of what the offset left.
//!
//! These need the result's row count, so the query becomes the subquery of
//! one that numbers its rows in its order and counts them all (two windows),
//! keeps those in the range, and orders them by their number.

use datafusion::sql::sqlparser::ast::{
    Expr, LimitClause, OrderByExpr, Query, Statement, UnaryOperator, Value,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::query_clauses::{place_inner, positional_order, single_select, take_order, window_item};

const ROW: &str = "__row_number";
const ROWS: &str = "__rows";

/// A LIMIT's or OFFSET's count as ClickHouse reads a literal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Count {
    /// The first n rows (LIMIT) or n rows skipped (OFFSET).
    First(u64),
    /// The last n rows (LIMIT) or the last n dropped (OFFSET).
    Last(u64),
    /// A share of all the rows, in (0, 1).
    Share(f64),
}

/// Rewrites `query`'s LIMIT or OFFSET when one is negative or a fraction.
pub fn rewrite(query: &mut Query) -> Result<()> {
    let (limit, offset) = match &query.limit_clause {
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) if limit_by.is_empty() => (limit.clone(), offset.as_ref().map(|o| o.value.clone())),
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(limit.clone()), Some(offset.clone()))
        }
        _ => return Ok(()),
    };
    let limit = limit.map(|e| count(&e, "LIMIT")).transpose()?.flatten();
    let offset = offset.map(|e| count(&e, "OFFSET")).transpose()?.flatten();
    let relative = |c: &Option<Count>| matches!(c, Some(Count::Last(_) | Count::Share(_)));
    if !relative(&limit) && !relative(&offset) || query.fetch.is_some() {
        whole_counts(query, limit, offset);
        return Ok(());
    }
    let condition = condition(limit, offset)?;
    query.limit_clause = None;
    let order = take_order(query, "a negative or fractional LIMIT")?;
    let select = single_select(query, "a negative or fractional LIMIT")?;
    let order: Vec<OrderByExpr> = positional_order(select, order);
    select
        .projection
        .push(window_item("row_number", vec![], &order, ROW));
    select
        .projection
        .push(window_item("count", vec![], &[], ROWS));
    let text = format!(
        "SELECT * EXCEPT ({ROW}, {ROWS}) FROM (SELECT 1) AS __limited WHERE {condition} ORDER BY {ROW}"
    );
    let Statement::Query(outer) = crate::parser::parse_statement(&text)?.statement else {
        unreachable!("the wrapper is a query");
    };
    let mut outer = *outer;
    outer.with = query.with.take();
    let inner = std::mem::replace(query, outer);
    place_inner(query, inner);
    Ok(())
}

/// A count written as a whole float (`LIMIT 5.0`, `LIMIT 1e1`) as the
/// integer DataFusion takes.
fn whole_counts(query: &mut Query, limit: Option<Count>, offset: Option<Count>) {
    let whole = |count: Option<Count>, expr: &mut Expr| {
        if let Some(Count::First(n)) = count {
            *expr = Expr::value(Value::Number(n.to_string(), false));
        }
    };
    match &mut query.limit_clause {
        Some(LimitClause::LimitOffset {
            limit: limit_expr,
            offset: offset_expr,
            ..
        }) => {
            if let Some(expr) = limit_expr {
                whole(limit, expr);
            }
            if let Some(expr) = offset_expr {
                whole(offset, &mut expr.value);
            }
        }
        Some(LimitClause::OffsetCommaLimit {
            offset: offset_expr,
            limit: limit_expr,
        }) => {
            whole(limit, limit_expr);
            whole(offset, offset_expr);
        }
        None => {}
    }
}

/// The count `expr` writes, if it is a number literal (else DataFusion
/// plans it, or says why not).
fn count(expr: &Expr, clause: &str) -> Result<Option<Count>> {
    let (text, negative) = match expr {
        Expr::Value(value) => (&value.value, false),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(value) => (&value.value, true),
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    let Value::Number(text, _) = text else {
        return Ok(None);
    };
    if let Ok(n) = text.parse::<u64>() {
        return Ok(Some(if negative {
            Count::Last(n)
        } else {
            Count::First(n)
        }));
    }
    match text.parse::<f64>() {
        Ok(share) if !negative && share > 0.0 && share < 1.0 => Ok(Some(Count::Share(share))),
        Ok(whole) if whole.fract() == 0.0 && whole >= 0.0 && whole < u64::MAX as f64 => {
            let n = whole as u64;
            Ok(Some(if negative {
                Count::Last(n)
            } else {
                Count::First(n)
            }))
        }
        _ => Err(StrataError::new(
            ErrorCode::INVALID_LIMIT_EXPRESSION,
            format!(
                "The value {}{text} of {clause} expression is not representable as UInt64 or \
                 Int64 or Float64 in the range (0, 1)",
                if negative { "-" } else { "" }
            ),
        )),
    }
}

/// The rows kept, over their number (from 1) and the result's row count.
fn condition(limit: Option<Count>, offset: Option<Count>) -> Result<String> {
    let (first, last) = match offset {
        None => ("1".to_string(), ROWS.to_string()),
        Some(Count::First(m)) => (format!("{m} + 1"), ROWS.to_string()),
        Some(Count::Last(m)) => ("1".to_string(), format!("{ROWS} - {m}")),
        Some(Count::Share(f)) => (format!("ceil({f:?} * {ROWS}) + 1"), ROWS.to_string()),
    };
    let range = format!("{ROW} >= {first} AND {ROW} <= {last}");
    let within = match (limit, offset) {
        (None, _) => return Ok(range),
        (Some(Count::Last(_)), Some(Count::Share(_))) => {
            return Err(not_implemented(
                "Negative LIMIT is not supported with fractional OFFSET yet",
            ));
        }
        (Some(Count::Share(_)), Some(Count::Last(_))) => {
            return Err(not_implemented(
                "Fractional LIMIT is not supported with negative OFFSET yet",
            ));
        }
        (Some(Count::First(n)), _) => format!("{ROW} < {first} + {n}"),
        (Some(Count::Last(n)), _) => format!("{ROW} + {n} > {last}"),
        (Some(Count::Share(f)), _) => format!("{ROW} < {first} + ceil({f:?} * {ROWS})"),
    };
    Ok(format!("{range} AND {within}"))
}

fn not_implemented(message: &str) -> StrataError {
    StrataError::new(ErrorCode::NOT_IMPLEMENTED, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_clickhouse_reads_them() {
        let parse = |text: &str| {
            let sql = format!("SELECT 1 LIMIT {text}");
            let Statement::Query(query) = crate::parser::parse_statement(&sql).unwrap().statement
            else {
                unreachable!()
            };
            let Some(LimitClause::LimitOffset { limit: Some(e), .. }) = query.limit_clause else {
                unreachable!()
            };
            count(&e, "LIMIT")
        };
        assert_eq!(parse("3").unwrap(), Some(Count::First(3)));
        assert_eq!(parse("-3").unwrap(), Some(Count::Last(3)));
        assert_eq!(parse("0.25").unwrap(), Some(Count::Share(0.25)));
        assert_eq!(parse("5.0").unwrap(), Some(Count::First(5)));
        assert_eq!(parse("-1e1").unwrap(), Some(Count::Last(10)));
        assert_eq!(parse("1 + 2").unwrap(), None);
        for bad in ["1.5", "-0.25"] {
            assert_eq!(
                parse(bad).unwrap_err().code,
                ErrorCode::INVALID_LIMIT_EXPRESSION
            );
        }
    }

    #[test]
    fn the_range_is_over_the_row_number_and_count() {
        let text = condition(Some(Count::Last(3)), Some(Count::First(2))).unwrap();
        assert_eq!(
            text,
            "__row_number >= 2 + 1 AND __row_number <= __rows AND __row_number + 3 > __rows"
        );
        assert!(condition(Some(Count::Share(0.5)), Some(Count::Last(1))).is_err());
    }
}
