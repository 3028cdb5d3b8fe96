//! The `values` table function: rows written in the query, as in
//! `values('a UInt8, b String', (1, 'x'), (2, 'y'))` or, without the
//! structure, `values((1, 'x'), (2, 'y'))` (columns `c1`, `c2`, typed as
//! the rows' common types). It becomes a subquery of one SELECT per row,
//! in the order written.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, ObjectNamePart, Statement, TableFactor, Value, VisitMut,
    VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::parse_statement;

const FUNCTION: &str = "values";

/// Replaces every `values(...)` table function of `statement` by the
/// subquery of its rows.
pub fn expand_values_functions(statement: &mut Statement) -> Result<()> {
    match statement.visit(&mut Expander) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(error) => Err(error),
    }
}

struct Expander;

impl VisitorMut for Expander {
    type Break = StrataError;

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<StrataError> {
        let TableFactor::Table {
            name,
            args: Some(args),
            alias,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let is_values = matches!(name.0.as_slice(),
            [ObjectNamePart::Identifier(f)] if f.value.eq_ignore_ascii_case("values"));
        if !is_values {
            return ControlFlow::Continue(());
        }
        let rows = match rows_query(&args.args) {
            Ok(rows) => rows,
            Err(error) => return ControlFlow::Break(error),
        };
        *factor = TableFactor::Derived {
            lateral: false,
            subquery: rows,
            alias: alias.take(),
            sample: None,
        };
        ControlFlow::Continue(())
    }
}

/// The function's arguments as a query: the structure, when the first is
/// a string and more follow, then one row per argument.
fn rows_query(args: &[FunctionArg]) -> Result<Box<datafusion::sql::sqlparser::ast::Query>> {
    let exprs: Vec<&Expr> = args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) => Ok(expr),
            other => Err(bad_arguments(
                FUNCTION,
                &format!("unexpected argument {other}"),
            )),
        })
        .collect::<Result<_>>()?;
    let (structure, rows) = match exprs.as_slice() {
        [Expr::Value(v), rest @ ..] if !rest.is_empty() => match &v.value {
            Value::SingleQuotedString(text) => (Some(structure(FUNCTION, text)?), rest),
            _ => (None, exprs.as_slice()),
        },
        [] => return Err(bad_arguments(FUNCTION, "it needs at least one row")),
        all => (None, all),
    };
    let selects = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let values: Vec<&Expr> = match row {
                Expr::Tuple(elements) => elements.iter().collect(),
                other => vec![other],
            };
            select_of_row(i, &values, structure.as_deref())
        })
        .collect::<Result<Vec<_>>>()?;
    let names: Vec<String> = match &structure {
        Some(columns) => columns.iter().map(|(name, _)| quote(name)).collect(),
        None => (1..=selects[0].1).map(|i| format!("c{i}")).collect(),
    };
    // The branches of a UNION ALL run in parallel: the row number keeps
    // the rows in the order written, and the LIMIT keeps that ORDER BY in
    // a subquery, where DataFusion drops one without it.
    let count = selects.len();
    let union: Vec<String> = selects.into_iter().map(|(select, _)| select).collect();
    let query = format!(
        "SELECT {} FROM ({}) AS _values ORDER BY {ROW} LIMIT {count}",
        names.join(", "),
        union.join(" UNION ALL ")
    );
    let Statement::Query(query) = parse_statement(&query)?.statement else {
        unreachable!("a SELECT parses as a query");
    };
    Ok(query)
}

/// The column numbering the rows.
const ROW: &str = "_values_row";

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "\\`"))
}

/// `SELECT i AS _values_row, v1 AS c1, ...` for row `i`, each value cast
/// to its column's type when the structure gives one; and its column count.
fn select_of_row(
    row: usize,
    values: &[&Expr],
    structure: Option<&[(String, String)]>,
) -> Result<(String, usize)> {
    if let Some(columns) = structure
        && columns.len() != values.len()
    {
        return Err(StrataError::new(
            ErrorCode::TYPE_MISMATCH,
            format!(
                "Type mismatch in VALUES section: a row of {} values for {} columns",
                values.len(),
                columns.len()
            ),
        ));
    }
    let items: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, value)| match structure {
            Some(columns) => {
                let (name, type_name) = &columns[i];
                let quoted = type_name.replace('\'', "\\'");
                format!("CAST({value}, '{quoted}') AS {}", quote(name))
            }
            None => format!("{value} AS c{}", i + 1),
        })
        .collect();
    let select = format!("SELECT {row} AS {ROW}, {}", items.join(", "));
    Ok((select, values.len()))
}

/// A table function's structure, `'a UInt8, b Array(String)'`, as (name,
/// type) pairs.
pub fn structure(function: &str, text: &str) -> Result<Vec<(String, String)>> {
    let mut columns = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut pieces = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                pieces.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    for piece in pieces {
        let (name, type_name) = piece
            .trim()
            .split_once(char::is_whitespace)
            .ok_or_else(|| {
                bad_arguments(function, &format!("'{}' is not `name Type`", piece.trim()))
            })?;
        columns.push((
            name.trim_matches('`').to_string(),
            type_name.trim().to_string(),
        ));
    }
    Ok(columns)
}

fn bad_arguments(function: &str, why: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Table function '{function}': {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(sql: &str) -> Result<String> {
        let mut statement = parse_statement(sql)?.statement;
        expand_values_functions(&mut statement)?;
        Ok(statement.to_string())
    }

    #[test]
    fn rows_become_selects() {
        assert_eq!(
            expanded("SELECT * FROM values('a UInt8, b String', (1, 'x'), (2, 'y'))").unwrap(),
            "SELECT * FROM (SELECT `a`, `b` FROM (\
             SELECT 0 AS _values_row, CAST(1, 'UInt8') AS `a`, CAST('x', 'String') AS `b` \
             UNION ALL \
             SELECT 1 AS _values_row, CAST(2, 'UInt8') AS `a`, CAST('y', 'String') AS `b`) \
             AS _values ORDER BY _values_row LIMIT 2)"
        );
        assert_eq!(
            expanded("SELECT c1 FROM values(1, 2) AS v").unwrap(),
            "SELECT c1 FROM (SELECT c1 FROM (SELECT 0 AS _values_row, 1 AS c1 \
             UNION ALL SELECT 1 AS _values_row, 2 AS c1) AS _values ORDER BY _values_row LIMIT 2) AS v"
        );
    }

    #[test]
    fn rows_must_fit_the_structure() {
        let error = expanded("SELECT * FROM values('a UInt8', (1, 2))").unwrap_err();
        assert_eq!(error.code, ErrorCode::TYPE_MISMATCH);
    }
}
