//! The engine: state shared by every session of a process (catalog, function
//! registry, data path, instance), and the per-query DataFusion state built
//! from a query's settings, memory account and counters.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::catalog::{
    CatalogProvider, MemoryCatalogProvider, MemorySchemaProvider, SchemaProvider,
};
use datafusion::common::config::SpillCompression;
use datafusion::execution::FunctionRegistry;
use datafusion::execution::TaskContext;
use datafusion::execution::disk_manager::{DiskManager, DiskManagerMode};
use datafusion::execution::memory_pool::MemoryLimit;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::prelude::SessionConfig;
use strata_common::events::QueryEvents;
use strata_common::settings::Settings;
use strata_common::settings::constraints::SettingsConstraints;
use strata_common::{ErrorCode, Result, StrataError};
use strata_execution::sort::budget::SortBudget;
use strata_execution::spill::planned::PlannedThresholds;
use strata_execution::spill::{RunFileFactory, SpillConfig, TemporaryCodec};
use strata_sql::PlanRewriter;
use strata_sql::join_order::{JoinOrder, JoinOrderOptions};
use strata_storage::disk::{Disks, StorageConfiguration};

use crate::access::AccessControl;
use crate::data_path::DataPath;
use crate::instance::Instance;
use crate::query_context::{ClientInfo, QueryContext};
use crate::session::Session;
use crate::sources::file_function::{self, FileFunction, UserFiles};
use crate::sources::format_function::FormatFunction;
use crate::sources::generate_random::{self, GenerateRandom};
use crate::sources::null_function::{self, NullFunction};
use crate::sources::numbers::{Generator, NumbersFunction, NumbersTable, SeriesFunction};
use crate::sources::s3_function::{self, S3Function};
use crate::system::{CATALOG, SYSTEM_DATABASE, SystemTable, SystemTableKind};
use crate::user_functions::UserFunctions;

/// Functions the SQL front resolves itself rather than registering with DataFusion.
const SQL_LEVEL_FUNCTIONS: &[&str] = &[
    "if",
    "multiIf",
    "getSetting",
    "getServerSetting",
    "joinGet",
    "joinGetOrNull",
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
        .copied()
        .chain(
            crate::session::dictionaries::DICTIONARY_FUNCTIONS
                .iter()
                .copied(),
        )
        .chain(strata_sql::equivalents::names())
}

pub const DEFAULT_DATABASE: &str = "default";

/// The most of its memory limit a query's sorts reserve, per sort partition,
/// to merge their spilled runs: 1/32, so a few sorts side by side leave
/// most of the budget to the sorting itself.
const SORT_MERGE_RESERVATION_SHARE: usize = 32;

/// Strata's own version: the status file, the interactive banner.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The ClickHouse release whose SQL, formats and HTTP interface Strata
/// follows (chdb's, the tests' oracle). `version()` returns it, because
/// clients choose protocol features by the server's version.
pub const CLICKHOUSE_VERSION: &str = "26.9.2.1";

/// State shared by every session of a process: catalog and function registry.
pub struct Engine {
    pub(crate) base: SessionState,
    pub(crate) catalog: Arc<dyn CatalogProvider>,
    pub(crate) rewriter: PlanRewriter,
    /// Lower-case spelling to registered spelling, for case-insensitive lookups.
    function_names: HashMap<String, String>,
    pub(crate) instance: Arc<Instance>,
    pub(crate) data_path: DataPath,
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
        Self::open_with_storage(server_settings, data_path, &StorageConfiguration::default())
    }

    /// [`Engine::open`] with the disks and policies of `storage` besides
    /// the default disk.
    pub fn open_with_storage(
        server_settings: Settings,
        data_path: DataPath,
        storage: &StorageConfiguration,
    ) -> Result<Arc<Self>> {
        strata_functions::install_types();
        let disks = Disks::from_config(data_path.root(), storage)?;
        let catalog: Arc<dyn CatalogProvider> = Arc::new(MemoryCatalogProvider::new());
        let system = Arc::new(MemorySchemaProvider::new());
        for kind in SystemTableKind::ALL {
            system.register_table(kind.name().to_string(), Arc::new(SystemTable::new(kind)))?;
        }
        // The `_mt` forms split a bounded read (`LIMIT n`) over threads.
        let generated = [
            ("numbers", Generator::Numbers, false),
            ("numbers_mt", Generator::Numbers, true),
            ("zeros", Generator::Zeros, false),
            ("zeros_mt", Generator::Zeros, true),
        ];
        for (name, generator, multithreaded) in generated {
            system.register_table(
                name.to_string(),
                Arc::new(NumbersTable::new(generator, 0, None, multithreaded)),
            )?;
        }
        catalog.register_schema(SYSTEM_DATABASE, system)?;
        catalog.register_schema(DEFAULT_DATABASE, Arc::new(MemorySchemaProvider::new()))?;

        let mut config = SessionConfig::new()
            .with_default_catalog_and_schema(CATALOG, DEFAULT_DATABASE)
            .with_create_default_catalog_and_schema(false)
            .with_information_schema(false);
        config.options_mut().sql_parser.enable_ident_normalization = false;
        // A subquery's ORDER BY orders what the outer query reads, as in
        // ClickHouse: `groupArray`, `any` and `arrayStringConcat` see rows
        // in that order.
        config
            .options_mut()
            .sql_parser
            .enable_subquery_sort_elimination = false;
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
        for udwf in strata_functions::window::window_functions() {
            state.register_udwf(udwf)?;
        }
        state.register_higher_order_function(
            strata_functions::arrays::fold::higher_order_function(),
        )?;
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
        builder
            .expr_planners()
            .get_or_insert_with(Vec::new)
            .insert(2, Arc::new(strata_sql::moment_numbers::MomentNumbers));
        let to_string = scalar.iter().find(|f| f.name() == "toString");
        builder.expr_planners().get_or_insert_with(Vec::new).insert(
            3,
            Arc::new(strata_sql::common_results::FixedStringConcat::new(
                Arc::clone(to_string.expect("toString is registered")),
            )),
        );
        let length = scalar.iter().find(|f| f.name() == "length");
        builder.expr_planners().get_or_insert_with(Vec::new).insert(
            4,
            Arc::new(strata_sql::subcolumns::Subcolumns::new(Arc::clone(
                length.expect("length is registered"),
            ))),
        );
        let make_array = scalar.iter().find(|f| f.name() == "make_array");
        builder.expr_planners().get_or_insert_with(Vec::new).insert(
            5,
            Arc::new(strata_sql::array_literals::ArrayLiterals::new(Arc::clone(
                make_array.expect("make_array is registered"),
            ))),
        );
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
        let user_files = UserFiles::from_setting(&server_settings.user_files_path());
        let named: [(&str, Arc<dyn datafusion::catalog::TableFunctionImpl>); 7] = [
            (SeriesFunction::NAME, Arc::new(SeriesFunction)),
            (SeriesFunction::ALIAS, Arc::new(SeriesFunction)),
            (FormatFunction::NAME, Arc::new(FormatFunction)),
            (generate_random::NAME, Arc::new(GenerateRandom)),
            (file_function::NAME, Arc::new(FileFunction { user_files })),
            (s3_function::NAME, Arc::new(S3Function)),
            (null_function::NAME, Arc::new(NullFunction)),
        ];
        for (name, function) in named {
            table_functions.insert(
                name.to_string(),
                Arc::new(datafusion::catalog::TableFunction::new(
                    name.to_string(),
                    function,
                )),
            );
        }
        // Strata's operator choices run first, on the plan as the planner
        // wrote it; its final touches last, on the plan as it will run.
        let mut physical_rules = strata_execution::physical_optimizer_rules();
        physical_rules
            .extend(datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules);
        physical_rules.extend(strata_execution::final_physical_optimizer_rules());
        let mut logical_rules: Vec<_> = datafusion::optimizer::Optimizer::new()
            .rules
            .into_iter()
            .flat_map(|rule| {
                let name = rule.name().to_string();
                let rule = match name == strata_sql::sort_keys::SortKeysKept::NAME {
                    true => Arc::new(strata_sql::sort_keys::SortKeysKept::new(rule)) as _,
                    false => rule,
                };
                // Joins are ordered once filters have reached the tables.
                let after: Option<Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync>> =
                    (name == "push_down_filter").then(|| Arc::new(JoinOrder) as _);
                std::iter::once(rule).chain(after)
            })
            .collect();
        // Last, so that no rule after them puts a volatile call back.
        logical_rules.push(Arc::new(strata_sql::volatile_shared::SharedVolatileCalls));
        logical_rules.push(Arc::new(strata_sql::volatile_case::VolatileCaseNullability));
        let base = builder
            .with_optimizer_rules(logical_rules)
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
            instance: Instance::new(
                server_settings,
                data_path.root().join("tmp"),
                disks,
                AccessControl::open(Some(data_path.root().join("access")))?,
                UserFunctions::open(data_path.root().join("user_defined"))?,
            )?,
            data_path,
        }))
    }

    /// Recreates the databases and tables stored in the data path, with the
    /// parts their directories hold.
    pub async fn load_tables(self: &Arc<Self>) -> Result<()> {
        self.finish_drops()?;
        let mut session = self.new_session();
        let mut views = Vec::new();
        for (database, tables) in self.data_path.stored()? {
            if self.catalog.schema(&database).is_none() {
                self.catalog
                    .register_schema(&database, Arc::new(MemorySchemaProvider::new()))?;
            }
            for table in tables {
                if is_create_view(&table.statement) {
                    views.push(table);
                    continue;
                }
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
        session.attach_views(views).await
    }

    /// Removes the data of tables whose DROP the last process began and did
    /// not finish, on the local disk and every configured object disk.
    fn finish_drops(&self) -> Result<()> {
        for uuid in self.data_path.unfinished_drops()? {
            log::warn!("Finishing the interrupted drop of table {uuid}");
            let dir = self.data_path.remove_table_data(&uuid)?;
            for disk in self.instance.disks.all() {
                if let Some(objects) = disk.object_store() {
                    objects.remove_table(&dir)?;
                }
            }
            self.data_path.finish_drop(&uuid)?;
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

    /// Whether `name` is a function of Strata's own (not a user's), and
    /// whether an aggregate.
    pub(crate) fn system_function(&self, name: &str) -> Option<bool> {
        if self.base.aggregate_functions().contains_key(name)
            || self.base.window_functions().contains_key(name)
        {
            return Some(true);
        }
        let scalar = self.base.scalar_functions().contains_key(name)
            || sql_level_functions().any(|f| f == name);
        scalar.then_some(false)
    }

    pub(crate) fn resolve_function(&self, name: &str) -> Option<String> {
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
    pub(crate) fn open_query(
        &self,
        text: &str,
        settings: (Settings, Arc<SettingsConstraints>),
        current_database: &str,
        identity: (Option<String>, Arc<ClientInfo>),
        events: Arc<QueryEvents>,
    ) -> Arc<QueryContext> {
        let query = QueryContext::new(
            text.to_string(),
            settings,
            current_database.to_string(),
            identity,
            &self.instance.memory,
            events,
        );
        self.instance.processes.add(&query);
        query
    }

    /// A DataFusion state for one query: its settings, memory pool and
    /// counters. Execute its plans with [`task_context`], never
    /// `SessionState::task_ctx`, which would run them outside the query's
    /// memory account.
    pub(crate) fn query_state(&self, query: &Arc<QueryContext>) -> Result<SessionState> {
        let settings = &query.settings;
        let spill = Arc::new(self.spill_config(query)?);
        let mut config = self.base.config().clone();
        config = config
            .with_target_partitions(settings.thread_count())
            .with_batch_size(settings.max_block_size().max(1) as usize)
            .with_extension(Arc::clone(query))
            .with_extension(Arc::clone(&query.events))
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
        let mut join_order = JoinOrderOptions::default();
        join_order.limit =
            usize::try_from(settings.query_plan_optimize_join_order_limit()).unwrap_or(usize::MAX);
        config.options_mut().extensions.insert(join_order);
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
        let config = config.with_extension(Arc::new(QueryRuntime(Arc::clone(&runtime))));
        if !settings.strata_group_by_operators() {
            let builder = SessionStateBuilder::new_from_existing(self.base.clone())
                .with_config(config)
                .with_runtime_env(runtime)
                .with_physical_optimizer_rules(
                    datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules,
                );
            return Ok(builder.build());
        }
        // A clone of the base state with the query's config: rebuilding a
        // state through its builder registers every function again, which
        // was most of a point lookup's time. The runtime reaches execution
        // through the config ([`task_context`]).
        let mut state = self.base.clone();
        *state.config_mut() = config;
        Ok(state)
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
        Session::new(Arc::clone(self))
    }
}

/// A function's name followed by its aliases.
fn all_names<'a>(name: &'a str, aliases: &'a [String]) -> impl Iterator<Item = String> + 'a {
    std::iter::once(name.to_string()).chain(aliases.iter().cloned())
}

/// Whether a stored statement makes a view, loaded after the tables it reads.
pub(crate) fn is_create_view(statement: &str) -> bool {
    statement.starts_with("CREATE VIEW ") || statement.starts_with("CREATE MATERIALIZED VIEW ")
}

/// One query's runtime (its memory pool and temporary files), carried in
/// its config.
#[derive(Debug)]
pub(crate) struct QueryRuntime(Arc<RuntimeEnv>);

/// The context to execute a plan of `state` in: its config and functions,
/// and the query's runtime.
pub(crate) fn task_context(state: &SessionState) -> Arc<TaskContext> {
    let runtime = state
        .config()
        .get_extension::<QueryRuntime>()
        .map_or_else(|| Arc::clone(state.runtime_env()), |r| Arc::clone(&r.0));
    Arc::new(TaskContext::new(
        None,
        state.session_id().to_string(),
        state.config().clone(),
        state.scalar_functions().clone(),
        state.higher_order_functions().clone(),
        state.aggregate_functions().clone(),
        state.window_functions().clone(),
        runtime,
    ))
}
