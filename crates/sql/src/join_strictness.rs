//! ClickHouse's join strictness, `[GLOBAL] [ALL|ANY|SEMI|ANTI] [INNER|LEFT|RIGHT|FULL|CROSS] [OUTER] JOIN`
//! with the words in any order. `ALL` is SQL's join. The others keep
//! one row per key of a side:
//!
//! | written          | join as   | one row per key of |
//! |------------------|-----------|--------------------|
//! | `ANY [INNER]`    | INNER     | both sides         |
//! | `ANY LEFT`       | LEFT      | the right side     |
//! | `ANY RIGHT`      | RIGHT     | the left side      |
//! | `[LEFT] SEMI`    | INNER     | the right side     |
//! | `RIGHT SEMI`     | INNER     | the left side      |
//!
//! so each row of the other side meets at most one row, the first found, and
//! a SEMI join shows both sides' columns as ClickHouse does. `ANTI` joins are
//! DataFusion's, which show the kept side's columns only. `ASOF [LEFT]` is
//! INNER (LEFT) with its inequality marked for the ASOF join operator (see
//! [`asof_condition`] and [`asof_using`]).
//!
//! Two steps. On the tokens, [`rewrite_words`] writes the words as sqlparser
//! reads them, and [`mark_constraints`] puts a marker first in the join's
//! ON (`ON __strata_one_right AND ...`) or USING list (`USING
//! (__strata_one_right, k)`). After parsing, [`rewrite`] takes each marker
//! off and replaces that side's relation with `(SELECT DISTINCT ON (keys) *
//! FROM relation WHERE conditions) AS name`: the keys are the USING names or
//! ON's equalities, the conditions those of ON that read that side only, since
//! ClickHouse filters a side before it picks its row.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Distinct, Expr, Ident, JoinConstraint, JoinOperator, ObjectName, Query,
    SetExpr, Statement, TableAlias, TableFactor, TableWithJoins, Visit, VisitMut, Visitor,
    VisitorMut,
};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::asof::AsofOp;

use crate::clickhouse_tokens::{is_space, keyword, with_token};
use crate::parser::syntax_error;

/// The side of a join that keeps one row per key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OneRowPer {
    Left,
    Right,
    Both,
}

impl OneRowPer {
    const EVERY: [OneRowPer; 3] = [OneRowPer::Left, OneRowPer::Right, OneRowPer::Both];

    fn marker(self) -> &'static str {
        match self {
            OneRowPer::Left => "__strata_one_left",
            OneRowPer::Right => "__strata_one_right",
            OneRowPer::Both => "__strata_one_both",
        }
    }

    fn of_marker(name: &str) -> Option<Self> {
        Self::EVERY.into_iter().find(|one| one.marker() == name)
    }

    fn left(self) -> bool {
        self != OneRowPer::Right
    }

    fn right(self) -> bool {
        self != OneRowPer::Left
    }
}

/// What a join's marker asks of the rewrite.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Marker {
    One(OneRowPer),
    /// An ASOF join: its one inequality becomes the `__strata_asof_*` condition.
    Asof,
}

impl Marker {
    const ASOF: &'static str = "__strata_asof";

    fn name(self) -> &'static str {
        match self {
            Marker::One(one) => one.marker(),
            Marker::Asof => Self::ASOF,
        }
    }

    fn of_name(name: &str) -> Option<Self> {
        match name == Self::ASOF {
            true => Some(Marker::Asof),
            false => OneRowPer::of_marker(name).map(Marker::One),
        }
    }
}

/// What ClickHouse writes around JOIN, in any order before it.
pub(crate) fn is_join_modifier(k: Keyword) -> bool {
    matches!(
        k,
        Keyword::ALL
            | Keyword::ANY
            | Keyword::SEMI
            | Keyword::ANTI
            | Keyword::ASOF
            | Keyword::GLOBAL
            | Keyword::INNER
            | Keyword::LEFT
            | Keyword::RIGHT
            | Keyword::FULL
            | Keyword::OUTER
            | Keyword::CROSS
    )
}

/// Rewrites the words before each JOIN into what sqlparser reads, a marker
/// after JOIN where a side keeps one row per key; drops `GLOBAL` before `IN`.
pub(crate) fn rewrite_words(tokens: Vec<TokenWithSpan>, sql: &str) -> Result<Vec<TokenWithSpan>> {
    let mut out = Vec::with_capacity(tokens.len() + 8);
    for (i, token) in tokens.iter().enumerate() {
        match keyword(token) {
            Keyword::JOIN => {
                let modifiers = take_modifiers(&mut out);
                let (marker, words) = join_words(modifiers, sql)?;
                for word in words {
                    out.push(with_token(token, word));
                    out.push(with_token(token, Token::Whitespace(Whitespace::Space)));
                }
                out.push(token.clone());
                if let Some(marker) = marker {
                    out.push(with_token(token, Token::make_word(marker.name(), None)));
                }
            }
            // One node has no other servers to send a GLOBAL IN's set to.
            Keyword::GLOBAL
                if tokens[i + 1..]
                    .iter()
                    .find(|t| !is_space(t))
                    .is_some_and(|t| matches!(keyword(t), Keyword::IN | Keyword::NOT)) => {}
            _ => out.push(token.clone()),
        }
    }
    Ok(out)
}

/// Takes the modifier words that end `out`, in text order.
fn take_modifiers(out: &mut Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let start = out
        .iter()
        .rposition(|t| !is_space(t) && !is_join_modifier(keyword(t)))
        .map_or(0, |i| i + 1);
    let modifiers: Vec<TokenWithSpan> = out.drain(start..).filter(|t| !is_space(t)).collect();
    if let Some(first) = modifiers.first() {
        out.push(with_token(first, Token::Whitespace(Whitespace::Space)));
    }
    modifiers
}

/// The words sqlparser reads for one JOIN's `modifiers`, and the marker of
/// what the rewrite does to the join.
fn join_words(modifiers: Vec<TokenWithSpan>, sql: &str) -> Result<(Option<Marker>, Vec<Token>)> {
    let words: Vec<Keyword> = modifiers.iter().map(keyword).collect();
    let strictness = words.iter().copied().find(|k| {
        matches!(
            k,
            Keyword::ALL | Keyword::ANY | Keyword::SEMI | Keyword::ANTI | Keyword::ASOF
        )
    });
    let side = words.iter().copied().find(|k| {
        matches!(
            k,
            Keyword::INNER | Keyword::LEFT | Keyword::RIGHT | Keyword::FULL | Keyword::CROSS
        )
    });
    let (marker, written): (Option<Marker>, &[&str]) = match (strictness, side) {
        (None | Some(Keyword::ALL), _) => {
            let kept = modifiers
                .into_iter()
                .filter(|t| !matches!(keyword(t), Keyword::ALL | Keyword::GLOBAL))
                .map(|t| t.token);
            return Ok((None, kept.collect()));
        }
        (Some(Keyword::ANY), None | Some(Keyword::INNER)) => {
            (Some(Marker::One(OneRowPer::Both)), &["INNER"])
        }
        (Some(Keyword::ANY), Some(Keyword::LEFT)) => {
            (Some(Marker::One(OneRowPer::Right)), &["LEFT"])
        }
        (Some(Keyword::ANY), Some(Keyword::RIGHT)) => {
            (Some(Marker::One(OneRowPer::Left)), &["RIGHT"])
        }
        (Some(Keyword::ANY), _) => {
            return Err(not_implemented("ANY FULL and ANY CROSS JOINs are"));
        }
        (Some(Keyword::SEMI), None | Some(Keyword::LEFT)) => {
            (Some(Marker::One(OneRowPer::Right)), &["INNER"])
        }
        (Some(Keyword::SEMI), Some(Keyword::RIGHT)) => {
            (Some(Marker::One(OneRowPer::Left)), &["INNER"])
        }
        (Some(Keyword::ANTI), None | Some(Keyword::LEFT)) => (None, &["LEFT", "ANTI"]),
        (Some(Keyword::ANTI), Some(Keyword::RIGHT)) => (None, &["RIGHT", "ANTI"]),
        (Some(Keyword::SEMI | Keyword::ANTI), _) => {
            return Err(syntax_error(sql, "SEMI and ANTI joins take LEFT or RIGHT"));
        }
        (_, None | Some(Keyword::INNER)) => (Some(Marker::Asof), &["INNER"]),
        (_, Some(Keyword::LEFT)) => (Some(Marker::Asof), &["LEFT"]),
        _ => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "Wrong ASOF JOIN type. Only ASOF and LEFT ASOF joins are supported",
            ));
        }
    };
    Ok((
        marker,
        written.iter().map(|w| Token::make_keyword(w)).collect(),
    ))
}

/// Moves each marker from after its JOIN to the start of the join's ON
/// condition or USING list (parenthesized by then).
pub(crate) fn mark_constraints(
    tokens: Vec<TokenWithSpan>,
    sql: &str,
) -> Result<Vec<TokenWithSpan>> {
    let no_constraint = || syntax_error(sql, "an ANY, SEMI or ASOF JOIN needs ON or USING");
    let mut out = Vec::with_capacity(tokens.len() + 8);
    // Markers waiting for their ON or USING, with the bracket depth they are at.
    let mut waiting: Vec<(Marker, usize)> = Vec::new();
    let mut using: Option<Marker> = None;
    let mut depth = 0usize;
    for token in tokens {
        if let Token::Word(w) = &token.token
            && let Some(marker) = Marker::of_name(&w.value)
        {
            waiting.push((marker, depth));
            continue;
        }
        let here = waiting
            .last()
            .filter(|(_, d)| *d == depth)
            .map(|(marker, _)| *marker);
        let word = keyword(&token);
        out.push(token.clone());
        match (&token.token, word, here) {
            (Token::LParen, ..) => {
                depth += 1;
                if let Some(marker) = using.take() {
                    out.push(with_token(&token, Token::make_word(marker.name(), None)));
                    out.push(with_token(&token, Token::Comma));
                }
            }
            (Token::RParen, ..) => {
                depth = depth.saturating_sub(1);
                if waiting.last().is_some_and(|(_, d)| *d > depth) {
                    return Err(no_constraint());
                }
            }
            (_, Keyword::ON, Some(marker)) => {
                waiting.pop();
                for t in [
                    Token::Whitespace(Whitespace::Space),
                    Token::make_word(marker.name(), None),
                    Token::Whitespace(Whitespace::Space),
                    Token::make_keyword("AND"),
                ] {
                    out.push(with_token(&token, t));
                }
            }
            (_, Keyword::USING, Some(marker)) => {
                waiting.pop();
                using = Some(marker);
            }
            (_, Keyword::JOIN, Some(_)) => return Err(no_constraint()),
            _ => {}
        }
    }
    match waiting.is_empty() {
        true => Ok(out),
        false => Err(no_constraint()),
    }
}

/// Takes the markers off `statement`'s joins, keeping one row per key of
/// the sides they name.
pub fn rewrite(statement: &mut Statement) -> Result<()> {
    match statement.visit(&mut Rewriter) {
        ControlFlow::Break(error) => Err(error),
        ControlFlow::Continue(()) => Ok(()),
    }
}

struct Rewriter;

impl VisitorMut for Rewriter {
    type Break = StrataError;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<StrataError> {
        match rewrite_body(&mut query.body) {
            Ok(()) => ControlFlow::Continue(()),
            Err(error) => ControlFlow::Break(error),
        }
    }
}

fn rewrite_body(body: &mut SetExpr) -> Result<()> {
    match body {
        SetExpr::Select(select) => select.from.iter_mut().try_for_each(rewrite_joins),
        SetExpr::SetOperation { left, right, .. } => {
            rewrite_body(left)?;
            rewrite_body(right)
        }
        _ => Ok(()),
    }
}

fn rewrite_joins(from: &mut TableWithJoins) -> Result<()> {
    for i in 0..from.joins.len() {
        let Some(marker) = take_marker(&mut from.joins[i].join_operator) else {
            continue;
        };
        let left_names: Vec<String> = std::iter::once(&from.relation)
            .chain(from.joins[..i].iter().map(|j| &j.relation))
            .filter_map(|r| name_of(r).map(|n| n.value))
            .collect();
        let right_name = name_of(&from.joins[i].relation).map(|n| n.value);
        let one = match marker {
            Marker::One(one) => one,
            Marker::Asof => {
                let join = &mut from.joins[i];
                let constraint = crate::join_using::constraint_mut(&mut join.join_operator)
                    .expect("a marked join has its constraint");
                match constraint {
                    JoinConstraint::Using(names) => asof_using(names, &mut join.relation)?,
                    _ => asof_condition(constraint, &left_names, right_name.as_deref())?,
                }
                continue;
            }
        };
        let constraint = crate::join_using::constraint(&from.joins[i].join_operator)
            .expect("a marked join has its constraint");
        let keys = Keys::of(constraint, &left_names, right_name.as_deref())?;
        if one.right() {
            one_row_per_key(&mut from.joins[i].relation, keys.right, keys.right_only);
        }
        if one.left() {
            if i > 0 {
                return Err(not_implemented(
                    "ANY INNER, ANY RIGHT and RIGHT SEMI JOIN after another join are",
                ));
            }
            one_row_per_key(&mut from.relation, keys.left, keys.left_only);
        }
    }
    Ok(())
}

/// Takes the marker off a join's ON or USING.
fn take_marker(operator: &mut JoinOperator) -> Option<Marker> {
    match crate::join_using::constraint_mut(operator)? {
        JoinConstraint::On(on) => take_leftmost_marker(on),
        JoinConstraint::Using(names) => {
            let marker = names
                .first()
                .and_then(|n| Marker::of_name(&n.to_string()))?;
            names.remove(0);
            Some(marker)
        }
        _ => None,
    }
}

/// `marker AND x` became the leftmost operand of the condition as parsed:
/// it is replaced by `x`, which gives the condition as written.
fn take_leftmost_marker(expr: &mut Expr) -> Option<Marker> {
    let Expr::BinaryOp { left, op, right } = expr else {
        return None;
    };
    if let (Expr::Identifier(ident), BinaryOperator::And) = (left.as_ref(), &op) {
        let marker = Marker::of_name(&ident.value)?;
        *expr = (**right).clone();
        return Some(marker);
    }
    take_leftmost_marker(left)
}

/// An ASOF join's `USING (keys..., t)` compares the last column as `left.t
/// >= right.t`: the right relation reads it through `__strata_asof_using(t)`,
/// which tells the physical rule which USING column is not a key.
fn asof_using(names: &[ObjectName], relation: &mut TableFactor) -> Result<()> {
    let Some(asof) = names.last().filter(|_| names.len() >= 2) else {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "ASOF join with hash algorithm needs at least one equi-join column",
        ));
    };
    let column = asof.to_string();
    let mut query = crate::array_join::parse_query(&format!(
        "SELECT * REPLACE ({}({column}) AS {column}) FROM t",
        strata_functions::asof::USING_FUNCTION
    ))?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        unreachable!("a SELECT parses as one");
    };
    select.from[0].relation = relation.clone();
    *relation = derived(query, relation);
    Ok(())
}

/// An ASOF join's ON: its one inequality between the two sides becomes
/// `__strata_asof_<op>(left side, right side)`, beside the equalities.
fn asof_condition(
    constraint: &mut JoinConstraint,
    left: &[String],
    right: Option<&str>,
) -> Result<()> {
    let JoinConstraint::On(on) = constraint else {
        unreachable!("markers are taken off ON or USING, and USING is handled apart");
    };
    let invalid = |message: &str| StrataError::new(ErrorCode::INVALID_JOIN_ON_EXPRESSION, message);
    let mut inequalities = conjuncts_mut(on)
        .into_iter()
        .filter(|c| matches!(c, Expr::BinaryOp { op, .. } if asof_op(op).is_some()))
        .collect::<Vec<_>>();
    let condition = match inequalities.len() {
        1 => inequalities.pop().expect("one inequality"),
        0 => {
            return Err(invalid(
                "ASOF join requires one inequality predicate (<, <=, > or >=) in the JOIN ON \
                 expression, in addition to the equality predicates",
            ));
        }
        _ => {
            return Err(invalid(
                "ASOF join does not support multiple inequality predicates in JOIN ON expression",
            ));
        }
    };
    let Expr::BinaryOp {
        left: l,
        op,
        right: r,
    } = condition
    else {
        unreachable!("an inequality is a binary operation");
    };
    let op = asof_op(op).expect("an inequality");
    let (op, args) = match (reads(l, left, right), reads(r, left, right)) {
        (Reads::Left | Reads::Unknown, Reads::Right) | (Reads::Left, Reads::Unknown) => {
            (op, vec![(**l).clone(), (**r).clone()])
        }
        (Reads::Right, Reads::Left | Reads::Unknown) | (Reads::Unknown, Reads::Left) => {
            (op.flipped(), vec![(**r).clone(), (**l).clone()])
        }
        _ => {
            return Err(invalid(&format!(
                "Cannot tell which table each side of the ASOF JOIN's inequality `{condition}` reads: \
                 it must compare a column of each table, qualified with the table's name or alias"
            )));
        }
    };
    *condition = crate::ast_rewrite::call(op.function_name(), args);
    Ok(())
}

fn asof_op(op: &BinaryOperator) -> Option<AsofOp> {
    match op {
        BinaryOperator::GtEq => Some(AsofOp::Ge),
        BinaryOperator::Gt => Some(AsofOp::Gt),
        BinaryOperator::LtEq => Some(AsofOp::Le),
        BinaryOperator::Lt => Some(AsofOp::Lt),
        _ => None,
    }
}

/// The name a relation is referred to by.
fn name_of(relation: &TableFactor) -> Option<Ident> {
    match relation {
        TableFactor::Table { alias: Some(a), .. } | TableFactor::Derived { alias: Some(a), .. } => {
            Some(a.name.clone())
        }
        TableFactor::Table { name, .. } => name.0.last().and_then(|p| p.as_ident()).cloned(),
        _ => None,
    }
}

/// A join's keys on each side, and the conditions that read one side only.
#[derive(Default)]
struct Keys {
    left: Vec<Expr>,
    right: Vec<Expr>,
    left_only: Vec<Expr>,
    right_only: Vec<Expr>,
}

/// What an expression reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reads {
    Nothing,
    Left,
    Right,
    /// A column not qualified by a relation's name, or both sides.
    Unknown,
}

impl Keys {
    fn of(constraint: &JoinConstraint, left: &[String], right: Option<&str>) -> Result<Keys> {
        let mut keys = Keys::default();
        match constraint {
            JoinConstraint::Using(names) => {
                for name in names {
                    let column = Expr::Identifier(
                        name.0
                            .last()
                            .and_then(|p| p.as_ident())
                            .cloned()
                            .ok_or_else(no_keys)?,
                    );
                    keys.left.push(column.clone());
                    keys.right.push(column);
                }
            }
            JoinConstraint::On(on) => {
                for condition in conjuncts(on) {
                    keys.add(condition, left, right)?;
                }
            }
            _ => return Err(no_keys()),
        }
        match keys.left.is_empty() {
            true => Err(no_keys()),
            false => Ok(keys),
        }
    }

    fn add(&mut self, condition: &Expr, left: &[String], right: Option<&str>) -> Result<()> {
        let reads = |e: &Expr| reads(e, left, right);
        if let Expr::BinaryOp {
            left: l,
            op: BinaryOperator::Eq,
            right: r,
        } = condition
        {
            match (reads(l), reads(r)) {
                (Reads::Left | Reads::Unknown, Reads::Right) | (Reads::Left, Reads::Unknown) => {
                    self.left.push((**l).clone());
                    self.right.push((**r).clone());
                    return Ok(());
                }
                (Reads::Right, Reads::Left | Reads::Unknown) | (Reads::Unknown, Reads::Left) => {
                    self.left.push((**r).clone());
                    self.right.push((**l).clone());
                    return Ok(());
                }
                _ => {}
            }
        }
        match reads(condition) {
            Reads::Nothing => {}
            Reads::Left => self.left_only.push(condition.clone()),
            Reads::Right => self.right_only.push(condition.clone()),
            Reads::Unknown => {
                return Err(StrataError::new(
                    ErrorCode::INVALID_JOIN_ON_EXPRESSION,
                    format!(
                        "Cannot tell which table `{condition}` of an ANY or SEMI JOIN's ON reads: \
                         qualify its columns with the table's name or alias"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The operands of `expr`'s top-level ANDs.
fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut all = conjuncts(left);
            all.extend(conjuncts(right));
            all
        }
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

fn conjuncts_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut all = conjuncts_mut(left);
            all.extend(conjuncts_mut(right));
            all
        }
        Expr::Nested(inner) => conjuncts_mut(inner),
        other => vec![other],
    }
}

fn reads(expr: &Expr, left: &[String], right: Option<&str>) -> Reads {
    struct Columns<'a> {
        left: &'a [String],
        right: Option<&'a str>,
        reads: Reads,
    }
    impl Visitor for Columns<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.reads = Reads::Unknown;
            ControlFlow::Break(())
        }
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            let side = match expr {
                Expr::Identifier(_) => Reads::Unknown,
                Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                    let qualifier = parts[parts.len() - 2].value.as_str();
                    if Some(qualifier) == self.right {
                        Reads::Right
                    } else if self.left.iter().any(|l| l == qualifier) {
                        Reads::Left
                    } else {
                        Reads::Unknown
                    }
                }
                _ => return ControlFlow::Continue(()),
            };
            self.reads = match (self.reads, side) {
                (Reads::Nothing, side) => side,
                (now, side) if now == side => now,
                _ => Reads::Unknown,
            };
            ControlFlow::Continue(())
        }
    }
    let mut columns = Columns {
        left,
        right,
        reads: Reads::Nothing,
    };
    let _ = expr.visit(&mut columns);
    columns.reads
}

/// `relation` as `(SELECT DISTINCT ON (keys) * FROM relation WHERE filters) AS name`.
fn one_row_per_key(relation: &mut TableFactor, keys: Vec<Expr>, filters: Vec<Expr>) {
    let mut query =
        crate::array_join::parse_query("SELECT * FROM t").expect("a fixed query parses");
    let SetExpr::Select(select) = query.body.as_mut() else {
        unreachable!("a SELECT parses as one");
    };
    select.distinct = Some(Distinct::On(keys));
    select.from[0].relation = relation.clone();
    select.selection = filters.into_iter().reduce(|all, next| Expr::BinaryOp {
        left: Box::new(all),
        op: BinaryOperator::And,
        right: Box::new(next),
    });
    *relation = derived(query, relation);
}

/// `query` in place of `relation`, under the relation's name.
fn derived(query: Query, relation: &TableFactor) -> TableFactor {
    TableFactor::Derived {
        lateral: false,
        subquery: Box::new(query),
        alias: name_of(relation).map(|name| TableAlias {
            explicit: true,
            name,
            columns: vec![],
            at: None,
        }),
        sample: None,
    }
}

fn no_keys() -> StrataError {
    StrataError::new(
        ErrorCode::INVALID_JOIN_ON_EXPRESSION,
        "Cannot determine join keys of an ANY or SEMI JOIN: it needs ON with an equality of the two tables' columns, or USING",
    )
}

fn not_implemented(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!("{what} not implemented"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let mut parsed = crate::parser::parse_statement(sql).unwrap();
        rewrite(&mut parsed.statement).unwrap();
        parsed.statement.to_string()
    }

    #[test]
    fn any_left_keeps_one_right_row_per_key_after_its_filters() {
        assert_eq!(
            rewritten(
                "SELECT * FROM a ANY LEFT JOIN b AS bb ON bb.k = a.k AND bb.y != 'x' AND a.x = 1"
            ),
            "SELECT * FROM a LEFT JOIN (SELECT DISTINCT ON (bb.k) * FROM b AS bb WHERE bb.y <> 'x') AS bb ON bb.k = a.k AND bb.y <> 'x' AND a.x = 1"
        );
    }

    #[test]
    fn asof_inequality_becomes_its_marker_condition_left_side_first() {
        assert_eq!(
            rewritten("SELECT * FROM a ASOF LEFT JOIN b ON b.k = a.k AND b.t <= a.t"),
            "SELECT * FROM a LEFT JOIN b ON b.k = a.k AND __strata_asof_ge(a.t, b.t)"
        );
        assert_eq!(
            rewritten("SELECT * FROM a ASOF JOIN b USING (k, t)"),
            "SELECT * FROM a INNER JOIN (SELECT * REPLACE (__strata_asof_using(t) AS t) FROM b) AS b USING(k, t)"
        );
    }

    #[test]
    fn any_inner_and_semi_by_using() {
        assert_eq!(
            rewritten("SELECT * FROM a ANY JOIN b USING k"),
            "SELECT * FROM (SELECT DISTINCT ON (k) * FROM a) AS a INNER JOIN (SELECT DISTINCT ON (k) * FROM b) AS b USING(k)"
        );
        assert_eq!(
            rewritten("SELECT * FROM a SEMI JOIN (SELECT 1 AS k) USING (k)"),
            "SELECT * FROM a INNER JOIN (SELECT DISTINCT ON (k) * FROM (SELECT 1 AS k)) USING(k)"
        );
    }

    #[test]
    fn all_and_global_words_go() {
        assert_eq!(
            rewritten(
                "SELECT * FROM a GLOBAL ALL LEFT JOIN b ON a.k = b.k WHERE a.k GLOBAL IN (1)"
            ),
            "SELECT * FROM a LEFT JOIN b ON a.k = b.k WHERE a.k IN (1)"
        );
        assert_eq!(
            rewritten("SELECT * FROM a ANTI JOIN b ON a.k = b.k"),
            "SELECT * FROM a LEFT ANTI JOIN b ON a.k = b.k"
        );
    }

    #[test]
    fn a_join_without_on_or_using_is_a_syntax_error() {
        for sql in [
            "SELECT * FROM a ANY LEFT JOIN b",
            "SELECT * FROM a ANY LEFT JOIN b JOIN c ON a.k = c.k",
            "SELECT * FROM (SELECT * FROM a SEMI JOIN b) JOIN c USING k",
        ] {
            let error = crate::parser::parse_statement(sql).unwrap_err();
            assert_eq!(error.code, ErrorCode::SYNTAX_ERROR, "{sql}");
        }
    }

    #[test]
    fn a_join_without_keys_is_refused() {
        for sql in [
            "SELECT * FROM a ANY LEFT JOIN b ON 1",
            "SELECT * FROM a SEMI JOIN b ON k = k2",
        ] {
            let error = crate::parser::parse_statement(sql)
                .and_then(|mut p| rewrite(&mut p.statement))
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::INVALID_JOIN_ON_EXPRESSION, "{sql}");
        }
    }
}
