//! The values of `number` a scan's filters allow, so `numbers(1e12) WHERE
//! number IN (123, 456)` generates two rows, not a trillion (ClickHouse
//! reads such filters as conditions on the table's key). The filters stay
//! above the scan; the ranges only skip rows no filter would keep.
//!
//! Understood: comparisons of `number` (or of it cast to a wider integer
//! type) with an integer literal, `IN` lists of literals, `BETWEEN`, and
//! `AND` / `OR` of these. Anything else allows every value.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{Between, InList};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};

/// One past the largest UInt64.
pub(crate) const END: u128 = 1 << 64;

/// Ascending, disjoint, non-empty half-open ranges `[low, high)` of values.
pub(crate) type Ranges = Vec<(u128, u128)>;

/// The values every filter allows; None where none of them restricts.
pub(crate) fn allowed(filters: &[Expr]) -> Option<Ranges> {
    filters
        .iter()
        .filter_map(ranges_of)
        .reduce(|a, b| intersection(&a, &b))
}

/// The values `filter` allows, where it restricts `number` in a way this
/// module reads.
pub(crate) fn ranges_of(filter: &Expr) -> Option<Ranges> {
    match filter {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And,
            right,
        }) => match (ranges_of(left), ranges_of(right)) {
            (Some(a), Some(b)) => Some(intersection(&a, &b)),
            (one, other) => one.or(other),
        },
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Or,
            right,
        }) => Some(union(ranges_of(left)?, ranges_of(right)?)),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => comparison(left, *op, right),
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) if is_number(expr) => {
            let points = list
                .iter()
                .map(|item| integer(item).map(|v| point(v)))
                .collect::<Option<Vec<Ranges>>>()?;
            Some(points.into_iter().fold(Vec::new(), union))
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) if is_number(expr) => {
            let (low, high) = (integer(low)?, integer(high)?);
            Some(span(clamp(low), clamp(high.saturating_add(1))))
        }
        _ => None,
    }
}

/// `number op literal` or `literal op number`.
fn comparison(left: &Expr, op: Operator, right: &Expr) -> Option<Ranges> {
    let (op, value) = if is_number(left) {
        (op, integer(right)?)
    } else if is_number(right) {
        (op.swap()?, integer(left)?)
    } else {
        return None;
    };
    Some(match op {
        Operator::Eq => point(value),
        Operator::Lt => span(0, clamp(value)),
        Operator::LtEq => span(0, clamp(value.saturating_add(1))),
        Operator::Gt => span(clamp(value.saturating_add(1)), END),
        Operator::GtEq => span(clamp(value), END),
        _ => return None,
    })
}

/// The column `number`, maybe cast to a type that holds every UInt64
/// exactly and in order.
fn is_number(expr: &Expr) -> bool {
    match expr {
        Expr::Column(column) => column.name == "number",
        Expr::Cast(cast) => {
            let widens = match cast.field.data_type() {
                DataType::UInt64 => true,
                DataType::Decimal128(precision, 0) => *precision >= 20,
                _ => false,
            };
            widens && is_number(&cast.expr)
        }
        _ => false,
    }
}

/// An integer literal's value.
fn integer(expr: &Expr) -> Option<i128> {
    let Expr::Literal(value, _) = expr else {
        return None;
    };
    match value {
        ScalarValue::Int8(Some(v)) => Some(i128::from(*v)),
        ScalarValue::Int16(Some(v)) => Some(i128::from(*v)),
        ScalarValue::Int32(Some(v)) => Some(i128::from(*v)),
        ScalarValue::Int64(Some(v)) => Some(i128::from(*v)),
        ScalarValue::UInt8(Some(v)) => Some(i128::from(*v)),
        ScalarValue::UInt16(Some(v)) => Some(i128::from(*v)),
        ScalarValue::UInt32(Some(v)) => Some(i128::from(*v)),
        ScalarValue::UInt64(Some(v)) => Some(i128::from(*v)),
        ScalarValue::Decimal128(Some(v), _, 0) => Some(*v),
        _ => None,
    }
}

/// `value` clamped to the bounds of a range of UInt64 values.
fn clamp(value: i128) -> u128 {
    value.clamp(0, END as i128) as u128
}

fn point(value: i128) -> Ranges {
    match u64::try_from(value) {
        Ok(v) => vec![(u128::from(v), u128::from(v) + 1)],
        Err(_) => Vec::new(),
    }
}

fn span(low: u128, high: u128) -> Ranges {
    if low < high {
        vec![(low, high)]
    } else {
        Vec::new()
    }
}

/// The values in both.
pub(crate) fn intersection(a: &[(u128, u128)], b: &[(u128, u128)]) -> Ranges {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let low = a[i].0.max(b[j].0);
        let high = a[i].1.min(b[j].1);
        if low < high {
            out.push((low, high));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The values in either, merged where they touch.
fn union(a: Ranges, b: Ranges) -> Ranges {
    let mut all: Ranges = a.into_iter().chain(b).collect();
    all.sort_unstable();
    let mut out: Ranges = Vec::with_capacity(all.len());
    for (low, high) in all {
        match out.last_mut() {
            Some(last) if low <= last.1 => last.1 = last.1.max(high),
            _ => out.push((low, high)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use datafusion::logical_expr::{col, lit};

    use super::*;

    #[test]
    fn comparisons_lists_and_between_make_ranges() {
        let number = || col("number");
        assert_eq!(
            ranges_of(&number().in_list(vec![lit(456u64), lit(123u64), lit(-1i64)], false)),
            Some(vec![(123, 124), (456, 457)])
        );
        assert_eq!(
            ranges_of(&number().gt(lit(5u8)).and(lit(10u8).gt_eq(number()))),
            Some(vec![(6, 11)])
        );
        assert_eq!(
            ranges_of(
                &number()
                    .between(lit(3u8), lit(4u8))
                    .or(number().eq(lit(9u8)))
            ),
            Some(vec![(3, 5), (9, 10)])
        );
        assert_eq!(ranges_of(&number().lt(lit(0i64))), Some(vec![]));
        assert_eq!(ranges_of(&(number() % lit(7u8)).eq(lit(3u8))), None);
        assert_eq!(
            ranges_of(&number().eq(lit(1u8)).or(col("x").eq(lit(1u8)))),
            None
        );
    }

    #[test]
    fn filters_intersect() {
        let filters = [col("number").gt_eq(lit(10u8)), col("number").lt(lit(20u8))];
        assert_eq!(allowed(&filters), Some(vec![(10, 20)]));
        assert_eq!(allowed(&[col("other").eq(lit(1u8))]), None);
    }
}
