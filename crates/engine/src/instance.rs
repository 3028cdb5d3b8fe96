//! What every session of one Strata process shares at run time: the server
//! settings, the memory budget and tracker, the running queries and the query
//! log. System tables read it through the query's DataFusion config.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_common::settings::{Scope, Settings};
use strata_common::{ErrorCode, Result, StrataError};
use strata_memory::{BudgetConfig, ServerMemory, SystemProbe};
use strata_storage::disk::Disks;

use crate::process_list::ProcessList;
use crate::query_log::QueryLog;

/// How often the memory budget re-reads RAM and the cgroup limit.
pub const BUDGET_REFRESH: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub struct Instance {
    pub server_settings: Settings,
    pub memory: Arc<ServerMemory>,
    pub processes: ProcessList,
    pub query_log: QueryLog,
    /// Where operators put temporary data that goes to disk (`tmp_path`).
    pub tmp_directories: Vec<PathBuf>,
    /// Who may connect, as `system.users` lists them: the server's configured
    /// users; `strata local` runs as `default`.
    pub users: parking_lot::RwLock<Vec<UserRow>>,
    /// Disks and storage policies from `storage_configuration`.
    pub disks: Arc<Disks>,
}

/// A user as `system.users` shows it. Never holds the password.
#[derive(Debug, Clone)]
pub struct UserRow {
    pub name: String,
    /// ClickHouse's name: `no_password`, `plaintext_password`, `sha256_password`.
    pub auth_type: &'static str,
    /// Networks the user may connect from.
    pub host_ip: Vec<String>,
    pub profile: String,
}

impl UserRow {
    /// `strata local`'s only user.
    pub fn local_default() -> UserRow {
        UserRow {
            name: "default".to_string(),
            auth_type: "no_password",
            host_ip: vec!["::/0".to_string()],
            profile: "default".to_string(),
        }
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
    /// Where the value came from.
    pub source: String,
}

impl Instance {
    /// `default_tmp` holds temporary data unless `tmp_path` names directories.
    pub fn new(server_settings: Settings, default_tmp: PathBuf, disks: Disks) -> Result<Arc<Self>> {
        let tmp_directories = tmp_directories(&server_settings, default_tmp)?;
        let memory = ServerMemory::new(
            BudgetConfig::from_settings(&server_settings),
            SystemProbe::default(),
        );
        memory.watch(BUDGET_REFRESH);
        Ok(Arc::new(Instance {
            server_settings,
            memory,
            processes: ProcessList::default(),
            query_log: QueryLog::default(),
            tmp_directories,
            users: parking_lot::RwLock::new(vec![UserRow::local_default()]),
            disks: Arc::new(disks),
        }))
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
                let (value, source) = if def.name == "max_server_memory_usage" {
                    let budget = self.memory.budget();
                    (budget.limit.to_string(), budget.source)
                } else if changed {
                    (configured, "command line".to_string())
                } else {
                    (configured, "default".to_string())
                };
                ServerSettingRow {
                    name: def.name,
                    value,
                    default: def.default,
                    changed,
                    description: def.description,
                    kind: def.type_name,
                    source,
                }
            })
            .collect()
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
