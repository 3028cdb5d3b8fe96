//! Reading `Merge` tables and `merge()`: the tables that match, found when
//! the statement runs, and the statement's wildcards kept to the merge's own
//! columns when it names `_table` or `_database`.

use std::ops::ControlFlow;

use datafusion::catalog::TableProvider;

use datafusion::sql::sqlparser::ast::{
    FunctionArg, FunctionArgExpr, ObjectName, Statement, TableFactor, TableFunctionArgs, Visit,
    VisitMut, Visitor, VisitorMut,
};
use strata_common::{Result, StrataError};
use strata_sql::parse_statement;
use strata_sql::virtual_columns::{Relation, exclude_from_wildcards, names_column, tables_read};

use super::Session;
use crate::sources::merge_table::{
    MergeSource, MergeTable, MergedTable, VIRTUAL_COLUMNS, union_query,
};

impl Session {
    /// The tables `source` reads, by database then name; Merge tables left
    /// out, as they would read themselves.
    pub(crate) async fn merged_tables(&self, source: &MergeSource) -> Result<Vec<MergedTable>> {
        let mut databases = self.engine.catalog.schema_names();
        databases.sort();
        let mut tables = Vec::new();
        for database in databases.iter().filter(|d| source.matches_database(d)) {
            let Some(schema) = self.engine.catalog.schema(database) else {
                continue;
            };
            let mut names = schema.table_names();
            names.sort();
            for name in names.into_iter().filter(|n| source.matches_table(n)) {
                let Some(provider) = schema.table(&name).await? else {
                    continue;
                };
                if (provider.as_ref() as &dyn std::any::Any).is::<MergeTable>() {
                    continue;
                }
                tables.push(MergedTable {
                    database: database.clone(),
                    name,
                    schema: provider.schema(),
                });
            }
        }
        Ok(tables)
    }

    /// The query a Merge table stands for in `statement`.
    pub(crate) async fn merge_table_query(
        &self,
        table: &MergeTable,
        statement: &Statement,
    ) -> Result<String> {
        let tables = self.merged_tables(&table.source).await?;
        let virtuals = names_column(statement, &VIRTUAL_COLUMNS);
        union_query(&tables, Some(&TableProvider::schema(table)), virtuals)
    }

    /// Replaces `merge(...)` calls by their union queries, and, where the
    /// statement names `_table` or `_database`, leaves those out of the
    /// wildcards over merges (Merge tables too).
    pub(crate) async fn expand_merge_functions(&self, statement: &mut Statement) -> Result<()> {
        let virtuals = names_column(statement, &VIRTUAL_COLUMNS);
        if virtuals {
            let mut merge_tables = Vec::new();
            for name in tables_read(statement) {
                if self.merge_table(&name).await?.is_some() {
                    merge_tables.push(name);
                }
            }
            let hidden = |relation: Relation| {
                let merge = match relation {
                    Relation::Function(name) => is_merge_function(name),
                    Relation::Table(name) => merge_tables.contains(name),
                };
                match merge {
                    true => VIRTUAL_COLUMNS.iter().map(|c| c.to_string()).collect(),
                    false => Vec::new(),
                }
            };
            exclude_from_wildcards(statement, &hidden)?;
        }
        let mut calls = MergeCalls {
            current: &self.current_database,
            sources: Vec::new(),
        };
        if let ControlFlow::Break(error) = Visit::visit(&*statement, &mut calls) {
            return Err(error);
        }
        let mut queries = Vec::with_capacity(calls.sources.len());
        for source in &calls.sources {
            let tables = self.merged_tables(source).await?;
            let text = union_query(&tables, None, virtuals)?;
            let Statement::Query(query) = parse_statement(&text)?.statement else {
                unreachable!("a union of SELECTs is a query");
            };
            queries.push(query);
        }
        let mut queries = queries.into_iter();
        let _ = VisitMut::visit(statement, &mut ReplaceCalls(&mut queries));
        Ok(())
    }

    /// The Merge table `name` names, if it names one.
    pub(crate) async fn merge_table(
        &self,
        name: &ObjectName,
    ) -> Result<Option<std::sync::Arc<MergeTable>>> {
        self.named_table_of(name).await
    }
}

fn is_merge_function(name: &ObjectName) -> bool {
    name.to_string() == "merge"
}

/// The arguments of a `merge(...)` table factor.
fn merge_arguments(factor: &TableFactor) -> Option<&TableFunctionArgs> {
    match factor {
        TableFactor::Table {
            name,
            args: Some(args),
            ..
        } if is_merge_function(name) => Some(args),
        _ => None,
    }
}

/// The sources of a statement's `merge(...)` calls, in visiting order.
struct MergeCalls<'a> {
    current: &'a str,
    sources: Vec<MergeSource>,
}

impl Visitor for MergeCalls<'_> {
    type Break = StrataError;

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<StrataError> {
        let Some(args) = merge_arguments(factor) else {
            return ControlFlow::Continue(());
        };
        let arguments: Vec<_> = args
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                _ => None,
            })
            .collect();
        match MergeSource::from_arguments("merge", &arguments, self.current) {
            Ok(source) => self.sources.push(source),
            Err(error) => return ControlFlow::Break(error),
        }
        ControlFlow::Continue(())
    }
}

/// Puts each query in place of the `merge(...)` call [`MergeCalls`] found
/// at its position.
struct ReplaceCalls<'a, I: Iterator<Item = Box<datafusion::sql::sqlparser::ast::Query>>>(&'a mut I);

impl<I: Iterator<Item = Box<datafusion::sql::sqlparser::ast::Query>>> VisitorMut
    for ReplaceCalls<'_, I>
{
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if merge_arguments(factor).is_none() {
            return ControlFlow::Continue(());
        }
        let TableFactor::Table { alias, .. } = factor else {
            unreachable!("merge_arguments reads tables only");
        };
        let alias = alias.clone();
        if let Some(subquery) = self.0.next() {
            *factor = TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                sample: None,
            };
        }
        ControlFlow::Continue(())
    }
}
