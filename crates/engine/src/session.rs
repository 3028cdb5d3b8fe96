//! Sessions: one user's settings, current database and temporary tables,
//! and the path every statement takes: dispatch by kind to its module in
//! `statements/`, planning in a per-query state, and the query log entry.
//!
//! A statement is parsed, rewritten to ClickHouse's meaning, planned by
//! DataFusion in a per-query state (the query's settings, memory pool and
//! counters), rewritten again at the plan level, and executed. SELECTs return a
//! stream for the caller to format; everything else runs to completion.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{SchemaProvider, TableProvider};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    Expr, FormatClause, Ident, ObjectName, Query, ShowCreateObject, Statement, TableObject, Use,
    Value,
};
use strata_common::events::{self, Event, QueryEvents};
use strata_common::settings::Settings;
use strata_common::settings::constraints::SettingsConstraints;
use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::OutputFormat;
use strata_sql::access::RoleSet;
use strata_sql::select_probes::{self, SourceColumn};
use strata_sql::virtual_columns::tables_read;
use strata_sql::{
    AstContext, TrailingClauses, insert_settings::split_insert_settings, is_create_table,
    parse_statement, rewrite_statement, split_insert_format, split_trailing_clauses,
};

use crate::access::EnabledAccess;
use crate::access::quotas::{QueryKind, QuotaTicket};
use crate::data_path::StoredTable;
use crate::engine::{CLICKHOUSE_VERSION, Engine};
use crate::query_context::{ClientInfo, QueryContext};
use crate::query_log::LogType;
use crate::sources::buffer_table::BufferTable;
use crate::sources::external_table::ExternalTable;
use crate::sources::memory_table::MemoryTable;
use crate::sources::merge_table::MergeTable;
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::table_definition::TableIdentity;

mod access_check;
mod column_kinds;
pub(crate) mod dictionaries;
pub(crate) mod file_sink;
mod join_get;
pub(crate) mod key_lookup;
mod logged_stream;
mod merge_reads;
mod view_parameters;
pub(crate) use view_parameters::{parameter_defaults, shown_parameters};
mod nested_columns;
mod outfile;
mod sampling;
pub(crate) mod temporary;
mod virtual_columns;
mod write_result;

use logged_stream::LoggedStream;
pub use temporary::is_temporary_database;

/// The client's quota key (`KEYED BY client_key`); clients cannot send one
/// yet, so such quotas are keyed by the user's name.
const CLIENT_KEY: &str = "";
/// A result set being produced.
pub struct QueryResult {
    pub schema: SchemaRef,
    pub stream: SendableRecordBatchStream,
    /// The output format the statement asked for with `FORMAT`, if any.
    pub format: Option<OutputFormat>,
    pub query: Arc<QueryContext>,
    /// The row `GROUP BY ... WITH TOTALS` adds after the result.
    pub totals: Option<RecordBatch>,
    /// Where `INTO OUTFILE` sends the rows instead of (or as well as) the
    /// client's output.
    pub outfile: Option<strata_sql::OutFile>,
}

/// What executing one statement produced.
pub enum StatementOutcome {
    Rows(QueryResult),
    /// A statement without a result set (DDL, SET, INSERT); the query context
    /// holds its counters.
    Done(Arc<QueryContext>),
}

/// One user's settings and current database.
pub struct Session {
    pub(crate) engine: Arc<Engine>,
    pub settings: Settings,
    /// What the user's settings profiles let the session change of its settings.
    pub constraints: Arc<SettingsConstraints>,
    pub current_database: String,
    /// The statement being executed and the query opened for it, so failures
    /// are logged against the right query.
    pub(crate) statement_text: String,
    /// The events the statement counts, for each query opened for it.
    pub(crate) statement_events: Arc<QueryEvents>,
    pub(crate) current_query: parking_lot::Mutex<Option<Arc<QueryContext>>>,
    /// Set while stored tables are loaded: CREATE then opens this table's
    /// existing data under its stored name and stores nothing.
    pub(crate) attaching: Option<StoredTable>,
    /// Data for an `INSERT ... FORMAT` that has none inline (the CLI's stdin).
    pub(crate) input: Option<Box<dyn std::io::Read + Send + Sync>>,
    /// Who the session's queries run for.
    pub client: Arc<ClientInfo>,
    /// The id the next query opened takes (the HTTP `query_id` parameter);
    /// a fresh UUID when unset.
    pub(crate) query_id: parking_lot::Mutex<Option<String>>,
    /// The session's temporary tables, once it has made one.
    pub(crate) temporary: Option<temporary::TemporaryTables>,
    /// Roles chosen with `SET ROLE`; None: the user's default roles.
    pub(crate) role_choice: Option<RoleSet>,
    /// The user's rights as last computed, with the version they are of.
    pub(crate) access_cache: parking_lot::Mutex<Option<Arc<EnabledAccess>>>,
}

pub(crate) fn value_text(expr: &Expr) -> Result<String> {
    Ok(match expr {
        Expr::Value(v) => match &v.value {
            // `100_000`: digits grouped as in ClickHouse's numeric literals.
            Value::Number(n, _) => n.replace('_', ""),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            Value::Boolean(b) => if *b { "1" } else { "0" }.to_string(),
            other => other.to_string(),
        },
        Expr::Identifier(ident) => ident.value.clone(),
        Expr::UnaryOp { op, expr } => format!("{op}{}", value_text(expr)?),
        other => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Setting value must be a constant, got {other}"),
            ));
        }
    })
}

pub(crate) fn strings_result(
    column: &str,
    rows: Vec<String>,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let schema = Arc::new(Schema::new(vec![Field::new(column, DataType::Utf8, false)]));
    let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(StringArray::from(rows))])?;
    Ok((schema, vec![batch]))
}

/// Splits the first word off `text` if it is one of `words` (case-insensitive).
pub(crate) fn strip_keyword<'a>(text: &'a str, words: &[&'a str]) -> Option<(&'a str, &'a str)> {
    let trimmed = text.trim_start();
    let end = trimmed
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    let word = &trimmed[..end];
    words
        .iter()
        .find(|w| w.eq_ignore_ascii_case(word))
        .map(|w| (*w, &trimmed[end..]))
}

impl Session {
    pub(crate) fn new(engine: Arc<Engine>) -> Session {
        Session {
            engine,
            settings: Settings::default(),
            constraints: Arc::default(),
            current_database: crate::engine::DEFAULT_DATABASE.to_string(),
            statement_text: String::new(),
            statement_events: Arc::default(),
            current_query: parking_lot::Mutex::new(None),
            attaching: None,
            input: None,
            client: Arc::new(ClientInfo::local()),
            query_id: parking_lot::Mutex::new(None),
            temporary: None,
            role_choice: None,
            access_cache: parking_lot::Mutex::new(None),
        }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Names the next statement's query `id` instead of a fresh UUID.
    pub fn set_query_id(&self, id: String) {
        *self.query_id.lock() = Some(id);
    }

    /// Executes one statement (text without a trailing semicolon) and records
    /// it in system.query_log: a statement that fails before running is
    /// logged here, one that returns rows when its stream ends.
    pub async fn execute(&mut self, text: &str) -> Result<StatementOutcome> {
        self.statement_text = text.to_string();
        self.statement_events = Arc::default();
        *self.current_query.lock() = None;
        let scope = Some(Arc::clone(&self.statement_events));
        events::in_scope(scope.as_ref(), || events::add(Event::Query, 1));
        let mut quota = None;
        let outcome = match self.check_query_id().and_then(|()| self.begin_quota(text)) {
            Ok(ticket) => {
                quota = ticket;
                events::Scoped::new(Box::pin(self.execute_statement(text)), scope).await
            }
            Err(e) => Err(e),
        };
        let instance = Arc::clone(&self.engine.instance);
        match outcome {
            Ok(StatementOutcome::Done(query)) => {
                self.log_start(&query);
                instance.finish_query(LogType::QueryFinish, &query, None, quota.as_ref());
                Ok(StatementOutcome::Done(query))
            }
            Ok(StatementOutcome::Rows(mut result)) => {
                self.log_start(&result.query);
                result.stream = Box::pin(LoggedStream {
                    inner: result.stream,
                    query: Arc::clone(&result.query),
                    instance,
                    quota,
                });
                Ok(StatementOutcome::Rows(result))
            }
            Err(error) => {
                let query = self.current_query.lock().take();
                let query = query.unwrap_or_else(|| self.new_query(self.settings.clone()));
                let kind = if query.is_running() {
                    LogType::ExceptionWhileProcessing
                } else {
                    LogType::ExceptionBeforeStart
                };
                instance.finish_query(kind, &query, Some(&error), quota.as_ref());
                Err(error)
            }
        }
    }

    /// Counts the statement in the quota that applies to the session's
    /// user; QUOTA_EXCEEDED when it may not run.
    fn begin_quota(&self, text: &str) -> Result<Option<QuotaTicket>> {
        let access = self.enabled_access()?;
        let kind = QueryKind::of(text);
        let address = &self.client.address;
        self.engine
            .instance
            .access
            .begin_query(&access, address, CLIENT_KEY, kind)
    }

    /// The quota usage this session's statements are counted in.
    pub(crate) fn quota_ticket(&self) -> Result<Option<QuotaTicket>> {
        let access = self.enabled_access()?;
        Ok(self
            .engine
            .instance
            .access
            .quota_ticket(&access, &self.client.address, CLIENT_KEY))
    }

    /// A query id the client chose must not name a running query
    /// (ClickHouse's `replace_running_query = 0`).
    fn check_query_id(&self) -> Result<()> {
        let Some(id) = self.query_id.lock().clone() else {
            return Ok(());
        };
        let processes = &self.engine.instance.processes;
        if processes.running().iter().any(|q| q.query_id == id) {
            return Err(StrataError::new(
                ErrorCode::QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING,
                format!("Query with id = {id} is already running."),
            ));
        }
        Ok(())
    }

    /// Logs QueryStart once, when the query begins to run.
    pub(crate) fn log_start(&self, query: &Arc<QueryContext>) {
        if query.begin() {
            self.engine
                .instance
                .query_log
                .record(LogType::QueryStart, query, None);
        }
    }

    /// Sends a statement to its family's module in `statements/`: by its
    /// first words where the parser cannot read it, else by its parsed kind.
    pub(crate) async fn execute_statement(&mut self, text: &str) -> Result<StatementOutcome> {
        if strata_sql::dictionary::is_dictionary_statement(text) {
            if let Some(create) = strata_sql::dictionary::parse_create_dictionary(text)? {
                return self.create_dictionary(create).await;
            }
            if let Some(statement) = strata_sql::dictionary::parse_dictionary_statement(text)? {
                return self.dictionary_statement(statement).await;
            }
        }
        if let Some((_, rest)) = strip_keyword(text, &["EXPLAIN"]) {
            return self.explain(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["DESCRIBE", "DESC"]) {
            return self.describe(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["SYSTEM"]) {
            return self.system_command(rest).await;
        }
        if strip_keyword(text, &["SHOW", "EXISTS", "KILL"]).is_some() {
            let (body, clauses) = split_trailing_clauses(text)?;
            if clauses != TrailingClauses::default() {
                return self.with_output_clauses(&body, clauses).await;
            }
        }
        if strata_sql::access::is_access_statement(text) {
            return self.access_statement(text).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["EXISTS"]) {
            return self.exists(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["KILL"]) {
            return self.kill(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["EXCHANGE"]) {
            return self.exchange_statement(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["DETACH"]) {
            return self.detach(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["ATTACH"]) {
            return self.attach(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["ALTER", "CHECK", "DELETE"])
            && strip_keyword(rest, &["TABLE", "FROM"]).is_some()
        {
            return self.with_trailing_settings(text).await;
        }
        if let Some((insert, settings)) = split_insert_settings(text)? {
            let clauses = TrailingClauses {
                outfile: None,
                format: None,
                settings,
            };
            return self.with_output_clauses(&insert, clauses).await;
        }
        if let Some(insert) = split_insert_format(text) {
            return self.insert_formatted(insert).await;
        }
        if is_create_table(text) {
            return self.create_table_text(text).await;
        }
        if let Some(view) = strata_sql::materialized_view::split_materialized_view(text)? {
            return self.create_materialized_view(view).await;
        }
        if names_function(text) {
            if let Some(create) = strata_sql::user_functions::parse_create_function(text)? {
                return self.create_function(create);
            }
            if let Some((name, if_exists)) = strata_sql::user_functions::parse_drop_function(text)?
            {
                return self.drop_function(&name, if_exists);
            }
        }
        if let Some(create) = strata_sql::create_database::parse_create_database(text)? {
            let name = ObjectName::from(vec![Ident::new(create.name)]);
            return self.create_database(&name, create.if_not_exists);
        }
        let explained;
        let text = match is_query(text) {
            true => match self.explain_subqueries(text).await? {
                Some(replaced) => {
                    explained = replaced;
                    explained.as_str()
                }
                None => text,
            },
            false => text,
        };
        let (text, clauses) = if is_query(text) {
            split_trailing_clauses(text)?
        } else {
            (text.to_string(), TrailingClauses::default())
        };
        match parse_statement(&text)?.statement {
            Statement::Query(query) => self.select(query, &clauses).await,
            Statement::Insert(insert) => self.insert(insert).await,
            Statement::CreateTable(create) => {
                self.create_table(create, None, Default::default()).await
            }
            Statement::CreateView(create) => self.create_view(create).await,
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                ..
            } => self.create_database(&db_name, if_not_exists),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                temporary,
                ..
            } => self.drop(object_type, if_exists, temporary, &names).await,
            Statement::RenameTable(renames) => self.rename_tables(&renames).await,
            Statement::Truncate(truncate) => self.truncate(&truncate).await,
            Statement::Set(set) => self.set(set),
            Statement::Use(Use::Object(name) | Use::Database(name) | Use::Schema(name)) => {
                self.use_database(&name)
            }
            Statement::ShowDatabases { show_options, .. } => {
                self.show_databases(show_options).await
            }
            Statement::ShowColumns {
                full, show_options, ..
            } => self.show_columns(full, show_options).await,
            Statement::ShowTables { show_options, .. } => self.show_tables(show_options).await,
            Statement::ShowCreate {
                obj_type: ShowCreateObject::Table,
                obj_name,
            } => self.show_create_table(&obj_name).await,
            Statement::OptimizeTable {
                name,
                partition,
                include_final,
                deduplicate,
                ..
            } => {
                self.optimize(&name, partition, include_final, deduplicate)
                    .await
            }
            Statement::Update(update) => self.update(update).await,
            other => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Statement is not supported yet: {}",
                    other.to_string().chars().take(100).collect::<String>()
                ),
            )),
        }
    }

    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.settings.readonly() > 0 {
            return Err(StrataError::new(
                ErrorCode::READONLY,
                "Cannot execute query in readonly mode",
            ));
        }
        Ok(())
    }

    pub(crate) fn new_query(&self, settings: Settings) -> Arc<QueryContext> {
        let identity = (self.query_id.lock().take(), Arc::clone(&self.client));
        let query = self.engine.open_query(
            &self.statement_text,
            (settings, Arc::clone(&self.constraints)),
            &self.current_database,
            identity,
            Arc::clone(&self.statement_events),
        );
        *self.current_query.lock() = Some(Arc::clone(&query));
        query
    }

    pub(crate) fn done(&self) -> Result<StatementOutcome> {
        Ok(StatementOutcome::Done(
            self.new_query(self.settings.clone()),
        ))
    }

    pub(crate) fn rows(
        &self,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    ) -> Result<StatementOutcome> {
        let stream = futures::stream::iter(batches.into_iter().map(Ok));
        Ok(StatementOutcome::Rows(QueryResult {
            schema: Arc::clone(&schema),
            stream: Box::pin(RecordBatchStreamAdapter::new(schema, stream)),
            format: None,
            query: self.new_query(self.settings.clone()),
            totals: None,
            outfile: None,
        }))
    }

    /// Parses, rewrites and plans `statement` with `settings`.
    pub(crate) async fn plan(
        &self,
        mut statement: Statement,
        settings: Settings,
    ) -> Result<(LogicalPlan, SessionState, Arc<QueryContext>)> {
        self.expand_parameterized_views(&mut statement).await?;
        self.expand_merge_functions(&mut statement).await?;
        self.prepare_dictionary_reads(&mut statement).await?;
        self.expand_views(&mut statement).await?;
        view_parameters::check_parameters_given(&statement)?;
        strata_sql::values_function::expand_values_functions(&mut statement)?;
        strata_sql::format_function::quote_format_names(&mut statement);
        let query = self.new_query(settings);
        self.rewrite_with_columns(&mut statement, &query).await?;
        let (plan, state) = self.plan_expanded(statement, &query).await?;
        let plan = self.engine.rewriter.rewrite(plan, &query.settings)?;
        Ok((plan, state, query))
    }

    /// Rewrites what needs the columns of a SELECT's FROM (column matchers,
    /// joined columns' names), one SELECT at a time, innermost first.
    async fn rewrite_with_columns(
        &self,
        statement: &mut Statement,
        query: &Arc<QueryContext>,
    ) -> Result<()> {
        let mut n = 0;
        while let Some(probe) = select_probes::next_probe(statement, n) {
            let planned = self
                .plan_expanded(Statement::Query(Box::new(probe.query)), query)
                .await;
            let plan = match planned {
                Ok((plan, _)) => plan,
                Err(_) if probe.optional => {
                    n += 1;
                    continue;
                }
                Err(error) => return Err(error),
            };
            let columns: Vec<SourceColumn> = plan
                .schema()
                .iter()
                .map(|(qualifier, field)| SourceColumn {
                    qualifier: qualifier.map(|q| q.to_string()),
                    name: field.name().clone(),
                })
                .collect();
            if select_probes::rewrite_next(statement, n, &columns)? {
                n += 1;
            }
        }
        Ok(())
    }

    /// Plans a statement whose views and column matchers are written out,
    /// before the plan rewrites.
    async fn plan_expanded(
        &self,
        mut statement: Statement,
        query: &Arc<QueryContext>,
    ) -> Result<(LogicalPlan, SessionState)> {
        self.apply_column_kinds(&mut statement).await?;
        self.rewrite(&mut statement, &query.settings)?;
        let mut lookups = self.bind_join_gets(&mut statement).await?;
        lookups.extend(self.bind_dictionary_calls(&mut statement).await?);
        self.qualify_temporary_tables(&mut statement);
        self.check_tables_exist(&statement)?;
        let final_tables = strata_sql::final_modifier::take_final_tables(&mut statement)
            .iter()
            .map(|name| self.table_name(name))
            .collect::<Result<Vec<_>>>()?;
        self.read_samples(&mut statement, &query.settings).await?;
        let catalogs = self.expose_virtual_columns(&mut statement, query).await?;
        query.set_final_tables(final_tables);
        let mut state = self.engine.query_state(query)?;
        for function in lookups {
            datafusion::execution::FunctionRegistry::register_udf(&mut state, Arc::new(function))?;
        }
        if let Some(catalogs) = catalogs {
            state = SessionStateBuilder::new_from_existing(state)
                .with_catalog_list(catalogs)
                .build();
        }
        let plan = state
            .statement_to_plan(DFStatement::Statement(Box::new(statement)))
            .await?;
        Ok((plan, state))
    }

    /// Fails as ClickHouse does for a table named in a database that does
    /// not exist (UNKNOWN_DATABASE) or missing from its database
    /// (UNKNOWN_TABLE), where DataFusion would report a missing table of its
    /// own catalog.
    fn check_tables_exist(&self, statement: &Statement) -> Result<()> {
        let mut names = tables_read(statement);
        if let Statement::Insert(insert) = statement
            && let TableObject::TableName(name) = &insert.table
        {
            names.push(name.clone());
        }
        for name in names {
            let Ok((database, table)) = self.table_name(&name) else {
                continue;
            };
            if !self.database(&database)?.table_exist(&table) {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_TABLE,
                    format!("Table {database}.{table} does not exist"),
                ));
            }
        }
        Ok(())
    }

    /// Rewrites a parsed statement to ClickHouse's meaning for this session.
    pub(crate) fn rewrite(&self, statement: &mut Statement, settings: &Settings) -> Result<()> {
        let engine = &self.engine;
        let user_functions = &engine.instance.user_functions;
        strata_sql::user_functions::inline_calls(statement, &|name| user_functions.get(name))?;
        let server_setting = |name: &str| engine.instance.server_setting(name);
        let resolve_function = |name: &str| engine.resolve_function(name);
        let is_aggregate = |name: &str| engine.base.aggregate_functions().contains_key(name);
        let nested = self.nested_names(statement);
        let context = AstContext {
            settings,
            current_database: &self.current_database,
            current_user: &self.client.user,
            version: CLICKHOUSE_VERSION,
            query_id: &self.statement_query_id(),
            query_start: chrono::Utc::now().timestamp(),
            server_setting: &server_setting,
            resolve_function: &resolve_function,
            is_aggregate: &is_aggregate,
            nested: &nested,
        };
        rewrite_statement(statement, &context)
    }

    /// The id of the statement's query: the one it opened, else the one it
    /// will open, chosen now so the rewrite can name it (`queryID()`).
    fn statement_query_id(&self) -> String {
        if let Some(query) = self.current_query.lock().as_ref() {
            return query.query_id.clone();
        }
        self.query_id
            .lock()
            .get_or_insert_with(|| uuid::Uuid::new_v4().to_string())
            .clone()
    }

    /// Parses text that must be a query (the body of EXPLAIN or DESCRIBE), with
    /// the settings its SETTINGS clause gives.
    pub(crate) fn parse_query(
        &self,
        text: &str,
        not_a_query: (ErrorCode, &str),
    ) -> Result<(Box<Query>, Settings)> {
        let (body, clauses) = split_trailing_clauses(text)?;
        let Statement::Query(mut query) = parse_statement(&body)?.statement else {
            return Err(StrataError::new(not_a_query.0, not_a_query.1));
        };
        let (_, settings) = self.query_options(&mut query, &clauses)?;
        Ok((query, settings))
    }

    /// The output format and settings of a query, from its trailing clauses and
    /// any the parser attached to the query itself.
    pub(crate) fn query_options(
        &self,
        query: &mut Query,
        clauses: &TrailingClauses,
    ) -> Result<(Option<OutputFormat>, Settings)> {
        let format = match (query.format_clause.take(), &clauses.format) {
            (_, Some(name)) => Some(OutputFormat::from_name(name)?),
            (Some(FormatClause::Identifier(ident)), None) => {
                Some(OutputFormat::from_name(&ident.value)?)
            }
            (Some(FormatClause::Null), None) => Some(OutputFormat::Null),
            (None, None) => None,
        };
        let mut changes = clauses.settings.clone();
        if let Some(list) = query.settings.take() {
            for setting in list {
                changes.push((setting.key.value.clone(), value_text(&setting.value)?));
            }
        }
        Ok((format, self.settings_with(&changes)?))
    }

    /// The session's settings with one statement's `SETTINGS` changes,
    /// each validated; in readonly mode only `readonly` may change.
    pub(crate) fn settings_with(&self, changes: &[(String, String)]) -> Result<Settings> {
        let mut settings = self.settings.clone();
        if changes.is_empty() {
            return Ok(settings);
        }
        for (name, value) in changes {
            settings.set(name, value)?;
        }
        self.constraints.check(&self.settings, &settings)?;
        Ok(settings)
    }

    /// `db.table`, or `table` among the session's temporary tables, else in
    /// the current database.
    pub(crate) fn table_name(&self, name: &ObjectName) -> Result<(String, String)> {
        let (database, table) = self.table_in_database(name)?;
        if name.0.len() == 1
            && let Some(temporary) = self.temporary_database_of(&table)
        {
            return Ok((temporary, table));
        }
        Ok((database, table))
    }

    /// `db.table` or `table` in the current database.
    pub(crate) fn table_in_database(&self, name: &ObjectName) -> Result<(String, String)> {
        let parts: Vec<String> = name
            .0
            .iter()
            .map(|p| p.to_string().trim_matches(['`', '"']).to_string())
            .collect();
        match parts.as_slice() {
            [table] => Ok((self.current_database.clone(), table.clone())),
            [database, table] => Ok((database.clone(), table.clone())),
            _ => Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Invalid table name {name}"),
            )),
        }
    }

    pub(crate) fn database(&self, name: &str) -> Result<Arc<dyn SchemaProvider>> {
        self.engine.catalog.schema(name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_DATABASE,
                format!("Database {name} does not exist"),
            )
        })
    }

    /// A user table (Memory, File, S3 or MergeTree) by name.
    pub(crate) async fn user_table(&self, name: &ObjectName) -> Result<UserTable> {
        let (database, table) = self.table_name(name)?;
        let provider = self
            .database(&database)?
            .table(&table)
            .await?
            .ok_or_else(|| {
                StrataError::new(
                    ErrorCode::UNKNOWN_TABLE,
                    format!("Table {database}.{table} does not exist"),
                )
            })?;
        let any: Arc<dyn std::any::Any + Send + Sync> = provider;
        let any = match any.downcast::<MemoryTable>() {
            Ok(memory) => return Ok(UserTable::Memory(memory)),
            Err(other) => other,
        };
        let any = match any.downcast::<ExternalTable>() {
            Ok(file) => return Ok(UserTable::External(file)),
            Err(other) => other,
        };
        let any = match any.downcast::<MergeTable>() {
            Ok(merge) => return Ok(UserTable::Merge(merge)),
            Err(other) => other,
        };
        let any = match any.downcast::<BufferTable>() {
            Ok(buffer) => return Ok(UserTable::Buffer(buffer)),
            Err(other) => other,
        };
        any.downcast::<MergeTreeProvider>()
            .map(UserTable::MergeTree)
            .map_err(|_| {
                StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("{database}.{table} is not a Memory, File, S3 or MergeTree table"),
                )
            })
    }
}

/// A table users create.
pub(crate) enum UserTable {
    Memory(Arc<MemoryTable>),
    External(Arc<ExternalTable>),
    Merge(Arc<MergeTable>),
    Buffer(Arc<BufferTable>),
    MergeTree(Arc<MergeTreeProvider>),
}

impl UserTable {
    pub(crate) fn identity(&self) -> TableIdentity {
        match self {
            UserTable::Memory(table) => table.identity(),
            UserTable::External(table) => table.identity(),
            UserTable::Merge(table) => table.identity(),
            UserTable::Buffer(table) => table.identity(),
            UserTable::MergeTree(table) => table.identity(),
        }
    }

    pub(crate) fn set_identity(&self, identity: TableIdentity) {
        match self {
            UserTable::Memory(table) => table.set_identity(identity),
            UserTable::External(table) => table.set_identity(identity),
            UserTable::Merge(table) => table.set_identity(identity),
            UserTable::Buffer(table) => table.set_identity(identity),
            UserTable::MergeTree(table) => table.set_identity(identity),
        }
    }

    pub(crate) fn provider(self) -> Arc<dyn TableProvider> {
        match self {
            UserTable::Memory(table) => table,
            UserTable::External(table) => table,
            UserTable::Merge(table) => table,
            UserTable::Buffer(table) => table,
            UserTable::MergeTree(table) => table,
        }
    }

    /// The engine's name, as errors name it.
    pub(crate) fn engine_name(&self) -> &'static str {
        match self {
            UserTable::Memory(table) => table.engine_name(),
            UserTable::External(table) => table.engine_name(),
            UserTable::Merge(_) => "Merge",
            UserTable::Buffer(_) => "Buffer",
            UserTable::MergeTree(table) => table.engine.name(),
        }
    }
}

/// Whether a statement's first words are CREATE [OR REPLACE] FUNCTION or
/// DROP FUNCTION: checked before tokenizing, which a large INSERT would pay for.
fn names_function(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .take(4)
        .map(str::to_ascii_uppercase)
        .collect();
    match words.first().map(String::as_str) {
        Some("CREATE") => words[1..]
            .iter()
            .take_while(|w| matches!(w.as_str(), "OR" | "REPLACE" | "FUNCTION"))
            .any(|w| w == "FUNCTION"),
        Some("DROP") => words.get(1).is_some_and(|w| w == "FUNCTION"),
        _ => false,
    }
}

/// Whether a statement is a query (where trailing FORMAT and SETTINGS clauses belong).
pub(crate) fn is_query(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('(') || strip_keyword(trimmed, &["SELECT", "WITH"]).is_some()
}

pub(crate) fn single_name(name: &ObjectName) -> Result<String> {
    match name.0.as_slice() {
        [part] => Ok(part.to_string().trim_matches(['`', '"']).to_string()),
        _ => Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Invalid database name {name}"),
        )),
    }
}
