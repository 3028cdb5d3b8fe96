//! Sessions: the settings and current database of one user, and the execution
//! of each statement kind.
//!
//! A statement is parsed, rewritten to ClickHouse's meaning, planned by
//! DataFusion in a per-query state (the query's settings, memory pool and
//! counters), rewritten again at the plan level, and executed. SELECTs return a
//! stream for the caller to format; everything else runs to completion here.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::catalog::{
    CatalogProvider, MemoryCatalogProvider, MemorySchemaProvider, SchemaProvider,
};
use datafusion::common::config::SpillCompression;
use datafusion::execution::FunctionRegistry;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::disk_manager::{DiskManager, DiskManagerMode};
use datafusion::execution::memory_pool::MemoryLimit;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::logical_expr::LogicalPlan;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{ExecutionPlan, collect, displayable, execute_stream};
use datafusion::prelude::SessionConfig;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, CreateTable, Expr, FormatClause, ObjectName, ObjectType, Partition, Query, Set,
    ShowCreateObject, Statement, TableObject, Use, Value,
};
use futures::StreamExt;
use strata_common::settings::Settings;
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_execution::sort::budget::SortBudget;
use strata_execution::spill::planned::PlannedThresholds;
use strata_execution::spill::{RunFileFactory, SpillConfig, TemporaryCodec};
use strata_formats::OutputFormat;
use strata_sql::virtual_columns::tables_read;
use strata_sql::{
    AstContext, EngineClause, PlanRewriter, TrailingClauses, is_create_table,
    parse_alter_statement, parse_statement, rewrite_statement, split_create_table,
    split_insert_format, split_trailing_clauses,
};
use strata_storage::merge_tree::MergeTreeTable;

use crate::data_path::{DataPath, StoredTable};
use crate::instance::Instance;
use crate::query_context::{ClientInfo, QueryContext};
use crate::query_log::LogType;
use crate::sources::memory_table::MemoryTable;
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::sources::numbers::{Generator, NumbersFunction, NumbersTable};
use crate::system::{CATALOG, SYSTEM_DATABASE, SystemTable, SystemTableKind};
use crate::table_definition::{
    ColumnExtras, MergeTreeDefinition, TableIdentity, column_codecs, column_definitions,
    create_statement,
};

mod alter;
mod insert_input;
mod kill;
mod parts;
mod temporary;
mod virtual_columns;

pub use temporary::is_temporary_database;

/// Functions the SQL front resolves itself rather than registering with DataFusion.
const SQL_LEVEL_FUNCTIONS: &[&str] = &[
    "if",
    "multiIf",
    "getSetting",
    "getServerSetting",
    "currentDatabase",
    "currentUser",
    "user",
    "current_user",
    "timezone",
    "timeZone",
    "serverTimezone",
    "serverTimeZone",
    "version",
];

/// Functions the SQL front rewrites before DataFusion plans: its own and
/// the ClickHouse names of DataFusion's functions.
pub fn sql_level_functions() -> impl Iterator<Item = &'static str> {
    SQL_LEVEL_FUNCTIONS
        .iter()
        .chain(strata_sql::equivalents::NAMES)
        .copied()
}

pub const DEFAULT_DATABASE: &str = "default";

/// The most of its memory limit a query's sorts reserve, per sort partition,
/// to merge their spilled runs: 1/32, so a few sorts side by side leave
/// most of the budget to the sorting itself.
const SORT_MERGE_RESERVATION_SHARE: usize = 32;

/// ClickHouse table engines Strata does not have yet: naming one is
/// NOT_IMPLEMENTED, any other unknown name UNKNOWN_STORAGE.
const CLICKHOUSE_ENGINES: &[&str] = &[
    "AggregatingMergeTree",
    "Buffer",
    "CollapsingMergeTree",
    "Dictionary",
    "Distributed",
    "File",
    "GraphiteMergeTree",
    "Join",
    "Log",
    "Merge",
    "Null",
    "ReplacingMergeTree",
    "ReplicatedMergeTree",
    "S3",
    "Set",
    "StripeLog",
    "SummingMergeTree",
    "TinyLog",
    "URL",
    "VersionedCollapsingMergeTree",
];
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// State shared by every session of a process: catalog and function registry.
pub struct Engine {
    base: SessionState,
    catalog: Arc<dyn CatalogProvider>,
    rewriter: PlanRewriter,
    /// Lower-case spelling to registered spelling, for case-insensitive lookups.
    function_names: HashMap<String, String>,
    instance: Arc<Instance>,
    data_path: DataPath,
}

impl Engine {
    /// An engine with the server settings at their defaults.
    pub fn new() -> Result<Arc<Self>> {
        Self::with_server_settings(Settings::server())
    }

    /// An engine whose tables live in a temporary directory.
    pub fn with_server_settings(server_settings: Settings) -> Result<Arc<Self>> {
        Self::open(server_settings, DataPath::temporary()?)
    }

    /// An engine whose tables live under `data_path`; call
    /// [`Engine::load_tables`] to bring back the tables stored there.
    pub fn open(server_settings: Settings, data_path: DataPath) -> Result<Arc<Self>> {
        let catalog: Arc<dyn CatalogProvider> = Arc::new(MemoryCatalogProvider::new());
        let system = Arc::new(MemorySchemaProvider::new());
        for kind in SystemTableKind::ALL {
            system.register_table(kind.name().to_string(), Arc::new(SystemTable::new(kind)))?;
        }
        system.register_table(
            "numbers".to_string(),
            Arc::new(NumbersTable::new(Generator::Numbers, 0, None, false)),
        )?;
        system.register_table(
            "zeros".to_string(),
            Arc::new(NumbersTable::new(Generator::Zeros, 0, None, false)),
        )?;
        catalog.register_schema(SYSTEM_DATABASE, system)?;
        catalog.register_schema(DEFAULT_DATABASE, Arc::new(MemorySchemaProvider::new()))?;

        let mut config = SessionConfig::new()
            .with_default_catalog_and_schema(CATALOG, DEFAULT_DATABASE)
            .with_create_default_catalog_and_schema(false)
            .with_information_schema(false);
        config.options_mut().sql_parser.enable_ident_normalization = false;
        // A single-stream source (`numbers`, a Memory table) stays one ordered stream,
        // as in ClickHouse, so `LIMIT` without `ORDER BY` returns its first rows;
        // parallel sources (`numbers_mt`) bring their own partitions.
        config
            .options_mut()
            .optimizer
            .enable_round_robin_repartition = false;
        let mut state = SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build();
        state
            .catalog_list()
            .register_catalog(CATALOG.to_string(), Arc::clone(&catalog));

        let scalar = strata_functions::scalar_functions();
        let aggregates = strata_functions::aggregate_functions();
        // A DataFusion built-in sharing a name or alias with a Strata function
        // is removed entirely: every rebuild of a state re-registers functions
        // by name and alias in hash order, so a built-in still reachable under
        // another alias (`current_timestamp` for `now`) would win the shared
        // name back at random.
        let ours: std::collections::HashSet<String> = scalar
            .iter()
            .flat_map(|f| all_names(f.name(), f.aliases()))
            .chain(
                aggregates
                    .iter()
                    .flat_map(|f| all_names(f.name(), f.aliases())),
            )
            .collect();
        let clashes =
            |name: &str, aliases: &[String]| all_names(name, aliases).any(|n| ours.contains(&n));
        let clashing_scalars: Vec<String> = state
            .scalar_functions()
            .iter()
            .filter(|(_, f)| clashes(f.name(), f.aliases()))
            .map(|(key, _)| key.clone())
            .collect();
        let clashing_aggregates: Vec<String> = state
            .aggregate_functions()
            .iter()
            .filter(|(_, f)| clashes(f.name(), f.aliases()))
            .map(|(key, _)| key.clone())
            .collect();
        for key in clashing_scalars {
            state.deregister_udf(&key)?;
        }
        for key in clashing_aggregates {
            state.deregister_udaf(&key)?;
        }
        for udf in &scalar {
            state.register_udf(Arc::clone(udf))?;
        }
        for udaf in aggregates {
            state.register_udaf(udaf)?;
        }
        let mut builder = SessionStateBuilder::new_from_existing(state);
        // First, so that a comparison of a UUID or FixedString with text never reaches
        // DataFusion's own planning of the operator, which refuses it.
        builder
            .expr_planners()
            .get_or_insert_with(Vec::new)
            .insert(0, Arc::new(strata_sql::TextComparisons::new(&scalar)));
        builder
            .expr_planners()
            .get_or_insert_with(Vec::new)
            .insert(1, Arc::new(strata_sql::uint8_booleans::MixedOperands));
        let table_functions = builder.table_functions().get_or_insert_with(HashMap::new);
        for function in NumbersFunction::all() {
            let name = function.name().to_string();
            table_functions.insert(
                name.clone(),
                Arc::new(datafusion::catalog::TableFunction::new(
                    name,
                    Arc::new(function),
                )),
            );
        }
        // Strata's operator choices run first, on the plan as the planner
        // wrote it; its final touches last, on the plan as it will run.
        let mut physical_rules = strata_execution::physical_optimizer_rules();
        physical_rules
            .extend(datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules);
        physical_rules.extend(strata_execution::final_physical_optimizer_rules());
        let base = builder
            .with_physical_optimizer_rules(physical_rules)
            .build();

        let mut function_names = HashMap::new();
        let names = base
            .scalar_functions()
            .keys()
            .chain(base.aggregate_functions().keys())
            .chain(base.window_functions().keys())
            .cloned()
            .chain(sql_level_functions().map(str::to_string));
        for name in names {
            let lower = name.to_lowercase();
            // DataFusion's own lower-case names win over ClickHouse camelCase ones.
            if lower == name || !function_names.contains_key(&lower) {
                function_names.insert(lower, name);
            }
        }
        Ok(Arc::new(Engine {
            rewriter: PlanRewriter::new(&scalar),
            base,
            catalog,
            function_names,
            instance: Instance::new(server_settings, data_path.root().join("tmp"))?,
            data_path,
        }))
    }

    /// Recreates the databases and tables stored in the data path, with the
    /// parts their directories hold.
    pub async fn load_tables(self: &Arc<Self>) -> Result<()> {
        let mut session = self.new_session();
        for (database, tables) in self.data_path.stored()? {
            if self.catalog.schema(&database).is_none() {
                self.catalog
                    .register_schema(&database, Arc::new(MemorySchemaProvider::new()))?;
            }
            for table in tables {
                let statement = table.statement.clone();
                session.attaching = Some(table);
                session.execute(&statement).await.map_err(|e| {
                    StrataError::new(
                        e.code,
                        format!("Cannot load a table of database {database}: {}", e.message),
                    )
                })?;
            }
        }
        Ok(())
    }

    /// Fails with UNKNOWN_DATABASE unless `name` exists.
    pub fn database_exists(&self, name: &str) -> Result<()> {
        if self.catalog.schema(name).is_none() {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_DATABASE,
                format!("Database {name} does not exist"),
            ));
        }
        Ok(())
    }

    pub fn data_path(&self) -> &DataPath {
        &self.data_path
    }

    fn resolve_function(&self, name: &str) -> Option<String> {
        let registered = |n: &str| {
            self.base.scalar_functions().contains_key(n)
                || self.base.aggregate_functions().contains_key(n)
                || self.base.window_functions().contains_key(n)
                || sql_level_functions().any(|f| f == n)
        };
        if registered(name) {
            return None;
        }
        self.function_names.get(&name.to_lowercase()).cloned()
    }

    pub fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// Opens a query: its context, memory account and place in system.processes.
    fn open_query(
        &self,
        text: &str,
        settings: Settings,
        current_database: &str,
        identity: (Option<String>, Arc<ClientInfo>),
    ) -> Arc<QueryContext> {
        let query = QueryContext::new(
            text.to_string(),
            settings,
            current_database.to_string(),
            identity,
            &self.instance.memory,
        );
        self.instance.processes.add(&query);
        query
    }

    /// A DataFusion state for one query: its settings, memory pool and counters.
    fn query_state(&self, query: &Arc<QueryContext>) -> Result<SessionState> {
        let settings = &query.settings;
        let spill = Arc::new(self.spill_config(query)?);
        let mut config = self.base.config().clone();
        config = config
            .with_target_partitions(settings.thread_count())
            .with_batch_size(settings.max_block_size().max(1) as usize)
            .with_extension(Arc::clone(query))
            .with_extension(Arc::clone(&self.instance))
            .with_extension(Arc::clone(&spill));
        config.options_mut().catalog.default_schema = query.current_database.clone();
        config.options_mut().execution.spill_compression = match spill.codec {
            TemporaryCodec::None => SpillCompression::Uncompressed,
            TemporaryCodec::Lz4 => SpillCompression::Lz4Frame,
            TemporaryCodec::Zstd => SpillCompression::Zstd,
        };
        let query_pool: Arc<dyn datafusion::execution::memory_pool::MemoryPool> =
            query.memory.clone();
        let memory_limit = match query_pool.memory_limit() {
            MemoryLimit::Finite(limit) => limit,
            _ => usize::MAX,
        };
        let sort_threshold = spill.sort_threshold(memory_limit);
        let mut thresholds = PlannedThresholds::default();
        thresholds.sort_bytes = sort_threshold;
        thresholds.group_by_bytes = spill.group_by_threshold(memory_limit);
        config.options_mut().extensions.insert(thresholds);
        let pool: Arc<dyn datafusion::execution::memory_pool::MemoryPool> =
            Arc::new(SortBudget::new(query_pool, sort_threshold));
        // A sort reserves memory up front to merge its runs; under a small
        // limit that reservation must shrink with it, or the sort that was to
        // spill fails instead.
        if let MemoryLimit::Finite(limit) = pool.memory_limit() {
            let execution = &mut config.options_mut().execution;
            execution.sort_spill_reservation_bytes = execution
                .sort_spill_reservation_bytes
                .min(limit / SORT_MERGE_RESERVATION_SHARE);
        }
        let disks = DiskManager::builder().with_mode(DiskManagerMode::Custom(Arc::new(
            RunFileFactory::new(spill),
        )));
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(pool)
            .with_disk_manager_builder(disks)
            .build_arc()?;
        let mut builder = SessionStateBuilder::new_from_existing(self.base.clone())
            .with_config(config)
            .with_runtime_env(runtime);
        if !settings.strata_group_by_operators() {
            builder = builder.with_physical_optimizer_rules(
                datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules,
            );
        }
        Ok(builder.build())
    }

    /// Where and how the query's operators spill, from its settings.
    fn spill_config(&self, query: &QueryContext) -> Result<SpillConfig> {
        let settings = &query.settings;
        let ratio = |name: &str, value: f64| -> Result<f64> {
            if !(0.0..=1.0).contains(&value) {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Setting {name} should be between 0 and 1, got {value}"),
                ));
            }
            Ok(value)
        };
        let mut config = SpillConfig::new(PathBuf::new());
        config.codec = TemporaryCodec::parse(&settings.temporary_data_compression())?;
        config.directories = self.instance.tmp_directories.clone();
        config.max_disk_bytes = settings.max_temporary_data_on_disk_size_for_query();
        config.warm_ratio = ratio(
            "temporary_data_warm_ratio",
            settings.temporary_data_warm_ratio(),
        )?;
        config.join_bytes_before_external = settings.max_bytes_before_external_join();
        config.join_ratio_before_external = ratio(
            "max_bytes_ratio_before_external_join",
            settings.max_bytes_ratio_before_external_join(),
        )?;
        config.group_by_bytes_before_external = settings.max_bytes_before_external_group_by();
        config.group_by_ratio_before_external = ratio(
            "max_bytes_ratio_before_external_group_by",
            settings.max_bytes_ratio_before_external_group_by(),
        )?;
        config.sort_bytes_before_external = settings.max_bytes_before_external_sort();
        config.sort_ratio_before_external = ratio(
            "max_bytes_ratio_before_external_sort",
            settings.max_bytes_ratio_before_external_sort(),
        )?;
        config.counters = Arc::clone(&query.spill);
        Ok(config)
    }

    pub fn new_session(self: &Arc<Self>) -> Session {
        Session {
            engine: Arc::clone(self),
            settings: Settings::default(),
            current_database: DEFAULT_DATABASE.to_string(),
            statement_text: String::new(),
            current_query: parking_lot::Mutex::new(None),
            attaching: None,
            input: None,
            client: Arc::new(ClientInfo::local()),
            query_id: parking_lot::Mutex::new(None),
            temporary: None,
        }
    }
}

/// A result set being produced.
pub struct QueryResult {
    pub schema: SchemaRef,
    pub stream: SendableRecordBatchStream,
    /// The output format the statement asked for with `FORMAT`, if any.
    pub format: Option<OutputFormat>,
    pub query: Arc<QueryContext>,
}

/// `stream` with its repeated columns under their own names
/// (`strata_sql::repeated_columns`); Arrow allows a schema to repeat a name.
fn show_repeated_columns(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    use strata_sql::repeated_columns::{MARK, shown_name};
    let schema = stream.schema();
    if !schema.fields().iter().any(|f| f.name().contains(MARK)) {
        return stream;
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_name(shown_name(f.name())))
        .collect();
    let shown = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let renamed = Arc::clone(&shown);
    let batches = stream.map(move |batch| {
        let batch = batch?;
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&renamed),
            batch.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    });
    Box::pin(RecordBatchStreamAdapter::new(shown, batches))
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
    engine: Arc<Engine>,
    pub settings: Settings,
    pub current_database: String,
    /// The statement being executed and the query opened for it, so failures
    /// are logged against the right query.
    statement_text: String,
    current_query: parking_lot::Mutex<Option<Arc<QueryContext>>>,
    /// Set while stored tables are loaded: CREATE then opens this table's
    /// existing data under its stored name and stores nothing.
    attaching: Option<StoredTable>,
    /// Data for an `INSERT ... FORMAT` that has none inline (the CLI's stdin).
    input: Option<Box<dyn std::io::Read + Send + Sync>>,
    /// Who the session's queries run for.
    pub client: Arc<ClientInfo>,
    /// The id the next query opened takes (the HTTP `query_id` parameter);
    /// a fresh UUID when unset.
    query_id: parking_lot::Mutex<Option<String>>,
    /// The session's temporary tables, once it has made one.
    temporary: Option<temporary::TemporaryTables>,
}

/// A function's name followed by its aliases.
fn all_names<'a>(name: &'a str, aliases: &'a [String]) -> impl Iterator<Item = String> + 'a {
    std::iter::once(name.to_string()).chain(aliases.iter().cloned())
}

fn value_text(expr: &Expr) -> Result<String> {
    Ok(match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.clone(),
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

/// `readonly = 1` forbids changing any setting, `readonly = 2` changing
/// `readonly` itself, as ClickHouse's settings constraints do; a change that
/// turns `readonly = 1` on may change nothing else.
pub fn check_readonly(before: &Settings, after: &Settings) -> Result<()> {
    let changed = before.differences(after);
    let forbidden = match (before.readonly(), after.readonly()) {
        (1, _) => changed.first(),
        (0, 1) => changed.iter().find(|name| **name != "readonly"),
        (0, _) => None,
        _ => changed.iter().find(|name| **name == "readonly"),
    };
    match forbidden {
        Some(name) => Err(StrataError::new(
            ErrorCode::READONLY,
            format!("Cannot modify '{name}' setting in readonly mode"),
        )),
        None => Ok(()),
    }
}

fn strings_result(column: &str, rows: Vec<String>) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let schema = Arc::new(Schema::new(vec![Field::new(column, DataType::Utf8, false)]));
    let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(StringArray::from(rows))])?;
    Ok((schema, vec![batch]))
}

/// Splits the first word off `text` if it is one of `words` (case-insensitive).
fn strip_keyword<'a>(text: &'a str, words: &[&'a str]) -> Option<(&'a str, &'a str)> {
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
        *self.current_query.lock() = None;
        let outcome = match self.check_query_id() {
            Ok(()) => self.execute_statement(text).await,
            Err(e) => Err(e),
        };
        let instance = Arc::clone(&self.engine.instance);
        match outcome {
            Ok(StatementOutcome::Done(query)) => {
                self.log_start(&query);
                if query.mark_finished() {
                    instance
                        .query_log
                        .record(LogType::QueryFinish, &query, None);
                }
                Ok(StatementOutcome::Done(query))
            }
            Ok(StatementOutcome::Rows(mut result)) => {
                self.log_start(&result.query);
                result.stream = Box::pin(LoggedStream {
                    inner: result.stream,
                    query: Arc::clone(&result.query),
                    instance,
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
                if query.mark_finished() {
                    instance.query_log.record(kind, &query, Some(&error));
                }
                Err(error)
            }
        }
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

    /// `SYSTEM ...` commands. System logs are written as queries end, so
    /// FLUSH LOGS has nothing to wait for; it is accepted because ClickHouse
    /// users run it before reading system.query_log.
    fn system_command(&self, rest: &str) -> Result<StatementOutcome> {
        let words: Vec<String> = rest.split_whitespace().map(str::to_uppercase).collect();
        match words
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["FLUSH", "LOGS", ..] => self.done(),
            _ => Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!(
                    "Syntax error: unknown SYSTEM command 'SYSTEM {}'",
                    rest.trim()
                ),
            )),
        }
    }

    /// Logs QueryStart once, when the query begins to run.
    fn log_start(&self, query: &Arc<QueryContext>) {
        if query.begin() {
            self.engine
                .instance
                .query_log
                .record(LogType::QueryStart, query, None);
        }
    }

    async fn execute_statement(&mut self, text: &str) -> Result<StatementOutcome> {
        if let Some((_, rest)) = strip_keyword(text, &["EXPLAIN"]) {
            return self.explain(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["DESCRIBE", "DESC"]) {
            return self.describe(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["SYSTEM"]) {
            return self.system_command(rest);
        }
        if let Some((_, rest)) = strip_keyword(text, &["KILL"]) {
            return self.kill(rest).await;
        }
        if let Some((_, rest)) = strip_keyword(text, &["ALTER", "CHECK"])
            && strip_keyword(rest, &["TABLE"]).is_some()
        {
            return self.with_trailing_settings(text).await;
        }
        if let Some(insert) = split_insert_format(text) {
            return self.insert_formatted(insert).await;
        }
        if is_create_table(text) {
            let split = split_create_table(text)?;
            if let Statement::CreateTable(create) = parse_statement(&split.statement)?.statement {
                return self.create_table(create, split.engine, split.codecs).await;
            }
        }
        let (text, clauses) = if is_query(text) {
            split_trailing_clauses(text)?
        } else {
            (text.to_string(), TrailingClauses::default())
        };
        let parsed = parse_statement(&text)?;
        match parsed.statement {
            Statement::Query(query) => self.select(query, &clauses).await,
            Statement::Insert(mut insert) => {
                self.check_writable()?;
                self.name_insert_source(&mut insert).await?;
                let (plan, state, query) = self
                    .plan(Statement::Insert(insert), self.settings.clone())
                    .await?;
                let physical = state.create_physical_plan(&plan).await?;
                self.log_start(&query);
                collect(physical, state.task_ctx()).await?;
                Ok(StatementOutcome::Done(query))
            }
            Statement::CreateTable(create) => self.create_table(create, None, Vec::new()).await,
            Statement::CreateDatabase {
                db_name,
                if_not_exists,
                ..
            } => {
                self.check_writable()?;
                let name = single_name(&db_name)?;
                if self.engine.catalog.schema(&name).is_some() {
                    if if_not_exists {
                        return self.done();
                    }
                    return Err(StrataError::new(
                        ErrorCode::DATABASE_ALREADY_EXISTS,
                        format!("Database {name} already exists"),
                    ));
                }
                self.engine.data_path.create_database(&name)?;
                self.engine
                    .catalog
                    .register_schema(&name, Arc::new(MemorySchemaProvider::new()))?;
                self.done()
            }
            Statement::Drop {
                object_type,
                if_exists,
                names,
                temporary,
                ..
            } => self.drop(object_type, if_exists, temporary, &names).await,
            Statement::RenameTable(renames) => {
                self.check_writable()?;
                for rename in renames {
                    self.rename_table(&rename.old_name, &rename.new_name)
                        .await?;
                }
                self.done()
            }
            Statement::Truncate(truncate) => {
                self.check_writable()?;
                for target in &truncate.table_names {
                    match self.user_table(&target.name).await? {
                        UserTable::Memory(table) => table.truncate().await,
                        UserTable::MergeTree(table) => table.data.truncate()?,
                    }
                }
                self.done()
            }
            Statement::Set(set) => {
                // Every value is checked before any changes: all or none.
                let mut settings = self.settings.clone();
                for (name, value) in set_assignments(set)? {
                    settings.set(&name, &value_text(&value)?)?;
                }
                check_readonly(&self.settings, &settings)?;
                self.settings = settings;
                self.done()
            }
            Statement::Use(Use::Object(name) | Use::Database(name) | Use::Schema(name)) => {
                let database = single_name(&name)?;
                if self.engine.catalog.schema(&database).is_none() {
                    return Err(StrataError::new(
                        ErrorCode::UNKNOWN_DATABASE,
                        format!("Database {database} does not exist"),
                    ));
                }
                self.current_database = database;
                self.done()
            }
            Statement::ShowDatabases { .. } => {
                Box::pin(self.execute("SELECT name FROM system.databases ORDER BY name")).await
            }
            Statement::ShowTables { show_options, .. } => {
                let database = match show_options.show_in.and_then(|i| i.parent_name) {
                    Some(name) => single_name(&name)?,
                    None => self.current_database.clone(),
                };
                if self.engine.catalog.schema(&database).is_none() {
                    return Err(StrataError::new(
                        ErrorCode::UNKNOWN_DATABASE,
                        format!("Database {database} does not exist"),
                    ));
                }
                let sql = format!(
                    "SELECT name FROM system.tables WHERE database = '{}' ORDER BY name",
                    database.replace('\'', "\\'")
                );
                Box::pin(self.execute(&sql)).await
            }
            Statement::ShowCreate {
                obj_type: ShowCreateObject::Table,
                obj_name,
            } => {
                let statement = self
                    .user_table(&obj_name)
                    .await?
                    .identity()
                    .create_statement;
                let (schema, batches) = strings_result("statement", vec![statement])?;
                self.rows(schema, batches)
            }
            Statement::OptimizeTable {
                name,
                partition,
                include_final,
                deduplicate,
                ..
            } => {
                self.check_writable()?;
                if deduplicate.is_some() {
                    return Err(StrataError::new(
                        ErrorCode::NOT_IMPLEMENTED,
                        "OPTIMIZE ... DEDUPLICATE is not supported yet",
                    ));
                }
                let UserTable::MergeTree(table) = self.user_table(&name).await? else {
                    return Err(StrataError::new(
                        ErrorCode::NOT_IMPLEMENTED,
                        "OPTIMIZE is supported only for MergeTree tables",
                    ));
                };
                let partition_id = partition.map(|p| partition_id_text(&p)).transpose()?;
                table.optimize(partition_id.as_deref(), include_final)?;
                self.done()
            }
            other => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Statement is not supported yet: {}",
                    other.to_string().chars().take(100).collect::<String>()
                ),
            )),
        }
    }

    fn check_writable(&self) -> Result<()> {
        if self.settings.readonly() > 0 {
            return Err(StrataError::new(
                ErrorCode::READONLY,
                "Cannot execute query in readonly mode",
            ));
        }
        Ok(())
    }

    fn new_query(&self, settings: Settings) -> Arc<QueryContext> {
        let identity = (self.query_id.lock().take(), Arc::clone(&self.client));
        let query = self.engine.open_query(
            &self.statement_text,
            settings,
            &self.current_database,
            identity,
        );
        *self.current_query.lock() = Some(Arc::clone(&query));
        query
    }

    fn done(&self) -> Result<StatementOutcome> {
        Ok(StatementOutcome::Done(
            self.new_query(self.settings.clone()),
        ))
    }

    fn rows(&self, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<StatementOutcome> {
        let stream = futures::stream::iter(batches.into_iter().map(Ok));
        Ok(StatementOutcome::Rows(QueryResult {
            schema: Arc::clone(&schema),
            stream: Box::pin(RecordBatchStreamAdapter::new(schema, stream)),
            format: None,
            query: self.new_query(self.settings.clone()),
        }))
    }

    /// Parses, rewrites and plans `statement` with `settings`.
    async fn plan(
        &self,
        mut statement: Statement,
        settings: Settings,
    ) -> Result<(LogicalPlan, SessionState, Arc<QueryContext>)> {
        self.rewrite(&mut statement, &settings)?;
        self.qualify_temporary_tables(&mut statement);
        self.check_tables_exist(&statement)?;
        let catalogs = self.expose_virtual_columns(&mut statement).await?;
        let query = self.new_query(settings);
        let mut state = self.engine.query_state(&query)?;
        if let Some(catalogs) = catalogs {
            state = SessionStateBuilder::new_from_existing(state)
                .with_catalog_list(catalogs)
                .build();
        }
        let plan = state
            .statement_to_plan(DFStatement::Statement(Box::new(statement)))
            .await?;
        let plan = self.engine.rewriter.rewrite(plan, &query.settings)?;
        Ok((plan, state, query))
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
    fn rewrite(&self, statement: &mut Statement, settings: &Settings) -> Result<()> {
        let engine = &self.engine;
        let server_setting = |name: &str| engine.instance.server_setting(name);
        let resolve_function = |name: &str| engine.resolve_function(name);
        let is_aggregate = |name: &str| engine.base.aggregate_functions().contains_key(name);
        let context = AstContext {
            settings,
            current_database: &self.current_database,
            current_user: &self.client.user,
            version: VERSION,
            server_setting: &server_setting,
            resolve_function: &resolve_function,
            is_aggregate: &is_aggregate,
        };
        rewrite_statement(statement, &context)
    }

    /// Parses text that must be a query (the body of EXPLAIN or DESCRIBE), with
    /// the settings its SETTINGS clause gives.
    fn parse_query(
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
    fn query_options(
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
    fn settings_with(&self, changes: &[(String, String)]) -> Result<Settings> {
        let mut settings = self.settings.clone();
        if changes.is_empty() {
            return Ok(settings);
        }
        for (name, value) in changes {
            settings.set(name, value)?;
        }
        check_readonly(&self.settings, &settings)?;
        Ok(settings)
    }

    /// Runs a statement that is not a query but takes a trailing `SETTINGS`
    /// clause (`CHECK TABLE`, `ALTER`) with those settings while it runs.
    async fn with_trailing_settings(&mut self, text: &str) -> Result<StatementOutcome> {
        let (body, clauses) = match split_trailing_clauses(text)? {
            // No ALTER ends in FORMAT: that is a column named `format`.
            (_, clauses) if clauses.format.is_some() => (text.to_string(), Default::default()),
            split => split,
        };
        let settings = self.settings_with(&clauses.settings)?;
        let saved = std::mem::replace(&mut self.settings, settings);
        let outcome = self.execute_part_or_alter(&body).await;
        self.settings = saved;
        outcome
    }

    async fn execute_part_or_alter(&mut self, text: &str) -> Result<StatementOutcome> {
        if let Some(check) = strata_sql::part_statements::parse_check_table(text)? {
            return self.check_table(check).await;
        }
        if let Some(operation) = strata_sql::part_statements::parse_part_operation(text)? {
            return self.part_operation(operation).await;
        }
        let Statement::AlterTable(alter) = parse_alter_statement(text)?.statement else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Syntax error: expected ALTER TABLE or CHECK TABLE: {text}"),
            ));
        };
        self.alter_table(&alter.name, alter.operations).await?;
        self.done()
    }

    async fn select(
        &mut self,
        mut query: Box<Query>,
        clauses: &TrailingClauses,
    ) -> Result<StatementOutcome> {
        let (format, settings) = self.query_options(&mut query, clauses)?;
        strata_sql::repeated_columns::mark_repeated_columns(&mut query);
        let (plan, state, query_context) = self.plan(Statement::Query(query), settings).await?;
        let physical = state.create_physical_plan(&plan).await?;
        self.log_start(&query_context);
        let stream = show_repeated_columns(execute_stream(physical, state.task_ctx())?);
        Ok(StatementOutcome::Rows(QueryResult {
            schema: stream.schema(),
            stream,
            format,
            query: query_context,
        }))
    }

    async fn explain(&mut self, rest: &str) -> Result<StatementOutcome> {
        let kinds = ["PLAN", "PIPELINE", "ANALYZE", "SYNTAX", "AST"];
        let (kind, body) = strip_keyword(rest, &kinds).unwrap_or(("PLAN", rest));
        let (query, settings) = self.parse_query(
            body.trim(),
            (
                ErrorCode::NOT_IMPLEMENTED,
                "EXPLAIN supports SELECT queries",
            ),
        )?;
        let lines: Vec<String> = match kind {
            "SYNTAX" | "AST" => {
                let mut statement = Statement::Query(query);
                self.rewrite(&mut statement, &settings)?;
                vec![statement.to_string()]
            }
            _ => {
                let (plan, state, _) = self.plan(Statement::Query(query), settings).await?;
                match kind {
                    "PLAN" => {
                        let optimized = state.optimize(&plan)?;
                        optimized
                            .display_indent()
                            .to_string()
                            .lines()
                            .map(str::to_string)
                            .collect()
                    }
                    "PIPELINE" => {
                        let physical = state.create_physical_plan(&plan).await?;
                        displayable(physical.as_ref())
                            .indent(true)
                            .to_string()
                            .lines()
                            .map(str::to_string)
                            .collect()
                    }
                    _ => {
                        let physical: Arc<dyn ExecutionPlan> =
                            state.create_physical_plan(&plan).await?;
                        let mut stream = execute_stream(Arc::clone(&physical), state.task_ctx())?;
                        while let Some(batch) = stream.next().await {
                            batch?;
                        }
                        datafusion::physical_plan::display::DisplayableExecutionPlan::with_metrics(
                            physical.as_ref(),
                        )
                        .indent(true)
                        .to_string()
                        .lines()
                        .map(str::to_string)
                        .collect()
                    }
                }
            }
        };
        let (schema, batches) = strings_result("explain", lines)?;
        self.rows(schema, batches)
    }

    async fn describe(&mut self, rest: &str) -> Result<StatementOutcome> {
        let body = rest.trim();
        let mut format = None;
        let schema: SchemaRef =
            if body.starts_with('(') || strip_keyword(body, &["SELECT", "WITH"]).is_some() {
                let inner = body.trim_start_matches('(').trim_end_matches(')');
                let (query, settings) = self.parse_query(
                    inner,
                    (
                        ErrorCode::SYNTAX_ERROR,
                        "DESCRIBE expects a table or a query",
                    ),
                )?;
                let (plan, _, _) = self.plan(Statement::Query(query), settings).await?;
                Arc::new(plan.schema().as_arrow().clone())
            } else {
                let name = strip_keyword(body, &["TABLE"]).map_or(body, |(_, r)| r.trim());
                let (name, clauses) = split_trailing_clauses(name)?;
                format = clauses
                    .format
                    .as_deref()
                    .map(OutputFormat::from_name)
                    .transpose()?;
                let parsed = parse_statement(&format!("SELECT * FROM {name}"))?;
                let Statement::Query(query) = parsed.statement else {
                    unreachable!("a SELECT parses as a query")
                };
                let (plan, _, _) = self
                    .plan(Statement::Query(query), self.settings.clone())
                    .await?;
                Arc::new(plan.schema().as_arrow().clone())
            };
        let columns = [
            "name",
            "type",
            "default_type",
            "default_expression",
            "comment",
            "codec_expression",
            "ttl_expression",
        ];
        let out_schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|c| Field::new(*c, DataType::Utf8, false))
                .collect::<Vec<_>>(),
        ));
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let types: Vec<String> = schema.fields().iter().map(|f| field_type_name(f)).collect();
        let empty = vec![String::new(); names.len()];
        let mut arrays: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
            Arc::new(StringArray::from(names)),
            Arc::new(StringArray::from(types)),
        ];
        for _ in 2..columns.len() {
            arrays.push(Arc::new(StringArray::from(empty.clone())));
        }
        let batch = RecordBatch::try_new(Arc::clone(&out_schema), arrays)?;
        let mut outcome = self.rows(out_schema, vec![batch])?;
        if let StatementOutcome::Rows(result) = &mut outcome {
            result.format = format;
        }
        Ok(outcome)
    }

    /// `db.table`, or `table` among the session's temporary tables, else in
    /// the current database.
    fn table_name(&self, name: &ObjectName) -> Result<(String, String)> {
        let (database, table) = self.table_in_database(name)?;
        if name.0.len() == 1
            && let Some(temporary) = self.temporary_database_of(&table)
        {
            return Ok((temporary, table));
        }
        Ok((database, table))
    }

    /// `db.table` or `table` in the current database.
    fn table_in_database(&self, name: &ObjectName) -> Result<(String, String)> {
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

    fn database(&self, name: &str) -> Result<Arc<dyn SchemaProvider>> {
        self.engine.catalog.schema(name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_DATABASE,
                format!("Database {name} does not exist"),
            )
        })
    }

    /// A user table (Memory or MergeTree) by name.
    async fn user_table(&self, name: &ObjectName) -> Result<UserTable> {
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
        any.downcast::<MergeTreeProvider>()
            .map(UserTable::MergeTree)
            .map_err(|_| {
                StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("{database}.{table} is not a Memory or MergeTree table"),
                )
            })
    }

    async fn create_table(
        &mut self,
        create: CreateTable,
        engine: Option<EngineClause>,
        codecs: Vec<(usize, String)>,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let (database, table) = match &self.attaching {
            Some(stored) => (stored.database.clone(), stored.name.clone()),
            None if create.temporary => self.temporary_table_name(&create.name)?,
            None => self.table_in_database(&create.name)?,
        };
        if database == SYSTEM_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Cannot create tables in the system database",
            ));
        }
        let schema_provider = self.database(&database)?;
        if schema_provider.table_exist(&table) {
            if create.if_not_exists {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {database}.{table} already exists"),
            ));
        }
        if create.temporary {
            temporary::check_engine(engine.as_ref())?;
        }
        let engine = match engine {
            Some(engine) => engine,
            None if create.temporary => EngineClause::memory(),
            None => {
                return Err(StrataError::new(
                    ErrorCode::ENGINE_REQUIRED,
                    "Table engine is not specified in CREATE query",
                ));
            }
        };
        let merge_tree = match engine.name.as_str() {
            "Memory" => None,
            "MergeTree" => Some(MergeTreeDefinition::from_clause(&engine)?),
            other if CLICKHOUSE_ENGINES.contains(&other) => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("Table engine {other} is not supported yet; Memory and MergeTree are"),
                ));
            }
            other => {
                return Err(StrataError::new(
                    ErrorCode::UNKNOWN_STORAGE,
                    format!("Unknown table engine {other}"),
                ));
            }
        };
        let (fields, mut extras) = column_definitions(&create.columns, codecs)?;
        let mut data = Vec::new();
        let schema: SchemaRef = match &create.query {
            Some(_) if !fields.is_empty() => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "CREATE TABLE with both a column list and AS SELECT is not supported yet",
                ));
            }
            Some(query) => {
                let (plan, state, _) = self
                    .plan(Statement::Query(query.clone()), self.settings.clone())
                    .await?;
                let physical = state.create_physical_plan(&plan).await?;
                data = collect(physical, state.task_ctx()).await?;
                let schema = Arc::new(plan.schema().as_arrow().clone());
                extras = vec![ColumnExtras::default(); schema.fields().len()];
                schema
            }
            None if fields.is_empty() => {
                return Err(StrataError::new(
                    ErrorCode::INCORRECT_QUERY,
                    "CREATE TABLE needs columns or AS SELECT",
                ));
            }
            None => Arc::new(Schema::new(fields)),
        };
        let identity = TableIdentity {
            create_statement: create_statement(
                &database,
                &table,
                &schema,
                &extras,
                merge_tree.as_ref(),
            ),
            uuid: self
                .attaching
                .as_ref()
                .map_or_else(uuid::Uuid::new_v4, |stored| stored.uuid),
            database: database.clone(),
            name: table.clone(),
        };
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        let defaults = self.column_defaults(&state, &schema, &extras)?;
        let provider: Arc<dyn TableProvider> = match &merge_tree {
            None => Arc::new(MemoryTable::new(
                Arc::clone(&schema),
                identity.clone(),
                defaults,
            )?),
            Some(definition) => {
                let dir = self.engine.data_path.table_data(&identity.uuid);
                let mut compiled = definition.clone();
                self.rewrite_exprs(&mut compiled.partition_by)?;
                self.rewrite_exprs(&mut compiled.order_by)?;
                let data = MergeTreeTable::open(
                    &dir,
                    Arc::clone(&schema),
                    compiled.compile_keys(&state, &schema)?,
                    column_codecs(&extras)?,
                    constant_defaults(&state, &schema, &extras, &defaults)?,
                    self.merge_memory(&identity),
                    definition.settings.clone(),
                )?;
                Arc::new(MergeTreeProvider::new(identity.clone(), data, defaults))
            }
        };
        if !data.is_empty() {
            let source =
                datafusion::datasource::MemTable::try_new(Arc::clone(&schema), vec![data])?;
            let source_plan = source.scan(&state, None, &[], None).await?;
            let insert = provider
                .insert_into(&state, source_plan, InsertOp::Append)
                .await?;
            collect(insert, state.task_ctx()).await?;
        }
        if self.attaching.is_none() && !create.temporary {
            self.engine.data_path.store_table(&identity.stored())?;
        }
        schema_provider.register_table(table, provider)?;
        self.done()
    }

    /// `exprs` with ClickHouse's meaning, as a SELECT's would get: function
    /// names resolved case-insensitively, `if` and friends rewritten.
    fn rewrite_exprs(&self, exprs: &mut [datafusion::sql::sqlparser::ast::Expr]) -> Result<()> {
        use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr};
        if exprs.is_empty() {
            return Ok(());
        }
        let list: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
        let mut statement = parse_statement(&format!("SELECT {}", list.join(", ")))?.statement;
        self.rewrite(&mut statement, &self.settings)?;
        let not_a_key = |what: String| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("{what} cannot be a table key expression"),
            )
        };
        let Statement::Query(query) = statement else {
            return Err(not_a_key(list.join(", ")));
        };
        let SetExpr::Select(select) = *query.body else {
            return Err(not_a_key(list.join(", ")));
        };
        if select.projection.len() != exprs.len() {
            return Err(not_a_key(list.join(", ")));
        }
        for (slot, item) in exprs.iter_mut().zip(select.projection) {
            match item {
                SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
                    *slot = expr
                }
                other => return Err(not_a_key(other.to_string())),
            }
        }
        Ok(())
    }

    /// Each column's `DEFAULT` as an expression of the column's type.
    fn column_defaults(
        &self,
        state: &SessionState,
        schema: &SchemaRef,
        extras: &[ColumnExtras],
    ) -> Result<HashMap<String, datafusion::logical_expr::Expr>> {
        // A default may refer to the row's other columns (`DEFAULT toDate(ts)`).
        let row = datafusion::common::DFSchema::try_from(schema.as_ref().clone())?;
        let mut defaults = HashMap::new();
        for (field, extra) in schema.fields().iter().zip(extras) {
            let Some(default) = &extra.default else {
                // Without a DEFAULT, an omitted column takes its type's
                // default value, NULL if it is Nullable.
                if !field.is_nullable()
                    && let Ok(zero) =
                        datafusion::common::ScalarValue::new_default(field.data_type())
                {
                    defaults.insert(field.name().clone(), datafusion::logical_expr::lit(zero));
                }
                continue;
            };
            let expr = state.create_logical_expr_from_sql_expr(
                datafusion::sql::sqlparser::ast::ExprWithAlias {
                    expr: default.clone(),
                    alias: None,
                },
                &row,
            )?;
            let expr = datafusion::logical_expr::cast(expr, field.data_type().clone());
            defaults.insert(field.name().clone(), expr);
        }
        Ok(defaults)
    }

    async fn drop(
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
                    if temporary && !is_temporary_database(&database) {
                        if if_exists {
                            continue;
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
                        None if if_exists => continue,
                        None => self.database(&database)?,
                    };
                    match provider.deregister_table(&table)? {
                        Some(removed) => self.remove_table_files(&database, &table, removed)?,
                        None if if_exists => {}
                        None => {
                            return Err(StrataError::new(
                                ErrorCode::UNKNOWN_TABLE,
                                format!("Table {database}.{table} does not exist"),
                            ));
                        }
                    }
                }
                ObjectType::Database | ObjectType::Schema => {
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
}

impl Session {
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
        let table = self.user_table(from).await?;
        let target = self.database(&to_database)?;
        if target.table_exist(&to_table) {
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {to_database}.{to_table} already exists"),
            ));
        }
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

    /// A MergeTree table's merges each get a memory account on the server's
    /// budget, named after the table and the part being made.
    fn merge_memory(&self, identity: &TableIdentity) -> strata_storage::merge_tree::MergeMemory {
        let server = Arc::clone(&self.engine.instance.memory);
        let table = identity.qualified_name();
        Arc::new(move |what: &str| {
            let account = server.new_query(
                format!("{table}: {what}"),
                strata_memory::QueryLimits::default(),
            );
            account as Arc<dyn datafusion::execution::memory_pool::MemoryPool>
        })
    }

    /// Prepares an INSERT's source for DataFusion's planning:
    /// - a UUID column is read through `toUUID`: DataFusion cannot cast text
    ///   to a UUID. In `VALUES` each value of the column is wrapped (DataFusion
    ///   types `VALUES` as the table's columns), any other source is wrapped
    ///   in a SELECT over its columns by name;
    /// - when a column left out has a DEFAULT that refers to other columns
    ///   (`DEFAULT id * 2`), the source is wrapped in such a SELECT too:
    ///   DataFusion computes defaults over the source's own column names.
    async fn name_insert_source(
        &self,
        insert: &mut datafusion::sql::sqlparser::ast::Insert,
    ) -> Result<()> {
        use datafusion::sql::sqlparser::ast::{self, SetExpr};
        let (TableObject::TableName(name), Some(source)) = (&insert.table, &mut insert.source)
        else {
            return Ok(());
        };
        let table = self.user_table(name).await?.provider();
        let schema = table.schema();
        let given: Vec<String> = if insert.columns.is_empty() {
            schema.fields().iter().map(|f| f.name().clone()).collect()
        } else {
            insert
                .columns
                .iter()
                .map(single_name)
                .collect::<Result<_>>()?
        };
        let defaults_need_names = !insert.columns.is_empty()
            && schema.fields().iter().any(|field| {
                !given.contains(field.name())
                    && table
                        .get_column_default(field.name())
                        .is_some_and(|default| !default.column_refs().is_empty())
            });
        // Columns whose type DataFusion cannot cast text to are read by
        // Strata's own function for the type.
        let text_reader = |column: &String| {
            let field = schema.field_with_name(column).ok()?;
            match field.data_type() {
                _ if strata_common::types::is_uuid(field) => {
                    Some(strata_sql::ast_rewrite::TextReader::Uuid)
                }
                DataType::FixedSizeBinary(width) => Some(
                    strata_sql::ast_rewrite::TextReader::FixedString(*width as u64),
                ),
                _ => None,
            }
        };
        let mut texts_read = !given.iter().any(|c| text_reader(c).is_some());
        if let SetExpr::Values(values) = source.body.as_mut() {
            for row in &mut values.rows {
                for (value, column) in row.content.iter_mut().zip(&given) {
                    if let Some(reader) = text_reader(column) {
                        *value = reader.read(value.clone());
                    }
                }
            }
            texts_read = true;
        }
        if texts_read && !defaults_need_names {
            return Ok(());
        }
        let quote = |c: &String| format!("`{}`", c.replace('`', "\\`"));
        let columns: Vec<String> = given.iter().map(quote).collect();
        let items: Vec<String> = given
            .iter()
            .map(|c| match text_reader(c) {
                Some(reader) if !texts_read => {
                    format!(
                        "{} AS {}",
                        reader.read(ast::Expr::Identifier(ast::Ident::with_quote(
                            '"',
                            c.as_str()
                        ))),
                        quote(c)
                    )
                }
                _ => quote(c),
            })
            .collect();
        let wrapped = format!(
            "SELECT {} FROM ({source}) AS _insert({})",
            items.join(", "),
            columns.join(", ")
        );
        let Statement::Query(query) = parse_statement(&wrapped)?.statement else {
            unreachable!("a SELECT parses as a query");
        };
        insert.source = Some(query);
        Ok(())
    }

    /// Removes a dropped table's stored definition and data.
    fn remove_table_files(
        &self,
        database: &str,
        table: &str,
        provider: Arc<dyn TableProvider>,
    ) -> Result<()> {
        let any: Arc<dyn std::any::Any + Send + Sync> = provider;
        if let Ok(merge_tree) = any.downcast::<MergeTreeProvider>() {
            merge_tree.close();
            merge_tree.data.remove_files()?;
        }
        self.engine.data_path.remove_table(database, table)
    }
}

/// The value of each constant DEFAULT: what a part written before its
/// column was added reads for it. A DEFAULT that depends on other columns
/// is left out (such parts read the type's default).
fn constant_defaults(
    state: &SessionState,
    schema: &SchemaRef,
    extras: &[ColumnExtras],
    defaults: &HashMap<String, datafusion::logical_expr::Expr>,
) -> Result<HashMap<String, datafusion::common::ScalarValue>> {
    use datafusion::logical_expr::ColumnarValue;
    let empty = datafusion::common::DFSchema::empty();
    let one_row = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(1)),
    )?;
    let mut values = HashMap::new();
    for (field, extra) in schema.fields().iter().zip(extras) {
        let Some(expr) = defaults.get(field.name()) else {
            continue;
        };
        if extra.default.is_none() || !expr.column_refs().is_empty() {
            continue;
        }
        let physical = state.create_physical_expr(expr.clone(), &empty)?;
        let value = match physical.evaluate(&one_row)? {
            ColumnarValue::Scalar(value) => value,
            ColumnarValue::Array(array) => {
                datafusion::common::ScalarValue::try_from_array(&array, 0)?
            }
        };
        values.insert(field.name().clone(), value);
    }
    Ok(values)
}

/// A table users create.
enum UserTable {
    Memory(Arc<MemoryTable>),
    MergeTree(Arc<MergeTreeProvider>),
}

impl UserTable {
    fn identity(&self) -> TableIdentity {
        match self {
            UserTable::Memory(table) => table.identity(),
            UserTable::MergeTree(table) => table.identity(),
        }
    }

    fn set_identity(&self, identity: TableIdentity) {
        match self {
            UserTable::Memory(table) => table.set_identity(identity),
            UserTable::MergeTree(table) => table.set_identity(identity),
        }
    }

    fn provider(self) -> Arc<dyn TableProvider> {
        match self {
            UserTable::Memory(table) => table,
            UserTable::MergeTree(table) => table,
        }
    }
}

/// The partition id an `OPTIMIZE ... PARTITION` names: `ID 'id'` or a value
/// written as its id reads (`PARTITION 202401`, `PARTITION tuple()`).
fn partition_id_text(partition: &Partition) -> Result<String> {
    match partition {
        Partition::Identifier(id) => Ok(id.value.clone()),
        Partition::Expr(Expr::Value(value)) => Ok(match &value.value {
            Value::SingleQuotedString(text) => text.replace('-', ""),
            other => other.to_string(),
        }),
        Partition::Expr(Expr::Function(f)) if f.to_string().eq_ignore_ascii_case("tuple()") => {
            Ok(strata_storage::merge_tree::keys::WHOLE_TABLE_PARTITION.to_string())
        }
        other => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("PARTITION {other} is not supported yet; use PARTITION ID 'id'"),
        )),
    }
}

/// Whether a statement is a query (where trailing FORMAT and SETTINGS clauses belong).
/// A result stream that counts result rows and writes the query's last
/// system.query_log entry when it ends, fails, or is dropped unfinished.
struct LoggedStream {
    inner: SendableRecordBatchStream,
    query: Arc<QueryContext>,
    instance: Arc<Instance>,
}

impl LoggedStream {
    fn finish(&self, error: Option<&StrataError>) {
        if self.query.mark_finished() {
            let kind = match error {
                Some(_) => LogType::ExceptionWhileProcessing,
                None => LogType::QueryFinish,
            };
            self.instance.query_log.record(kind, &self.query, error);
        }
    }
}

impl futures::Stream for LoggedStream {
    type Item = datafusion::common::Result<RecordBatch>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        match self.inner.poll_next_unpin(cx) {
            std::task::Poll::Ready(Some(Ok(batch))) => {
                self.query.add_result_rows(batch.num_rows() as u64);
                std::task::Poll::Ready(Some(Ok(batch)))
            }
            std::task::Poll::Ready(Some(Err(e))) => {
                // Classified once here, so the log and the caller see the same error.
                let error = StrataError::from_datafusion(e);
                self.finish(Some(&error));
                std::task::Poll::Ready(Some(Err(error.into_datafusion())))
            }
            std::task::Poll::Ready(None) => {
                self.finish(None);
                std::task::Poll::Ready(None)
            }
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl datafusion::physical_plan::RecordBatchStream for LoggedStream {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }
}

impl Drop for LoggedStream {
    fn drop(&mut self) {
        if self.query.is_cancelled() {
            let error = StrataError::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled");
            self.finish(Some(&error));
        } else {
            self.finish(None);
        }
    }
}

fn is_query(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('(') || strip_keyword(trimmed, &["SELECT", "WITH"]).is_some()
}

/// The `name = value` pairs of `SET a = 1` and `SET a = 1, b = 2`.
fn set_assignments(set: Set) -> Result<Vec<(String, Expr)>> {
    match set {
        // sqlparser reads `SET a = 1, b = 2` as `a` set to the list `1, b = 2`.
        Set::SingleAssignment {
            variable, values, ..
        } => {
            let mut values = values.into_iter();
            let first = values
                .next()
                .ok_or_else(|| StrataError::new(ErrorCode::SYNTAX_ERROR, "SET needs a value"))?;
            let mut assignments = vec![(variable.to_string(), first)];
            for value in values {
                let Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                } = value
                else {
                    return Err(StrataError::new(
                        ErrorCode::SYNTAX_ERROR,
                        format!("Syntax error: expected `name = value` in SET, got {value}"),
                    ));
                };
                assignments.push((left.to_string(), *right));
            }
            Ok(assignments)
        }
        Set::MultipleAssignments { assignments } => Ok(assignments
            .into_iter()
            .map(|a| (a.name.to_string(), a.value))
            .collect()),
        other => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("Statement is not supported yet: {other}"),
        )),
    }
}

fn single_name(name: &ObjectName) -> Result<String> {
    match name.0.as_slice() {
        [part] => Ok(part.to_string().trim_matches(['`', '"']).to_string()),
        _ => Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Invalid database name {name}"),
        )),
    }
}
