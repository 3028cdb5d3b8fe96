//! Columns of joined relations as ClickHouse finds and names them, given
//! the columns of the SELECT's FROM (see [`crate::select_probes`]):
//!
//! - an unqualified name that several relations have is the leftmost
//!   one's column: `SELECT id FROM users JOIN orders ON ...` reads
//!   `users.id`, where DataFusion refuses the reference as ambiguous;
//! - a column whose name a relation to its left already has is shown as
//!   `r.a` (its relation's name or alias, a period, its name): in `*` and
//!   as a plain `r.a` in the select list.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, Ident, JoinConstraint, JoinOperator, Select, SelectItem, VisitMut,
    VisitorMut,
};

use crate::outside_subqueries::rewrite_outside_subqueries;
use crate::select_probes::{SourceColumn, qualified};

/// Whether a SELECT reads more than one relation.
pub fn has_join(select: &Select) -> bool {
    select.from.len() > 1 || select.from.iter().any(|t| !t.joins.is_empty())
}

/// Qualifies ambiguous names and names repeated columns in `select`.
pub fn resolve(select: &mut Select, columns: &[SourceColumn]) {
    let owners = first_owners(columns);
    if owners.is_empty() {
        return;
    }
    qualify_names(select, &owners);
    name_repeats(select, columns, &owners);
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

/// Rewrites an unqualified ambiguous name into the leftmost relation's
/// column, in every clause of the SELECT but not in its subqueries, and
/// not where the name is a select-list alias or a lambda's parameter.
fn qualify_names(select: &mut Select, owners: &HashMap<String, String>) {
    let mut local: HashSet<String> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
            _ => None,
        })
        .collect();
    let _ = select.visit(&mut LambdaParameters(&mut local));
    for item in &mut select.projection {
        match item {
            SelectItem::UnnamedExpr(e) => qualify_in(e, owners, &local),
            // An item's own alias does not hide the column it reads.
            SelectItem::ExprWithAlias { expr, alias } => {
                let mut others = local.clone();
                others.remove(&alias.value);
                qualify_in(expr, owners, &others);
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
        qualify_in(clause, owners, &local);
    }
    if let GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        for key in keys {
            qualify_in(key, owners, &local);
        }
    }
}

/// Qualifies the ambiguous names of `expr` that are not in `local`.
fn qualify_in(expr: &mut Expr, owners: &HashMap<String, String>, local: &HashSet<String>) {
    rewrite_outside_subqueries(expr, &mut |e| {
        let Expr::Identifier(ident) = e else {
            return false;
        };
        let Some(owner) = owners
            .get(&ident.value)
            .filter(|_| !local.contains(&ident.value))
        else {
            return false;
        };
        *e = qualified(owner, &ident.value);
        true
    });
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

/// Names `r.a` the columns whose name a relation to their left has: `*`
/// is written out, and a plain `r.a` in the select list is aliased.
fn name_repeats(select: &mut Select, columns: &[SourceColumn], owners: &HashMap<String, String>) {
    let repeat =
        |qualifier: &str, name: &str| owners.get(name).is_some_and(|owner| owner != qualifier);
    let using_keys = select.from.iter().flat_map(|t| &t.joins).any(|join| {
        matches!(
            join_constraint(&join.join_operator),
            Some(JoinConstraint::Using(_) | JoinConstraint::Natural)
        )
    });
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            // DataFusion's `*` shows a USING key once; where it is placed
            // is DataFusion's choice, so such a `*` is left to it.
            SelectItem::Wildcard(options) if is_plain(&options) && !using_keys => {
                for column in columns {
                    let Some(qualifier) = column.qualifier.as_deref() else {
                        let name = Ident::with_quote('"', &column.name);
                        projection.push(SelectItem::UnnamedExpr(Expr::Identifier(name)));
                        continue;
                    };
                    let expr = qualified(qualifier, &column.name);
                    projection.push(match repeat(qualifier, &column.name) {
                        true => aliased(expr, qualifier, &column.name),
                        false => SelectItem::UnnamedExpr(expr),
                    });
                }
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
                    Some(name) => SelectItem::ExprWithAlias {
                        expr,
                        alias: Ident::with_quote('"', name),
                    },
                    None => SelectItem::UnnamedExpr(expr),
                };
                projection.push(item);
            }
            other => projection.push(other),
        }
    }
    select.projection = projection;
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
    SelectItem::ExprWithAlias {
        expr,
        alias: Ident::with_quote('"', format!("{qualifier}.{name}")),
    }
}

fn join_constraint(operator: &JoinOperator) -> Option<&JoinConstraint> {
    match operator {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;
    use crate::select_probes::{next_probe, rewrite_next};

    fn resolved(sql: &str) -> String {
        let columns: Vec<SourceColumn> = [("u", "id"), ("u", "city"), ("o", "id"), ("o", "city")]
            .iter()
            .map(|(q, n)| SourceColumn {
                qualifier: Some(q.to_string()),
                name: n.to_string(),
            })
            .collect();
        let mut statement = parse_statement(sql).unwrap().statement;
        assert!(next_probe(&mut statement, 0).is_some());
        assert!(rewrite_next(&mut statement, 0, &columns).unwrap());
        statement.to_string()
    }

    #[test]
    fn shared_names_read_the_leftmost_relation() {
        assert_eq!(
            resolved("SELECT id, city AS c FROM u JOIN o ON u.id = o.id WHERE c > '' AND id > 1"),
            r#"SELECT "u"."id", "u"."city" AS c FROM u JOIN o ON u.id = o.id WHERE c > '' AND "u"."id" > 1"#
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
