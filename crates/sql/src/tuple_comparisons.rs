//! Tuples compare element by element, as in ClickHouse: `(a, b) = (c, d)` is
//! `a = c AND b = d` and `!=` its negation, except that a NULL in any pair
//! makes the result NULL (`(1, NULL) = (2, NULL)` is NULL, not 0). Arrow
//! compares structs as values, a NULL element equal to a NULL. Only tuples
//! written out (a `tuple(...)` call or a tuple constant) are split.
//!
//! Where an element may be NULL, the pairs' results are combined as
//! numbers, so that any NULL carries: `=` is their product being 1, `!=`
//! their sum being above 0. Otherwise they are joined by AND (OR), which a
//! primary key can prune by.

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::{BinaryExpr, Expr, ExprSchemable, Operator, cast, lit};

/// `expr` split into its elements' comparisons where it compares two tuples.
pub fn compare_elements(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = &expr else {
        return Ok(Transformed::no(expr));
    };
    let (joiner, test, bound) = match op {
        Operator::Eq => (Operator::Multiply, Operator::Eq, 1i64),
        Operator::NotEq => (Operator::Plus, Operator::Gt, 0i64),
        _ => return Ok(Transformed::no(expr)),
    };
    let (Some(lefts), Some(rights)) = (elements(left)?, elements(right)?) else {
        return Ok(Transformed::no(expr));
    };
    if lefts.len() != rights.len() || lefts.is_empty() {
        return Ok(Transformed::no(expr));
    }
    let nullable = lefts
        .iter()
        .chain(&rights)
        .any(|e| e.nullable(schema).unwrap_or(true));
    let mut pairs = Vec::with_capacity(lefts.len());
    for (l, r) in lefts.into_iter().zip(rights) {
        let pair = Expr::BinaryExpr(BinaryExpr::new(Box::new(l), *op, Box::new(r)));
        let pair = compare_elements(pair, schema)?.data;
        pairs.push(match nullable {
            true => cast(pair, DataType::Int64),
            false => pair,
        });
    }
    let join = |joiner: Operator| {
        move |all: Expr, next: Expr| {
            Expr::BinaryExpr(BinaryExpr::new(Box::new(all), joiner, Box::new(next)))
        }
    };
    if !nullable {
        let logical = match op {
            Operator::Eq => Operator::And,
            _ => Operator::Or,
        };
        let combined = pairs.into_iter().reduce(join(logical));
        return Ok(Transformed::yes(combined.expect("a tuple has elements")));
    }
    let combined = pairs
        .into_iter()
        .reduce(join(joiner))
        .expect("a tuple has elements");
    Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
        Box::new(combined),
        test,
        Box::new(lit(bound)),
    ))))
}

/// The elements of a tuple written out: `tuple(...)`'s arguments or a
/// constant's values.
fn elements(expr: &Expr) -> Result<Option<Vec<Expr>>> {
    match expr {
        Expr::ScalarFunction(f) if f.func.name() == "struct" => Ok(Some(f.args.clone())),
        Expr::Literal(ScalarValue::Struct(array), _) if array.len() == 1 && array.is_valid(0) => {
            let mut values = Vec::with_capacity(array.num_columns());
            for column in array.columns() {
                values.push(lit(ScalarValue::try_from_array(column, 0)?));
            }
            Ok(Some(values))
        }
        _ => Ok(None),
    }
}
