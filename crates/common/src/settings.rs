//! The registry of query-level settings and a session's current values.
//!
//! ClickHouse users steer queries with settings (`SET`, `SETTINGS` clauses, URL
//! parameters, `--name=value`). Each setting Strata understands is declared once in
//! [`SETTINGS`] with its type, default and description; everything else is rejected
//! with UNKNOWN_SETTING instead of being silently ignored.

use std::collections::BTreeMap;

use crate::error::{ErrorCode, Result, StrataError};

/// The value domain of a setting, used to validate and normalise what users write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    Bool,
    UInt64,
    Float,
    String,
    /// One of a fixed set of (case-insensitive) words; stored upper-case.
    Enum(&'static [&'static str]),
    /// `max_threads`: a number, or 0/`auto` for the number of cores.
    MaxThreads,
}

impl SettingKind {
    fn type_name(self) -> &'static str {
        match self {
            SettingKind::Bool => "Bool",
            SettingKind::UInt64 => "UInt64",
            SettingKind::Float => "Float",
            SettingKind::String => "String",
            SettingKind::Enum(_) => "SetOperationMode",
            SettingKind::MaxThreads => "MaxThreads",
        }
    }
}

#[derive(Debug)]
pub struct SettingDef {
    pub name: &'static str,
    pub kind: SettingKind,
    pub default: &'static str,
    pub description: &'static str,
}

const SET_MODES: &[&str] = &["", "ALL", "DISTINCT"];

/// Every setting Strata accepts. Keep sorted by name.
pub static SETTINGS: &[SettingDef] = &[
    SettingDef {
        name: "except_default_mode",
        kind: SettingKind::Enum(SET_MODES),
        default: "ALL",
        description: "What a bare EXCEPT means: ALL, DISTINCT, or empty to require one of them",
    },
    SettingDef {
        name: "format_csv_delimiter",
        kind: SettingKind::String,
        default: ",",
        description: "The character that separates fields in CSV formats",
    },
    SettingDef {
        name: "intersect_default_mode",
        kind: SettingKind::Enum(SET_MODES),
        default: "ALL",
        description: "What a bare INTERSECT means: ALL, DISTINCT, or empty to require one of them",
    },
    SettingDef {
        name: "log_queries",
        kind: SettingKind::Bool,
        default: "1",
        description: "Record each query's start, end, figures and error in system.query_log",
    },
    SettingDef {
        name: "max_block_size",
        kind: SettingKind::UInt64,
        default: "65409",
        description: "The number of rows in a block that sources produce",
    },
    SettingDef {
        name: "max_bytes_before_external_group_by",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes a GROUP BY's tables may hold before they move their states to temporary data by key hash partition; 0 leaves it to max_bytes_ratio_before_external_group_by",
    },
    SettingDef {
        name: "max_bytes_before_external_join",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes a join or set operation (INTERSECT, EXCEPT, IN) may hold before it moves partitions to temporary data; 0 leaves it to max_bytes_ratio_before_external_join",
    },
    SettingDef {
        name: "max_bytes_before_external_sort",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes an ORDER BY's unsorted rows may hold, over all its threads, before they are sorted and written to temporary data as runs; 0 leaves it to max_bytes_ratio_before_external_sort",
    },
    SettingDef {
        name: "max_bytes_ratio_before_external_group_by",
        kind: SettingKind::Float,
        default: "0.5",
        description: "The share of the query's memory limit (max_memory_usage, else the server's) a GROUP BY's tables may hold before they move their states to temporary data",
    },
    SettingDef {
        name: "max_bytes_ratio_before_external_join",
        kind: SettingKind::Float,
        default: "0.5",
        description: "The share of the query's memory limit (max_memory_usage, else the server's) a join or set operation may hold before it moves partitions to temporary data",
    },
    SettingDef {
        name: "max_bytes_ratio_before_external_sort",
        kind: SettingKind::Float,
        default: "0.5",
        description: "The share of the query's memory limit (max_memory_usage, else the server's) an ORDER BY's unsorted rows may hold before they are written to temporary data as sorted runs",
    },
    SettingDef {
        name: "max_execution_time",
        kind: SettingKind::Float,
        default: "0",
        description: "Seconds a query may run before it fails with TIMEOUT_EXCEEDED; 0 means no limit",
    },
    SettingDef {
        name: "max_insert_block_size",
        kind: SettingKind::UInt64,
        default: "1048449",
        description: "Rows an INSERT gathers into one block; each block becomes one part per partition of a MergeTree table",
    },
    SettingDef {
        name: "max_memory_usage",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes of tracked memory one query may use; 0 means no per-query limit",
    },
    SettingDef {
        name: "max_temporary_data_on_disk_size_for_query",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes of temporary data one query may keep on disk; 0 means no limit",
    },
    SettingDef {
        name: "max_threads",
        kind: SettingKind::MaxThreads,
        default: "auto",
        description: "Threads (partitions) a query uses; auto means one per CPU core",
    },
    SettingDef {
        name: "memory_overcommit_ratio_denominator",
        kind: SettingKind::UInt64,
        default: "1073741824",
        description: "Bytes that count as one unit of overcommit: when the server limit is reached, the query with the largest ratio of its memory to this is stopped; 0 exempts the query",
    },
    SettingDef {
        name: "memory_usage_overcommit_max_wait_microseconds",
        kind: SettingKind::UInt64,
        default: "5000000",
        description: "How long a query waits for memory to be freed by a query chosen to stop before it fails itself",
    },
    SettingDef {
        name: "output_format_json_quote_64bit_integers",
        kind: SettingKind::Bool,
        default: "0",
        description: "Quote 64-bit integers in JSON output formats",
    },
    SettingDef {
        name: "output_format_pretty_max_rows",
        kind: SettingKind::UInt64,
        default: "10000",
        description: "Rows shown by Pretty formats before the rest is elided",
    },
    SettingDef {
        name: "output_format_pretty_row_numbers",
        kind: SettingKind::Bool,
        default: "1",
        description: "Number the rows in Pretty formats",
    },
    SettingDef {
        name: "readonly",
        kind: SettingKind::UInt64,
        default: "0",
        description: "1 forbids writes and setting changes, 2 forbids writes only",
    },
    SettingDef {
        name: "strata_group_by_operators",
        kind: SettingKind::Bool,
        default: "1",
        description: "0 leaves every query to DataFusion's own operators: GROUP BY to AggregateExec instead of Strata's dense, packed-key and hash operators, and semi joins (INTERSECT, EXCEPT, IN) and other hash joins to HashJoinExec, which cannot spill; to compare the two",
    },
    SettingDef {
        name: "temporary_data_compression",
        kind: SettingKind::String,
        default: "lz4",
        description: "How temporary data is compressed, in RAM (the warm tier) and on disk: none, lz4 or zstd",
    },
    SettingDef {
        name: "temporary_data_warm_ratio",
        kind: SettingKind::Float,
        default: "0.5",
        description: "The share of an operator's spill threshold it may keep as compressed blocks in RAM before the oldest go to disk; 0 sends every spilled block to disk",
    },
    SettingDef {
        name: "union_default_mode",
        kind: SettingKind::Enum(SET_MODES),
        default: "",
        description: "What a bare UNION means: ALL, DISTINCT, or empty to require one of them",
    },
];

/// Settings of the whole process, fixed at start-up (`--name=value` on the
/// command line). Keep sorted by name.
pub static SERVER_SETTINGS: &[SettingDef] = &[
    SettingDef {
        name: "max_server_memory_usage",
        kind: SettingKind::UInt64,
        default: "0",
        description: "Bytes of tracked memory the whole process may use; 0 derives it from max_server_memory_usage_to_ram_ratio",
    },
    SettingDef {
        name: "max_server_memory_usage_to_ram_ratio",
        kind: SettingKind::Float,
        default: "0.9",
        description: "The share of available memory (the smaller of physical RAM and the cgroup limit) the process may use when max_server_memory_usage is 0",
    },
    SettingDef {
        name: "tmp_path",
        kind: SettingKind::String,
        default: "",
        description: "Directories for temporary data, separated by commas and written round-robin; empty means tmp/ under the data path",
    },
];

pub fn setting_def(name: &str) -> Option<&'static SettingDef> {
    SETTINGS.iter().find(|def| def.name == name)
}

/// Which registry a set of values belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    Query,
    Server,
}

impl Scope {
    pub fn registry(self) -> &'static [SettingDef] {
        match self {
            Scope::Query => SETTINGS,
            Scope::Server => SERVER_SETTINGS,
        }
    }

    pub fn find(self, name: &str) -> Option<&'static SettingDef> {
        self.registry().iter().find(|def| def.name == name)
    }
}

/// A typed setting value after validation.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingValue {
    Bool(bool),
    UInt64(u64),
    Float(f64),
    String(String),
}

impl std::fmt::Display for SettingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Bool(b) => write!(f, "{}", u8::from(*b)),
            SettingValue::UInt64(v) => write!(f, "{v}"),
            SettingValue::Float(v) => write!(f, "{v}"),
            SettingValue::String(s) => f.write_str(s),
        }
    }
}

/// Settings values of one session or one query: defaults plus what was changed.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    scope: Scope,
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

    /// Validates and stores `value` (as the user wrote it, unquoted) for `name`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let def = self.scope.find(name).ok_or_else(|| unknown_setting(name))?;
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

    pub fn is_changed(&self, name: &str) -> bool {
        self.changed.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Result<SettingValue> {
        let def = self.scope.find(name).ok_or_else(|| unknown_setting(name))?;
        Ok(match self.changed.get(def.name) {
            Some(value) => value.clone(),
            None => parse_value(def, def.default).expect("setting defaults are valid"),
        })
    }

    pub fn get_u64(&self, name: &str) -> u64 {
        match self.get(name) {
            Ok(SettingValue::UInt64(v)) => v,
            Ok(SettingValue::Bool(b)) => u64::from(b),
            Ok(SettingValue::Float(f)) => f as u64,
            other => panic!("setting {name} is not an integer: {other:?}"),
        }
    }

    pub fn get_f64(&self, name: &str) -> f64 {
        match self.get(name) {
            Ok(SettingValue::Float(v)) => v,
            Ok(SettingValue::UInt64(v)) => v as f64,
            other => panic!("setting {name} is not a number: {other:?}"),
        }
    }

    pub fn get_bool(&self, name: &str) -> bool {
        self.get_u64(name) != 0
    }

    pub fn get_string(&self, name: &str) -> String {
        self.get(name).map(|v| v.to_string()).unwrap_or_default()
    }

    /// `max_threads` resolved to a thread count.
    pub fn max_threads(&self) -> usize {
        match self.get_u64("max_threads") {
            0 => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            n => n as usize,
        }
    }

    pub fn type_name(def: &SettingDef) -> &'static str {
        def.kind.type_name()
    }
}

fn unknown_setting(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::UNKNOWN_SETTING,
        format!("Unknown setting '{name}'"),
    )
}

fn bad_value(def: &SettingDef, value: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_PARSE_TEXT,
        format!(
            "Cannot parse '{value}' as {} for setting '{}'",
            def.kind.type_name(),
            def.name
        ),
    )
}

fn parse_value(def: &SettingDef, value: &str) -> Result<SettingValue> {
    let trimmed = value.trim();
    match def.kind {
        SettingKind::Bool => match trimmed.to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(SettingValue::Bool(true)),
            "0" | "false" => Ok(SettingValue::Bool(false)),
            _ => Err(bad_value(def, value)),
        },
        SettingKind::UInt64 => parse_u64(trimmed)
            .map(SettingValue::UInt64)
            .ok_or_else(|| bad_value(def, value)),
        SettingKind::MaxThreads => {
            if trimmed.eq_ignore_ascii_case("auto") {
                Ok(SettingValue::UInt64(0))
            } else {
                parse_u64(trimmed)
                    .map(SettingValue::UInt64)
                    .ok_or_else(|| bad_value(def, value))
            }
        }
        SettingKind::Float => trimmed
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(SettingValue::Float)
            .ok_or_else(|| bad_value(def, value)),
        SettingKind::String => Ok(SettingValue::String(value.to_string())),
        SettingKind::Enum(words) => {
            let upper = trimmed.to_ascii_uppercase();
            if words.contains(&upper.as_str()) {
                Ok(SettingValue::String(upper))
            } else {
                Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!(
                        "Unexpected value of {}: '{value}'. Must be one of [{}]",
                        def.name,
                        words
                            .iter()
                            .map(|w| format!("'{w}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        }
    }
}

/// Integers as ClickHouse accepts them in settings: plain, or a whole float (`1e9`).
fn parse_u64(text: &str) -> Option<u64> {
    if let Ok(v) = text.parse::<u64>() {
        return Some(v);
    }
    let f: f64 = text.parse().ok()?;
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19).then_some(f as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_defaults_parse() {
        for pair in SETTINGS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
        for def in SETTINGS {
            parse_value(def, def.default).unwrap();
        }
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
        assert_eq!(s.max_threads(), 3);
        s.set("max_memory_usage", "1e9").unwrap();
        assert_eq!(s.get_u64("max_memory_usage"), 1_000_000_000);
        s.set("union_default_mode", "distinct").unwrap();
        assert_eq!(s.get_string("union_default_mode"), "DISTINCT");
        assert!(s.set("union_default_mode", "some").is_err());
    }
}
