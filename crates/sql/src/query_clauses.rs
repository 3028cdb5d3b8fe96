//! ClickHouse query clauses DataFusion does not plan, rewritten in the AST:
//!
//! - `LIMIT n [OFFSET m] BY keys`: the first n rows (after m) of each key,
//!   in the query's order, become a `row_number()` window over the query,
//!   filtered and ordered again outside it;
//! - `LIMIT n [OFFSET m] WITH TIES` (read as a FETCH with no count): the
//!   same, with `rank()` keeping the rows tied with the last one;
//! - `[OFFSET m ROWS] FETCH FIRST n ROWS ONLY | WITH TIES` as
//!   `LIMIT n [OFFSET m]`, with ties as above;
//! - `ORDER BY ALL` as `ORDER BY 1, 2, ...`;
//! - `GROUP BY keys WITH ROLLUP | CUBE` as `ROLLUP(keys)` or `CUBE(keys)`
//!   (`WITH TOTALS` is taken off before, by [`crate::totals`]);
//! - `QUALIFY cond` with no window function in the query: ClickHouse then
//!   filters as HAVING does after aggregation, or as WHERE without it;
//! - `GROUP BY ALL` as its keys, ClickHouse's way (see [`group_by_all`]);
//! - a SELECT without FROM that names `dummy` or `*` reads `system.one`.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Fetch, Function, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, GroupByWithModifier, Ident, LimitClause, NamedWindowDefinition, NamedWindowExpr,
    OffsetRows, OrderByExpr, OrderByKind, Query, Select, SelectItem, SetExpr, Statement,
    TableFactor, Value, WindowSpec, WindowType, visit_expressions, visit_expressions_mut,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::parser::not_supported;

use crate::ast_rewrite::call;

const ROW: &str = "__row_number";
const RANK: &str = "__rank";
const ORDER: &str = "__order_";

/// Rewrites `query`'s LIMIT BY, if it has one.
pub fn rewrite_limit_by(query: &mut Query) -> Result<()> {
    let Some(LimitClause::LimitOffset {
        limit,
        offset,
        limit_by,
    }) = &query.limit_clause
    else {
        return Ok(());
    };
    if limit_by.is_empty() {
        return Ok(());
    }
    let keys = limit_by.clone();
    let per_key = limit
        .clone()
        .ok_or_else(|| not_supported("LIMIT BY without a row count"))?;
    // `OFFSET k ROWS` is the offset of a LIMIT after LIMIT BY (see
    // `clickhouse_tokens`); a bare one skips rows of each key.
    let (skip, outer_offset) = match offset {
        Some(o) if o.rows == OffsetRows::Rows => ("0".to_string(), Some(o.clone())),
        Some(o) => (o.value.to_string(), None),
        None => ("0".to_string(), None),
    };
    let order = take_order(query, "LIMIT BY")?;
    query.limit_clause = None;
    let select = single_select(query, "LIMIT BY")?;
    let order = positional_order(select, order);
    let keys = keys
        .into_iter()
        .map(|key| positional_key(select, key))
        .collect();
    select
        .projection
        .push(window_item("row_number", keys, &order, ROW));
    let condition = format!("{ROW} > ({skip}) AND {ROW} <= ({skip}) + ({per_key})");
    // A LIMIT after LIMIT BY (read as FETCH) limits the rows of all keys.
    let fetch = query.fetch.take();
    wrap(query, &[ROW], &order, &condition)?;
    query.fetch = fetch;
    query.limit_clause = outer_offset.map(|offset| LimitClause::LimitOffset {
        limit: None,
        offset: Some(offset),
        limit_by: Vec::new(),
    });
    Ok(())
}

/// `FETCH FIRST n ROWS ONLY | WITH TIES` as `LIMIT n`, which DataFusion
/// plans (`WITH TIES` then rewritten by [`rewrite_with_ties`]).
pub fn fetch_as_limit(query: &mut Query) -> Result<()> {
    if query.fetch.as_ref().is_none_or(|f| f.quantity.is_none()) {
        return Ok(());
    }
    let Some(Fetch {
        quantity: Some(quantity),
        percent,
        with_ties,
    }) = query.fetch.take()
    else {
        unreachable!("a FETCH with a count");
    };
    if percent {
        return Err(not_supported("FETCH ... PERCENT"));
    }
    let offset = match query.limit_clause.take() {
        None => None,
        Some(LimitClause::LimitOffset {
            limit: None,
            offset,
            limit_by,
        }) if limit_by.is_empty() => offset,
        Some(_) => {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Can not use FETCH together with LIMIT",
            ));
        }
    };
    query.limit_clause = Some(LimitClause::LimitOffset {
        limit: Some(quantity),
        offset,
        limit_by: Vec::new(),
    });
    if with_ties {
        query.fetch = Some(Fetch {
            quantity: None,
            percent: false,
            with_ties,
        });
    }
    Ok(())
}

/// Rewrites `query`'s `LIMIT n WITH TIES`, if it has one.
pub fn rewrite_with_ties(query: &mut Query) -> Result<()> {
    let Some(fetch) = &query.fetch else {
        return Ok(());
    };
    if !fetch.with_ties || fetch.quantity.is_some() {
        return Ok(());
    }
    query.fetch = None;
    let (count, skip) = match query.limit_clause.take() {
        Some(LimitClause::LimitOffset {
            limit: Some(limit),
            offset,
            limit_by,
        }) if limit_by.is_empty() => (limit, offset.map(|o| o.value)),
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => (limit, Some(offset)),
        _ => return Err(not_supported("WITH TIES without LIMIT n")),
    };
    let skip = skip.map_or_else(|| "0".to_string(), |s| s.to_string());
    let order = take_order(query, "WITH TIES")?;
    if order.is_empty() {
        return Err(StrataError::new(
            ErrorCode::WITH_TIES_WITHOUT_ORDER_BY,
            "Can not use WITH TIES without ORDER BY",
        ));
    }
    let select = single_select(query, "WITH TIES")?;
    let order = positional_order(select, order);
    select
        .projection
        .push(window_item("row_number", vec![], &order, ROW));
    select
        .projection
        .push(window_item("rank", vec![], &order, RANK));
    let condition = format!("{ROW} > ({skip}) AND {RANK} <= ({skip}) + ({count})");
    wrap(query, &[ROW, RANK], &order, &condition)
}

/// `ORDER BY ALL` as the positions of the select items, which DataFusion
/// plans for any item (its own ALL takes only plain columns). Left to it
/// while the list holds a wildcard, whose width is not known yet.
pub fn order_by_all(query: &mut Query) {
    let Some(order) = query.order_by.as_mut() else {
        return;
    };
    let OrderByKind::All(options) = &order.kind else {
        return;
    };
    let SetExpr::Select(select) = query.body.as_ref() else {
        return;
    };
    if crate::repeated_columns::has_wildcard(select) {
        return;
    }
    let options = options.clone();
    let keys = (1..=select.projection.len())
        .map(|position| OrderByExpr {
            expr: Expr::value(Value::Number(position.to_string(), false)),
            options: options.clone(),
            with_fill: None,
        })
        .collect();
    order.kind = OrderByKind::Expressions(keys);
}

/// ClickHouse sorts NULLs last in either direction unless told otherwise;
/// DataFusion puts them first in a descending sort.
pub fn nulls_last(query: &mut Query) {
    if let Some(order) = query.order_by.as_mut()
        && let OrderByKind::Expressions(keys) = &mut order.kind
    {
        keys_nulls_last(keys);
    }
}

/// The same inside a window's ORDER BY, of a call or of a named window.
pub fn window_nulls_last(spec: &mut WindowSpec) {
    keys_nulls_last(&mut spec.order_by);
}

/// Keys that do not say where NULLs go put them last.
fn keys_nulls_last(keys: &mut [OrderByExpr]) {
    for key in keys {
        key.options.nulls_first.get_or_insert(false);
    }
}

/// `OVER (w ROWS ...)`: a window built on a named one takes the named
/// one's PARTITION BY, ORDER BY and frame where it gives none of its own
/// (DataFusion would drop the named window's clauses); so does a named
/// window built on another (`WINDOW w2 AS (w1 ...)`).
pub fn inherit_named_windows(select: &mut Select) {
    if select.named_window.is_empty() {
        return;
    }
    let named = select.named_window.clone();
    for NamedWindowDefinition(_, window) in &mut select.named_window {
        if let NamedWindowExpr::WindowSpec(spec) = window {
            inherit(spec, &named, named.len());
        }
    }
    let _ = visit_expressions_mut(select, |expr| {
        if let Expr::Function(Function {
            over: Some(WindowType::WindowSpec(spec)),
            ..
        }) = expr
        {
            inherit(spec, &named, named.len());
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Fills `spec` from the window it names, itself filled first; `depth`
/// bounds a chain of names, which cannot be longer than the list.
fn inherit(spec: &mut WindowSpec, named: &[NamedWindowDefinition], depth: usize) {
    let Some(name) = spec.window_name.take() else {
        return;
    };
    let Some(NamedWindowDefinition(_, window)) = named.iter().find(|d| d.0.value == name.value)
    else {
        spec.window_name = Some(name);
        return;
    };
    let mut base = match window {
        NamedWindowExpr::WindowSpec(base) => base.clone(),
        NamedWindowExpr::NamedWindow(next) => WindowSpec {
            window_name: Some(next.clone()),
            partition_by: Vec::new(),
            order_by: Vec::new(),
            window_frame: None,
        },
    };
    if depth > 0 {
        inherit(&mut base, named, depth - 1);
    }
    if spec.partition_by.is_empty() {
        spec.partition_by = base.partition_by;
    }
    if spec.order_by.is_empty() {
        spec.order_by = base.order_by;
    }
    if spec.window_frame.is_none() {
        spec.window_frame = base.window_frame;
    }
}

/// [`window_nulls_last`] for the windows a SELECT names (`WINDOW w AS (...)`).
pub fn named_windows_nulls_last(select: &mut Select) {
    for NamedWindowDefinition(_, window) in &mut select.named_window {
        if let NamedWindowExpr::WindowSpec(spec) = window {
            window_nulls_last(spec);
        }
    }
}

pub(crate) fn take_order(query: &mut Query, clause: &str) -> Result<Vec<OrderByExpr>> {
    match query.order_by.take().map(|o| o.kind) {
        None => Ok(Vec::new()),
        Some(OrderByKind::Expressions(exprs)) => Ok(exprs),
        Some(OrderByKind::All(_)) => Err(not_supported(&format!("ORDER BY ALL with {clause}"))),
    }
}

/// `LIMIT n BY 2`: a number is the select list's item at that position
/// (`enable_positional_arguments`), another key is itself.
fn positional_key(select: &Select, key: Expr) -> Expr {
    let Expr::Value(value) = &key else {
        return key;
    };
    let Value::Number(text, _) = &value.value else {
        return key;
    };
    let item = text
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|at| select.projection.get(at));
    match item {
        Some(SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. }) => {
            expr.clone()
        }
        _ => key,
    }
}

/// ORDER BY items with each position (`ORDER BY 2`) replaced by the select
/// item there: the rewrites move the order into a select list, where a
/// number is only a constant.
pub(crate) fn positional_order(select: &Select, order: Vec<OrderByExpr>) -> Vec<OrderByExpr> {
    order
        .into_iter()
        .map(|mut item| {
            item.expr = positional_key(select, item.expr);
            item
        })
        .collect()
}

pub(crate) fn single_select<'a>(query: &'a mut Query, clause: &str) -> Result<&'a mut Select> {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(not_supported(&format!(
            "{clause} after UNION, EXCEPT or INTERSECT"
        )));
    };
    if select.distinct.is_some() {
        return Err(not_supported(&format!("{clause} with DISTINCT")));
    }
    Ok(select)
}

/// `function() OVER (PARTITION BY keys ORDER BY order) AS alias`.
pub(crate) fn window_item(
    function: &str,
    keys: Vec<Expr>,
    order: &[OrderByExpr],
    alias: &str,
) -> SelectItem {
    let mut window = call(function, vec![]);
    if let Expr::Function(f) = &mut window {
        f.over = Some(WindowType::WindowSpec(WindowSpec {
            window_name: None,
            partition_by: keys,
            order_by: order.to_vec(),
            window_frame: None,
        }));
    }
    SelectItem::ExprWithAlias {
        expr: window,
        alias: Ident::new(alias),
    }
}

/// Makes `query` the subquery of one that keeps the rows meeting
/// `condition`, in `order`, without the helper columns: `windows` and the
/// ordering values, which are added to the inner select list here.
fn wrap(query: &mut Query, windows: &[&str], order: &[OrderByExpr], condition: &str) -> Result<()> {
    let select = single_select(query, "a window clause")?;
    for (i, o) in order.iter().enumerate() {
        select.projection.push(SelectItem::ExprWithAlias {
            expr: o.expr.clone(),
            alias: Ident::new(format!("{ORDER}{i}")),
        });
    }
    let mut outer = wrapper(windows, order, condition)?;
    outer.with = query.with.take();
    let inner = std::mem::replace(query, outer);
    place_inner(query, inner);
    Ok(())
}

/// The outer query, over a placeholder subquery: our own names only, so
/// its text parses back as written.
fn wrapper(windows: &[&str], order: &[OrderByExpr], condition: &str) -> Result<Query> {
    let hidden: Vec<String> = windows
        .iter()
        .map(|w| w.to_string())
        .chain((0..order.len()).map(|i| format!("{ORDER}{i}")))
        .collect();
    let order_by: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{ORDER}{i}{}", o.options))
        .collect();
    let mut text = format!(
        "SELECT * EXCEPT ({}) FROM (SELECT 1) AS __limited WHERE {condition}",
        hidden.join(", "),
    );
    if !order_by.is_empty() {
        text.push_str(&format!(" ORDER BY {}", order_by.join(", ")));
    }
    match crate::parser::parse_statement(&text)?.statement {
        Statement::Query(query) => Ok(*query),
        _ => unreachable!("the wrapper is a query"),
    }
}

pub(crate) fn place_inner(outer: &mut Query, inner: Query) {
    if let SetExpr::Select(select) = outer.body.as_mut()
        && let Some(from) = select.from.first_mut()
        && let TableFactor::Derived { subquery, .. } = &mut from.relation
    {
        *subquery = Box::new(inner);
    }
}

/// `GROUP BY a, b WITH ROLLUP | CUBE` becomes `GROUP BY ROLLUP(a, b)` or
/// `CUBE(a, b)`; `WITH TOTALS` left in a subquery is refused (a query's own
/// is taken off by [`crate::totals`]).
pub fn rewrite_group_by_modifiers(select: &mut Select) -> Result<()> {
    let GroupByExpr::Expressions(keys, modifiers) = &mut select.group_by else {
        return Ok(());
    };
    let set: fn(Vec<Vec<Expr>>) -> Expr = match modifiers.as_slice() {
        [] => return Ok(()),
        [GroupByWithModifier::Rollup] => Expr::Rollup,
        [GroupByWithModifier::Cube] => Expr::Cube,
        [modifier, ..] => return Err(not_supported(&format!("GROUP BY ... {modifier}"))),
    };
    let sets = keys.drain(..).map(|key| vec![key]).collect();
    *keys = vec![set(sets)];
    modifiers.clear();
    Ok(())
}

/// `GROUP BY ALL` as the keys ClickHouse takes: each select item without
/// an aggregate, and inside an item with one, the largest parts outside
/// aggregate calls (`substring(a, 1, 2)` in `substring(substring(a, 1, 2),
/// 1, count())`). DataFusion's own reading drops such items whole. Left as
/// it is beside `*` or an expression it cannot take apart.
pub fn group_by_all(select: &mut Select, is_aggregate: &dyn Fn(&str) -> bool) {
    let GroupByExpr::All(modifiers) = &select.group_by else {
        return;
    };
    let mut keys = Vec::new();
    for item in &select.projection {
        let expr = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return,
        };
        if !outside_aggregates(expr, is_aggregate, &mut keys) {
            return;
        }
    }
    select.group_by = GroupByExpr::Expressions(keys, modifiers.clone());
}

/// Adds to `keys` the parts of `expr` outside aggregate calls that are not
/// literals; false where `expr` holds an aggregate in a form not taken apart.
fn outside_aggregates(
    expr: &Expr,
    is_aggregate: &dyn Fn(&str) -> bool,
    keys: &mut Vec<Expr>,
) -> bool {
    let aggregates = visit_expressions(expr, |e| match e {
        Expr::Function(f)
            if f.over.is_none() && is_aggregate(&crate::ast_rewrite::written_name(f)) =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    if aggregates.is_continue() {
        if !matches!(expr, Expr::Value(_))
            && !keys.iter().any(|k| k.to_string() == expr.to_string())
        {
            keys.push(expr.clone());
        }
        return true;
    }
    let mut parts = |exprs: Vec<&Expr>| {
        exprs
            .into_iter()
            .all(|e| outside_aggregates(e, is_aggregate, keys))
    };
    match expr {
        Expr::Function(f)
            if f.over.is_none() && is_aggregate(&crate::ast_rewrite::written_name(f)) =>
        {
            true
        }
        Expr::Function(f) => match &f.args {
            FunctionArguments::List(list) => parts(
                list.args
                    .iter()
                    .filter_map(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                        | FunctionArg::Named {
                            arg: FunctionArgExpr::Expr(e),
                            ..
                        } => Some(e),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => false,
        },
        Expr::BinaryOp { left, right, .. } => parts(vec![left.as_ref(), right.as_ref()]),
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::Cast { expr, .. }
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr) => outside_aggregates(expr, is_aggregate, keys),
        Expr::Tuple(items) => parts(items.iter().collect()),
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => parts(
            [Some(expr), substring_from.as_ref(), substring_for.as_ref()]
                .into_iter()
                .flatten()
                .map(AsRef::as_ref)
                .collect(),
        ),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => parts(
            operand
                .iter()
                .chain(else_result)
                .map(AsRef::as_ref)
                .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
                .collect(),
        ),
        _ => false,
    }
}

/// `FROM system.one` for a select without FROM that reads a column:
/// ClickHouse's implicit table, whose one column is `dummy`. Others keep
/// DataFusion's one-row relation, which reads nothing.
pub fn implicit_system_one(select: &mut Select) -> Result<()> {
    if !select.from.is_empty() {
        return Ok(());
    }
    let wildcard = select
        .projection
        .iter()
        .any(|item| matches!(item, SelectItem::Wildcard(_)));
    let dummy = visit_expressions(&*select, |e| match e {
        Expr::Identifier(id) if id.value == "dummy" => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    if !wildcard && dummy.is_continue() {
        return Ok(());
    }
    let Statement::Query(one) =
        crate::parser::parse_statement("SELECT * FROM system.one")?.statement
    else {
        unreachable!("a SELECT parses as a query");
    };
    let SetExpr::Select(one) = *one.body else {
        unreachable!("a plain SELECT");
    };
    select.from = one.from;
    Ok(())
}

/// `select`'s HAVING as WHERE when the select does not aggregate, which
/// ClickHouse allows (`SELECT number FROM numbers(3) HAVING number > 1`).
pub fn having_without_aggregates(select: &mut Select, is_aggregate: &dyn Fn(&str) -> bool) {
    let Some(having) = &select.having else {
        return;
    };
    if !matches!(&select.group_by, GroupByExpr::Expressions(keys, _) if keys.is_empty()) {
        return;
    }
    let mut items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    let aggregates = |e: &Expr| {
        visit_expressions(e, |e| match e {
            Expr::Function(f)
                if f.over.is_none() && is_aggregate(&crate::ast_rewrite::written_name(f)) =>
            {
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        })
        .is_break()
    };
    if aggregates(having) || items.any(aggregates) {
        return;
    }
    let having = select.having.take().expect("checked above");
    select.selection = Some(match select.selection.take() {
        Some(existing) => Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(existing))),
            op: BinaryOperator::And,
            right: Box::new(Expr::Nested(Box::new(having))),
        },
        None => having,
    });
}

/// `select`'s QUALIFY as HAVING (an aggregating select) or WHERE, when
/// neither it nor the select list has a window function for it to filter.
pub fn qualify_without_windows(select: &mut Select, is_aggregate: &dyn Fn(&str) -> bool) {
    let Some(qualify) = &select.qualify else {
        return;
    };
    let items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    let calls = |found: &dyn Fn(&Function) -> bool| {
        items.clone().chain([qualify]).any(|e| {
            visit_expressions(e, |e| match e {
                Expr::Function(f) if found(f) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            })
            .is_break()
        })
    };
    if calls(&|f| f.over.is_some()) {
        return;
    }
    let aggregating = !matches!(&select.group_by, GroupByExpr::Expressions(keys, _) if keys.is_empty())
        || select.having.is_some()
        || calls(&|f| is_aggregate(&crate::ast_rewrite::written_name(f)));
    let qualify = select.qualify.take().expect("checked above");
    let target = if aggregating {
        &mut select.having
    } else {
        &mut select.selection
    };
    *target = Some(match target.take() {
        Some(existing) => Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(existing))),
            op: BinaryOperator::And,
            right: Box::new(Expr::Nested(Box::new(qualify))),
        },
        None => qualify,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(sql: &str) -> Select {
        let Statement::Query(query) = crate::parser::parse_statement(sql).unwrap().statement else {
            panic!("a query");
        };
        match *query.body {
            SetExpr::Select(select) => *select,
            _ => panic!("a select"),
        }
    }

    #[test]
    fn group_by_modifiers_become_grouping_sets_or_are_refused() {
        let mut rollup = select("SELECT a, count() FROM t GROUP BY a, b WITH ROLLUP");
        rewrite_group_by_modifiers(&mut rollup).unwrap();
        assert_eq!(rollup.group_by.to_string(), "GROUP BY ROLLUP (a, b)");
        let mut totals = select("SELECT a, count() FROM t GROUP BY a WITH TOTALS");
        let err = rewrite_group_by_modifiers(&mut totals).unwrap_err();
        assert_eq!(err.code, ErrorCode::NOT_IMPLEMENTED);
    }

    #[test]
    fn qualify_without_windows_filters_as_where_or_having() {
        let is_aggregate = |name: &str| name == "count";
        let mut plain = select("SELECT n FROM t WHERE n > 1 QUALIFY n < 5");
        qualify_without_windows(&mut plain, &is_aggregate);
        assert_eq!(plain.selection.unwrap().to_string(), "(n > 1) AND (n < 5)");
        let mut aggregate = select("SELECT count() AS c FROM t QUALIFY c > 1");
        qualify_without_windows(&mut aggregate, &is_aggregate);
        assert_eq!(aggregate.having.unwrap().to_string(), "c > 1");
        let mut windowed = select("SELECT n, row_number() OVER () AS r FROM t QUALIFY r = 1");
        qualify_without_windows(&mut windowed, &is_aggregate);
        assert!(windowed.qualify.is_some());
    }

    #[test]
    fn group_by_all_takes_the_parts_outside_aggregates() {
        let is_aggregate = |name: &str| matches!(name, "count" | "sum");
        let mut q = select(
            "SELECT substring(a, 4, 2), substring(substring(a, 1, 2), 1, count(b)), sum(c) * 2 + d, 1, CASE WHEN e THEN sum(c) END FROM t GROUP BY ALL WITH ROLLUP",
        );
        group_by_all(&mut q, &is_aggregate);
        assert_eq!(
            q.group_by.to_string(),
            "GROUP BY SUBSTRING(a, 4, 2), SUBSTRING(a, 1, 2), d, e WITH ROLLUP"
        );
        let mut star = select("SELECT *, count() FROM t GROUP BY ALL");
        group_by_all(&mut star, &is_aggregate);
        assert_eq!(star.group_by.to_string(), "GROUP BY ALL");
    }
}
