//! `ORDER BY k WITH FILL [FROM a] [TO b] [STEP s]` taken off a query: the
//! query runs sorted as usual and the engine's fill operator adds the rows
//! between (`strata_execution::fill`). What DataFusion plans must not see
//! goes with it: the clause, and a LIMIT, which ClickHouse applies after
//! filling.

use datafusion::sql::sqlparser::ast::{
    Expr, LimitClause, OrderByKind, Query, Select, SelectItem, SetExpr, Value, WithFill,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::parser::not_supported;

/// What the fill operator needs, by positions in the query's result.
#[derive(Debug, Clone, PartialEq)]
pub struct FillClause {
    /// The result columns of the ORDER BY keys before the filled one: rows
    /// are filled within each run of equal values of these, as ClickHouse's
    /// `use_with_fill_by_sorting_prefix` does.
    pub prefix: Vec<ResultColumn>,
    /// The filled result column.
    pub column: ResultColumn,
    pub descending: bool,
    /// `FROM`, `TO` and `STEP`, constant expressions.
    pub bounds: WithFill,
    /// `LIMIT` and `OFFSET`, applied to the filled rows.
    pub limit: Option<u64>,
    pub offset: u64,
}

/// A result column an ORDER BY key names.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultColumn {
    /// Its position in the select list.
    Position(usize),
    /// The column a `*` expands to, found by name once planned.
    Named(String),
}

/// Takes the `WITH FILL` clause off `query`'s ORDER BY, with its LIMIT;
/// `None` when it has none.
pub fn take_fill(query: &mut Query) -> Result<Option<FillClause>> {
    let Some(order_by) = &mut query.order_by else {
        return Ok(None);
    };
    let OrderByKind::Expressions(items) = &mut order_by.kind else {
        return Ok(None);
    };
    let filled: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].with_fill.is_some())
        .collect();
    let at = match filled[..] {
        [] => return Ok(None),
        [at] => at,
        _ => return Err(not_supported("WITH FILL on more than one ORDER BY key")),
    };
    if order_by.interpolate.is_some() {
        return Err(not_supported("INTERPOLATE"));
    }
    let bounds = items[at]
        .with_fill
        .take()
        .expect("a filled key has WITH FILL");
    let descending = items[at].options.asc == Some(false);
    let keys: Vec<Expr> = items[..=at].iter().map(|item| item.expr.clone()).collect();
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(not_supported("WITH FILL on a UNION"));
    };
    let positions = keys
        .iter()
        .map(|key| result_position(select, key))
        .collect::<Result<Vec<ResultColumn>>>()?;
    let (limit, offset) = take_limit(query)?;
    Ok(Some(FillClause {
        prefix: positions[..at].to_vec(),
        column: positions[at].clone(),
        descending,
        bounds,
        limit,
        offset,
    }))
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
        assert_eq!(
            (fill.prefix, fill.column, fill.descending),
            (
                vec![ResultColumn::Position(0)],
                ResultColumn::Position(1),
                true
            )
        );
        assert_eq!((fill.limit, fill.offset), (Some(5), 2));
        assert!(fill.bounds.from.is_some() && fill.bounds.to.is_none());
        assert_eq!(
            q.to_string(),
            "SELECT g, t AS d, v FROM x ORDER BY g, d DESC"
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
            take_fill(&mut q).unwrap().unwrap().column,
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
        assert_eq!(fill.column, ResultColumn::Named("a".to_string()));
        let mut q = query("SELECT * FROM x ORDER BY 1 WITH FILL");
        assert_eq!(
            take_fill(&mut q).unwrap_err().code,
            ErrorCode::NOT_IMPLEMENTED
        );
    }
}
