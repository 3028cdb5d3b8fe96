//! DROP TABLE, DROP DATABASE and TRUNCATE.

use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::sql::sqlparser::ast::{ObjectName, ObjectType, Truncate};
use strata_common::{ErrorCode, Result, StrataError};

use super::view::ReadView;
use crate::engine::DEFAULT_DATABASE;
use crate::session::{Session, StatementOutcome, UserTable, is_temporary_database, single_name};
use crate::sources::materialized_view::MaterializedView;
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::system::SYSTEM_DATABASE;

impl Session {
    pub(crate) async fn drop(
        &mut self,
        object_type: ObjectType,
        if_exists: bool,
        temporary: bool,
        names: &[ObjectName],
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        for name in names {
            match object_type {
                ObjectType::Table | ObjectType::View => {
                    let (database, table) = self.table_name(name)?;
                    let privilege = match object_type {
                        ObjectType::View => "DROP VIEW",
                        _ => "DROP TABLE",
                    };
                    self.require_on_table(privilege, (&database, &table), &[])?;
                    self.drop_table(name, if_exists, temporary)?
                }
                ObjectType::Database | ObjectType::Schema => {
                    self.require("DROP DATABASE", &[&single_name(name)?])?;
                    self.drop_database(name, if_exists).await?
                }
                other => {
                    return Err(StrataError::new(
                        ErrorCode::NOT_IMPLEMENTED,
                        format!("DROP {other} is not supported"),
                    ));
                }
            }
        }
        self.done()
    }

    pub(crate) fn drop_table(
        &self,
        name: &ObjectName,
        if_exists: bool,
        temporary: bool,
    ) -> Result<()> {
        let (database, table) = self.table_name(name)?;
        if temporary && !is_temporary_database(&database) {
            if if_exists {
                return Ok(());
            }
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_TABLE,
                format!("Temporary table {table} doesn't exist"),
            ));
        }
        if database == SYSTEM_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Cannot drop system tables",
            ));
        }
        let provider = match self.engine.catalog.schema(&database) {
            Some(p) => p,
            None if if_exists => return Ok(()),
            None => self.database(&database)?,
        };
        match provider.deregister_table(&table)? {
            Some(removed) => {
                let inner = inner_table(&removed);
                self.remove_table_files(&database, &table, removed)?;
                match inner {
                    Some(inner) => self.drop_table(&inner, true, false),
                    None => Ok(()),
                }
            }
            None if if_exists => Ok(()),
            None => Err(StrataError::new(
                ErrorCode::UNKNOWN_TABLE,
                format!("Table {database}.{table} does not exist"),
            )),
        }
    }

    async fn drop_database(&mut self, name: &ObjectName, if_exists: bool) -> Result<()> {
        let database = single_name(name)?;
        if database == SYSTEM_DATABASE || database == DEFAULT_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Cannot drop database {database}"),
            ));
        }
        match self.engine.catalog.deregister_schema(&database, true)? {
            Some(removed) => {
                for table in removed.table_names() {
                    if let Some(provider) = removed.table(&table).await? {
                        self.remove_table_files(&database, &table, provider)?;
                    }
                }
                self.engine.data_path.drop_database(&database)?;
            }
            None if if_exists => {}
            None => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_DATABASE,
                    format!("Database {database} does not exist"),
                ));
            }
        }
        if self.current_database == database {
            self.current_database = DEFAULT_DATABASE.to_string();
        }
        Ok(())
    }

    /// Removes a dropped table's stored definition, then its data: a crash
    /// in between leaves a drop that start-up finishes.
    fn remove_table_files(
        &self,
        database: &str,
        table: &str,
        provider: Arc<dyn TableProvider>,
    ) -> Result<()> {
        let dropped = self.engine.data_path.begin_drop(database, table)?;
        let any: Arc<dyn std::any::Any + Send + Sync> = provider;
        if let Ok(merge_tree) = any.downcast::<MergeTreeProvider>() {
            merge_tree.close();
            merge_tree.data.remove_files()?;
        }
        let Some(uuid) = dropped else {
            return Ok(());
        };
        // A File table's own file (not one it names) is in its directory.
        self.engine.data_path.remove_table_data(&uuid)?;
        self.engine.data_path.finish_drop(&uuid)
    }

    pub(crate) async fn truncate(&self, truncate: &Truncate) -> Result<StatementOutcome> {
        self.check_writable()?;
        for target in &truncate.table_names {
            let (database, table) = self.table_name(&target.name)?;
            if truncate.if_exists && !self.database(&database)?.table_exist(&table) {
                continue;
            }
            self.require_on_table("TRUNCATE", (&database, &table), &[])?;
            // A materialized view's rows are its inner table's.
            let name = match self.view(&target.name).await? {
                Some(ReadView::Materialized(view)) if view.has_inner_table() => view.target_name(),
                _ => target.name.clone(),
            };
            match self.user_table(&name).await? {
                UserTable::Memory(table) => table.truncate().await?,
                UserTable::External(table) => table.truncate().await?,
                table @ (UserTable::Merge(_) | UserTable::Buffer(_)) => {
                    return Err(StrataError::new(
                        ErrorCode::NOT_IMPLEMENTED,
                        format!(
                            "Truncate is not supported by storage {}",
                            table.engine_name()
                        ),
                    ));
                }
                UserTable::MergeTree(table) => table.data.truncate()?,
            }
        }
        self.done()
    }
}

/// The inner table of a materialized view, which goes with it.
fn inner_table(provider: &Arc<dyn TableProvider>) -> Option<ObjectName> {
    let any = provider.as_ref() as &dyn std::any::Any;
    let view = any.downcast_ref::<MaterializedView>()?;
    view.has_inner_table().then(|| view.target_name())
}
