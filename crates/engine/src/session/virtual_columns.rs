//! Planning a statement that names virtual columns: MergeTree's (`_part`,
//! `_partition_id`) or those of `file()` and `s3()` (`_path`, `_file`,
//! `_size`, `_time`). It plans with a catalog in which the MergeTree tables
//! it reads show theirs after their own columns, and with table functions
//! that show theirs; its wildcards leave them out again, so `SELECT *`
//! means the same with or without them. An INSERT's target keeps its own
//! columns only.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{
    CatalogProvider, CatalogProviderList, MemoryCatalogProviderList, SchemaProvider, TableProvider,
};
use datafusion::common::Result as DfResult;
use datafusion::sql::sqlparser::ast::{ObjectName, Statement, TableObject};
use strata_common::Result;
use strata_sql::virtual_columns::{Relation, exclude_from_wildcards, names_column, tables_read};
use strata_storage::merge_tree::{VirtualColumn, virtual_columns};

use super::Session;
use crate::query_context::QueryContext;
use crate::sources::merge_tree_table::{MergeTreeProvider, WithVirtualColumns};
use crate::sources::{file_function, input_columns, s3_function};
use crate::system::CATALOG;

/// `(database, table)`.
type TableKey = (String, String);

impl Session {
    /// For a statement that names a virtual column: the catalog it plans
    /// with, after leaving the virtual columns out of its wildcards.
    pub(super) async fn expose_virtual_columns(
        &self,
        statement: &mut Statement,
        query: &QueryContext,
    ) -> Result<Option<Arc<dyn CatalogProviderList>>> {
        let names_input_columns = names_column(statement, &input_columns::NAMES);
        query.set_names_input_columns(names_input_columns);
        let views = self.merge_tree_views(statement).await?;
        if views.is_empty() && !names_input_columns {
            return Ok(None);
        }
        let hidden = |relation: Relation| match relation {
            Relation::Table(name) => {
                let key = self.table_name(name).ok();
                match key.and_then(|key| views.get(&key)) {
                    Some(view) => view.virtual_names(),
                    None => Vec::new(),
                }
            }
            Relation::Function(name) if names_input_columns && reads_inputs(name) => {
                input_columns::NAMES.map(String::from).to_vec()
            }
            Relation::Function(_) => Vec::new(),
        };
        exclude_from_wildcards(statement, &hidden)?;
        if views.is_empty() {
            return Ok(None);
        }
        let catalogs = MemoryCatalogProviderList::new();
        catalogs.register_catalog(
            CATALOG.to_string(),
            Arc::new(ViewCatalog {
                inner: Arc::clone(&self.engine.catalog),
                views: Arc::new(views),
            }),
        );
        Ok(Some(Arc::new(catalogs)))
    }

    /// The MergeTree tables a statement that names their virtual columns
    /// reads, each as a view that shows them.
    async fn merge_tree_views(
        &self,
        statement: &Statement,
    ) -> Result<HashMap<TableKey, Arc<WithVirtualColumns>>> {
        let mut views = HashMap::new();
        let names = VirtualColumn::ALL.map(VirtualColumn::name);
        if !names_column(statement, &names) {
            return Ok(views);
        }
        let target = match statement {
            Statement::Insert(insert) => match &insert.table {
                TableObject::TableName(name) => self.table_name(name).ok(),
                TableObject::TableFunction(_) | TableObject::TableQuery(_) => None,
            },
            _ => None,
        };
        for name in tables_read(statement) {
            // A name that does not resolve fails later, in planning, as usual.
            let Ok(key) = self.table_name(&name) else {
                continue;
            };
            if target.as_ref() == Some(&key) || views.contains_key(&key) {
                continue;
            }
            let Some(database) = self.engine.catalog.schema(&key.0) else {
                continue;
            };
            let Some(table) = database.table(&key.1).await? else {
                continue;
            };
            let any: Arc<dyn Any + Send + Sync> = table;
            if let Ok(merge_tree) = any.downcast::<MergeTreeProvider>()
                && !virtual_columns(merge_tree.data.schema()).is_empty()
            {
                views.insert(key, Arc::new(WithVirtualColumns::new(merge_tree)));
            }
        }
        Ok(views)
    }
}

/// Whether the table function `name` reads files or objects, whose virtual
/// columns `file()` and `s3()` show.
fn reads_inputs(name: &ObjectName) -> bool {
    let name = name.to_string();
    [file_function::NAME, s3_function::NAME]
        .iter()
        .any(|function| name.eq_ignore_ascii_case(function))
}

/// The engine's catalog, with some tables replaced by their views.
#[derive(Debug)]
struct ViewCatalog {
    inner: Arc<dyn CatalogProvider>,
    views: Arc<HashMap<TableKey, Arc<WithVirtualColumns>>>,
}

impl CatalogProvider for ViewCatalog {
    fn schema_names(&self) -> Vec<String> {
        self.inner.schema_names()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        let inner = self.inner.schema(name)?;
        Some(Arc::new(ViewDatabase {
            name: name.to_string(),
            inner,
            views: Arc::clone(&self.views),
        }))
    }
}

#[derive(Debug)]
struct ViewDatabase {
    name: String,
    inner: Arc<dyn SchemaProvider>,
    views: Arc<HashMap<TableKey, Arc<WithVirtualColumns>>>,
}

#[async_trait]
impl SchemaProvider for ViewDatabase {
    fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    async fn table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        let key = (self.name.clone(), name.to_string());
        match self.views.get(&key) {
            Some(view) => Ok(Some(Arc::clone(view) as Arc<dyn TableProvider>)),
            None => self.inner.table(name).await,
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        self.inner.table_exist(name)
    }
}
