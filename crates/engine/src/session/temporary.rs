//! Temporary tables (`CREATE TEMPORARY TABLE`): Memory tables, or tables
//! of the MergeTree family, a session owns. They live in a database of the
//! session's own, hidden from `system.databases` and `system.tables`, gone
//! with the session (a MergeTree table's files too); an unqualified name
//! finds a temporary table before a table of the current database, as in
//! ClickHouse.

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::catalog::{CatalogProvider, MemorySchemaProvider, SchemaProvider, TableProvider};
use datafusion::sql::sqlparser::ast::{
    Ident, ObjectName, ObjectNamePart, Statement, visit_relations_mut,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::EngineClause;

use super::Session;
use crate::sources::merge_tree_table::MergeTreeProvider;

/// The sessions' own databases are named with this prefix and a UUID.
pub const TEMPORARY_DATABASE_PREFIX: &str = "_temporary_";

/// A session's temporary database, deregistered when the session ends.
pub struct TemporaryTables {
    database: String,
    schema: Arc<MemorySchemaProvider>,
    catalog: Arc<dyn CatalogProvider>,
}

impl Drop for TemporaryTables {
    fn drop(&mut self) {
        for table in self.schema.table_names() {
            if let Ok(Some(provider)) = self.schema.deregister_table(&table) {
                remove_files(provider);
            }
        }
        let _ = self.catalog.deregister_schema(&self.database, true);
    }
}

/// Removes a temporary MergeTree table's parts; a failure is logged, as
/// nothing is left to answer for it when the session ends.
fn remove_files(provider: Arc<dyn TableProvider>) {
    let any: Arc<dyn std::any::Any + Send + Sync> = provider;
    if let Ok(merge_tree) = any.downcast::<MergeTreeProvider>() {
        merge_tree.close();
        if let Err(error) = merge_tree.data.remove_files() {
            log::warn!("Cannot remove a temporary table's files: {error}");
        }
    }
}

/// Whether `database` is some session's temporary database.
pub fn is_temporary_database(database: &str) -> bool {
    database.starts_with(TEMPORARY_DATABASE_PREFIX)
}

/// A temporary table is a Memory table, the engine it gets when none is
/// named, or a table of the MergeTree family.
pub(crate) fn check_engine(engine: Option<&EngineClause>) -> Result<()> {
    match engine {
        Some(engine) if engine.name != "Memory" && !engine.name.ends_with("MergeTree") => {
            Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Temporary tables with engine {} are not supported yet; Memory and the MergeTree family are",
                    engine.name
                ),
            ))
        }
        _ => Ok(()),
    }
}

impl Session {
    /// The database `CREATE TEMPORARY TABLE name` creates `name` in, made on
    /// first use; the name must not name a database.
    pub(crate) fn temporary_table_name(&mut self, name: &ObjectName) -> Result<(String, String)> {
        let [ObjectNamePart::Identifier(table)] = name.0.as_slice() else {
            return Err(StrataError::new(
                ErrorCode::BAD_DATABASE_FOR_TEMPORARY_TABLE,
                "Temporary tables cannot be inside a database. You should not specify a database for a temporary table",
            ));
        };
        if let Some(temporary) = &self.temporary {
            return Ok((temporary.database.clone(), table.value.clone()));
        }
        let database = format!(
            "{TEMPORARY_DATABASE_PREFIX}{}",
            uuid::Uuid::new_v4().simple()
        );
        let schema = Arc::new(MemorySchemaProvider::new());
        self.engine
            .catalog
            .register_schema(&database, Arc::clone(&schema) as Arc<dyn SchemaProvider>)?;
        self.temporary = Some(TemporaryTables {
            database: database.clone(),
            schema,
            catalog: Arc::clone(&self.engine.catalog),
        });
        Ok((database, table.value.clone()))
    }

    /// Removes the temporary table `table` if there is one (a request's
    /// external data once its query is done).
    pub fn remove_temporary_table(&self, table: &str) {
        if let Some(temporary) = &self.temporary {
            let _ = temporary.schema.deregister_table(table);
        }
    }

    /// The session's database holding a temporary table `table`, if any.
    pub(crate) fn temporary_database_of(&self, table: &str) -> Option<String> {
        self.temporary
            .as_ref()
            .filter(|temporary| temporary.schema.table_exist(table))
            .map(|temporary| temporary.database.clone())
    }

    /// Qualifies the unqualified names of temporary tables in `statement`,
    /// so the planner finds them before the current database's tables.
    pub(super) fn qualify_temporary_tables(&self, statement: &mut Statement) {
        let Some(temporary) = &self.temporary else {
            return;
        };
        let _ = visit_relations_mut(statement, |name: &mut ObjectName| {
            if let [ObjectNamePart::Identifier(table)] = name.0.as_slice()
                && temporary.schema.table_exist(&table.value)
            {
                let database = Ident::with_quote('`', &temporary.database);
                name.0.insert(0, ObjectNamePart::Identifier(database));
            }
            ControlFlow::<()>::Continue(())
        });
    }
}
