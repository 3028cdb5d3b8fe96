//! RENAME TABLE, EXCHANGE TABLES, and the swap that ends CREATE OR REPLACE TABLE.

use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::sql::sqlparser::ast::{Ident, ObjectName, ObjectType, RenameTable};
use strata_common::{ErrorCode, Result, StrataError};

use super::view::ReadView;
use crate::session::{Session, StatementOutcome};
use crate::sources::materialized_view::MaterializedView;
use crate::sources::view::ViewTable;
use crate::system::SYSTEM_DATABASE;

impl Session {
    pub(crate) async fn rename_tables(&self, renames: &[RenameTable]) -> Result<StatementOutcome> {
        self.check_writable()?;
        for rename in renames {
            self.rename_table(&rename.old_name, &rename.new_name)
                .await?;
        }
        self.done()
    }

    /// `EXCHANGE TABLES a AND b`.
    pub(crate) async fn exchange_statement(&self, rest: &str) -> Result<StatementOutcome> {
        self.check_writable()?;
        let Some((_, names)) = crate::session::strip_keyword(rest, &["TABLES"]) else {
            return Err(exchange_syntax(rest));
        };
        let (first, second) = split_on_and(names).ok_or_else(|| exchange_syntax(rest))?;
        let first = strata_sql::parse_object_name(first)?;
        let second = strata_sql::parse_object_name(second)?;
        self.exchange_tables(&first, &second).await?;
        self.done()
    }

    /// Swaps the names of two tables by three renames through a name no
    /// table has; a failed rename undoes those before it.
    pub(crate) async fn exchange_tables(&self, a: &ObjectName, b: &ObjectName) -> Result<()> {
        let (database, _) = self.table_name(a)?;
        let spare = ObjectName::from(vec![
            Ident::new(database),
            Ident::new(format!("_exchanging_{}", uuid::Uuid::new_v4().simple())),
        ]);
        self.rename_table(a, &spare).await?;
        if let Err(e) = self.rename_table(b, a).await {
            self.rename_table(&spare, a).await?;
            return Err(e);
        }
        if let Err(e) = self.rename_table(&spare, b).await {
            self.rename_table(a, b).await?;
            self.rename_table(&spare, a).await?;
            return Err(e);
        }
        Ok(())
    }

    /// The end of `CREATE OR REPLACE TABLE name`: `created`, made under a
    /// name of its own, takes `name`, and the table that had it is dropped,
    /// so that a failed CREATE leaves the old table as it was.
    pub(crate) async fn replace_table(
        &mut self,
        created: &ObjectName,
        name: &ObjectName,
    ) -> Result<()> {
        self.exchange_tables(created, name).await?;
        self.drop(
            ObjectType::Table,
            false,
            false,
            std::slice::from_ref(created),
        )
        .await?;
        Ok(())
    }

    /// RENAME TABLE: the metadata file moves, the table object takes the new
    /// name in place; data stays where its UUID put it.
    async fn rename_table(&self, from: &ObjectName, to: &ObjectName) -> Result<()> {
        let (from_database, from_table) = self.table_name(from)?;
        let (to_database, to_table) = self.table_name(to)?;
        if from_database == SYSTEM_DATABASE || to_database == SYSTEM_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Cannot rename tables of the system database",
            ));
        }
        self.require_on_table("DROP TABLE", (&from_database, &from_table), &[])?;
        self.require_on_table("CREATE TABLE", (&to_database, &to_table), &[])?;
        let target = self.database(&to_database)?;
        if target.table_exist(&to_table) {
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {to_database}.{to_table} already exists"),
            ));
        }
        if let Some(view) = self.view(from).await? {
            return self.rename_view(
                view,
                (&from_database, &from_table),
                (&to_database, &to_table),
            );
        }
        let table = self.user_table(from).await?;
        let identity = table.identity();
        let renamed = identity.renamed(&to_database, &to_table);
        self.engine
            .data_path
            .rename_table(&identity.stored(), &renamed.stored())?;
        let provider = self
            .database(&from_database)?
            .deregister_table(&from_table)?
            .ok_or_else(|| {
                StrataError::new(
                    ErrorCode::UNKNOWN_TABLE,
                    format!("Table {from_database}.{from_table} was dropped during the RENAME"),
                )
            })?;
        table.set_identity(renamed);
        target.register_table(to_table, provider)?;
        Ok(())
    }
}

impl Session {
    /// A view takes its new name in a new object: nothing holds it but the
    /// catalog, and its inner table, if any, keeps its name.
    fn rename_view(
        &self,
        view: ReadView,
        (from_database, from_table): (&str, &str),
        (to_database, to_table): (&str, &str),
    ) -> Result<()> {
        let identity = match &view {
            ReadView::View(v) => &v.identity,
            ReadView::Materialized(v) => &v.identity,
        };
        let renamed = identity.renamed(to_database, to_table);
        self.engine
            .data_path
            .rename_table(&identity.stored(), &renamed.stored())?;
        let provider: Arc<dyn TableProvider> = match view {
            ReadView::View(v) => Arc::new(ViewTable::new(renamed, v.query.clone(), v.schema())),
            ReadView::Materialized(v) => Arc::new(MaterializedView::new(
                renamed,
                (v.source.clone(), v.target.clone()),
                v.query.clone(),
                v.schema(),
            )),
        };
        self.database(from_database)?.deregister_table(from_table)?;
        self.database(to_database)?
            .register_table(to_table.to_string(), provider)?;
        Ok(())
    }
}

/// The two names of `a AND b`, split at an AND outside quotes.
fn split_on_and(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut quote = None;
    for (i, &c) in bytes.iter().enumerate() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'`' | b'"' | b'\'') => quote = Some(c),
            (None, _) => {
                let word = text
                    .get(i..i + 5)
                    .is_some_and(|w| w.eq_ignore_ascii_case(" AND "));
                if word {
                    return Some((text[..i].trim(), text[i + 5..].trim()));
                }
            }
        }
    }
    None
}

fn exchange_syntax(rest: &str) -> StrataError {
    StrataError::new(
        ErrorCode::SYNTAX_ERROR,
        format!(
            "Syntax error: expected EXCHANGE TABLES a AND b, found: EXCHANGE {}",
            rest.trim()
        ),
    )
}
