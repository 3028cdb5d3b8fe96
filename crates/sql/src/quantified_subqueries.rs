//! `x op ANY (subquery)` and `x op ALL (subquery)` as ClickHouse reads them:
//! `= ANY` is `IN`, `!= ALL` is `NOT IN`, `= ALL` and `!= ANY` compare with
//! the subquery's single value (`singleValueOrNull`), and the orderings
//! compare with its least or greatest value (`x > ALL` is `x > max`, `x > ANY`
//! is `x > min`), which over no rows is the type's default, as ClickHouse's
//! aggregates give.

use datafusion::sql::sqlparser::ast::{BinaryOperator, Expr, Query, SetExpr, TableFactor};

use crate::parse_expr_text;

/// Column the subquery's values take in the set it is read as.
const VALUE: &str = "__quantified";

/// `expr` rewritten if it is a quantified comparison with a subquery;
/// whether it was.
pub fn rewrite(expr: &mut Expr) -> bool {
    let (left, op, right, any) = match expr {
        Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        } => (left, compare_op, right, true),
        Expr::AllOp {
            left,
            compare_op,
            right,
        } => (left, compare_op, right, false),
        _ => return false,
    };
    let Expr::Subquery(subquery) = right.as_ref() else {
        return false;
    };
    let in_subquery = |subquery: Box<Query>, negated: bool| Expr::InSubquery {
        expr: left.clone(),
        subquery,
        negated,
    };
    let new = match (&*op, any) {
        (BinaryOperator::Eq, true) => in_subquery(subquery.clone(), false),
        (BinaryOperator::NotEq, false) => in_subquery(subquery.clone(), true),
        (BinaryOperator::Eq, false) => in_subquery(folded("singleValueOrNull", subquery), false),
        (BinaryOperator::NotEq, true) => in_subquery(folded("singleValueOrNull", subquery), true),
        (BinaryOperator::Lt | BinaryOperator::LtEq, false)
        | (BinaryOperator::Gt | BinaryOperator::GtEq, true) => {
            compared(left, op, folded("min", subquery))
        }
        (BinaryOperator::Lt | BinaryOperator::LtEq, true)
        | (BinaryOperator::Gt | BinaryOperator::GtEq, false) => {
            compared(left, op, folded("max", subquery))
        }
        _ => return false,
    };
    *expr = new;
    true
}

fn compared(left: &Expr, op: &BinaryOperator, right: Box<Query>) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left.clone()),
        op: op.clone(),
        right: Box::new(Expr::Subquery(right)),
    }
}

/// `SELECT aggregate(value) FROM (subquery)`.
fn folded(aggregate: &str, subquery: &Query) -> Box<Query> {
    let template = format!("(SELECT {aggregate}({VALUE}) FROM (SELECT 1) AS {VALUE}_set({VALUE}))");
    let Ok(Expr::Subquery(mut query)) = parse_expr_text(&template) else {
        unreachable!("the template is a subquery")
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        unreachable!("the template is a select")
    };
    let TableFactor::Derived { subquery: set, .. } = &mut select.from[0].relation else {
        unreachable!("the template reads a derived table")
    };
    *set = Box::new(subquery.clone());
    query
}
