//! A bound on how deeply a statement's expressions and subqueries nest.
//!
//! Planning walks the tree recursively, so a statement such as a sum of 20,000
//! terms (a left-deep tree 20,000 levels high) would exhaust the stack. Like
//! ClickHouse's `max_ast_depth`, Strata rejects such statements with
//! TOO_DEEP_AST before anything else walks them. This walk itself stops at the
//! limit, so it never recurses deeper than the limit allows.

use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Query, SelectItem, SetExpr,
    Statement, TableFactor, TableWithJoins,
};
use strata_common::{ErrorCode, Result, StrataError};

/// ClickHouse's default `max_ast_depth`.
pub const MAX_AST_DEPTH: usize = 1000;

struct TooDeep;

type Walk = std::result::Result<(), TooDeep>;

pub fn check_depth(statement: &Statement) -> Result<()> {
    let outcome = match statement {
        Statement::Query(query) => query_depth(query, 1),
        Statement::Insert(insert) => insert
            .source
            .as_deref()
            .map_or(Ok(()), |q| query_depth(q, 1)),
        _ => Ok(()),
    };
    outcome.map_err(|TooDeep| {
        StrataError::new(
            ErrorCode::TOO_DEEP_AST,
            format!("AST is too deep. Maximum: {MAX_AST_DEPTH}"),
        )
    })
}

fn enter(depth: usize) -> Walk {
    if depth > MAX_AST_DEPTH {
        Err(TooDeep)
    } else {
        Ok(())
    }
}

fn query_depth(query: &Query, depth: usize) -> Walk {
    enter(depth)?;
    set_expr_depth(&query.body, depth + 1)
}

fn set_expr_depth(body: &SetExpr, depth: usize) -> Walk {
    enter(depth)?;
    match body {
        SetExpr::Select(select) => {
            for item in &select.projection {
                if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item
                {
                    expr_depth(e, depth + 1)?;
                }
            }
            for e in select.selection.iter().chain(select.having.iter()) {
                expr_depth(e, depth + 1)?;
            }
            if let GroupByExpr::Expressions(exprs, _) = &select.group_by {
                for e in exprs {
                    expr_depth(e, depth + 1)?;
                }
            }
            for table in &select.from {
                table_depth(table, depth + 1)?;
            }
            Ok(())
        }
        SetExpr::SetOperation { left, right, .. } => {
            set_expr_depth(left, depth + 1)?;
            set_expr_depth(right, depth + 1)
        }
        SetExpr::Query(query) => query_depth(query, depth + 1),
        _ => Ok(()),
    }
}

fn table_depth(table: &TableWithJoins, depth: usize) -> Walk {
    enter(depth)?;
    let factors = std::iter::once(&table.relation).chain(table.joins.iter().map(|j| &j.relation));
    for factor in factors {
        if let TableFactor::Derived { subquery, .. } = factor {
            query_depth(subquery, depth + 1)?;
        }
    }
    Ok(())
}

fn expr_depth(expr: &Expr, depth: usize) -> Walk {
    enter(depth)?;
    let next = depth + 1;
    match expr {
        Expr::BinaryOp { left, right, .. } => {
            expr_depth(left, next)?;
            expr_depth(right, next)
        }
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::Cast { expr, .. } => expr_depth(expr, next),
        Expr::Like { expr, pattern, .. } => {
            expr_depth(expr, next)?;
            expr_depth(pattern, next)
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            expr_depth(expr, next)?;
            expr_depth(low, next)?;
            expr_depth(high, next)
        }
        Expr::InList { expr, list, .. } => {
            expr_depth(expr, next)?;
            list.iter().try_for_each(|e| expr_depth(e, next))
        }
        Expr::Tuple(items) => items.iter().try_for_each(|e| expr_depth(e, next)),
        Expr::Array(array) => array.elem.iter().try_for_each(|e| expr_depth(e, next)),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            for e in operand.iter().chain(else_result.iter()) {
                expr_depth(e, next)?;
            }
            conditions.iter().try_for_each(|c| {
                expr_depth(&c.condition, next)?;
                expr_depth(&c.result, next)
            })
        }
        Expr::Function(f) => match &f.args {
            FunctionArguments::List(list) => list.args.iter().try_for_each(|arg| match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                | FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => expr_depth(e, next),
                _ => Ok(()),
            }),
            FunctionArguments::Subquery(q) => query_depth(q, next),
            FunctionArguments::None => Ok(()),
        },
        Expr::Subquery(q) | Expr::Exists { subquery: q, .. } => query_depth(q, next),
        Expr::InSubquery { expr, subquery, .. } => {
            expr_depth(expr, next)?;
            query_depth(subquery, next)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;

    #[test]
    fn long_left_deep_expressions_are_rejected() {
        let sum = format!("SELECT {}", vec!["1"; 5000].join(" + "));
        assert_eq!(
            parse_statement(&sum).unwrap_err().code,
            ErrorCode::TOO_DEEP_AST
        );
        let fine = format!("SELECT {}", vec!["1"; 100].join(" + "));
        check_depth(&parse_statement(&fine).unwrap().statement).unwrap();
    }
}
