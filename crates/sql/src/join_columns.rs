//! Columns of joined relations as ClickHouse finds and names them, given
//! the columns of the SELECT's FROM (see [`crate::select_probes`]):
//!
//! - an unqualified name that several relations have is the leftmost
//!   one's column: `SELECT id FROM users JOIN orders ON ...` reads
//!   `users.id`, where DataFusion refuses the reference as ambiguous;
//! - a column whose name another relation has is shown as `r.a` (its
//!   relation's name or alias, a period, its name), in `*`, `t.*` and as a
//!   plain `r.a` in the select list: with two relations only the right
//!   one's, with more every one's ([`JoinView::shown_qualified`]);
//! - a USING key reads what [`crate::join_using`] says, under its own name.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, Ident, ObjectName, OrderByExpr, Select, SelectItem,
    SelectItemQualifiedWildcardKind, VisitMut, VisitorMut,
};

use crate::join_using::{JoinView, named};
use crate::naming::column_name;
use crate::outside_subqueries::rewrite_outside_subqueries;
use crate::repeated_columns::marked;
use crate::select_probes::{SourceColumn, qualified};

/// Whether a SELECT reads more than one relation.
pub fn has_join(select: &Select) -> bool {
    select.from.len() > 1 || select.from.iter().any(|t| !t.joins.is_empty())
}

/// Qualifies ambiguous names, writes out USING keys and names repeated
/// columns in `select` and the ORDER BY that sorts it.
pub fn resolve(select: &mut Select, view: &JoinView, order: Option<&mut Vec<OrderByExpr>>) {
    let owners = first_owners(&view.all);
    if owners.is_empty() {
        return;
    }
    let names = Names {
        owners: &owners,
        keys: &view.keys,
    };
    qualify_names(select, &names);
    name_repeats(select, view);
    mark_shared_names(select);
    if let Some(order) = order {
        // A select item's name wins over a column's here.
        let local = local_names(select);
        for key in order {
            qualify_in(&mut key.expr, &names, &local);
        }
    }
}

/// For each name several relations have: the leftmost relation's qualifier.
fn first_owners(columns: &[SourceColumn]) -> HashMap<String, String> {
    let mut first: HashMap<&str, &str> = HashMap::new();
    let mut owners = HashMap::new();
    for column in columns {
        let Some(qualifier) = column.qualifier.as_deref() else {
            continue;
        };
        match first.get(column.name.as_str()) {
            None => {
                first.insert(&column.name, qualifier);
            }
            Some(owner) if *owner != qualifier => {
                owners.insert(column.name.clone(), owner.to_string());
            }
            Some(_) => {}
        }
    }
    owners
}

/// A qualified reference's qualifier, as one text, and its column's name.
fn split_qualifier(parts: &[Ident]) -> Option<(String, &Ident)> {
    let (name, qualifier) = parts.split_last()?;
    let qualifier: Vec<&str> = qualifier.iter().map(|p| p.value.as_str()).collect();
    Some((qualifier.join("."), name))
}

/// Where the columns an unqualified name reads come from.
struct Names<'a> {
    /// For each name several relations have: the leftmost one's qualifier.
    owners: &'a HashMap<String, String>,
    /// What a USING key reads.
    keys: &'a HashMap<String, Expr>,
}

/// Rewrites an unqualified USING key into what it reads, and an ambiguous
/// name into the leftmost relation's column, in every clause of the SELECT
/// but not in its subqueries, and not where the name is a select-list
/// alias or a lambda's parameter. A select item keeps the name it had.
fn qualify_names(select: &mut Select, names: &Names<'_>) {
    let local = local_names(select);
    for item in &mut select.projection {
        match item {
            SelectItem::UnnamedExpr(e) => {
                let name = column_name(e);
                if qualify_in(e, names, &local) {
                    *item = named(e.clone(), &name);
                }
            }
            // An item's own alias does not hide the column it reads.
            SelectItem::ExprWithAlias { expr, alias } => {
                let mut others = local.clone();
                others.remove(&alias.value);
                qualify_in(expr, names, &others);
            }
            _ => {}
        }
    }
    for clause in [
        &mut select.selection,
        &mut select.prewhere,
        &mut select.having,
        &mut select.qualify,
    ]
    .into_iter()
    .flatten()
    {
        qualify_in(clause, names, &local);
    }
    if let GroupByExpr::Expressions(group_keys, _) = &mut select.group_by {
        for key in group_keys {
            qualify_in(key, names, &local);
        }
    }
}

/// The select list's aliases and the lambdas' parameters of `select`:
/// names that are not columns.
fn local_names(select: &mut Select) -> HashSet<String> {
    let mut local = aliases(select);
    let _ = select.visit(&mut LambdaParameters(&mut local));
    local
}

/// The select list's aliases.
fn aliases(select: &Select) -> HashSet<String> {
    select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
            _ => None,
        })
        .collect()
}

/// Writes out the keys and qualifies the ambiguous names of `expr` that are
/// not in `local`; true when it changed any.
fn qualify_in(expr: &mut Expr, names: &Names<'_>, local: &HashSet<String>) -> bool {
    rewrite_outside_subqueries(expr, &mut |e| {
        let Expr::Identifier(ident) = e else {
            return false;
        };
        if local.contains(&ident.value) {
            return false;
        }
        if let Some(key) = names.keys.get(&ident.value) {
            *e = key.clone();
            return true;
        }
        let Some(owner) = names.owners.get(&ident.value) else {
            return false;
        };
        *e = qualified(owner, &ident.value);
        true
    })
}

struct LambdaParameters<'a>(&'a mut HashSet<String>);

impl VisitorMut for LambdaParameters<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Lambda(lambda) = expr {
            self.0
                .extend(lambda.params.iter().map(|p| p.name.value.clone()));
        }
        ControlFlow::Continue(())
    }
}

/// Names `r.a` the columns [`JoinView::shown_qualified`] says: `*` and a
/// plain `t.*` are written out, and a plain `r.a` in the select list is
/// aliased.
fn name_repeats(select: &mut Select, view: &JoinView) {
    let repeat = |qualifier: &str, name: &str| view.shown_qualified(qualifier, name);
    let column_item = |column: &SourceColumn| match column.qualifier.as_deref() {
        Some(qualifier) => {
            let expr = qualified(qualifier, &column.name);
            match repeat(qualifier, &column.name) {
                true => aliased(expr, qualifier, &column.name),
                false => SelectItem::UnnamedExpr(expr),
            }
        }
        None => match view.keys.get(&column.name) {
            Some(key) => named(key.clone(), &column.name),
            None => {
                let name = Ident::with_quote('"', &column.name);
                SelectItem::UnnamedExpr(Expr::Identifier(name))
            }
        },
    };
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::Wildcard(options) if is_plain(&options) && view.star => {
                projection.extend(view.visible.iter().map(column_item));
            }
            SelectItem::QualifiedWildcard(
                SelectItemQualifiedWildcardKind::ObjectName(name),
                options,
            ) if is_plain(&options) && view.of_relation(&unquoted(&name)).next().is_some() => {
                projection.extend(view.of_relation(&unquoted(&name)).map(column_item));
            }
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) if parts.len() >= 2 => {
                let (qualifier, name) = split_qualifier(&parts).expect("two parts");
                let expr = Expr::CompoundIdentifier(parts.clone());
                projection.push(match repeat(&qualifier, &name.value) {
                    true => aliased(expr, &qualifier, &name.value),
                    false => SelectItem::UnnamedExpr(expr),
                });
            }
            SelectItem::UnnamedExpr(expr) => {
                let item = match shown_with_repeats(&expr, &repeat) {
                    Some(name) => named(expr, &name),
                    None => SelectItem::UnnamedExpr(expr),
                };
                projection.push(item);
            }
            other => projection.push(other),
        }
    }
    select.projection = projection;
}

/// A plain `a.k` beside an item named `k` (a USING key) is planned under a
/// marked name: DataFusion would take the two for one ambiguous column.
fn mark_shared_names(select: &mut Select) {
    let aliases = aliases(select);
    for (position, item) in select.projection.iter_mut().enumerate() {
        let SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) = item else {
            continue;
        };
        let Some((_, name)) = split_qualifier(parts) else {
            continue;
        };
        if !aliases.contains(&name.value) {
            continue;
        }
        let alias = marked(&name.value, position);
        let expr = Expr::CompoundIdentifier(parts.clone());
        *item = SelectItem::ExprWithAlias { expr, alias };
    }
}

/// A relation's name as the probe's qualifiers write it: parts unquoted.
fn unquoted(name: &ObjectName) -> String {
    name.0
        .iter()
        .filter_map(|part| part.as_ident().map(|i| i.value.clone()))
        .collect::<Vec<_>>()
        .join(".")
}

/// The name of an expression that reads a repeated column, with that
/// column named `r.a`; None when it reads none.
fn shown_with_repeats(expr: &Expr, repeat: &dyn Fn(&str, &str) -> bool) -> Option<String> {
    let mut renamed = expr.clone();
    let mut found = false;
    let _ = datafusion::sql::sqlparser::ast::visit_expressions_mut(&mut renamed, |e| {
        if let Expr::CompoundIdentifier(parts) = e
            && let Some((qualifier, name)) = split_qualifier(parts)
        {
            if repeat(&qualifier, &name.value) {
                *e = Expr::Identifier(Ident::new(format!("{qualifier}.{}", name.value)));
                found = true;
            }
        }
        ControlFlow::<()>::Continue(())
    });
    found.then(|| crate::naming::column_name(&renamed))
}

fn is_plain(options: &datafusion::sql::sqlparser::ast::WildcardAdditionalOptions) -> bool {
    options.opt_ilike.is_none()
        && options.opt_exclude.is_none()
        && options.opt_except.is_none()
        && options.opt_replace.is_none()
        && options.opt_rename.is_none()
        && options.opt_alias.is_none()
}

fn aliased(expr: Expr, qualifier: &str, name: &str) -> SelectItem {
    named(expr, &format!("{qualifier}.{name}"))
}

#[cfg(test)]
mod tests {
    use crate::parse_statement;
    use crate::select_probes::{next_probe, rewrite_next, source_columns};

    fn resolved(sql: &str) -> String {
        let columns = source_columns(&[("u", "id"), ("u", "city"), ("o", "id"), ("o", "city")]);
        let mut statement = parse_statement(sql).unwrap().statement;
        assert!(next_probe(&mut statement, 0).is_some());
        assert!(rewrite_next(&mut statement, 0, &columns).unwrap());
        statement.to_string()
    }

    #[test]
    fn shared_names_read_the_leftmost_relation() {
        assert_eq!(
            resolved("SELECT id, city AS c FROM u JOIN o ON u.id = o.id WHERE c > '' AND id > 1"),
            r#"SELECT "u"."id" AS "id", "u"."city" AS c FROM u JOIN o ON u.id = o.id WHERE c > '' AND "u"."id" > 1"#
        );
    }

    #[test]
    fn repeated_columns_are_named_by_relation() {
        assert_eq!(
            resolved("SELECT * FROM u JOIN o ON u.id = o.id"),
            r#"SELECT "u"."id", "u"."city", "o"."id" AS "o.id", "o"."city" AS "o.city" FROM u JOIN o ON u.id = o.id"#
        );
        assert_eq!(
            resolved("SELECT upper(o.city) FROM u JOIN o USING (id)"),
            r#"SELECT upper(o.city) AS "upper(o.city)" FROM u JOIN o USING(id)"#
        );
    }
}
