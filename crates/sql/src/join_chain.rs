//! A FROM as ClickHouse reads it: relations joined left to right.
//!
//! - `FROM a, b JOIN c ON c.k = a.k` is `(a CROSS JOIN b) JOIN c`, so ON may
//!   read `a`. sqlparser takes the comma as separating two FROM items, `a`
//!   and `b JOIN c`, and DataFusion would plan `b JOIN c` alone: a FROM
//!   whose later item has joins becomes one chain of joins.
//! - Two relations of one FROM may not share an alias
//!   (MULTIPLE_EXPRESSIONS_FOR_ALIAS).
//! - An outer join's ON needs an equality of an expression of each side, the
//!   key ClickHouse's hash join builds on (INVALID_JOIN_ON_EXPRESSION).

use std::collections::HashSet;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Join, JoinConstraint, JoinOperator, Select, TableFactor, TableWithJoins,
    Visit, Visitor,
};
use std::ops::ControlFlow;
use strata_common::{ErrorCode, Result, StrataError};

/// Checks `select`'s FROM and makes it one chain where a comma precedes a join.
pub fn rewrite(select: &mut Select) -> Result<()> {
    check_aliases(&select.from)?;
    for join in select.from.iter().flat_map(|t| &t.joins) {
        check_constraint(join)?;
    }
    let chained = select.from.iter().skip(1).any(|t| {
        t.joins
            .iter()
            .any(|j| crate::join_using::constraint(&j.join_operator).is_some())
    });
    if chained {
        let mut items = std::mem::take(&mut select.from).into_iter();
        let mut first = items.next().expect("a FROM with a second item has a first");
        for item in items {
            first.joins.push(Join {
                relation: item.relation,
                global: false,
                join_operator: JoinOperator::CrossJoin(JoinConstraint::None),
            });
            first.joins.extend(item.joins);
        }
        select.from = vec![first];
    }
    Ok(())
}

fn check_aliases(from: &[TableWithJoins]) -> Result<()> {
    let mut seen = HashSet::new();
    let factors = from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    for alias in factors.filter_map(alias_of) {
        if !seen.insert(alias.clone()) {
            return Err(StrataError::new(
                ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS,
                format!("Multiple table expressions with same alias {alias}"),
            ));
        }
    }
    Ok(())
}

fn alias_of(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table { alias, .. }
        | TableFactor::Derived { alias, .. }
        | TableFactor::TableFunction { alias, .. }
        | TableFactor::Function { alias, .. }
        | TableFactor::UNNEST { alias, .. } => alias.as_ref().map(|a| a.name.value.clone()),
        _ => None,
    }
}

/// Which side of an outer join keeps its unmatched rows.
#[derive(Clone, Copy, PartialEq)]
enum Kept {
    Left,
    Right,
    Both,
}

fn check_constraint(join: &Join) -> Result<()> {
    let (constraint, kept) = match &join.join_operator {
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (c, None),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (c, Some(Kept::Left)),
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (c, Some(Kept::Right)),
        JoinOperator::FullOuter(c) => (c, Some(Kept::Both)),
        _ => return Ok(()),
    };
    match (constraint, kept) {
        (JoinConstraint::On(on), Some(kept)) if !has_key(on, kept, &right_names(join)) => {
            Err(StrataError::new(
                ErrorCode::INVALID_JOIN_ON_EXPRESSION,
                format!("Cannot determine join keys in JOIN ON expression {on}"),
            ))
        }
        _ => Ok(()),
    }
}

/// The names the right side's columns are qualified by.
fn right_names(join: &Join) -> Vec<String> {
    match &join.relation {
        TableFactor::Table {
            alias: None, name, ..
        } => {
            let parts = name.0.iter().map(|p| p.to_string()).collect::<Vec<_>>();
            vec![parts.last().cloned().unwrap_or_default(), parts.join(".")]
        }
        factor => alias_of(factor).into_iter().collect(),
    }
}

/// Whether an outer join's ON gives ClickHouse a key: it is constant, or a
/// top-level conjunct equates expressions of different relations, or every
/// conjunct reads only the side whose unmatched rows are dropped (a filter
/// of that side).
fn has_key(on: &Expr, kept: Kept, right: &[String]) -> bool {
    if qualifiers(on).columns == 0 {
        return true;
    }
    let conjuncts = conjuncts(on);
    let reads_only_dropped = |e: &Expr| {
        let q = qualifiers(e);
        let all_right = q.names.iter().all(|n| right.contains(n));
        let none_right = q.names.iter().all(|n| !right.contains(n));
        !q.unqualified
            && match kept {
                Kept::Left => all_right,
                Kept::Right => none_right,
                Kept::Both => false,
            }
    };
    if conjuncts.iter().all(|c| reads_only_dropped(c)) {
        return true;
    }
    is_key(on)
}

/// Whether `expr` gives a join a key: an equality of expressions of different
/// relations (also as `equals` or `isNotDistinctFrom`), in a conjunction, or
/// in every branch of a disjunction.
fn is_key(expr: &Expr) -> bool {
    match expr {
        Expr::Nested(inner) => is_key(inner),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::And => is_key(left) || is_key(right),
            BinaryOperator::Or => is_key(left) && is_key(right),
            BinaryOperator::Eq | BinaryOperator::Spaceship => sides_differ(left, right),
            _ => false,
        },
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let args = crate::ast_rewrite::function_args(&f.args).unwrap_or_default();
            matches!(name.as_str(), "equals" | "isnotdistinctfrom")
                && matches!(args.as_slice(), [l, r] if sides_differ(l, r))
        }
        _ => false,
    }
}

/// Whether two sides of an equality read columns, of different relations
/// where both name theirs (unqualified columns may be of either side).
fn sides_differ(left: &Expr, right: &Expr) -> bool {
    let (l, r) = (qualifiers(left), qualifiers(right));
    l.columns > 0 && r.columns > 0 && (l.unqualified || r.unqualified || l.names != r.names)
}

fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Nested(inner) => conjuncts(inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => [conjuncts(left), conjuncts(right)].concat(),
        other => vec![other],
    }
}

/// The relations an expression's columns name.
#[derive(Default)]
struct Qualifiers {
    columns: usize,
    unqualified: bool,
    names: Vec<String>,
}

impl Visitor for Qualifiers {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(_) => {
                self.columns += 1;
                self.unqualified = true;
            }
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                self.columns += 1;
                let qualifier = parts[..parts.len() - 1].iter().map(|p| p.value.clone());
                let name = qualifier.collect::<Vec<_>>().join(".");
                if !self.names.contains(&name) {
                    self.names.push(name);
                    self.names.sort();
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn qualifiers(expr: &Expr) -> Qualifiers {
    let mut found = Qualifiers::default();
    let _ = expr.visit(&mut found);
    found
}
