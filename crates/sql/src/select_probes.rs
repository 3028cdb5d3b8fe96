//! Rewrites that must know the columns of a SELECT's FROM before planning:
//! column matchers ([`crate::column_matchers`]) and the names of joined
//! columns ([`crate::join_columns`]). The probe of a SELECT is `SELECT *
//! FROM` its FROM, under every WITH it sees, which the engine plans to learn
//! the columns. SELECTs are taken innermost first, so a probe's FROM holds
//! only SELECTs already rewritten:
//!
//! ```text
//! let mut n = 0;
//! while let Some(probe) = next_probe(statement, n) {
//!     if rewrite_next(statement, n, &columns_of(probe.query))? { n += 1 }
//! }
//! ```

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken;
use datafusion::sql::sqlparser::ast::{
    Cte, Expr, GroupByExpr, Ident, JoinConstraint, OrderByExpr, OrderByKind, Query, Select,
    SelectItem, SetExpr, Statement, Value, VisitMut, VisitorMut, WildcardAdditionalOptions, With,
};
use strata_common::{ErrorCode, Result, StrataError};

use crate::{column_matchers, join_columns, join_using};

/// A column of a probe: the relation it comes from and its name.
#[derive(Debug, Clone)]
pub struct SourceColumn {
    pub qualifier: Option<String>,
    pub name: String,
}

impl SourceColumn {
    /// Whether the column is of the relation written `t` or `db.t`.
    pub(crate) fn of_relation(&self, written: &str) -> bool {
        let table = written.rsplit('.').next().unwrap_or_default();
        self.qualifier
            .as_deref()
            .is_some_and(|q| q == written || q.rsplit('.').next() == Some(table))
    }
}

/// Test columns from `(qualifier, name)` pairs.
#[cfg(test)]
pub(crate) fn source_columns(pairs: &[(&str, &str)]) -> Vec<SourceColumn> {
    pairs
        .iter()
        .map(|(q, n)| SourceColumn {
            qualifier: Some(q.to_string()),
            name: n.to_string(),
        })
        .collect()
}

/// The reference `qualifier.name`, each part quoted as written.
pub(crate) fn qualified(qualifier: &str, name: &str) -> Expr {
    let mut parts: Vec<Ident> = qualifier
        .split('.')
        .map(|p| Ident::with_quote('"', p))
        .collect();
    parts.push(Ident::with_quote('"', name));
    Expr::CompoundIdentifier(parts)
}

/// Whether a rewrite here needs the columns of `select`'s FROM.
fn needs_columns(select: &Select) -> bool {
    column_matchers::has_matcher(select) || join_columns::has_join(select)
}

/// A probe: the query to plan, and whether its SELECT can do without it.
pub struct Probe {
    pub query: Query,
    /// A join's names can stay as DataFusion gives them where the probe
    /// fails; matchers cannot.
    pub optional: bool,
}

/// The probe of the `n`-th SELECT (from 0, innermost first) that needs its
/// columns; None when there is none.
pub fn next_probe(statement: &mut Statement, n: usize) -> Option<Probe> {
    let mut found = None;
    visit_target(statement, n, &mut |query, select, ctes, _| {
        found = Some(Probe {
            query: probe_of(query, select, ctes),
            optional: !column_matchers::has_matcher(select),
        });
    });
    found
}

/// Rewrites the SELECT whose probe [`next_probe`] gave, with the columns the
/// probe planned to. True when it still needs columns afterwards (it has a
/// join), so the next one to probe is `n + 1`; else `n` again.
pub fn rewrite_next(statement: &mut Statement, n: usize, columns: &[SourceColumn]) -> Result<bool> {
    let mut result = Err(StrataError::new(
        ErrorCode::LOGICAL_ERROR,
        "no SELECT left to rewrite with its columns",
    ));
    visit_target(statement, n, &mut |_, select, _, order| {
        let view = join_using::view(select, columns);
        result = column_matchers::expand(select, &view.visible).map(|()| {
            join_columns::resolve(select, &view, order);
            needs_columns(select)
        });
    });
    result
}

type Visit<'a> = dyn FnMut(&Query, &mut Select, &[Cte], Option<&mut Vec<OrderByExpr>>) + 'a;

fn visit_target(statement: &mut Statement, n: usize, f: &mut Visit<'_>) -> bool {
    let mut finder = Finder {
        ctes: Vec::new(),
        n,
        seen: 0,
        f,
    };
    statement.visit(&mut finder).is_break()
}

/// Visits queries innermost first, counting wanted SELECTs; breaks after
/// calling `f` on the target.
struct Finder<'a, 'f> {
    /// The WITH clauses of the queries being visited, outermost first.
    ctes: Vec<Vec<Cte>>,
    /// The target's position among the SELECTs that need columns.
    n: usize,
    seen: usize,
    f: &'a mut Visit<'f>,
}

impl VisitorMut for Finder<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let ctes = query
            .with
            .as_ref()
            .map(|w| w.cte_tables.clone())
            .unwrap_or_default();
        self.ctes.push(ctes);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let own = self.ctes.pop();
        let wanted = needs_columns;
        let mut selects = Vec::new();
        selects_of(&mut query.body, &mut selects);
        let count = selects.iter().filter(|s| wanted(s)).count();
        if self.seen + count <= self.n {
            self.seen += count;
            return ControlFlow::Continue(());
        }
        let k = self.n - self.seen;
        let ctes: Vec<Cte> = self.ctes.iter().chain(&own).flatten().cloned().collect();
        let shell = query.clone();
        // The ORDER BY belongs to the SELECT only where there is one.
        let order = match (query.body.as_ref(), query.order_by.as_mut()) {
            (SetExpr::Select(_), Some(order)) => match &mut order.kind {
                OrderByKind::Expressions(keys) => Some(keys),
                OrderByKind::All(_) => None,
            },
            _ => None,
        };
        let mut selects = Vec::new();
        selects_of(&mut query.body, &mut selects);
        let select = selects
            .into_iter()
            .filter(|s| wanted(s))
            .nth(k)
            .expect("counted above");
        (self.f)(&shell, select, &ctes, order);
        ControlFlow::Break(())
    }
}

/// The SELECTs of a query's body, through set operations, not into
/// subqueries (the visitor reaches those as queries of their own).
pub(crate) fn selects_of<'a>(body: &'a mut SetExpr, out: &mut Vec<&'a mut Select>) {
    match body {
        SetExpr::Select(select) => out.push(select.as_mut()),
        SetExpr::SetOperation { left, right, .. } => {
            selects_of(left, out);
            selects_of(right, out);
        }
        _ => {}
    }
}

fn probe_of(query: &Query, select: &Select, ctes: &[Cte]) -> Query {
    let mut from = select.clone();
    from.projection = vec![SelectItem::Wildcard(WildcardAdditionalOptions::default())];
    from.distinct = None;
    from.top = None;
    from.prewhere = None;
    from.selection = None;
    from.group_by = GroupByExpr::Expressions(Vec::new(), Vec::new());
    from.having = None;
    from.qualify = None;
    from.named_window = Vec::new();
    from.sort_by = Vec::new();
    // Every column of every relation, a USING join's right keys included.
    for join in from.from.iter_mut().flat_map(|t| &mut t.joins) {
        if let Some(constraint) = join_using::constraint_mut(&mut join.join_operator)
            && matches!(constraint, JoinConstraint::Using(_))
        {
            *constraint = JoinConstraint::On(Expr::value(Value::Boolean(true)));
        }
    }
    let mut probe = query.clone();
    probe.with = (!ctes.is_empty()).then(|| With {
        with_token: query
            .with
            .as_ref()
            .map_or_else(AttachedToken::empty, |w| w.with_token.clone()),
        recursive: false,
        cte_tables: ctes.to_vec(),
    });
    probe.body = Box::new(SetExpr::Select(Box::new(from)));
    probe.order_by = None;
    probe.limit_clause = None;
    probe.fetch = None;
    probe.settings = None;
    probe.format_clause = None;
    probe
}
