//! `ORDER BY k1 WITH FILL [FROM a] [TO b] [STEP s], k2 WITH FILL ...
//! [INTERPOLATE [(c AS expr, ...)]]` taken off a query: the query runs
//! sorted as usual and the engine's fill operator adds the rows between
//! (`strata_execution::fill`). What DataFusion plans must not see goes with
//! it: the clauses, and a LIMIT, which ClickHouse applies after filling.

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, LimitClause, OrderByKind, Query, Select, SelectItem, SetExpr, Value, WithFill,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::parser::not_supported;

/// What the fill operator needs, by positions in the query's result.
#[derive(Debug, Clone, PartialEq)]
pub struct FillClause {
    /// The result columns of the ORDER BY keys before the first filled one:
    /// rows are filled within each run of equal values of these, as
    /// ClickHouse's `use_with_fill_by_sorting_prefix` does.
    pub prefix: Vec<ResultColumn>,
    /// The filled keys, in ORDER BY order.
    pub keys: Vec<FilledKey>,
    /// The result columns of every ORDER BY key that is one.
    pub sort_columns: Vec<ResultColumn>,
    pub interpolate: Interpolation,
    /// `LIMIT` and `OFFSET`, applied to the filled rows.
    pub limit: Option<u64>,
    pub offset: u64,
}

/// One `k WITH FILL ...` key.
#[derive(Debug, Clone, PartialEq)]
pub struct FilledKey {
    pub column: ResultColumn,
    pub descending: bool,
    /// `FROM`, `TO` and `STEP`, constant expressions.
    pub bounds: WithFill,
}

/// What added rows hold in columns that are not ORDER BY keys.
#[derive(Debug, Clone, PartialEq)]
pub enum Interpolation {
    /// No INTERPOLATE: the type's default.
    None,
    /// `INTERPOLATE` alone: every column that is not an ORDER BY key keeps
    /// the previous row's value.
    All,
    /// `INTERPOLATE (c AS expr, ...)`: each listed column computed from the
    /// previous row (`c` alone is `c AS c`).
    Columns(Vec<(ResultColumn, Expr)>),
}

/// A result column an ORDER BY key names.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultColumn {
    /// Its position in the select list.
    Position(usize),
    /// The column a `*` expands to, found by name once planned.
    Named(String),
}

fn invalid(message: String) -> StrataError {
    StrataError::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, message)
}

/// Takes the `WITH FILL` and `INTERPOLATE` clauses off `query`'s ORDER BY,
/// with its LIMIT; `None` when it has no filled key.
pub fn take_fill(query: &mut Query) -> Result<Option<FillClause>> {
    let Some(order_by) = &mut query.order_by else {
        return Ok(None);
    };
    let OrderByKind::Expressions(items) = &mut order_by.kind else {
        return Ok(None);
    };
    let Some(first) = items.iter().position(|item| item.with_fill.is_some()) else {
        return Ok(None);
    };
    let interpolate = order_by.interpolate.take();
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(not_supported("WITH FILL on a UNION"));
    };
    let mut keys = Vec::new();
    let mut sort_columns = Vec::new();
    let mut prefix = Vec::new();
    for (at, item) in items.iter_mut().enumerate() {
        let Some(bounds) = item.with_fill.take() else {
            match (at < first, result_position(select, &item.expr)) {
                (true, position) => prefix.push(position?),
                (false, Ok(position)) => sort_columns.push(position),
                (false, Err(_)) => {}
            }
            continue;
        };
        let column = result_position(select, &item.expr)?;
        if sort_columns.contains(&column) || prefix.contains(&column) {
            return Err(invalid(match keys.iter().any(|k: &FilledKey| k.column == column) {
                true => "Multiple WITH FILL for identical expressions is not supported in ORDER BY",
                false => "ORDER BY containing the same expression with and without WITH FILL modifier is not supported",
            }.to_string()));
        }
        sort_columns.push(column.clone());
        let descending = item.options.asc == Some(false);
        keys.push(FilledKey {
            column,
            descending,
            bounds,
        });
    }
    sort_columns.extend(prefix.iter().cloned());
    let interpolate = match interpolate.map(|clause| clause.exprs) {
        None => Interpolation::None,
        Some(None) => Interpolation::All,
        Some(Some(exprs)) => {
            let mut columns = Vec::with_capacity(exprs.len());
            for item in exprs {
                let column = interpolated_column(select, &item.column, &sort_columns)?;
                let expr = item.expr.unwrap_or(Expr::Identifier(item.column));
                columns.push((column, expr));
            }
            Interpolation::Columns(columns)
        }
    };
    let (limit, offset) = take_limit(query)?;
    Ok(Some(FillClause {
        prefix,
        keys,
        sort_columns,
        interpolate,
        limit,
        offset,
    }))
}

/// The result column `INTERPOLATE (name AS ...)` computes, which must not
/// be an ORDER BY key.
fn interpolated_column(
    select: &Select,
    name: &Ident,
    sort_columns: &[ResultColumn],
) -> Result<ResultColumn> {
    let column = result_position(select, &Expr::Identifier(name.clone())).map_err(|_| {
        StrataError::new(
            ErrorCode::UNKNOWN_IDENTIFIER,
            format!(
                "Unknown expression identifier `{}` in INTERPOLATE",
                name.value
            ),
        )
    })?;
    if sort_columns.contains(&column) {
        return Err(invalid(format!(
            "Column '{}' is participating in ORDER BY expression and can't be INTERPOLATE output",
            name.value
        )));
    }
    Ok(column)
}

/// The result column an ORDER BY key is: a position, an alias, or the same
/// expression as a select item.
fn result_position(select: &Select, key: &Expr) -> Result<ResultColumn> {
    let wildcard = select.projection.iter().any(|item| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    });
    if let Some(n) = integer(key) {
        return match n {
            1.. if (n as usize) <= select.projection.len() && !wildcard => {
                Ok(ResultColumn::Position(n as usize - 1))
            }
            _ if wildcard => Err(not_supported("WITH FILL by position beside *")),
            _ => Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("ORDER BY position {n} is not in the select list"),
            )),
        };
    }
    let text = key.to_string();
    let listed = select.projection.iter().position(|item| match item {
        SelectItem::ExprWithAlias { alias, expr } => {
            alias.value == text || expr.to_string() == text
        }
        SelectItem::UnnamedExpr(expr) => expr.to_string() == text,
        _ => false,
    });
    match (listed, key) {
        (Some(at), _) if !wildcard => Ok(ResultColumn::Position(at)),
        (_, Expr::Identifier(ident)) if wildcard => Ok(ResultColumn::Named(ident.value.clone())),
        (_, Expr::CompoundIdentifier(parts)) if wildcard => Ok(ResultColumn::Named(
            parts
                .last()
                .expect("a compound identifier has parts")
                .value
                .clone(),
        )),
        (Some(_), _) => Err(not_supported("WITH FILL on an expression beside *")),
        (None, _) => Err(not_supported(
            "WITH FILL on an ORDER BY key that is not a column of the result",
        )),
    }
}

/// The query's `LIMIT n [OFFSET m]`, taken off it.
fn take_limit(query: &mut Query) -> Result<(Option<u64>, u64)> {
    let Some(clause) = query.limit_clause.take() else {
        return Ok((None, 0));
    };
    let (limit, offset) = match &clause {
        LimitClause::LimitOffset { limit_by, .. } if !limit_by.is_empty() => {
            return Err(not_supported("WITH FILL with LIMIT BY"));
        }
        LimitClause::LimitOffset { limit, offset, .. } => {
            (limit.clone(), offset.as_ref().map(|o| o.value.clone()))
        }
        LimitClause::OffsetCommaLimit { offset, limit } => {
            (Some(limit.clone()), Some(offset.clone()))
        }
    };
    let number = |expr: Option<Expr>| -> Result<Option<u64>> {
        match expr {
            None => Ok(None),
            Some(expr) => integer(&expr)
                .map(Some)
                .ok_or_else(|| not_supported("WITH FILL with a LIMIT that is not a number")),
        }
    };
    Ok((number(limit)?, number(offset)?.unwrap_or(0)))
}

fn integer(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(value) => match &value.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;
    use datafusion::sql::sqlparser::ast::Statement;

    fn query(sql: &str) -> Box<Query> {
        match parse_statement(sql).unwrap().statement {
            Statement::Query(query) => query,
            other => panic!("not a query: {other}"),
        }
    }

    #[test]
    fn the_clause_and_the_limit_come_off() {
        let mut q = query(
            "SELECT g, t AS d, v FROM x ORDER BY g, d DESC WITH FILL FROM 10 STEP -1 LIMIT 5 OFFSET 2",
        );
        let fill = take_fill(&mut q).unwrap().unwrap();
        assert_eq!(fill.prefix, vec![ResultColumn::Position(0)]);
        assert_eq!(
            (&fill.keys[0].column, fill.keys[0].descending),
            (&ResultColumn::Position(1), true)
        );
        assert_eq!((fill.limit, fill.offset), (Some(5), 2));
        assert!(fill.keys[0].bounds.from.is_some() && fill.keys[0].bounds.to.is_none());
        assert_eq!(fill.interpolate, Interpolation::None);
        assert_eq!(
            q.to_string(),
            "SELECT g, t AS d, v FROM x ORDER BY g, d DESC"
        );
    }

    #[test]
    fn several_keys_fill_and_others_interpolate() {
        let mut q = query(
            "SELECT a, b, c, v FROM x ORDER BY a WITH FILL, c, b WITH FILL TO 3 INTERPOLATE (v AS v + 1)",
        );
        let fill = take_fill(&mut q).unwrap().unwrap();
        assert!(fill.prefix.is_empty());
        let columns: Vec<_> = fill.keys.iter().map(|k| k.column.clone()).collect();
        assert_eq!(
            columns,
            vec![ResultColumn::Position(0), ResultColumn::Position(1)]
        );
        let Interpolation::Columns(columns) = &fill.interpolate else {
            panic!("INTERPOLATE has a list");
        };
        assert_eq!(columns[0].0, ResultColumn::Position(3));
        assert_eq!(columns[0].1.to_string(), "v + 1");
        assert_eq!(q.to_string(), "SELECT a, b, c, v FROM x ORDER BY a, c, b");
        let mut q = query("SELECT a, v FROM x ORDER BY a WITH FILL INTERPOLATE");
        assert_eq!(
            take_fill(&mut q).unwrap().unwrap().interpolate,
            Interpolation::All
        );
    }

    #[test]
    fn ambiguous_fills_are_refused() {
        for sql in [
            "SELECT a FROM x ORDER BY a WITH FILL, a WITH FILL",
            "SELECT a, v FROM x ORDER BY a WITH FILL INTERPOLATE (a AS a + 1)",
        ] {
            assert_eq!(
                take_fill(&mut query(sql)).unwrap_err().code,
                ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                "{sql}"
            );
        }
        let mut q = query("SELECT a FROM x ORDER BY a WITH FILL INTERPOLATE (q AS 1)");
        assert_eq!(
            take_fill(&mut q).unwrap_err().code,
            ErrorCode::UNKNOWN_IDENTIFIER
        );
    }

    #[test]
    fn keys_outside_the_result_are_refused() {
        let mut q = query("SELECT a FROM x ORDER BY b WITH FILL");
        assert_eq!(
            take_fill(&mut q).unwrap_err().code,
            ErrorCode::NOT_IMPLEMENTED
        );
        let mut q = query("SELECT a + 1, b FROM x ORDER BY a + 1 WITH FILL");
        assert_eq!(
            take_fill(&mut q).unwrap().unwrap().keys[0].column,
            ResultColumn::Position(0)
        );
        let mut q = query("SELECT a FROM x ORDER BY a");
        assert_eq!(take_fill(&mut q).unwrap(), None);
    }

    #[test]
    fn keys_beside_a_star_are_found_by_name() {
        let mut q = query("SELECT *, a + 1 FROM x ORDER BY x.b, a WITH FILL");
        let fill = take_fill(&mut q).unwrap().unwrap();
        assert_eq!(fill.prefix, vec![ResultColumn::Named("b".to_string())]);
        assert_eq!(fill.keys[0].column, ResultColumn::Named("a".to_string()));
        let mut q = query("SELECT * FROM x ORDER BY 1 WITH FILL");
        assert_eq!(
            take_fill(&mut q).unwrap_err().code,
            ErrorCode::NOT_IMPLEMENTED
        );
    }
}
