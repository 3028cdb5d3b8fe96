//! `ALTER TABLE t MODIFY SETTING ... | RESET SETTING ...`: a MergeTree
//! table's settings, edited in its definition and in effect once the table
//! reopens from it (as every ALTER of the definition does). The settings a
//! stored part depends on stay as they were created, as in ClickHouse.

use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::alter_settings::{AlterSettings, SettingsCommand};

use crate::session::{Session, StatementOutcome};

/// Settings the layout of stored parts depends on (ClickHouse's read-only ones).
const READONLY: [&str; 3] = [
    "index_granularity",
    "index_granularity_bytes",
    "enable_mixed_granularity_parts",
];

/// Settings naming where parts live: moving a table's parts elsewhere is
/// not done by an ALTER of its settings here.
const PLACEMENT: [&str; 2] = ["storage_policy", "disk"];

impl Session {
    pub(super) async fn alter_settings(
        &mut self,
        alter: AlterSettings,
    ) -> Result<StatementOutcome> {
        let table = self
            .merge_tree_to_alter(&alter.table, "MODIFY_SETTING")
            .await?;
        self.alter_definition(&table, |engine, _| {
            edit_settings(&mut engine.settings, alter.command)
        })
        .await?;
        self.done()
    }
}

/// Whether the edit changed the settings.
fn edit_settings(settings: &mut Vec<(String, String)>, command: SettingsCommand) -> Result<bool> {
    let names: Vec<String> = match &command {
        SettingsCommand::Modify(given) => given.iter().map(|(n, _)| n.clone()).collect(),
        SettingsCommand::Reset(names) => names.clone(),
    };
    for name in &names {
        if !strata_common::settings::is_merge_tree_setting(name) {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_SETTING,
                format!("Unknown setting '{name}'"),
            ));
        }
    }
    let before = settings.clone();
    match command {
        SettingsCommand::Modify(given) => {
            for (name, value) in given {
                let current = settings.iter().position(|(n, _)| *n == name);
                check_changeable(
                    &name,
                    current.map(|at| settings[at].1.as_str()),
                    Some(&value),
                )?;
                match current {
                    Some(at) => settings[at].1 = value,
                    None => settings.push((name, value)),
                }
            }
        }
        SettingsCommand::Reset(names) => {
            for name in names {
                let current = settings
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.as_str());
                check_changeable(&name, current, None)?;
                settings.retain(|(n, _)| *n != name);
            }
        }
    }
    Ok(*settings != before)
}

/// Fails for a setting that cannot change from `current` to `new` (None:
/// not given, the default).
fn check_changeable(name: &str, current: Option<&str>, new: Option<&str>) -> Result<()> {
    if current == new {
        return Ok(());
    }
    if READONLY.contains(&name) {
        return Err(StrataError::new(
            ErrorCode::READONLY_SETTING,
            format!("Setting '{name}' is readonly for storage 'MergeTree'"),
        ));
    }
    if PLACEMENT.contains(&name) {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!(
                "Changing `{name}` of an existing table is not supported; move its parts with ALTER TABLE ... MOVE PARTITION"
            ),
        ));
    }
    Ok(())
}
