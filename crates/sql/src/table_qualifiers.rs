//! A table's own name still qualifies its columns where the FROM gives it
//! an alias, as in ClickHouse: `SELECT t1.a, t1.* FROM t1 AS t` reads
//! `t.a` and `t.*`. DataFusion knows an aliased relation by its alias only.
//! A name some relation of the FROM is known by keeps its meaning; a
//! subquery is rewritten against its own FROM.

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableFactor,
};

/// An aliased table of a FROM: its name as written and its alias.
struct AliasedTable {
    name: Vec<String>,
    alias: Ident,
}

/// The FROM's relations: aliased tables, and every name a relation is
/// known by (aliases, unaliased tables' names).
#[derive(Default)]
struct Relations {
    aliased: Vec<AliasedTable>,
    known: Vec<String>,
}

impl Relations {
    fn of(select: &Select) -> Relations {
        let mut relations = Relations::default();
        let factors = select
            .from
            .iter()
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
        for factor in factors {
            match factor {
                TableFactor::Table {
                    name,
                    alias: Some(alias),
                    args: None,
                    ..
                } => {
                    relations.known.push(alias.name.value.clone());
                    relations.aliased.push(AliasedTable {
                        name: name.0.iter().map(part_text).collect(),
                        alias: alias.name.clone(),
                    });
                }
                TableFactor::Table {
                    name, alias: None, ..
                } => relations.known.extend(name.0.last().map(part_text)),
                TableFactor::Derived {
                    alias: Some(alias), ..
                }
                | TableFactor::Table {
                    alias: Some(alias), ..
                } => relations.known.push(alias.name.value.clone()),
                _ => {}
            }
        }
        relations
    }

    /// The alias that stands for `qualifier`, a table's own name (`t1` or
    /// `db.t1`) that no relation is known by.
    fn alias_for(&self, qualifier: &[String]) -> Option<&Ident> {
        let last = qualifier.last()?;
        if qualifier.len() == 1 && self.known.contains(last) {
            return None;
        }
        self.aliased
            .iter()
            .find(|table| {
                table.name.last() == Some(last)
                    && (qualifier.len() == 1 || table.name.len() == 1 || table.name == qualifier)
            })
            .map(|table| &table.alias)
    }
}

fn part_text(part: &ObjectNamePart) -> String {
    part.as_ident()
        .map_or_else(|| part.to_string(), |ident| ident.value.clone())
}

/// Rewrites `query`'s SELECT (and its ORDER BY) where a table's own name
/// qualifies a column of the table under its alias.
pub fn rewrite(query: &mut Query) {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return;
    };
    let relations = Relations::of(select);
    if relations.aliased.is_empty() {
        return;
    }
    for item in &mut select.projection {
        if let SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(name), _) =
            item
        {
            let qualifier: Vec<String> = name.0.iter().map(part_text).collect();
            if let Some(alias) = relations.alias_for(&qualifier) {
                *name = ObjectName::from(vec![alias.clone()]);
            }
        }
    }
    // Subqueries' names are their own FROM's.
    let mut requalify = |expr: &mut Expr| requalify(expr, &relations);
    crate::outside_subqueries::rewrite_outside_subqueries(select.as_mut(), &mut requalify);
    if let Some(order) = query.order_by.as_mut() {
        crate::outside_subqueries::rewrite_outside_subqueries(order, &mut requalify);
    }
}

/// `t1.a` as `t.a` where `t1` names the table aliased `t`; whether it was.
fn requalify(expr: &mut Expr, relations: &Relations) -> bool {
    if let Expr::CompoundIdentifier(parts) = expr
        && let [qualifier @ .., column] = parts.as_slice()
        && !qualifier.is_empty()
    {
        let written: Vec<String> = qualifier.iter().map(|i| i.value.clone()).collect();
        if let Some(alias) = relations.alias_for(&written) {
            *parts = vec![alias.clone(), column.clone()];
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::ast::Statement;

    use super::*;
    use crate::parse_statement;

    fn rewritten(sql: &str) -> String {
        let Statement::Query(mut query) = parse_statement(sql).unwrap().statement else {
            panic!("a query");
        };
        rewrite(&mut query);
        query.to_string()
    }

    #[test]
    fn a_table_name_reads_as_its_alias() {
        assert_eq!(
            rewritten("SELECT t1.a, db.t1.b, t1.* FROM db.t1 AS t WHERE t1.a > 1 ORDER BY t1.a"),
            "SELECT t.a, t.b, t.* FROM db.t1 AS t WHERE t.a > 1 ORDER BY t.a"
        );
    }

    #[test]
    fn a_name_a_relation_is_known_by_keeps_its_meaning() {
        assert_eq!(
            rewritten("SELECT t1.a FROM t1 AS t JOIN t1 ON t.a = t1.a"),
            "SELECT t1.a FROM t1 AS t JOIN t1 ON t.a = t1.a"
        );
        assert_eq!(
            rewritten("SELECT x.a FROM t1 AS x, t2 AS t1"),
            "SELECT x.a FROM t1 AS x, t2 AS t1"
        );
    }

    #[test]
    fn a_subquery_keeps_its_own_names() {
        assert_eq!(
            rewritten("SELECT (SELECT t1.a FROM t1) FROM t1 AS t"),
            "SELECT (SELECT t1.a FROM t1) FROM t1 AS t"
        );
    }
}
