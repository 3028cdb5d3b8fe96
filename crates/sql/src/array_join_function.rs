//! The `arrayJoin(arr)` function: ClickHouse repeats the row once per element
//! wherever the call stands (select list, WHERE, GROUP BY, inside an
//! aggregate), and once per combination when a SELECT has several distinct
//! calls, the first varying slowest. Calls written alike are one call.
//!
//! DataFusion's `unnest` zips several calls and is planned only in a select
//! list, so each distinct call becomes an ARRAY JOIN clause of its own
//! ([`crate::array_join::nested`]) whose element, `__strata_ajN`, stands
//! where the call stood. A call inside another's array (`arrayJoin(range(
//! arrayJoin(a)))`) is found first, so its clause comes first. A SELECT over
//! joined tables keeps its calls for `unnest`.
//!
//! A call over an aggregate (`SELECT k, arrayJoin(groupArray(v)) ... GROUP
//! BY k`) repeats the aggregated rows, so such a SELECT is first split
//! ([`join_after_aggregation`]): it aggregates in a subquery, the array
//! under the call's name, and the call moves to a SELECT over it.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    ExcludeSelectItem, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName,
    OrderBy, Select, SelectItem, SetExpr, TableFactor, WildcardAdditionalOptions,
    visit_expressions,
};
use strata_common::Result;

use crate::array_join::{ArrayJoinClause, JoinedArray};
use crate::outside_subqueries::rewrite_outside_subqueries;

const FUNCTION: &str = "arrayJoin";
/// Elements of the calls: `__strata_aj1`, `__strata_aj2`, ...
const ELEMENT: &str = "__strata_aj";
/// Arrays aggregated before their calls: `__strata_aggregated_array0`, ...
const AGGREGATED_ARRAY: &str = "__strata_aggregated_array";
/// The parameter of the lambda an expression over a call moves into.
const LAMBDA_ELEMENT: &str = "__strata_element";

/// Rewrites `select`'s `arrayJoin` calls, and those of the query's ORDER BY,
/// into ARRAY JOIN clauses.
pub fn rewrite(select: &mut Select, order_by: Option<&mut OrderBy>) -> Result<()> {
    if select.from.len() > 1 || select.from.iter().any(|f| !f.joins.is_empty()) {
        return Ok(());
    }
    let arrays = replace_calls(select, order_by);
    if arrays.is_empty() {
        return Ok(());
    }
    let elements: Vec<Ident> = arrays.iter().map(|a| a.element.clone()).collect();
    let clauses: Vec<ArrayJoinClause> = arrays
        .into_iter()
        .map(|array| ArrayJoinClause {
            left: false,
            arrays: vec![array],
        })
        .collect();
    let relation = match select.from.pop() {
        Some(from) => from.relation,
        None => one_row()?,
    };
    select.from = vec![crate::array_join::nested(relation, &clauses)?];
    hide_from_wildcards(&mut select.projection, &elements);
    Ok(())
}

/// Splits a SELECT whose items are `arrayJoin(array) AS name` with an
/// aggregate in `array`: the SELECT, with `array AS name` for each such item,
/// becomes a subquery, and the new SELECT over it lists every item by name,
/// the calls over their arrays' columns. Items of other forms than named
/// expressions and columns, or a `*`, leave the SELECT as it is.
pub fn join_after_aggregation(
    select: &mut Select,
    is_aggregate: &dyn Fn(&str) -> bool,
) -> Result<()> {
    for item in select.projection.iter_mut() {
        if let SelectItem::ExprWithAlias { expr, .. } = item {
            move_call_outward(expr, is_aggregate)?;
        }
    }
    let over_aggregate = |item: &SelectItem| {
        matches!(item, SelectItem::ExprWithAlias { expr, .. }
            if joined_array(expr).is_some_and(|array| has_aggregate(array, is_aggregate)))
    };
    let named = |item: &SelectItem| {
        matches!(
            item,
            SelectItem::ExprWithAlias { .. } | SelectItem::UnnamedExpr(Expr::Identifier(_))
        )
    };
    if !select.projection.iter().any(over_aggregate) || !select.projection.iter().all(named) {
        return Ok(());
    }
    // A column named alone (a GROUP BY key) is named by itself.
    for item in select.projection.iter_mut() {
        if let SelectItem::UnnamedExpr(Expr::Identifier(name)) = item {
            let alias = name.clone();
            *item = SelectItem::ExprWithAlias {
                expr: Expr::Identifier(name.clone()),
                alias,
            };
        }
    }
    let mut outer_items = Vec::with_capacity(select.projection.len());
    for (n, item) in select.projection.iter_mut().enumerate() {
        let joined = over_aggregate(item);
        let SelectItem::ExprWithAlias { expr, alias } = item else {
            unreachable!("every item is named")
        };
        let shown_name = alias.clone();
        let shown = match joined {
            // The array's column has a name of its own, so that ORDER BY
            // the item's name means the element.
            true => {
                *alias = Ident::new(format!("{AGGREGATED_ARRAY}{n}"));
                let mut call = expr.clone();
                *expr = swap_argument(&mut call, Expr::Identifier(alias.clone()));
                call
            }
            false => Expr::Identifier(alias.clone()),
        };
        outer_items.push(SelectItem::ExprWithAlias {
            expr: shown,
            alias: shown_name,
        });
    }
    let template =
        crate::array_join::parse_query("SELECT 1 FROM (SELECT 1) AS __strata_aggregated")?;
    let SetExpr::Select(outer) = *template.body else {
        unreachable!("the template is a SELECT")
    };
    let aggregated = std::mem::replace(select, *outer);
    select.projection = outer_items;
    if let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation {
        *subquery.body = SetExpr::Select(Box::new(aggregated));
    }
    Ok(())
}

/// An item `E(arrayJoin(A))` with an aggregate in `A`, where `E` is more
/// than the call, as `arrayJoin(arrayMap(e -> E(e), A))`: the same rows,
/// the rest of `E` applied inside the array, so that the split takes it as
/// a whole item. Left alone when `E` holds several such calls or calls an
/// aggregate outside them.
fn move_call_outward(expr: &mut Expr, is_aggregate: &dyn Fn(&str) -> bool) -> Result<()> {
    if joined_array(expr).is_some() {
        return Ok(());
    }
    let mut arrays = Vec::new();
    let mut body = expr.clone();
    rewrite_outside_subqueries(&mut body, &mut |e: &mut Expr| match joined_array(e) {
        Some(array) if has_aggregate(array, is_aggregate) => {
            arrays.push(array.clone());
            *e = Expr::Identifier(Ident::new(LAMBDA_ELEMENT));
            true
        }
        _ => false,
    });
    let [array] = arrays.as_slice() else {
        return Ok(());
    };
    if has_aggregate(&body, is_aggregate) {
        return Ok(());
    }
    let template = crate::array_join::parse_query(&format!(
        "SELECT {FUNCTION}(arrayMap({LAMBDA_ELEMENT} -> 0, []))"
    ))?;
    let SetExpr::Select(select) = *template.body else {
        unreachable!("the template is a SELECT")
    };
    let Some(SelectItem::UnnamedExpr(mut call)) = select.projection.into_iter().next() else {
        unreachable!("the template has one item")
    };
    let (mut body, mut array) = (Some(body), Some(array.clone()));
    rewrite_outside_subqueries(&mut call, &mut |e: &mut Expr| match e {
        Expr::Lambda(lambda) => {
            *lambda.body = body.take().expect("one lambda");
            true
        }
        Expr::Array(_) => {
            *e = array.take().expect("one array");
            true
        }
        _ => false,
    });
    *expr = call;
    Ok(())
}

/// Whether `expr` calls an aggregate.
fn has_aggregate(expr: &Expr, is_aggregate: &dyn Fn(&str) -> bool) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::Function(f)
            if f.over.is_none() && is_aggregate(&crate::ast_rewrite::written_name(f)) =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Puts `argument` in place of the one argument of `call`, which it returns.
fn swap_argument(call: &mut Expr, argument: Expr) -> Expr {
    let Expr::Function(function) = call else {
        unreachable!("a call of arrayJoin")
    };
    let FunctionArguments::List(list) = &mut function.args else {
        unreachable!("arrayJoin takes a list")
    };
    let new = FunctionArg::Unnamed(FunctionArgExpr::Expr(argument));
    match std::mem::replace(&mut list.args[0], new) {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(old)) => old,
        _ => unreachable!("arrayJoin's argument is an expression"),
    }
}

/// Replaces each call outside subqueries by its element, innermost first;
/// returns the distinct arrays in that order.
fn replace_calls(select: &mut Select, order_by: Option<&mut OrderBy>) -> Vec<JoinedArray> {
    let mut arrays: Vec<JoinedArray> = Vec::new();
    let mut replace = |expr: &mut Expr| {
        let Some(array) = joined_array(expr) else {
            return false;
        };
        let element = match arrays.iter().find(|a| a.array == *array) {
            Some(known) => known.element.clone(),
            None => {
                let element = Ident::new(format!("{ELEMENT}{}", arrays.len() + 1));
                arrays.push(JoinedArray {
                    array: array.clone(),
                    element: element.clone(),
                    replaces_column: false,
                });
                element
            }
        };
        *expr = Expr::Identifier(element);
        true
    };
    rewrite_outside_subqueries(&mut select.projection, &mut replace);
    rewrite_outside_subqueries(&mut select.selection, &mut replace);
    rewrite_outside_subqueries(&mut select.group_by, &mut replace);
    rewrite_outside_subqueries(&mut select.having, &mut replace);
    rewrite_outside_subqueries(&mut select.qualify, &mut replace);
    if let Some(order_by) = order_by {
        rewrite_outside_subqueries(order_by, &mut replace);
    }
    arrays
}

/// `arr` when `expr` is `arrayJoin(arr)`.
fn joined_array(expr: &Expr) -> Option<&Expr> {
    let Expr::Function(function) = expr else {
        return None;
    };
    if crate::ast_rewrite::written_name(function) != FUNCTION {
        return None;
    }
    match crate::ast_rewrite::function_args(&function.args)?.as_slice() {
        [array] => Some(array),
        _ => None,
    }
}

/// The relation of a SELECT without FROM: one row.
fn one_row() -> Result<TableFactor> {
    let query = crate::array_join::parse_query("SELECT 0 AS dummy")?;
    Ok(TableFactor::Derived {
        lateral: false,
        subquery: Box::new(query),
        alias: None,
        sample: None,
    })
}

/// `*` keeps showing the relation's columns only.
fn hide_from_wildcards(projection: &mut [SelectItem], elements: &[Ident]) {
    for item in projection {
        let (SelectItem::Wildcard(options) | SelectItem::QualifiedWildcard(_, options)) = item
        else {
            continue;
        };
        let WildcardAdditionalOptions { opt_exclude, .. } = options;
        let mut excluded = match opt_exclude.take() {
            Some(ExcludeSelectItem::Single(one)) => vec![one],
            Some(ExcludeSelectItem::Multiple(many)) => many,
            None => Vec::new(),
        };
        excluded.extend(elements.iter().map(|e| ObjectName::from(vec![e.clone()])));
        *opt_exclude = Some(ExcludeSelectItem::Multiple(excluded));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        crate::array_join::tests::rewritten_with(sql, rewrite)
    }

    #[test]
    fn distinct_calls_nest_and_alike_calls_are_one() {
        assert_eq!(
            rewritten(
                "SELECT arrayJoin(a) + 1 AS x, arrayJoin(b) AS y FROM t WHERE arrayJoin(a) > 1"
            ),
            "SELECT __strata_aj1 + 1 AS x, __strata_aj2 AS y FROM (SELECT *, unnest(b) AS __strata_aj2 FROM (SELECT *, unnest(a) AS __strata_aj1 FROM t) AS t) AS t WHERE __strata_aj1 > 1"
        );
    }

    #[test]
    fn an_inner_call_comes_first_and_wildcards_hide_elements() {
        assert_eq!(
            rewritten("SELECT *, arrayJoin(range(arrayJoin(a))) FROM t"),
            "SELECT * EXCLUDE (__strata_aj1, __strata_aj2), __strata_aj2 FROM (SELECT *, unnest(range(__strata_aj1)) AS __strata_aj2 FROM (SELECT *, unnest(a) AS __strata_aj1 FROM t) AS t) AS t"
        );
    }

    #[test]
    fn joins_and_subqueries_keep_their_calls() {
        for sql in [
            "SELECT arrayJoin(a) FROM t JOIN u ON t.k = u.k",
            "SELECT (SELECT arrayJoin(b)) AS y FROM t",
        ] {
            assert_eq!(rewritten(sql), sql);
        }
    }
}
