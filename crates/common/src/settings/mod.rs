//! The registry of settings and a session's current values.
//!
//! ClickHouse users steer queries with settings (`SET`, `SETTINGS` clauses, URL
//! parameters, `--name=value`), and clients send many on every request. Strata
//! knows every ClickHouse query setting by name, type and default
//! (`catalog.tsv`, generated from ClickHouse by `scripts/settings_catalog.py`):
//! each value is checked against its type and kept, and `system.settings`
//! says which settings take effect in Strata (`implemented`) and which are
//! only accepted. The implemented ones are declared in [`implemented`], which
//! also gives each a typed accessor. A name in neither is UNKNOWN_SETTING.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::error::{ErrorCode, Result, StrataError};

pub mod constraints;
pub mod implemented;

pub use catalog::is_merge_tree_setting;
pub use implemented::FromSettingValue;

/// The value domain of a setting, used to validate and normalise what users write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    Bool,
    /// A boolean or `auto`.
    BoolAuto,
    UInt64,
    /// An integer above zero.
    NonZeroUInt64,
    Int64,
    /// Any finite number.
    Float,
    /// A number or `auto`.
    FloatAuto,
    /// A non-negative number: a share of a limit.
    Ratio,
    /// A non-negative duration, fractions allowed.
    Seconds,
    Milliseconds,
    /// A number, or `auto` (stored as 0) for the number of cores.
    MaxThreads,
    /// A number, or `auto` (stored as 0).
    UInt64Auto,
    String,
    /// Exactly one character.
    Char,
    /// One of a fixed set of words; a word matching one but for case is stored as listed.
    Enum(&'static [&'static str]),
}

impl SettingKind {
    /// ClickHouse's type name, for settings the catalog does not name.
    fn type_name(self) -> &'static str {
        match self {
            SettingKind::Bool => "Bool",
            SettingKind::BoolAuto => "BoolAuto",
            SettingKind::UInt64 => "UInt64",
            SettingKind::NonZeroUInt64 => "NonZeroUInt64",
            SettingKind::Int64 => "Int64",
            SettingKind::Float => "Float",
            SettingKind::FloatAuto => "FloatAuto",
            SettingKind::Ratio => "Double",
            SettingKind::Seconds => "Seconds",
            SettingKind::Milliseconds => "Milliseconds",
            SettingKind::MaxThreads => "MaxThreads",
            SettingKind::UInt64Auto => "UInt64Auto",
            SettingKind::String | SettingKind::Enum(_) => "String",
            SettingKind::Char => "Char",
        }
    }

    /// The kind of a ClickHouse type name; enum types take their words from `enums`.
    fn of_type(type_name: &str, enums: &HashMap<&'static str, &'static [&'static str]>) -> Self {
        match type_name {
            "Bool" => SettingKind::Bool,
            "BoolAuto" => SettingKind::BoolAuto,
            "UInt64" => SettingKind::UInt64,
            "NonZeroUInt64" => SettingKind::NonZeroUInt64,
            "Int64" | "Int32" => SettingKind::Int64,
            "Float" | "Double" => SettingKind::Float,
            "FloatAuto" => SettingKind::FloatAuto,
            "Seconds" => SettingKind::Seconds,
            "Milliseconds" => SettingKind::Milliseconds,
            "MaxThreads" => SettingKind::MaxThreads,
            "UInt64Auto" => SettingKind::UInt64Auto,
            "Char" => SettingKind::Char,
            other => enums
                .get(other)
                .map_or(SettingKind::String, |words| SettingKind::Enum(words)),
        }
    }
}

#[derive(Debug, Clone)]
pub struct SettingDef {
    pub name: &'static str,
    pub kind: SettingKind,
    /// ClickHouse's name of the type (`UInt64`, `Seconds`, `JoinAlgorithm`).
    pub type_name: &'static str,
    pub default: &'static str,
    /// Strata's words; empty for settings only accepted.
    pub description: &'static str,
    /// Whether the setting changes what Strata does.
    pub implemented: bool,
    /// The setting this name stands for; empty if it is one itself.
    pub alias_for: &'static str,
    /// ClickHouse keeps the name only so old scripts still run.
    pub obsolete: bool,
}

/// Every setting of one scope, by name.
#[derive(Debug)]
pub struct Registry {
    defs: Vec<SettingDef>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// The settings in name order.
    pub fn defs(&self) -> &[SettingDef] {
        &self.defs
    }

    pub fn find(&self, name: &str) -> Option<&SettingDef> {
        self.by_name.get(name).map(|&i| &self.defs[i])
    }

    /// `accepted` are known but have no effect; `implemented` override them by name.
    fn new(accepted: Vec<SettingDef>, implemented: &[SettingDef]) -> Registry {
        let mut by_name: BTreeMap<&'static str, SettingDef> =
            accepted.into_iter().map(|d| (d.name, d)).collect();
        for def in implemented {
            let type_name = match by_name.get(def.name) {
                Some(known) => known.type_name,
                None => def.kind.type_name(),
            };
            by_name.insert(
                def.name,
                SettingDef {
                    type_name,
                    ..def.clone()
                },
            );
        }
        let defs: Vec<SettingDef> = by_name.into_values().collect();
        let by_name = defs.iter().enumerate().map(|(i, d)| (d.name, i)).collect();
        Registry { defs, by_name }
    }
}

/// Which registry a set of values belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    Query,
    Server,
}

impl Scope {
    pub fn registry(self) -> &'static Registry {
        static QUERY: OnceLock<Registry> = OnceLock::new();
        static SERVER: OnceLock<Registry> = OnceLock::new();
        match self {
            Scope::Query => {
                QUERY.get_or_init(|| Registry::new(catalog::accepted(), implemented::IMPLEMENTED))
            }
            Scope::Server => SERVER.get_or_init(|| Registry::new(Vec::new(), implemented::SERVER)),
        }
    }

    pub fn find(self, name: &str) -> Option<&'static SettingDef> {
        self.registry().find(name)
    }
}

/// A typed setting value after validation.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingValue {
    Bool(bool),
    UInt64(u64),
    Int64(i64),
    Float(f64),
    String(String),
}

impl std::fmt::Display for SettingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Bool(b) => write!(f, "{}", u8::from(*b)),
            SettingValue::UInt64(v) => write!(f, "{v}"),
            SettingValue::Int64(v) => write!(f, "{v}"),
            SettingValue::Float(v) => write!(f, "{v}"),
            SettingValue::String(s) => f.write_str(s),
        }
    }
}

/// Settings values of one session or one query: defaults plus what was changed.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    scope: Scope,
    /// By the setting's own name (an alias's target).
    changed: BTreeMap<&'static str, SettingValue>,
}

impl Settings {
    /// Server settings at their defaults.
    pub fn server() -> Self {
        Settings {
            scope: Scope::Server,
            changed: BTreeMap::new(),
        }
    }

    /// The setting `name` is, following an alias.
    fn def(&self, name: &str) -> Result<&'static SettingDef> {
        let def = self.scope.find(name).ok_or_else(|| unknown_setting(name))?;
        if def.alias_for.is_empty() {
            return Ok(def);
        }
        self.scope
            .find(def.alias_for)
            .ok_or_else(|| unknown_setting(def.alias_for))
    }

    /// Validates and stores `value` (as the user wrote it, unquoted) for `name`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let def = self.def(name)?;
        let parsed = parse_value(def, value)?;
        self.changed.insert(def.name, parsed);
        Ok(())
    }

    /// Applies every change of `other` on top of these settings.
    pub fn merge(&mut self, other: &Settings) {
        for (name, value) in &other.changed {
            self.changed.insert(name, value.clone());
        }
    }

    /// The changed settings with their values as text, by name.
    pub fn changes(&self) -> Vec<(&'static str, String)> {
        self.changed
            .iter()
            .map(|(name, value)| (*name, value.to_string()))
            .collect()
    }

    pub fn is_changed(&self, name: &str) -> bool {
        self.def(name)
            .is_ok_and(|def| self.changed.contains_key(def.name))
    }

    /// Names of the settings whose values differ between `self` and `other`.
    pub fn differences(&self, other: &Settings) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .changed
            .keys()
            .chain(other.changed.keys())
            .copied()
            .filter(|name| self.get(name).ok() != other.get(name).ok())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The value of `name`, for lookups by a name only known at run time
    /// (`getSetting`, `system.settings`); code uses the typed accessors.
    pub fn get(&self, name: &str) -> Result<SettingValue> {
        let def = self.def(name)?;
        Ok(match self.changed.get(def.name) {
            Some(value) => value.clone(),
            None => parse_value(def, def.default).expect("setting defaults are valid"),
        })
    }

    /// The value as ClickHouse shows it (`getSetting`, `system.settings`):
    /// `max_threads` left to `auto` is the thread count it means.
    pub fn shown(&self, name: &str) -> Result<SettingValue> {
        let value = self.get(name)?;
        Ok(match (self.def(name)?.kind, value) {
            (SettingKind::MaxThreads, SettingValue::UInt64(0)) => {
                SettingValue::UInt64(self.thread_count() as u64)
            }
            (_, value) => value,
        })
    }

    /// The value of a setting the accessors name, which is always registered.
    fn value_of(&self, name: &'static str) -> SettingValue {
        self.get(name)
            .unwrap_or_else(|e| panic!("declared setting {name}: {e}"))
    }

    /// `max_threads` resolved to a thread count.
    pub fn thread_count(&self) -> usize {
        // Asking the OS reads cgroup files: once per process, not per query.
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        match self.max_threads() {
            0 => *CORES.get_or_init(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            }),
            n => n as usize,
        }
    }
}

mod catalog;
mod parse;

pub use parse::parse_size;
use parse::parse_value;

fn unknown_setting(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::UNKNOWN_SETTING,
        format!("Unknown setting '{name}'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_sorted_and_every_default_parses() {
        for declared in [implemented::IMPLEMENTED, implemented::SERVER] {
            for pair in declared.windows(2) {
                assert!(
                    pair[0].name < pair[1].name,
                    "{} before {}",
                    pair[0].name,
                    pair[1].name
                );
            }
        }
        for scope in [Scope::Query, Scope::Server] {
            for def in scope.registry().defs() {
                parse_value(def, def.default)
                    .unwrap_or_else(|e| panic!("default of {}: {e}", def.name));
            }
        }
    }

    #[test]
    fn every_clickhouse_setting_is_known_and_implemented_ones_say_so() {
        let registry = Scope::Query.registry();
        assert!(registry.defs().len() >= 1857, "{}", registry.defs().len());
        let accepted = registry.find("optimize_move_to_prewhere").unwrap();
        assert_eq!((accepted.type_name, accepted.implemented), ("Bool", false));
        let extremes = registry.find("extremes").unwrap();
        assert_eq!((extremes.type_name, extremes.implemented), ("Bool", true));
        let threads = registry.find("max_threads").unwrap();
        assert_eq!(
            (threads.type_name, threads.implemented),
            ("MaxThreads", true)
        );
        assert!(
            registry
                .find("strata_group_by_operators")
                .unwrap()
                .implemented
        );
    }

    #[test]
    fn set_validates_names_and_values() {
        let mut s = Settings::default();
        assert_eq!(
            s.set("no_such_setting", "1").unwrap_err().code,
            ErrorCode::UNKNOWN_SETTING
        );
        assert!(s.set("max_threads", "lots").is_err());
        s.set("max_threads", "3").unwrap();
        assert_eq!(s.thread_count(), 3);
        s.set("max_memory_usage", "1e9").unwrap();
        assert_eq!(s.max_memory_usage(), 1_000_000_000);
        s.set("max_memory_usage", "10G").unwrap();
        assert_eq!(s.max_memory_usage(), 10_000_000_000);
        s.set("max_memory_usage", "2GiB").unwrap();
        assert_eq!(s.max_memory_usage(), 2 << 30);
        s.set("union_default_mode", "distinct").unwrap();
        assert_eq!(s.union_default_mode(), "DISTINCT");
        assert!(s.set("union_default_mode", "some").is_err());
        assert_eq!(
            s.set("max_block_size", "0").unwrap_err().code,
            ErrorCode::BAD_ARGUMENTS
        );
        s.set("max_execution_time", "1.5").unwrap();
        assert_eq!(s.max_execution_time(), 1.5);
    }

    #[test]
    fn accepted_settings_are_checked_against_their_types() {
        let mut s = Settings::default();
        s.set("join_use_nulls", "true").unwrap();
        assert_eq!(s.get("join_use_nulls").unwrap(), SettingValue::Bool(true));
        assert_eq!(
            s.set("join_use_nulls", "5").unwrap_err().code,
            ErrorCode::CANNOT_CONVERT_TYPE
        );
        s.set("send_logs_level", "none").unwrap();
        let error = s.set("send_logs_level", "loud").unwrap_err();
        assert!(error.message.contains("Must be one of"), "{error}");
        s.set("join_algorithm", "grace_hash").unwrap();
        assert_eq!(
            s.set("format_csv_delimiter", "ab").unwrap_err().code,
            ErrorCode::SIZE_OF_FIXED_STRING_DOESNT_MATCH
        );
        s.set("os_threads_nice_value_query", "-5").unwrap();
        assert_eq!(
            s.get("os_threads_nice_value_query").unwrap(),
            SettingValue::Int64(-5)
        );
        // An alias sets the setting it stands for.
        s.set("max_insert_block_size_rows", "100").unwrap();
        assert_eq!(s.max_insert_block_size(), 100);
        assert!(s.is_changed("max_insert_block_size"));
    }
}
