//! The `system` database: `one`, `numbers`, `settings`, `functions`,
//! `databases`, `tables`, `columns`, MergeTree parts and merges (in [`parts`]),
//! the engines, formats and types Strata reads (in [`names`]), disks and
//! storage policies (in [`disks`]), and (in [`server`]) the tables about
//! the running process.
//!
//! Introspection tables are computed when scanned, from the catalog and the
//! querying session's settings, so they always show the current state.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray, UInt8Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{CatalogProvider, Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::execution::session_state::SessionState;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use strata_common::settings::constraints::{Constraint, SettingsConstraints};
use strata_common::settings::{Scope, SettingDef, SettingKind, SettingValue, Settings};

use crate::instance::Instance;
use crate::query_context::QueryContext;
use crate::table_definition::ColumnDescription;

pub mod access;
pub mod dictionaries;
pub mod disks;
pub mod filesystem_cache;
pub mod mutations;
pub mod names;
pub mod parts;
pub mod quotas;
pub mod server;
pub mod settings_profiles;
mod skipping_indices;
pub mod tables;
use crate::sources::counting::CountingExec;
use crate::sources::memory_table::MemoryTable;
use crate::sources::merge_tree_table::MergeTreeProvider;

/// Names of the system database and the catalog that holds every database.
pub const SYSTEM_DATABASE: &str = "system";
pub const CATALOG: &str = "strata";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemTableKind {
    One,
    Settings,
    Functions,
    Databases,
    Tables,
    Columns,
    ServerSettings,
    AsynchronousMetrics,
    Processes,
    QueryLog,
    Parts,
    PartsColumns,
    Merges,
    DetachedParts,
    Mutations,
    Events,
    Metrics,
    Errors,
    /// Bytes in each tier of the memory hierarchy: hot, warm, disk.
    MemoryTiers,
    TableEngines,
    Formats,
    DataTypeFamilies,
    AggregateFunctionCombinators,
    Users,
    Roles,
    Grants,
    RoleGrants,
    Privileges,
    Quotas,
    QuotaLimits,
    QuotasUsage,
    SettingsProfiles,
    SettingsProfileElements,
    TextLog,
    PartLog,
    Disks,
    StoragePolicies,
    FilesystemCache,
    FilesystemCacheSettings,
    DataSkippingIndices,
    Dictionaries,
}

impl SystemTableKind {
    pub const ALL: [SystemTableKind; 41] = [
        SystemTableKind::One,
        SystemTableKind::Settings,
        SystemTableKind::Functions,
        SystemTableKind::Databases,
        SystemTableKind::Tables,
        SystemTableKind::Columns,
        SystemTableKind::ServerSettings,
        SystemTableKind::AsynchronousMetrics,
        SystemTableKind::Processes,
        SystemTableKind::QueryLog,
        SystemTableKind::Parts,
        SystemTableKind::PartsColumns,
        SystemTableKind::Merges,
        SystemTableKind::DetachedParts,
        SystemTableKind::Mutations,
        SystemTableKind::Events,
        SystemTableKind::Metrics,
        SystemTableKind::Errors,
        SystemTableKind::MemoryTiers,
        SystemTableKind::TableEngines,
        SystemTableKind::Formats,
        SystemTableKind::DataTypeFamilies,
        SystemTableKind::AggregateFunctionCombinators,
        SystemTableKind::Users,
        SystemTableKind::Roles,
        SystemTableKind::Grants,
        SystemTableKind::RoleGrants,
        SystemTableKind::Privileges,
        SystemTableKind::Quotas,
        SystemTableKind::QuotaLimits,
        SystemTableKind::QuotasUsage,
        SystemTableKind::SettingsProfiles,
        SystemTableKind::SettingsProfileElements,
        SystemTableKind::TextLog,
        SystemTableKind::PartLog,
        SystemTableKind::Disks,
        SystemTableKind::StoragePolicies,
        SystemTableKind::FilesystemCache,
        SystemTableKind::FilesystemCacheSettings,
        SystemTableKind::DataSkippingIndices,
        SystemTableKind::Dictionaries,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SystemTableKind::One => "one",
            SystemTableKind::Settings => "settings",
            SystemTableKind::Functions => "functions",
            SystemTableKind::Databases => "databases",
            SystemTableKind::Tables => "tables",
            SystemTableKind::Columns => "columns",
            SystemTableKind::ServerSettings => "server_settings",
            SystemTableKind::AsynchronousMetrics => "asynchronous_metrics",
            SystemTableKind::Processes => "processes",
            SystemTableKind::QueryLog => "query_log",
            SystemTableKind::Parts => "parts",
            SystemTableKind::PartsColumns => "parts_columns",
            SystemTableKind::Merges => "merges",
            SystemTableKind::DetachedParts => "detached_parts",
            SystemTableKind::Mutations => "mutations",
            SystemTableKind::Events => "events",
            SystemTableKind::Metrics => "metrics",
            SystemTableKind::Errors => "errors",
            SystemTableKind::MemoryTiers => "memory_tiers",
            SystemTableKind::TableEngines => "table_engines",
            SystemTableKind::Formats => "formats",
            SystemTableKind::DataTypeFamilies => "data_type_families",
            SystemTableKind::AggregateFunctionCombinators => "aggregate_function_combinators",
            SystemTableKind::Users => "users",
            SystemTableKind::Roles => "roles",
            SystemTableKind::Grants => "grants",
            SystemTableKind::RoleGrants => "role_grants",
            SystemTableKind::Privileges => "privileges",
            SystemTableKind::Quotas => "quotas",
            SystemTableKind::QuotaLimits => "quota_limits",
            SystemTableKind::QuotasUsage => "quotas_usage",
            SystemTableKind::SettingsProfiles => "settings_profiles",
            SystemTableKind::SettingsProfileElements => "settings_profile_elements",
            SystemTableKind::TextLog => "text_log",
            SystemTableKind::PartLog => "part_log",
            SystemTableKind::Disks => "disks",
            SystemTableKind::StoragePolicies => "storage_policies",
            SystemTableKind::FilesystemCache => "filesystem_cache",
            SystemTableKind::FilesystemCacheSettings => "filesystem_cache_settings",
            SystemTableKind::DataSkippingIndices => "data_skipping_indices",
            SystemTableKind::Dictionaries => "dictionaries",
        }
    }

    fn schema(self) -> SchemaRef {
        let s = |name: &str| Field::new(name, DataType::Utf8, false);
        let u8 = |name: &str| Field::new(name, DataType::UInt8, false);
        let fields = match self {
            SystemTableKind::One => vec![u8("dummy")],
            SystemTableKind::Settings => {
                vec![
                    s("name"),
                    s("value"),
                    u8("changed"),
                    s("description"),
                    // The session's constraints: bounds and whether it may change it.
                    Field::new("min", DataType::Utf8, true),
                    Field::new("max", DataType::Utf8, true),
                    u8("readonly"),
                    s("type"),
                    s("default"),
                    s("alias_for"),
                    u8("is_obsolete"),
                    // Strata's: whether the setting changes what Strata does.
                    s("strata_effect"),
                ]
            }
            SystemTableKind::Functions => vec![
                s("name"),
                u8("is_aggregate"),
                u8("case_insensitive"),
                s("alias_to"),
                s("origin"),
                s("create_query"),
            ],
            SystemTableKind::Databases => vec![s("name"), s("engine"), s("comment")],
            SystemTableKind::Tables => tables::tables_fields(),
            SystemTableKind::Columns => vec![
                s("database"),
                s("table"),
                s("name"),
                s("type"),
                Field::new("position", DataType::UInt64, false),
                s("default_kind"),
                s("default_expression"),
                s("comment"),
                u8("is_in_partition_key"),
                u8("is_in_sorting_key"),
                u8("is_in_primary_key"),
                u8("is_in_sampling_key"),
                s("compression_codec"),
            ],
            SystemTableKind::ServerSettings => server::server_settings_fields(),
            SystemTableKind::AsynchronousMetrics => server::asynchronous_metrics_fields(),
            SystemTableKind::Processes => server::processes_fields(),
            SystemTableKind::QueryLog => server::query_log_fields(),
            SystemTableKind::Parts => parts::parts_fields(),
            SystemTableKind::PartsColumns => parts::parts_columns_fields(),
            SystemTableKind::Merges => parts::merges_fields(),
            SystemTableKind::DetachedParts => parts::detached_parts_fields(),
            SystemTableKind::Mutations => mutations::mutations_fields(),
            SystemTableKind::Events => server::events_fields(),
            SystemTableKind::Metrics => server::metrics_fields(),
            SystemTableKind::Errors => server::errors_fields(),
            SystemTableKind::MemoryTiers => server::memory_tiers_fields(),
            SystemTableKind::TableEngines => names::table_engines_fields(),
            SystemTableKind::Formats => names::formats_fields(),
            SystemTableKind::DataTypeFamilies => names::data_type_families_fields(),
            SystemTableKind::AggregateFunctionCombinators => names::combinators_fields(),
            SystemTableKind::Users => access::users_fields(),
            SystemTableKind::Roles => access::roles_fields(),
            SystemTableKind::Grants => access::grants_fields(),
            SystemTableKind::RoleGrants => access::role_grants_fields(),
            SystemTableKind::Privileges => access::privileges_fields(),
            SystemTableKind::Quotas => quotas::quotas_fields(),
            SystemTableKind::QuotaLimits => quotas::quota_limits_fields(),
            SystemTableKind::QuotasUsage => quotas::quotas_usage_fields(),
            SystemTableKind::SettingsProfiles => settings_profiles::settings_profiles_fields(),
            SystemTableKind::SettingsProfileElements => {
                settings_profiles::settings_profile_elements_fields()
            }
            SystemTableKind::TextLog => server::text_log_fields(),
            SystemTableKind::PartLog => server::part_log_fields(),
            SystemTableKind::Disks => disks::disks_fields(),
            SystemTableKind::StoragePolicies => disks::storage_policies_fields(),
            SystemTableKind::FilesystemCache => filesystem_cache::filesystem_cache_fields(),
            SystemTableKind::FilesystemCacheSettings => {
                filesystem_cache::filesystem_cache_settings_fields()
            }
            SystemTableKind::DataSkippingIndices => skipping_indices::skipping_indices_fields(),
            SystemTableKind::Dictionaries => dictionaries::dictionaries_fields(),
        };
        Arc::new(Schema::new(fields))
    }
}

#[derive(Debug)]
pub struct SystemTable {
    kind: SystemTableKind,
}

impl SystemTable {
    pub fn new(kind: SystemTableKind) -> Self {
        SystemTable { kind }
    }
}

fn strings(values: Vec<String>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

fn flags(values: Vec<bool>) -> ArrayRef {
    Arc::new(UInt8Array::from(
        values.into_iter().map(u8::from).collect::<Vec<_>>(),
    ))
}

/// Engine name of a table as system.tables shows it.
pub fn engine_name(table: &Arc<dyn TableProvider>) -> &'static str {
    let any = table.as_ref() as &dyn std::any::Any;
    if let Some(memory) = any.downcast_ref::<MemoryTable>() {
        memory.engine_name()
    } else if let Some(merge_tree) = any.downcast_ref::<MergeTreeProvider>() {
        merge_tree.engine.name()
    } else if let Some(external) =
        any.downcast_ref::<crate::sources::external_table::ExternalTable>()
    {
        external.engine_name()
    } else if any.is::<crate::sources::merge_table::MergeTable>() {
        "Merge"
    } else if any.is::<crate::sources::buffer_table::BufferTable>() {
        "Buffer"
    } else if any.is::<crate::sources::dictionary::Dictionary>() {
        "Dictionary"
    } else if any.is::<SystemTable>() {
        "SystemTable"
    } else if any.is::<crate::sources::materialized_view::MaterializedView>() {
        "MaterializedView"
    } else {
        "View"
    }
}

/// Databases in display order.
/// Every table of type `T`, by database then name.
pub(crate) async fn tables_of<T: Send + Sync + 'static>(
    catalog: &Arc<dyn CatalogProvider>,
) -> Result<Vec<(String, String, Arc<T>)>> {
    let tables = all_tables(catalog).await?;
    Ok(tables
        .into_iter()
        .filter_map(|(database, name, table)| {
            let any: Arc<dyn std::any::Any + Send + Sync> = table;
            any.downcast::<T>()
                .ok()
                .map(|table| (database, name, table))
        })
        .collect())
}

/// Sessions' temporary databases are not listed.
pub fn database_names(catalog: &Arc<dyn CatalogProvider>) -> Vec<String> {
    let mut names = catalog.schema_names();
    names.retain(|name| !crate::session::is_temporary_database(name));
    names.sort();
    names
}

/// Every table of the listed databases, as (database, name, table), in
/// display order.
pub(crate) async fn all_tables(
    catalog: &Arc<dyn CatalogProvider>,
) -> Result<Vec<(String, String, Arc<dyn TableProvider>)>> {
    let mut all = Vec::new();
    for database in database_names(catalog) {
        let Some(schema) = catalog.schema(&database) else {
            continue;
        };
        let mut tables = schema.table_names();
        tables.sort();
        for name in tables {
            if let Some(table) = schema.table(&name).await? {
                all.push((database.clone(), name, table));
            }
        }
    }
    Ok(all)
}

async fn column_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 8] = Default::default();
    let mut positions = Vec::new();
    let mut in_keys: [Vec<bool>; 4] = Default::default();
    for (database, name, table) in all_tables(catalog).await? {
        let keys = tables::keys_of(&database, &name, &table)
            .await
            .map(|k| key_names(&k));
        for (i, column) in ColumnDescription::of_table(&table)
            .map_err(strata_common::StrataError::into_datafusion)?
            .into_iter()
            .enumerate()
        {
            for (flags, names) in in_keys.iter_mut().zip(&keys) {
                flags.push(names.contains(&column.name));
            }
            let codec = match column.codec.is_empty() {
                true => String::new(),
                false => format!("CODEC({})", column.codec),
            };
            text[0].push(database.clone());
            text[1].push(name.clone());
            text[2].push(column.name);
            text[3].push(column.type_name);
            text[4].push(column.default_kind.to_string());
            text[5].push(column.default_expression);
            text[6].push(column.comment);
            text[7].push(codec);
            positions.push(i as u64 + 1);
        }
    }
    let [d, t, n, ty, kind, expr, comment, codec] = text;
    let mut columns = vec![
        strings(d),
        strings(t),
        strings(n),
        strings(ty),
        Arc::new(UInt64Array::from(positions)) as ArrayRef,
        strings(kind),
        strings(expr),
        strings(comment),
    ];
    columns.extend(in_keys.map(flags));
    columns.push(strings(codec));
    Ok(columns)
}

/// The column names a key expression reads: its identifiers, backquotes
/// taken off (function names too, which match no column of theirs).
fn key_names(key: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = key;
    while let Some(start) = rest.find(|c: char| c.is_alphanumeric() || c == '_' || c == '`') {
        rest = &rest[start..];
        let end = match rest.strip_prefix('`') {
            Some(quoted) => quoted.find('`').map_or(rest.len(), |e| e + 2),
            None => rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len()),
        };
        names.push(rest[..end].trim_matches('`').to_string());
        rest = &rest[end..];
    }
    names
}

fn settings_rows(settings: &Settings, constraints: &SettingsConstraints) -> Vec<ArrayRef> {
    let defs = Scope::Query.registry().defs();
    let bound = |get: fn(&Constraint) -> Option<&SettingValue>| -> ArrayRef {
        Arc::new(StringArray::from_iter(defs.iter().map(|d| {
            constraints.get(d.name).and_then(get).map(|v| v.to_string())
        })))
    };
    // `auto(2)`, as ClickHouse shows an automatic thread count.
    let auto_threads = format!("auto({})", settings.thread_count());
    let value = |d: &SettingDef| match (d.kind, settings.get(d.name)) {
        (SettingKind::MaxThreads, Ok(SettingValue::UInt64(0))) => auto_threads.clone(),
        (_, value) => value.map(|v| v.to_string()).unwrap_or_default(),
    };
    let default = |d: &SettingDef| match d.kind {
        SettingKind::MaxThreads if d.default == "auto" => auto_threads.clone(),
        _ => d.default.to_string(),
    };
    let effect = |implemented: bool| {
        if implemented {
            "implemented"
        } else {
            "accepted, no effect"
        }
    };
    vec![
        strings(defs.iter().map(|d| d.name.to_string()).collect()),
        strings(defs.iter().map(value).collect()),
        flags(defs.iter().map(|d| settings.is_changed(d.name)).collect()),
        strings(defs.iter().map(|d| d.description.to_string()).collect()),
        bound(|c| c.min.as_ref()),
        bound(|c| c.max.as_ref()),
        flags(
            defs.iter()
                .map(|d| constraints.is_readonly(settings, d.name))
                .collect(),
        ),
        strings(defs.iter().map(|d| d.type_name.to_string()).collect()),
        strings(defs.iter().map(default).collect()),
        strings(defs.iter().map(|d| d.alias_for.to_string()).collect()),
        flags(defs.iter().map(|d| d.obsolete).collect()),
        strings(
            defs.iter()
                .map(|d| effect(d.implemented).to_string())
                .collect(),
        ),
    ]
}

fn function_rows(state: &SessionState, instance: &Instance) -> Vec<ArrayRef> {
    // (name, is_aggregate, the name it is an alias to or empty)
    let row = |name: &String, canonical: &str, aggregate: bool| {
        let alias_to = match canonical == name {
            true => String::new(),
            false => canonical.to_string(),
        };
        (name.clone(), aggregate, alias_to)
    };
    let mut rows: Vec<(String, bool, String)> = Vec::new();
    // `__strata_*` functions are the SQL rewrite's markers, not for users.
    let internal = |name: &String| name.starts_with("__strata_");
    for (name, udf) in state.scalar_functions() {
        if internal(name) {
            continue;
        }
        rows.push(row(name, udf.name(), false));
    }
    for (name, udaf) in state.aggregate_functions() {
        rows.push(row(name, udaf.name(), true));
    }
    // ClickHouse lists window functions among the aggregates.
    for (name, udwf) in state.window_functions() {
        rows.push(row(name, udwf.name(), true));
    }
    for name in crate::engine::sql_level_functions() {
        rows.push((name.to_string(), false, String::new()));
    }
    rows.sort();
    rows.dedup_by(|a, b| a.0 == b.0);
    let mut create_queries = vec![String::new(); rows.len()];
    let mut origins = vec!["System".to_string(); rows.len()];
    for function in instance.user_functions.all() {
        rows.push((function.name.clone(), false, String::new()));
        create_queries.push(function.create_query());
        origins.push("SQLUserDefined".to_string());
    }
    let case_insensitive: Vec<bool> = rows
        .iter()
        .zip(&origins)
        .map(|(r, origin)| origin == "System" && r.0.chars().all(|c| !c.is_ascii_uppercase()))
        .collect();
    vec![
        strings(rows.iter().map(|r| r.0.clone()).collect()),
        flags(rows.iter().map(|r| r.1).collect()),
        flags(case_insensitive),
        strings(rows.iter().map(|r| r.2.clone()).collect()),
        strings(origins),
        strings(create_queries),
    ]
}

#[async_trait]
impl TableProvider for SystemTable {
    fn schema(&self) -> SchemaRef {
        self.kind.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let state = session
            .as_any()
            .downcast_ref::<SessionState>()
            .expect("Strata always plans with a SessionState");
        let catalog = state
            .catalog_list()
            .catalog(CATALOG)
            .expect("the strata catalog exists");
        let query = session.config().get_extension::<QueryContext>();
        let instance = session
            .config()
            .get_extension::<Instance>()
            .expect("every query state carries the instance");
        let default_settings = Settings::default();
        let settings = query.as_ref().map_or(&default_settings, |q| &q.settings);
        let no_constraints = SettingsConstraints::default();
        let constraints = query.as_ref().map_or(&no_constraints, |q| &*q.constraints);
        let columns = match self.kind {
            SystemTableKind::One => vec![flags(vec![false])],
            SystemTableKind::Settings => settings_rows(settings, constraints),
            SystemTableKind::Functions => function_rows(state, &instance),
            SystemTableKind::Databases => {
                let names = database_names(&catalog);
                let engines = names
                    .iter()
                    .map(|n| {
                        if n == SYSTEM_DATABASE {
                            "Memory"
                        } else {
                            "Atomic"
                        }
                        .to_string()
                    })
                    .collect();
                let comments = vec![String::new(); names.len()];
                vec![strings(names), strings(engines), strings(comments)]
            }
            SystemTableKind::Tables => tables::tables_rows(&catalog).await?,
            SystemTableKind::Columns => column_rows(&catalog).await?,
            SystemTableKind::ServerSettings => server::server_settings_rows(&instance),
            SystemTableKind::AsynchronousMetrics => server::asynchronous_metrics_rows(&instance),
            SystemTableKind::Processes => server::processes_rows(&instance),
            SystemTableKind::QueryLog => server::query_log_rows(&instance),
            SystemTableKind::Users => access::users_rows(&instance.access),
            SystemTableKind::Roles => access::roles_rows(&instance.access),
            SystemTableKind::Grants => access::grants_rows(&instance.access),
            SystemTableKind::RoleGrants => access::role_grants_rows(&instance.access),
            SystemTableKind::Privileges => access::privileges_rows(),
            SystemTableKind::Quotas => quotas::quotas_rows(&instance.access),
            SystemTableKind::QuotaLimits => quotas::quota_limits_rows(&instance.access),
            SystemTableKind::QuotasUsage => quotas::quotas_usage_rows(&instance.access, None),
            SystemTableKind::SettingsProfiles => {
                settings_profiles::settings_profiles_rows(&instance.access)
            }
            SystemTableKind::SettingsProfileElements => {
                settings_profiles::settings_profile_elements_rows(&instance.access)
            }
            SystemTableKind::TextLog => server::text_log_rows(),
            SystemTableKind::PartLog => server::part_log_rows(&instance),
            SystemTableKind::Disks => disks::disks_rows(&instance),
            SystemTableKind::StoragePolicies => disks::storage_policies_rows(&instance),
            SystemTableKind::FilesystemCache => filesystem_cache::filesystem_cache_rows(&instance),
            SystemTableKind::FilesystemCacheSettings => {
                filesystem_cache::filesystem_cache_settings_rows(&instance)
            }
            SystemTableKind::Dictionaries => dictionaries::dictionaries_rows(&catalog).await?,
            SystemTableKind::DataSkippingIndices => {
                skipping_indices::skipping_indices_rows(&catalog).await?
            }
            SystemTableKind::Parts => parts::parts_rows(&catalog).await?,
            SystemTableKind::PartsColumns => parts::parts_columns_rows(&catalog).await?,
            SystemTableKind::Merges => parts::merges_rows(&catalog).await?,
            SystemTableKind::DetachedParts => parts::detached_parts_rows(&catalog).await?,
            SystemTableKind::Mutations => mutations::mutations_rows(&catalog).await?,
            SystemTableKind::Events => server::events_rows(),
            SystemTableKind::Metrics => {
                let merges = parts::merge_tree_tables(&catalog)
                    .await?
                    .iter()
                    .map(|(_, _, table)| table.data.running_merges().len())
                    .sum();
                server::metrics_rows(&instance, merges)
            }
            SystemTableKind::Errors => server::errors_rows(&instance),
            SystemTableKind::MemoryTiers => server::memory_tiers_rows(&instance),
            SystemTableKind::TableEngines => names::table_engines_rows(),
            SystemTableKind::Formats => names::formats_rows(),
            SystemTableKind::DataTypeFamilies => names::data_type_families_rows(),
            SystemTableKind::AggregateFunctionCombinators => names::combinators_rows(),
        };
        let batch = RecordBatch::try_new(self.kind.schema(), columns)?;
        let table = MemTable::try_new(self.kind.schema(), vec![vec![batch]])?;
        Ok(CountingExec::new(
            table.scan(session, projection, filters, limit).await?,
        ))
    }
}
