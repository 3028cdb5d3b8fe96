//! CREATE VIEW, and reading views: each view a statement names is replaced
//! by its query before the statement is planned.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::catalog::TableProvider;
use datafusion::sql::sqlparser::ast::{CreateView, ObjectName, Query, Statement};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::parse_statement;
use strata_sql::virtual_columns::tables_read;

use crate::data_path::StoredTable;
use crate::session::{Session, StatementOutcome};
use crate::sources::view::ViewTable;
use crate::system::SYSTEM_DATABASE;
use crate::table_definition::{TableIdentity, quote_name};

/// Views reading views: past this depth the chain is taken for a cycle.
const MAX_VIEW_DEPTH: usize = 32;

impl Session {
    pub(crate) async fn create_view(&mut self, create: CreateView) -> Result<StatementOutcome> {
        self.create_view_with(create, false).await
    }

    /// Attaches stored views after the tables: in passes, so a view that
    /// reads another is planned after it. A view whose query no longer plans
    /// (a table it reads was dropped) is attached without columns, so it does
    /// not keep the rest from loading; reading it reports why.
    pub(crate) async fn attach_views(&mut self, mut pending: Vec<StoredTable>) -> Result<()> {
        for lenient in [false, true] {
            loop {
                let before = pending.len();
                let mut failed = Vec::new();
                for stored in pending {
                    let Statement::CreateView(create) = parse_statement(&stored.statement)?.statement
                    else {
                        unreachable!("only views are deferred");
                    };
                    self.attaching = Some(stored.clone());
                    let attached = self.create_view_with(create, lenient).await;
                    self.attaching = None;
                    if attached.is_err() {
                        failed.push(stored);
                    }
                }
                pending = failed;
                if pending.is_empty() || pending.len() == before {
                    break;
                }
            }
        }
        debug_assert!(pending.is_empty(), "lenient attaching does not fail");
        Ok(())
    }

    async fn create_view_with(&mut self, create: CreateView, lenient: bool) -> Result<StatementOutcome> {
        self.check_writable()?;
        if create.materialized {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "CREATE MATERIALIZED VIEW is not supported yet",
            ));
        }
        let (database, name) = match &self.attaching {
            Some(stored) => (stored.database.clone(), stored.name.clone()),
            None => self.table_in_database(&create.name)?,
        };
        if database == SYSTEM_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Cannot create tables in the system database",
            ));
        }
        let schema_provider = self.database(&database)?;
        if schema_provider.table_exist(&name) && !create.or_replace {
            if create.if_not_exists {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {database}.{name} already exists"),
            ));
        }
        let mut query = *create.query;
        strata_sql::views::qualify_tables(&mut query, &database);
        // Planned once now, so a view of a missing table or column fails here.
        let planned = self
            .plan(Statement::Query(Box::new(query.clone())), self.settings.clone())
            .await;
        let schema = match planned {
            Ok((plan, _, _)) => Arc::new(plan.schema().as_arrow().clone()),
            Err(e) if lenient => {
                log::warn!("view {database}.{name} is attached without columns: {e}");
                Arc::new(Schema::empty())
            }
            Err(e) => return Err(e),
        };
        let identity = TableIdentity {
            create_statement: format!(
                "CREATE VIEW {}.{} AS {query}",
                quote_name(&database),
                quote_name(&name)
            ),
            uuid: self
                .attaching
                .as_ref()
                .map_or_else(uuid::Uuid::new_v4, |stored| stored.uuid),
            database,
            name: name.clone(),
        };
        if self.attaching.is_none() {
            self.engine.data_path.store_table(&identity.stored())?;
        }
        let view = ViewTable::new(identity, query.to_string(), schema);
        schema_provider.deregister_table(&name)?;
        schema_provider.register_table(name, Arc::new(view))?;
        self.done()
    }

    /// Replaces the views `statement` reads by their queries, and the views
    /// those read, in turn.
    pub(crate) async fn expand_views(&self, statement: &mut Statement) -> Result<()> {
        for _ in 0..MAX_VIEW_DEPTH {
            let views = self.views_read(statement).await?;
            if views.is_empty() {
                return Ok(());
            }
            strata_sql::views::expand(statement, &views);
        }
        Err(StrataError::new(
            ErrorCode::TOO_DEEP_SUBQUERIES,
            format!("Views read views more than {MAX_VIEW_DEPTH} deep: a view reads itself"),
        ))
    }

    /// The view `name` names, if it names one.
    pub(crate) async fn view(&self, name: &ObjectName) -> Result<Option<Arc<ViewTable>>> {
        let Ok((database, table)) = self.table_name(name) else {
            return Ok(None);
        };
        let Some(schema) = self.engine.catalog.schema(&database) else {
            return Ok(None);
        };
        let Some(provider) = schema.table(&table).await? else {
            return Ok(None);
        };
        let any: Arc<dyn std::any::Any + Send + Sync> = provider;
        Ok(any.downcast::<ViewTable>().ok())
    }

    async fn views_read(&self, statement: &Statement) -> Result<HashMap<ObjectName, Query>> {
        let mut views = HashMap::new();
        for name in tables_read(statement) {
            let Some(view) = self.view(&name).await? else {
                continue;
            };
            let Statement::Query(query) = parse_statement(&view.query)?.statement else {
                unreachable!("a view stores a query");
            };
            views.insert(name, *query);
        }
        Ok(views)
    }
}

/// `SHOW CREATE TABLE` of a view: its columns and its query.
pub(crate) fn view_statement(view: &ViewTable) -> String {
    let columns: Vec<String> = view
        .schema()
        .fields()
        .iter()
        .map(|f| format!("    {} {}", quote_column(f.name()), field_type_name(f)))
        .collect();
    format!(
        "CREATE VIEW {}.{}\n(\n{}\n)\nAS {}",
        quote_name(&view.identity.database),
        quote_name(&view.identity.name),
        columns.join(",\n"),
        view.query
    )
}

fn quote_column(name: &str) -> String {
    format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
}
