//! MATERIALIZED, ALIAS and EPHEMERAL columns in the statements that use
//! their tables. A MATERIALIZED column is stored like any other, but `*`
//! and an INSERT's implied column list leave it out and it is always
//! computed from its expression; an ALIAS column is its expression, read in
//! its place; an EPHEMERAL column exists only in an INSERT's rows, for the
//! defaults of the columns stored.

use std::collections::HashMap;

use datafusion::arrow::datatypes::Field;
use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Insert, ObjectName, Query, SetExpr, Statement, TableObject,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::alias_columns::{AliasColumns, substitute_alias_columns};
use strata_sql::parse_expr_text;
use strata_sql::virtual_columns::{Relation, exclude_from_wildcards, tables_read};

use super::{Session, single_name};
use crate::table_definition::{ColumnExtras, ColumnKind, default_text, names_any};

/// A table's columns as declared, when some are not plainly stored.
struct SpecialColumns {
    declared: Vec<(Field, ColumnExtras)>,
}

impl SpecialColumns {
    /// The names of the columns the table stores.
    fn stored(&self) -> Vec<String> {
        self.declared
            .iter()
            .filter(|(_, extra)| extra.kind.is_stored())
            .map(|(field, _)| field.name().clone())
            .collect()
    }

    fn names_of(&self, kind: ColumnKind) -> Vec<String> {
        self.declared
            .iter()
            .filter(|(_, extra)| extra.kind == kind)
            .map(|(field, _)| field.name().clone())
            .collect()
    }

    fn kind_of(&self, column: &str) -> Option<ColumnKind> {
        self.declared
            .iter()
            .find(|(field, _)| field.name() == column)
            .map(|(_, extra)| extra.kind)
    }

    /// A column's expression, cast to its type, as ClickHouse computes it.
    fn expression(field: &Field, extra: &ColumnExtras) -> Result<Expr> {
        let value = default_text(field, extra).expect("a special column has an expression");
        let type_name = strata_sql::literal_text::quoted(&field_type_name(field));
        parse_expr_text(&format!("CAST(({value}), {type_name})"))
    }

    fn alias_columns(&self) -> Result<Option<AliasColumns>> {
        let aliases = self
            .declared
            .iter()
            .filter(|(_, extra)| extra.kind == ColumnKind::Alias)
            .map(|(field, extra)| Ok((field.name().clone(), Self::expression(field, extra)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok((!aliases.is_empty()).then(|| AliasColumns {
            aliases,
            stored: self.stored(),
        }))
    }
}

impl Session {
    /// The special columns of the user table `name`, if it has any.
    async fn special_columns(&self, name: &ObjectName) -> Result<Option<SpecialColumns>> {
        let Ok(table) = self.user_table(name).await else {
            return Ok(None);
        };
        let declared = table.identity().special_columns()?;
        Ok(declared.map(|declared| SpecialColumns { declared }))
    }

    /// A query's wildcards leave MATERIALIZED columns out, and its ALIAS
    /// columns read their expressions.
    pub(super) async fn apply_column_kinds(&self, statement: &mut Statement) -> Result<()> {
        let mut tables: HashMap<ObjectName, SpecialColumns> = HashMap::new();
        for name in tables_read(statement) {
            if let Some(columns) = self.special_columns(&name).await? {
                tables.insert(name, columns);
            }
        }
        if tables.is_empty() {
            return Ok(());
        }
        let mut aliases = HashMap::new();
        for (name, columns) in &tables {
            if let Some(alias) = columns.alias_columns()? {
                aliases.insert(name.clone(), alias);
            }
        }
        substitute_alias_columns(statement, &|name| aliases.get(name).cloned());
        let hidden = |relation: Relation| match relation {
            Relation::Table(name) => match tables.get(name) {
                Some(columns) => columns.names_of(ColumnKind::Materialized),
                None => Vec::new(),
            },
            Relation::Function(_) => Vec::new(),
        };
        exclude_from_wildcards(statement, &hidden)
    }

    /// An INSERT into a table with special columns: without a column list it
    /// gives the ordinary columns; it may not give a MATERIALIZED or ALIAS
    /// column; the columns whose expressions read EPHEMERAL ones are computed
    /// over its rows, where those columns are known.
    pub(crate) async fn insert_column_kinds(&self, insert: &mut Insert) -> Result<()> {
        let TableObject::TableName(name) = &insert.table else {
            return Ok(());
        };
        let Some(columns) = self.special_columns(name).await? else {
            return Ok(());
        };
        let table = name.to_string();
        if insert.columns.is_empty() {
            let materialized = columns.names_of(ColumnKind::Materialized);
            insert.columns = columns
                .stored()
                .iter()
                .filter(|c| !materialized.contains(c))
                .map(|c| ObjectName::from(vec![Ident::with_quote('`', c.as_str())]))
                .collect();
        }
        let given: Vec<String> = insert
            .columns
            .iter()
            .map(single_name)
            .collect::<Result<_>>()?;
        for column in &given {
            match columns.kind_of(column) {
                Some(ColumnKind::Materialized) => {
                    return Err(StrataError::new(
                        ErrorCode::ILLEGAL_COLUMN,
                        format!("Cannot insert column {column}, because it is MATERIALIZED column"),
                    ));
                }
                Some(ColumnKind::Alias) => {
                    return Err(StrataError::new(
                        ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                        format!("No such column {column} in table {table}"),
                    ));
                }
                _ => {}
            }
        }
        let ephemeral = columns.names_of(ColumnKind::Ephemeral);
        if ephemeral.is_empty() {
            return Ok(());
        }
        Self::compute_over_ephemeral(insert, &columns, &given, &ephemeral)
    }

    /// Wraps an INSERT's source in a SELECT that adds the EPHEMERAL columns
    /// it does not give (at their defaults), computes the stored columns
    /// whose expressions read them, and drops them.
    fn compute_over_ephemeral(
        insert: &mut Insert,
        columns: &SpecialColumns,
        given: &[String],
        ephemeral: &[String],
    ) -> Result<()> {
        let reads_ephemeral = |extra: &ColumnExtras| {
            extra
                .default
                .as_ref()
                .is_some_and(|e| names_any(e, ephemeral))
        };
        let quote = |c: &str| format!("`{}`", c.replace('`', "\\`"));
        let mut added = Vec::new();
        let mut computed = Vec::new();
        for (field, extra) in &columns.declared {
            let name = field.name();
            let item = || {
                let expression = SpecialColumns::expression(field, extra)?;
                Ok::<_, StrataError>(format!("{expression} AS {}", quote(name)))
            };
            match extra.kind {
                ColumnKind::Ephemeral if !given.contains(name) => added.push(item()?),
                ColumnKind::Ordinary | ColumnKind::Materialized
                    if !given.contains(name) && reads_ephemeral(extra) =>
                {
                    computed.push((name.clone(), item()?))
                }
                _ => {}
            }
        }
        if computed.is_empty() && !given.iter().any(|c| ephemeral.contains(c)) {
            return Ok(());
        }
        let kept: Vec<&String> = given.iter().filter(|c| !ephemeral.contains(c)).collect();
        let mut items: Vec<String> = kept.iter().map(|c| quote(c)).collect();
        items.extend(computed.iter().map(|(_, item)| item.clone()));
        let source = insert
            .source
            .as_ref()
            .ok_or_else(|| StrataError::new(ErrorCode::NOT_IMPLEMENTED, "INSERT without rows"))?;
        let named: Vec<String> = given.iter().map(|c| quote(c)).collect();
        let inner = format!(
            "SELECT *{} FROM ({}) AS _insert({})",
            added.iter().map(|a| format!(", {a}")).collect::<String>(),
            selects_of_values(source),
            named.join(", ")
        );
        let wrapped = format!("SELECT {} FROM ({inner}) AS _insert", items.join(", "));
        let Statement::Query(query) = strata_sql::parse_statement(&wrapped)?.statement else {
            unreachable!("a SELECT parses as a query");
        };
        insert.source = Some(query);
        insert.columns = kept
            .into_iter()
            .chain(computed.iter().map(|(name, _)| name))
            .map(|c| ObjectName::from(vec![Ident::with_quote('`', c.as_str())]))
            .collect();
        Ok(())
    }
}

/// A VALUES source as the `values()` table function: DataFusion types
/// VALUES inside an INSERT as the table's columns, which these rows are not,
/// and `values()` keeps the rows in the order written.
fn selects_of_values(source: &Query) -> String {
    let SetExpr::Values(values) = source.body.as_ref() else {
        return source.to_string();
    };
    let rows: Vec<String> = values
        .rows
        .iter()
        .map(|row| {
            let items: Vec<String> = row.content.iter().map(ToString::to_string).collect();
            format!("({})", items.join(", "))
        })
        .collect();
    format!("SELECT * FROM values({})", rows.join(", "))
}
