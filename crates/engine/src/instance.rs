//! What every session of one Strata process shares at run time: the server
//! settings, the memory budget and tracker, the running queries and the query
//! log. System tables read it through the query's DataFusion config.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_common::settings::{Scope, Settings};
use strata_common::{ErrorCode, Result, StrataError};
use strata_memory::{BudgetConfig, ServerMemory, SystemProbe};
use strata_storage::cache::{CacheSizes, DataCache};
use strata_storage::disk::{DiskType, Disks, StorageConfiguration};

use crate::access::AccessControl;
use crate::error_counts::ErrorCounts;
use crate::part_log::PartLog;
use crate::process_list::ProcessList;
use crate::query_log::QueryLog;
use crate::user_functions::UserFunctions;

/// How often the memory budget re-reads RAM and the cgroup limit.
pub const BUDGET_REFRESH: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub struct Instance {
    pub server_settings: Settings,
    pub memory: Arc<ServerMemory>,
    pub processes: ProcessList,
    pub query_log: QueryLog,
    /// The error codes queries ended with, for `system.errors`.
    pub errors: ErrorCounts,
    pub part_log: Arc<PartLog>,
    /// Where operators put temporary data that goes to disk (`tmp_path`).
    pub tmp_directories: Vec<PathBuf>,
    /// Users, roles and their rights; `strata local` runs as `default`.
    pub access: AccessControl,
    /// Disks and storage policies from `storage_configuration`.
    pub disks: Arc<Disks>,
    /// What MergeTree reads keep in RAM, on `memory`'s account.
    pub cache: Arc<DataCache>,
    /// `CREATE FUNCTION`'s functions.
    pub user_functions: UserFunctions,
    /// Reads the server settings again from where they came from, for
    /// `SYSTEM RELOAD CONFIG`; none when there is no file to read.
    config_source: ConfigSourceSlot,
}

/// Reads the server settings and disks from the configuration file and
/// command line.
pub type ConfigSource = Box<dyn Fn() -> Result<ReloadedConfig> + Send + Sync>;

/// What `SYSTEM RELOAD CONFIG` reads.
pub struct ReloadedConfig {
    pub settings: Settings,
    pub storage: StorageConfiguration,
}

#[derive(Default)]
struct ConfigSourceSlot(parking_lot::Mutex<Option<ConfigSource>>);

impl std::fmt::Debug for ConfigSourceSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = self.0.lock().is_some();
        f.write_str(if set { "ConfigSource" } else { "None" })
    }
}

/// A server setting as `system.server_settings` and `getServerSetting` show it.
#[derive(Debug, Clone)]
pub struct ServerSettingRow {
    pub name: &'static str,
    pub value: String,
    pub default: &'static str,
    pub changed: bool,
    pub description: &'static str,
    pub kind: &'static str,
    /// ClickHouse's `changeable_without_restart`: `Yes` or `No`.
    pub changeable_without_restart: &'static str,
    /// Where the value came from.
    pub source: String,
}

/// Server settings that take effect without a restart (`SYSTEM RELOAD CONFIG`).
pub const CACHE_SIZE_SETTINGS: [&str; 4] = [
    "mark_cache_size",
    "page_cache_max_size",
    "page_cache_min_size",
    "uncompressed_cache_size",
];

/// The cache sizes `settings` configure.
pub fn cache_sizes(settings: &Settings) -> CacheSizes {
    CacheSizes {
        mark_cache_size: settings.mark_cache_size(),
        uncompressed_cache_size: settings.uncompressed_cache_size(),
        page_cache_max_size: settings.page_cache_max_size(),
        page_cache_min_size: settings.page_cache_min_size(),
    }
}

impl Instance {
    /// Ends `query` once: its last query-log entry, and its usage counted
    /// in the quota of `ticket`.
    pub fn finish_query(
        &self,
        kind: crate::query_log::LogType,
        query: &crate::query_context::QueryContext,
        error: Option<&StrataError>,
        ticket: Option<&crate::access::quotas::QuotaTicket>,
    ) {
        if !query.mark_finished() {
            return;
        }
        self.query_log.record(kind, query, error);
        if let Some(error) = error {
            self.errors.record(error, &query.query_id);
        }
        if let Some(ticket) = ticket {
            let used = crate::access::quotas::used_by(query, error.is_some());
            self.access.end_query(ticket, &used);
        }
    }

    /// `default_tmp` holds temporary data unless `tmp_path` names directories.
    pub fn new(
        server_settings: Settings,
        default_tmp: PathBuf,
        disks: Disks,
        access: AccessControl,
        user_functions: UserFunctions,
    ) -> Result<Arc<Self>> {
        let tmp_directories = tmp_directories(&server_settings, default_tmp)?;
        let memory = ServerMemory::new(
            BudgetConfig::from_settings(&server_settings),
            SystemProbe::default(),
        );
        memory.watch(BUDGET_REFRESH);
        let cache = DataCache::new(Arc::clone(&memory), cache_sizes(&server_settings));
        Ok(Arc::new(Instance {
            server_settings,
            memory,
            processes: ProcessList::default(),
            query_log: QueryLog::default(),
            errors: ErrorCounts::default(),
            part_log: Arc::default(),
            tmp_directories,
            access,
            disks: Arc::new(disks),
            cache,
            user_functions,
            config_source: ConfigSourceSlot::default(),
        }))
    }

    /// Where `SYSTEM RELOAD CONFIG` reads the server settings from.
    pub fn set_config_source(&self, source: ConfigSource) {
        *self.config_source.0.lock() = Some(source);
    }

    /// `SYSTEM RELOAD CONFIG`: the settings changeable without a restart
    /// (the cache sizes, a cache disk's `max_size`) take their configured
    /// values now; the others keep theirs until the next start.
    pub fn reload_config(&self) -> Result<()> {
        let source = self.config_source.0.lock();
        let Some(read) = source.as_ref() else {
            return Ok(());
        };
        let config = read()?;
        self.cache.resize(cache_sizes(&config.settings));
        for disk in &config.storage.disks {
            let DiskType::Cache(cache_config) = &disk.kind else {
                continue;
            };
            let cache = self
                .disks
                .disk(&disk.name)
                .ok()
                .and_then(|disk| disk.object_store()?.file_cache().cloned());
            if let Some(cache) = cache {
                cache.resize(cache_config.max_size);
            }
        }
        Ok(())
    }

    /// `SYSTEM SET SERVER SETTING name = value`: one of the settings
    /// changeable without a restart takes `value` now, until the next
    /// `SYSTEM RELOAD CONFIG` or start.
    pub fn set_server_setting(&self, name: &str, value: &str) -> Result<()> {
        let mut given = Settings::server();
        given.set(name, value)?;
        let Some(&name) = CACHE_SIZE_SETTINGS.iter().find(|n| given.is_changed(n)) else {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Server setting {name} cannot be changed without a restart"),
            ));
        };
        let mut sizes = self.cache.configured();
        let given = cache_sizes(&given);
        match name {
            "mark_cache_size" => sizes.mark_cache_size = given.mark_cache_size,
            "page_cache_max_size" => sizes.page_cache_max_size = given.page_cache_max_size,
            "page_cache_min_size" => sizes.page_cache_min_size = given.page_cache_min_size,
            _ => sizes.uncompressed_cache_size = given.uncompressed_cache_size,
        }
        self.cache.resize(sizes);
        Ok(())
    }

    /// Server settings with their effective values. The memory limit shows
    /// the bytes in force and how they were derived, not just what was set.
    pub fn server_setting_rows(&self) -> Vec<ServerSettingRow> {
        Scope::Server
            .registry()
            .defs()
            .iter()
            .map(|def| {
                let changed = self.server_settings.is_changed(def.name);
                let configured = self
                    .server_settings
                    .get(def.name)
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                let reloadable = CACHE_SIZE_SETTINGS.contains(&def.name);
                let (value, source) = if def.name == "max_server_memory_usage" {
                    let budget = self.memory.budget();
                    (budget.limit.to_string(), budget.source)
                } else if reloadable {
                    let value = self.cache_size_setting(def.name);
                    let source = match value == def.default {
                        true => "default",
                        false => "configuration",
                    };
                    (value, source.to_string())
                } else if changed {
                    (configured, "command line".to_string())
                } else {
                    (configured, "default".to_string())
                };
                let changed = changed || (reloadable && value != def.default);
                ServerSettingRow {
                    name: def.name,
                    value,
                    default: def.default,
                    changed,
                    description: def.description,
                    kind: def.type_name,
                    changeable_without_restart: if reloadable { "Yes" } else { "No" },
                    source,
                }
            })
            .collect()
    }

    /// The configured size in force of one of [`CACHE_SIZE_SETTINGS`].
    fn cache_size_setting(&self, name: &str) -> String {
        let sizes = self.cache.configured();
        match name {
            "mark_cache_size" => sizes.mark_cache_size,
            "page_cache_max_size" => sizes.page_cache_max_size,
            "page_cache_min_size" => sizes.page_cache_min_size,
            _ => sizes.uncompressed_cache_size,
        }
        .to_string()
    }

    pub fn server_setting(&self, name: &str) -> Option<String> {
        self.server_setting_rows()
            .into_iter()
            .find(|row| row.name == name)
            .map(|row| row.value)
    }
}

/// The directories of `tmp_path`, created, with what crashed processes left
/// in them removed.
fn tmp_directories(settings: &Settings, default_tmp: PathBuf) -> Result<Vec<PathBuf>> {
    let configured = settings.tmp_path();
    let mut directories: Vec<PathBuf> = configured
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    if directories.is_empty() {
        directories.push(default_tmp);
    }
    for directory in &directories {
        std::fs::create_dir_all(directory).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!(
                    "Cannot create the temporary directory {}: {e}",
                    directory.display()
                ),
            )
        })?;
        strata_execution::spill::remove_leftovers(directory).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!(
                    "Cannot clean the temporary directory {}: {e}",
                    directory.display()
                ),
            )
        })?;
    }
    Ok(directories)
}
