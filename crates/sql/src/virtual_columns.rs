//! Statements that name a table's virtual columns (MergeTree's `_part`,
//! `_partition_id`): finding them, and keeping `*` to the table's own
//! columns once the planner sees the virtual ones.
//!
//! DataFusion has no hidden columns: a table shows the planner one schema,
//! and `*` expands to all of it. So the engine gives a table its virtual
//! columns only for statements that name one, and this module adds them to
//! the `EXCLUDE` list of every wildcard over such a table.

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    ExcludeSelectItem, Expr, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, Statement, TableFactor, TableWithJoins, Visit, VisitMut,
    Visitor, VisitorMut, WildcardAdditionalOptions,
};
use strata_common::{ErrorCode, Result, StrataError};

/// Whether `node` (a statement, an expression) names a column called one
/// of `names`, bare or qualified.
pub fn names_column<T: Visit>(node: &T, names: &[&str]) -> bool {
    struct Finder<'a> {
        names: &'a [&'a str],
    }
    impl Visitor for Finder<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            let last = match expr {
                Expr::Identifier(ident) => Some(ident),
                Expr::CompoundIdentifier(parts) => parts.last(),
                _ => None,
            };
            match last {
                Some(ident) if self.names.contains(&ident.value.as_str()) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    node.visit(&mut Finder { names }).is_break()
}

/// The tables `statement` reads by name (not table functions, not CTEs).
pub fn tables_read(statement: &Statement) -> Vec<ObjectName> {
    let ctes = cte_names(statement);
    let mut tables = Vec::new();
    let _ = statement.visit(&mut TableFactors(|factor: &TableFactor| {
        if let Some(name) = named_table(factor, &ctes) {
            tables.push(name.clone());
        }
    }));
    tables
}

/// A relation a FROM reads: a table by name, or a table function's call.
#[derive(Debug, Clone, Copy)]
pub enum Relation<'a> {
    Table(&'a ObjectName),
    /// The function's name (`file`, `s3`).
    Function(&'a ObjectName),
}

/// Adds to every wildcard over a relation the columns `hidden` gives for
/// it. A bare `*` over several relations that hide columns cannot say
/// which one's to leave out, and is refused.
pub fn exclude_from_wildcards(
    statement: &mut Statement,
    hidden: &dyn Fn(Relation) -> Vec<String>,
) -> Result<()> {
    let ctes = cte_names(statement);
    let mut rewriter = WildcardRewriter { ctes, hidden };
    match statement.visit(&mut rewriter) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(error) => Err(error),
    }
}

/// Calls its function on every table factor of a statement.
struct TableFactors<F: FnMut(&TableFactor)>(F);

impl<F: FnMut(&TableFactor)> Visitor for TableFactors<F> {
    type Break = ();
    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        (self.0)(factor);
        ControlFlow::Continue(())
    }
}

pub(crate) fn cte_names(statement: &Statement) -> HashSet<String> {
    struct Ctes(HashSet<String>);
    impl Visitor for Ctes {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            if let Some(with) = &query.with {
                for cte in &with.cte_tables {
                    self.0.insert(cte.alias.name.value.clone());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut ctes = Ctes(HashSet::new());
    let _ = statement.visit(&mut ctes);
    ctes.0
}

/// The table a factor reads by name, unless the name is a CTE's.
pub(crate) fn named_table<'a>(
    factor: &'a TableFactor,
    ctes: &HashSet<String>,
) -> Option<&'a ObjectName> {
    let TableFactor::Table {
        name, args: None, ..
    } = factor
    else {
        return None;
    };
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(only)] if ctes.contains(&only.value) => None,
        _ => Some(name),
    }
}

struct WildcardRewriter<'a> {
    ctes: HashSet<String>,
    hidden: &'a dyn Fn(Relation) -> Vec<String>,
}

/// A table in a SELECT's FROM that has virtual columns.
struct HidingTable {
    name: ObjectName,
    alias: Option<Ident>,
    hidden: Vec<String>,
}

impl HidingTable {
    /// Whether `qualifier` in `qualifier.*` means this table.
    fn answers_to(&self, qualifier: &ObjectName) -> bool {
        match (&self.alias, qualifier.0.as_slice()) {
            (Some(alias), [ObjectNamePart::Identifier(q)]) => alias.value == q.value,
            (Some(_), _) => false,
            (None, [ObjectNamePart::Identifier(q)]) => {
                matches!(self.name.0.last(), Some(ObjectNamePart::Identifier(t)) if t.value == q.value)
            }
            (None, _) => &self.name == qualifier,
        }
    }
}

impl WildcardRewriter<'_> {
    fn hiding_tables(&self, from: &[TableWithJoins]) -> Vec<HidingTable> {
        let mut tables = Vec::new();
        let mut add = |factor: &TableFactor| {
            let TableFactor::Table {
                name, alias, args, ..
            } = factor
            else {
                return;
            };
            let relation = match (args, named_table(factor, &self.ctes)) {
                (Some(_), _) => Relation::Function(name),
                (None, Some(_)) => Relation::Table(name),
                (None, None) => return,
            };
            let hidden = (self.hidden)(relation);
            if hidden.is_empty() {
                return;
            }
            tables.push(HidingTable {
                name: name.clone(),
                alias: alias.as_ref().map(|a| a.name.clone()),
                hidden,
            });
        };
        for table in from {
            for_each_factor(table, &mut add);
        }
        tables
    }
}

/// The factors of a FROM item, inside nested joins too (not in subqueries:
/// those are SELECTs of their own).
pub(crate) fn for_each_factor(table: &TableWithJoins, f: &mut dyn FnMut(&TableFactor)) {
    let mut visit = |factor: &TableFactor| match factor {
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => for_each_factor(table_with_joins, f),
        other => f(other),
    };
    visit(&table.relation);
    for join in &table.joins {
        visit(&join.relation);
    }
}

impl VisitorMut for WildcardRewriter<'_> {
    type Break = StrataError;

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<StrataError> {
        let tables = self.hiding_tables(&select.from);
        if tables.is_empty() {
            return ControlFlow::Continue(());
        }
        for item in &mut select.projection {
            let (hidden, options) = match item {
                SelectItem::Wildcard(options) => {
                    if tables.len() > 1 {
                        return ControlFlow::Break(StrataError::new(
                            ErrorCode::NOT_IMPLEMENTED,
                            "SELECT * over several tables that hide columns from it \
                             (MATERIALIZED columns, or virtual ones a query names) is not \
                             supported: use table.* for each table",
                        ));
                    }
                    (&tables[0].hidden, options)
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(qualifier),
                    options,
                ) => match tables.iter().find(|t| t.answers_to(qualifier)) {
                    Some(table) => (&table.hidden, options),
                    None => continue,
                },
                _ => continue,
            };
            exclude(options, hidden);
        }
        ControlFlow::Continue(())
    }
}

/// Adds `names` to a wildcard's `EXCLUDE` list, keeping the user's own.
fn exclude(options: &mut WildcardAdditionalOptions, names: &[String]) {
    let mut excluded: Vec<ObjectName> = match options.opt_exclude.take() {
        Some(ExcludeSelectItem::Single(name)) => vec![name],
        Some(ExcludeSelectItem::Multiple(names)) => names,
        None => Vec::new(),
    };
    for name in names {
        let name = ObjectName::from(vec![Ident::new(name.clone())]);
        if !excluded.contains(&name) {
            excluded.push(name);
        }
    }
    options.opt_exclude = Some(ExcludeSelectItem::Multiple(excluded));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;

    fn rewritten(sql: &str) -> Result<String> {
        let mut statement = parse_statement(sql)?.statement;
        let hidden = |relation: Relation| match relation {
            Relation::Table(name) if name.to_string().ends_with("hits") => {
                vec!["_part".to_string(), "_partition_id".to_string()]
            }
            Relation::Function(name) if name.to_string() == "file" => vec!["_path".to_string()],
            _ => Vec::new(),
        };
        exclude_from_wildcards(&mut statement, &hidden)?;
        Ok(statement.to_string())
    }

    #[test]
    fn wildcards_over_tables_with_virtual_columns_exclude_them() {
        assert_eq!(
            rewritten("SELECT *, _part FROM hits").unwrap(),
            "SELECT * EXCLUDE (_part, _partition_id), _part FROM hits"
        );
        assert_eq!(
            rewritten("SELECT h.*, o.* FROM db.hits AS h JOIN other AS o ON 1").unwrap(),
            "SELECT h.* EXCLUDE (_part, _partition_id), o.* FROM db.hits AS h JOIN other AS o ON 1"
        );
        assert_eq!(
            rewritten("SELECT * FROM (SELECT _part FROM hits)").unwrap(),
            "SELECT * FROM (SELECT _part FROM hits)"
        );
        assert_eq!(
            rewritten("WITH hits AS (SELECT 1) SELECT * FROM hits").unwrap(),
            "WITH hits AS (SELECT 1) SELECT * FROM hits"
        );
        assert_eq!(
            rewritten("SELECT * FROM other").unwrap(),
            "SELECT * FROM other"
        );
        assert_eq!(
            rewritten("SELECT *, _path FROM file('a.csv') AS f").unwrap(),
            "SELECT * EXCLUDE (_path), _path FROM file('a.csv') AS f"
        );
    }

    #[test]
    fn a_bare_wildcard_over_two_such_tables_is_refused() {
        let error = rewritten("SELECT * FROM hits AS a JOIN hits AS b ON 1").unwrap_err();
        assert_eq!(error.code, ErrorCode::NOT_IMPLEMENTED);
    }

    #[test]
    fn names_and_tables_are_found() {
        let statement = parse_statement("SELECT count() FROM t WHERE t._partition_id = '1'")
            .unwrap()
            .statement;
        assert!(names_column(&statement, &["_partition_id"]));
        assert!(!names_column(&statement, &["_part"]));
        let statement = parse_statement("WITH c AS (SELECT 1) SELECT * FROM c, db.t, numbers(3)")
            .unwrap()
            .statement;
        let names: Vec<String> = tables_read(&statement)
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(names, vec!["db.t"]);
    }
}
