//! What a SELECT's joined relations show, as ClickHouse shows it, given the
//! columns of its FROM (every relation's columns, [`crate::select_probes`]).
//!
//! A key of `a JOIN b USING (k)` is one column `k`: the left side's value,
//! the right side's in a RIGHT JOIN, and whichever side has the row in a
//! FULL JOIN, in the common type of both sides' `k` (`_usingKey`). `*` shows the keys first, then the left side's other columns,
//! then the right side's:
//!
//! ```text
//! a (x, k, y) JOIN b (z, k, y) USING (k)   shows   k, x, y, z, b.y
//! ```
//!
//! DataFusion still plans the join from `USING`; only what reads its keys
//! is written out here ([`crate::join_columns`]).

use std::collections::HashMap;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Join, JoinConstraint, JoinOperator, Select, SelectItem, TableWithJoins,
};

use crate::ast_rewrite::call;
use crate::select_probes::{SourceColumn, qualified};

/// The columns of a SELECT's FROM as ClickHouse shows them.
pub struct JoinView {
    /// What `*` and column matchers show, in order; a USING key once, with
    /// no qualifier.
    pub visible: Vec<SourceColumn>,
    /// Every column of every relation, the right sides' USING keys included.
    pub all: Vec<SourceColumn>,
    /// The relations' qualifiers, left to right.
    pub relations: Vec<String>,
    /// What an unqualified USING key reads.
    pub keys: HashMap<String, Expr>,
    /// Whether `*` can be written out from `visible`; false where a USING
    /// join is of a shape left to DataFusion (SEMI, ANTI, nested joins).
    pub star: bool,
}

/// Which side's value a USING key takes.
#[derive(Clone, Copy)]
enum KeySide {
    Left,
    Right,
    /// Whichever side has the row.
    Either,
}

impl KeySide {
    fn of(operator: &JoinOperator) -> Option<KeySide> {
        match operator {
            JoinOperator::Join(_)
            | JoinOperator::Inner(_)
            | JoinOperator::Left(_)
            | JoinOperator::LeftOuter(_) => Some(KeySide::Left),
            JoinOperator::Right(_) | JoinOperator::RightOuter(_) => Some(KeySide::Right),
            JoinOperator::FullOuter(_) => Some(KeySide::Either),
            _ => None,
        }
    }

    /// The key's value. For a FULL join this must hold whether the missing
    /// side's columns are NULL (`join_use_nulls = 1`) or their type's
    /// default (`= 0`): a left value that is its default can only stand for
    /// a missing row if the right value is there, and then the right value
    /// is the key. One case it cannot tell apart: a NULL left key (of a
    /// Nullable column) without a match reads the right side's default,
    /// where ClickHouse shows NULL.
    fn key(self, left: Expr, right: Expr) -> Expr {
        match self {
            KeySide::Left => call("_usingKey", vec![left, right]),
            KeySide::Right => call("_usingKey", vec![right, left]),
            KeySide::Either => {
                let default = call("defaultValueOfArgumentType", vec![left.clone()]);
                let left_if_set = call("nullIf", vec![left.clone(), default]);
                call("coalesce", vec![left_if_set, right, left])
            }
        }
    }
}

/// The keys of a join with `USING`; None for other joins.
fn using_keys(join: &Join) -> Option<Vec<String>> {
    match constraint(&join.join_operator)? {
        JoinConstraint::Using(names) => Some(
            names
                .iter()
                .filter_map(|name| name.0.last()?.as_ident().map(|i| i.value.clone()))
                .collect(),
        ),
        _ => None,
    }
}

/// The constraint (ON, USING) of a join of any kind that has one.
macro_rules! constraint_of {
    ($operator:expr) => {
        match $operator {
            JoinOperator::Join(c)
            | JoinOperator::Inner(c)
            | JoinOperator::Left(c)
            | JoinOperator::LeftOuter(c)
            | JoinOperator::Right(c)
            | JoinOperator::RightOuter(c)
            | JoinOperator::FullOuter(c)
            | JoinOperator::Semi(c)
            | JoinOperator::LeftSemi(c)
            | JoinOperator::RightSemi(c)
            | JoinOperator::Anti(c)
            | JoinOperator::LeftAnti(c)
            | JoinOperator::RightAnti(c) => Some(c),
            _ => None,
        }
    };
}

pub(crate) fn constraint(operator: &JoinOperator) -> Option<&JoinConstraint> {
    constraint_of!(operator)
}

pub(crate) fn constraint_mut(operator: &mut JoinOperator) -> Option<&mut JoinConstraint> {
    constraint_of!(operator)
}

/// The view of `select`'s FROM, whose relations have `columns`.
pub fn view(select: &Select, columns: &[SourceColumn]) -> JoinView {
    let relations = relations_of(columns);
    let usings = select
        .from
        .iter()
        .flat_map(|t| &t.joins)
        .any(|j| using_keys(j).is_some());
    let mut plain = JoinView {
        visible: columns.to_vec(),
        all: columns.to_vec(),
        relations,
        keys: HashMap::new(),
        star: true,
    };
    if !usings {
        return plain;
    }
    if let [from] = select.from.as_slice()
        && let Some(view) = using_view(from, &plain)
    {
        return view;
    }
    // As DataFusion shows it: each right side's keys hidden.
    plain.star = false;
    let hidden = hidden_keys(select, &plain.relations);
    plain.visible.retain(|c| {
        !hidden
            .iter()
            .any(|(q, n)| Some(q) == c.qualifier.as_ref() && n == &c.name)
    });
    plain
}

/// Qualifiers of the relations, in the order their columns come.
fn relations_of(columns: &[SourceColumn]) -> Vec<String> {
    let mut relations: Vec<String> = Vec::new();
    for qualifier in columns.iter().filter_map(|c| c.qualifier.as_ref()) {
        if relations.last() != Some(qualifier) && !relations.contains(qualifier) {
            relations.push(qualifier.clone());
        }
    }
    relations
}

/// (relation, key) of each USING join's right side, where the relations
/// line up with the joins.
fn hidden_keys(select: &Select, relations: &[String]) -> Vec<(String, String)> {
    let [from] = select.from.as_slice() else {
        return Vec::new();
    };
    if relations.len() != from.joins.len() + 1 {
        return Vec::new();
    }
    let mut hidden = Vec::new();
    for (join, right) in from.joins.iter().zip(&relations[1..]) {
        for key in using_keys(join).unwrap_or_default() {
            hidden.push((right.clone(), key));
        }
    }
    hidden
}

/// The view of a chain of joins with USING, left to right; None where a
/// join or a relation is of a shape left to DataFusion.
fn using_view(from: &TableWithJoins, plain: &JoinView) -> Option<JoinView> {
    let relations = &plain.relations;
    if relations.len() != from.joins.len() + 1 || plain.all.iter().any(|c| c.qualifier.is_none()) {
        return None;
    }
    let all = &plain.all;
    let of = |relation: &String| {
        let relation = relation.clone();
        all.iter()
            .filter(move |c| c.qualifier.as_deref() == Some(relation.as_str()))
    };
    let mut visible: Vec<SourceColumn> = of(&relations[0]).cloned().collect();
    let mut keys: HashMap<String, Expr> = HashMap::new();
    for (join, right) in from.joins.iter().zip(&relations[1..]) {
        let Some(names) = using_keys(join) else {
            visible.extend(of(right).cloned());
            continue;
        };
        let side = KeySide::of(&join.join_operator)?;
        for name in &names {
            let left = match keys.get(name) {
                Some(key) => key.clone(),
                None => {
                    let column = visible.iter().find(|c| &c.name == name)?;
                    qualified(column.qualifier.as_deref()?, name)
                }
            };
            of(right).find(|c| &c.name == name)?;
            keys.insert(name.clone(), side.key(left, qualified(right, name)));
        }
        let is_key = |c: &SourceColumn| names.contains(&c.name);
        let mut next: Vec<SourceColumn> = names
            .iter()
            .map(|name| SourceColumn {
                qualifier: None,
                name: name.clone(),
            })
            .collect();
        next.extend(visible.into_iter().filter(|c| !is_key(c)));
        next.extend(of(right).filter(|c| !is_key(c)).cloned());
        visible = next;
    }
    Some(JoinView {
        visible,
        all: plain.all.clone(),
        relations: relations.clone(),
        keys,
        star: true,
    })
}

impl JoinView {
    /// Whether the column `qualifier.name` is shown as `qualifier.name`:
    /// with two relations, a right-side column whose name the left side
    /// has; with more, any column whose name another relation has.
    pub fn shown_qualified(&self, qualifier: &str, name: &str) -> bool {
        let owners = self.relations.iter().filter(|r| self.has(r, name)).count();
        match self.relations.as_slice() {
            [] | [_] => false,
            [left, _] => {
                qualifier != left && (self.has(left, name) || self.keys.contains_key(name))
            }
            _ => owners > 1,
        }
    }

    fn has(&self, relation: &str, name: &str) -> bool {
        self.all
            .iter()
            .any(|c| c.name == name && c.qualifier.as_deref() == Some(relation))
    }

    /// The columns of relation `qualifier` (`t` or `db.t`), every one.
    pub fn of_relation<'a>(&'a self, qualifier: &'a str) -> impl Iterator<Item = &'a SourceColumn> {
        self.all.iter().filter(move |c| c.of_relation(qualifier))
    }
}

/// `expr AS "name"`, the name quoted as given.
pub(crate) fn named(expr: Expr, name: &str) -> SelectItem {
    SelectItem::ExprWithAlias {
        expr,
        alias: Ident::with_quote('"', name),
    }
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::ast::{SetExpr, Statement};

    use super::*;
    use crate::parse_statement;
    use crate::select_probes::source_columns;

    fn view_of(sql: &str) -> JoinView {
        let columns = source_columns(&[("a", "x"), ("a", "k"), ("b", "k"), ("b", "y")]);
        let Statement::Query(query) = parse_statement(sql).unwrap().statement else {
            panic!("a query");
        };
        let SetExpr::Select(select) = *query.body else {
            panic!("a select");
        };
        view(&select, &columns)
    }

    fn shown(view: &JoinView) -> Vec<String> {
        view.visible
            .iter()
            .map(|c| format!("{}.{}", c.qualifier.as_deref().unwrap_or(""), c.name))
            .collect()
    }

    #[test]
    fn keys_come_first_and_read_their_side() {
        let inner = view_of("SELECT * FROM a JOIN b USING (k)");
        assert_eq!(shown(&inner), [".k", "a.x", "b.y"]);
        assert_eq!(
            inner.keys["k"].to_string(),
            r#""_usingKey"("a"."k", "b"."k")"#
        );
        let right = view_of("SELECT * FROM a RIGHT JOIN b USING k");
        assert_eq!(
            right.keys["k"].to_string(),
            r#""_usingKey"("b"."k", "a"."k")"#
        );
        let full = view_of("SELECT * FROM a FULL JOIN b USING k");
        assert_eq!(
            full.keys["k"].to_string(),
            r#"coalesce("nullIf"("a"."k", "defaultValueOfArgumentType"("a"."k")), "b"."k", "a"."k")"#
        );
        assert!(full.shown_qualified("b", "k"));
        assert!(!full.shown_qualified("a", "k"));
    }

    #[test]
    fn anti_joins_are_left_to_datafusion() {
        let semi = view_of("SELECT * FROM a LEFT ANTI JOIN b USING (k)");
        assert!(!semi.star);
        assert_eq!(shown(&semi), ["a.x", "a.k", "b.y"]);
        assert!(semi.keys.is_empty());
    }
}
