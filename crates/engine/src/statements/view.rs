//! CREATE [MATERIALIZED] VIEW, and reading views: each view a statement
//! names is replaced by its query (a materialized view by its target)
//! before the statement is planned; inserts run the materialized views on
//! their table ([`Session::triggers_on`]).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::sql::sqlparser::ast::{
    ColumnDef, CreateView, ObjectName, Query, Statement, TableObject, ViewColumnDef,
};
use strata_common::pretty_types::{Spread, pretty_type_name};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::materialized_view::MaterializedViewText;
use strata_sql::virtual_columns::tables_read;
use strata_sql::{parse_object_name, parse_statement};
use uuid::Uuid;

use crate::data_path::StoredTable;
use crate::session::{Session, StatementOutcome};
use crate::sources::materialized_view::{INNER_TABLE_PREFIX, MaterializedView, Trigger};
use crate::sources::view::ViewTable;
use crate::system::SYSTEM_DATABASE;
use crate::table_definition::{TableIdentity, column_definition, quote_name};

/// Views reading views: past this depth the chain is taken for a cycle.
const MAX_VIEW_DEPTH: usize = 32;

impl Session {
    pub(crate) async fn create_view(&mut self, create: CreateView) -> Result<StatementOutcome> {
        self.create_view_with(create, false, Uuid::new_v4()).await
    }

    /// `CREATE MATERIALIZED VIEW`: with `TO`, a view of that table; without,
    /// of an inner table `.inner_id.<view's UUID>` (as ClickHouse's Atomic
    /// databases name it) made from the storage clauses, or with the
    /// default engine. `POPULATE` then runs the query over the rows there.
    pub(crate) async fn create_materialized_view(
        &mut self,
        text: MaterializedViewText,
    ) -> Result<StatementOutcome> {
        let Statement::CreateView(mut create) = parse_statement(&text.statement)?.statement else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Expected CREATE MATERIALIZED VIEW name [TO table] [ENGINE = ...] AS SELECT",
            ));
        };
        if create.to.is_some() && text.storage.is_some() {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "When creating a materialized view you can't declare both 'TO [db].[table]' and 'ENGINE'",
            ));
        }
        let (database, name) = self.table_in_database(&create.name)?;
        if self.database(&database)?.table_exist(&name) {
            if create.if_not_exists {
                return self.done();
            }
            if create.or_replace {
                self.drop_table(&create.name, false, false)?;
            }
        }
        let uuid = Uuid::new_v4();
        let inner = match &create.to {
            Some(_) => None,
            None => {
                let inner = self
                    .create_inner_table(&create, &database, uuid, text.storage)
                    .await?;
                create.to = Some(inner.clone());
                Some(inner)
            }
        };
        let target = create.to.clone().expect("a target was named or made");
        let query = create.query.clone();
        if let Err(error) = self.create_view_with(create, false, uuid).await {
            if let Some(inner) = inner {
                self.drop_table(&inner, true, false)?;
            }
            return Err(error);
        }
        if text.populate {
            let Statement::Insert(mut insert) =
                parse_statement("INSERT INTO t SELECT 1")?.statement
            else {
                unreachable!("an INSERT parses as one");
            };
            insert.table = TableObject::TableName(target);
            insert.source = Some(query);
            self.insert(insert).await?;
        }
        self.done()
    }

    /// Creates a materialized view's inner table: the declared columns, or
    /// the query's, with the view's storage clauses.
    async fn create_inner_table(
        &mut self,
        create: &CreateView,
        database: &str,
        uuid: Uuid,
        storage: Option<String>,
    ) -> Result<ObjectName> {
        let inner = format!("{INNER_TABLE_PREFIX}{uuid}");
        let name = format!("{}.{}", quote_name(database), quote_name(&inner));
        let storage = storage.unwrap_or_default();
        let text = match create.columns.is_empty() {
            true => format!("CREATE TABLE {name} {storage} EMPTY AS {}", create.query),
            false => {
                let columns: Vec<String> = create.columns.iter().map(|c| c.to_string()).collect();
                format!("CREATE TABLE {name} ({}) {storage}", columns.join(", "))
            }
        };
        self.create_table_text(&text).await?;
        parse_object_name(&name)
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
                    let Statement::CreateView(create) =
                        parse_statement(&stored.statement)?.statement
                    else {
                        unreachable!("only views are deferred");
                    };
                    self.attaching = Some(stored.clone());
                    let attached = self.create_view_with(create, lenient, stored.uuid).await;
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
        for stored in pending {
            log::warn!(
                "view {}.{} is not loaded: its statement does not attach",
                stored.database,
                stored.name
            );
        }
        Ok(())
    }

    async fn create_view_with(
        &mut self,
        create: CreateView,
        lenient: bool,
        uuid: Uuid,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let (database, name) = match &self.attaching {
            Some(stored) => (stored.database.clone(), stored.name.clone()),
            None => self.table_in_database(&create.name)?,
        };
        self.require("CREATE VIEW", &[&database, &name])?;
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
        let target = match (&create.to, create.materialized) {
            (Some(to), true) => {
                // The target must be a table that takes inserts; a stored
                // view attaches even if its target has gone since.
                if self.attaching.is_none() {
                    self.user_table(to).await?;
                }
                Some(self.table_in_database(to)?)
            }
            (None, true) => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "A materialized view without TO (with an inner table) is not supported yet: create the table and name it with TO",
                ));
            }
            (_, false) => None,
        };
        // Planned once now, so a view of a missing table or column fails
        // here (a parameter as its type's default).
        let mut planned_query = query.clone();
        crate::session::parameter_defaults(&mut planned_query)?;
        let planned = self
            .plan(
                Statement::Query(Box::new(planned_query)),
                self.settings.clone(),
            )
            .await;
        let schema = match planned {
            Ok((plan, _, _)) => Arc::new(plan.schema().as_arrow().clone()),
            Err(e) if lenient => {
                log::warn!("view {database}.{name} is attached without columns: {e}");
                Arc::new(Schema::empty())
            }
            Err(e) => return Err(e),
        };
        // Declared columns are the view's, read from its target by name.
        let schema = match declared_columns(&create.columns)? {
            Some(fields) => Arc::new(Schema::new(fields)),
            None => schema,
        };
        let columns: Vec<String> = create.columns.iter().map(|c| c.to_string()).collect();
        let columns = match columns.is_empty() {
            true => String::new(),
            false => format!(" ({})", columns.join(", ")),
        };
        let head = match &target {
            Some((target_database, target)) => format!(
                "CREATE MATERIALIZED VIEW {}.{}{columns} TO {}.{}",
                quote_name(&database),
                quote_name(&name),
                quote_name(target_database),
                quote_name(target)
            ),
            None => format!(
                "CREATE VIEW {}.{}",
                quote_name(&database),
                quote_name(&name)
            ),
        };
        let identity = TableIdentity {
            create_statement: format!("{head} AS {query}"),
            uuid,
            database,
            name: name.clone(),
        };
        let view: Arc<dyn TableProvider> = match target {
            Some((target_database, target)) => {
                let statement = Statement::Query(Box::new(query.clone()));
                // A query of no table (`SELECT 1`) is never triggered.
                let source = match tables_read(&statement).into_iter().next() {
                    Some(source) => {
                        let (database, table) = self.table_name(&source)?;
                        Some(TableReference::partial(database, table))
                    }
                    None => None,
                };
                Arc::new(MaterializedView::new(
                    identity,
                    (source, TableReference::partial(target_database, target)),
                    query.to_string(),
                    schema,
                ))
            }
            None => Arc::new(ViewTable::new(identity, query.to_string(), schema)),
        };
        if self.attaching.is_none() {
            self.engine
                .data_path
                .store_table(&view_identity(&view).stored())?;
        }
        schema_provider.deregister_table(&name)?;
        schema_provider.register_table(name, view)?;
        self.done()
    }

    /// The materialized views an insert into `database.table` runs, each
    /// planned as an insert of its query into its target. Columns go to the
    /// target's columns of the same names, as in ClickHouse.
    pub(crate) async fn triggers_on(&self, database: &str, table: &str) -> Result<Vec<Trigger>> {
        let source = TableReference::partial(database, table);
        let mut triggers = Vec::new();
        for view in self.materialized_views().await? {
            if view.source.as_ref() != Some(&source) {
                continue;
            }
            let columns = quoted_columns(&view.schema());
            let text = format!(
                "INSERT INTO {} ({}) {}",
                view.quoted_target(),
                columns.join(", "),
                view.query
            );
            let (insert, _, _) = self
                .plan(parse_statement(&text)?.statement, self.settings.clone())
                .await?;
            triggers.push(Trigger {
                insert,
                source: source.clone(),
            });
        }
        Ok(triggers)
    }

    async fn materialized_views(&self) -> Result<Vec<Arc<MaterializedView>>> {
        let mut views = Vec::new();
        for database in self.engine.catalog.schema_names() {
            let Some(schema) = self.engine.catalog.schema(&database) else {
                continue;
            };
            for name in schema.table_names() {
                let Some(provider) = schema.table(&name).await? else {
                    continue;
                };
                let any: Arc<dyn std::any::Any + Send + Sync> = provider;
                if let Ok(view) = any.downcast::<MaterializedView>() {
                    views.push(view);
                }
            }
        }
        Ok(views)
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
    pub(crate) async fn view(&self, name: &ObjectName) -> Result<Option<ReadView>> {
        if let Some(view) = self.named_table_of::<ViewTable>(name).await? {
            return Ok(Some(ReadView::View(view)));
        }
        let view = self.named_table_of::<MaterializedView>(name).await?;
        Ok(view.map(ReadView::Materialized))
    }

    /// The table of type `T` that `name` names, if it names one.
    pub(crate) async fn named_table_of<T: Send + Sync + 'static>(
        &self,
        name: &ObjectName,
    ) -> Result<Option<Arc<T>>> {
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
        Ok(any.downcast::<T>().ok())
    }

    async fn views_read(&self, statement: &Statement) -> Result<HashMap<ObjectName, Query>> {
        let mut views = HashMap::new();
        for name in tables_read(statement) {
            if let Some(merge) = self.merge_table(&name).await? {
                let (database, table) = self.table_name(&name)?;
                self.require_select_any(&database, &table)?;
                let text = self.merge_table_query(&merge, statement).await?;
                let Statement::Query(query) = parse_statement(&text)?.statement else {
                    unreachable!("a union of SELECTs is a query");
                };
                views.insert(name, *query);
                continue;
            }
            let view = self.view(&name).await?;
            if view.is_some() {
                let (database, table) = self.table_name(&name)?;
                self.require_select_any(&database, &table)?;
            }
            let text = match view {
                Some(ReadView::View(view)) => view.query.clone(),
                Some(ReadView::Materialized(view)) => {
                    let columns = quoted_columns(&view.schema());
                    match columns.is_empty() {
                        true => format!("SELECT * FROM {}", view.quoted_target()),
                        false => format!(
                            "SELECT {} FROM {}",
                            columns.join(", "),
                            view.quoted_target()
                        ),
                    }
                }
                None => continue,
            };
            let Statement::Query(query) = parse_statement(&text)?.statement else {
                unreachable!("a view stores a query");
            };
            views.insert(name, *query);
        }
        Ok(views)
    }
}

/// A view a statement reads: its query, or a materialized view's target.
pub(crate) enum ReadView {
    View(Arc<ViewTable>),
    Materialized(Arc<MaterializedView>),
}

fn view_identity(view: &Arc<dyn TableProvider>) -> TableIdentity {
    let any = view.as_ref() as &dyn std::any::Any;
    match any.downcast_ref::<ViewTable>() {
        Some(view) => view.identity.clone(),
        None => any
            .downcast_ref::<MaterializedView>()
            .expect("a view or a materialized view")
            .identity
            .clone(),
    }
}

impl Session {
    /// `SHOW CREATE TABLE` of a view: its columns, a materialized view's
    /// target or inner table's storage, and its query.
    pub(crate) async fn view_statement(&self, view: &ReadView) -> Result<String> {
        let (identity, schema, query) = match view {
            ReadView::View(v) => (&v.identity, v.schema(), &v.query),
            ReadView::Materialized(v) => (&v.identity, v.schema(), &v.query),
        };
        let name = format!(
            "{}.{}",
            quote_name(&identity.database),
            quote_name(&identity.name)
        );
        let (head, storage) = match view {
            ReadView::View(_) => (format!("CREATE VIEW {name}"), String::new()),
            ReadView::Materialized(v) if v.has_inner_table() => (
                format!("CREATE MATERIALIZED VIEW {name}"),
                self.inner_table_storage(v).await?,
            ),
            ReadView::Materialized(v) => (
                format!("CREATE MATERIALIZED VIEW {name} TO {}", v.quoted_target()),
                String::new(),
            ),
        };
        let columns: Vec<String> = schema
            .fields()
            .iter()
            .map(|f| {
                let type_name = pretty_type_name(&field_type_name(f), 4, Spread::All);
                format!("    {} {type_name}", quote_column(f.name()))
            })
            .collect();
        Ok(format!(
            "{head}\n(\n{}\n)\n{storage}AS {}",
            columns.join(",\n"),
            crate::session::shown_parameters(query)
        ))
    }

    /// The `ENGINE = ...` lines of a materialized view's inner table.
    async fn inner_table_storage(&self, view: &MaterializedView) -> Result<String> {
        let statement = self
            .user_table(&view.target_name())
            .await?
            .identity()
            .create_statement;
        Ok(statement
            .find("\nENGINE")
            .map_or_else(String::new, |at| format!("{}\n", &statement[at + 1..])))
    }
}

/// The fields of a view's declared columns, if it declares them with types.
fn declared_columns(columns: &[ViewColumnDef]) -> Result<Option<Vec<Field>>> {
    let mut fields = Vec::with_capacity(columns.len());
    for column in columns {
        let Some(data_type) = &column.data_type else {
            return Ok(None);
        };
        let definition = ColumnDef {
            name: column.name.clone(),
            data_type: data_type.clone(),
            options: Vec::new(),
        };
        fields.push(column_definition(&definition)?.0);
    }
    Ok((!fields.is_empty()).then_some(fields))
}

/// A view's column names, quoted for a statement.
fn quoted_columns(schema: &Schema) -> Vec<String> {
    schema
        .fields()
        .iter()
        .map(|f| quote_column(f.name()))
        .collect()
}

fn quote_column(name: &str) -> String {
    format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
}
