//! `system.query_log`: what each query did, kept in memory.
//!
//! One entry when a query starts and one when it ends (finished, or failed
//! before or while running), as ClickHouse records them. Entries are written
//! at once rather than flushed periodically, so `SYSTEM FLUSH LOGS` has
//! nothing to wait for. The log is bounded: the oldest entries go first.

use std::sync::Arc;
use std::time::SystemTime;
use strata_execution::spill::SpillFigures;

use strata_common::StrataError;
use strata_common::events::Event;

use crate::bounded_log::BoundedLog;
use crate::query_context::{ClientInfo, QueryContext};

/// Entries kept before the oldest are dropped.
pub const QUERY_LOG_CAPACITY: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogType {
    QueryStart,
    QueryFinish,
    ExceptionBeforeStart,
    ExceptionWhileProcessing,
}

impl LogType {
    pub fn name(self) -> &'static str {
        match self {
            LogType::QueryStart => "QueryStart",
            LogType::QueryFinish => "QueryFinish",
            LogType::ExceptionBeforeStart => "ExceptionBeforeStart",
            LogType::ExceptionWhileProcessing => "ExceptionWhileProcessing",
        }
    }
}

#[derive(Debug, Clone)]
pub struct QueryLogEntry {
    pub kind: LogType,
    pub event_time: SystemTime,
    pub query_start_time: SystemTime,
    pub query_duration_ms: u64,
    pub query_id: String,
    pub client: Arc<ClientInfo>,
    pub query: String,
    /// The statement's family, by its first word (`Select`, `Insert`, ...).
    pub query_kind: &'static str,
    pub current_database: String,
    pub read_rows: u64,
    pub read_bytes: u64,
    pub written_rows: u64,
    pub written_bytes: u64,
    pub result_rows: u64,
    pub result_bytes: u64,
    /// Tracked bytes the query still held when the entry was written.
    pub memory_usage: u64,
    pub peak_memory_usage: u64,
    pub spill: SpillFigures,
    /// The events the query counted, those above zero; none at its start.
    pub profile_events: Vec<(Event, u64)>,
    /// The settings it ran with that differ from the defaults, values as text.
    pub settings: Vec<(&'static str, String)>,
    pub exception_code: i32,
    pub exception: String,
}

#[derive(Debug)]
pub struct QueryLog {
    entries: BoundedLog<QueryLogEntry>,
}

impl Default for QueryLog {
    fn default() -> Self {
        QueryLog {
            entries: BoundedLog::new(QUERY_LOG_CAPACITY),
        }
    }
}

impl QueryLog {
    /// Records an event of `query`; `error` for the exception kinds.
    pub fn record(&self, kind: LogType, query: &QueryContext, error: Option<&StrataError>) {
        if !query.settings.log_queries() {
            return;
        }
        let finished = kind != LogType::QueryStart;
        let entry = QueryLogEntry {
            kind,
            event_time: SystemTime::now(),
            query_start_time: query.start_time,
            query_duration_ms: if finished {
                query.started.elapsed().as_millis() as u64
            } else {
                0
            },
            query_id: query.query_id.clone(),
            client: Arc::clone(&query.client),
            // Secrets of disk definitions are not kept, as ClickHouse masks them.
            query: crate::table_definition::inline_disk::hide_secrets(&query.text),
            query_kind: query_kind(&query.text),
            current_database: query.current_database.clone(),
            read_rows: query.rows_read(),
            read_bytes: query.bytes_read(),
            written_rows: query.written_rows(),
            written_bytes: query.written_bytes(),
            result_rows: query.result_rows(),
            result_bytes: query.result_bytes(),
            memory_usage: datafusion::execution::memory_pool::MemoryPool::reserved(
                query.memory.as_ref(),
            ) as u64,
            peak_memory_usage: query.memory.peak() as u64,
            spill: query.spill.figures(),
            profile_events: if finished {
                query.events.nonzero()
            } else {
                Vec::new()
            },
            settings: query.settings.changes(),
            exception_code: error.map_or(0, |e| e.code.code),
            exception: error.map_or_else(String::new, |e| e.to_string()),
        };
        self.entries.push(entry);
    }

    pub fn entries(&self) -> Vec<QueryLogEntry> {
        self.entries.entries()
    }
}

/// ClickHouse's kind of the statement `text` by its first word, past
/// comments and opening parentheses; empty where none matches.
pub fn query_kind(text: &str) -> &'static str {
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(comment) = rest.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    match word.as_str() {
        "SELECT" | "WITH" | "VALUES" | "FROM" => "Select",
        "INSERT" => "Insert",
        "DELETE" => "Delete",
        "UPDATE" => "Update",
        "CREATE" | "ATTACH" | "REPLACE" => "Create",
        "DROP" | "DETACH" | "TRUNCATE" => "Drop",
        "UNDROP" => "Undrop",
        "RENAME" | "EXCHANGE" => "Rename",
        "OPTIMIZE" => "Optimize",
        "CHECK" => "Check",
        "ALTER" => "Alter",
        "GRANT" => "Grant",
        "REVOKE" => "Revoke",
        "MOVE" => "Move",
        "SYSTEM" => "System",
        "SET" => "Set",
        "USE" => "Use",
        "SHOW" => "Show",
        "EXISTS" => "Exists",
        "DESCRIBE" | "DESC" => "Describe",
        "EXPLAIN" => "Explain",
        "BACKUP" => "Backup",
        "RESTORE" => "Restore",
        "KILL" => "KillQuery",
        "BEGIN" => "Begin",
        "COMMIT" => "Commit",
        "ROLLBACK" => "Rollback",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::query_kind;

    #[test]
    fn kinds_by_first_word() {
        assert_eq!(query_kind("SELECT 1"), "Select");
        assert_eq!(query_kind("  (with 1 AS x SELECT x)"), "Select");
        assert_eq!(
            query_kind("-- note\n/* c */ insert into t values (1)"),
            "Insert"
        );
        assert_eq!(query_kind("ALTER TABLE t DELETE WHERE 1"), "Alter");
        assert_eq!(query_kind("desc t"), "Describe");
        assert_eq!(query_kind("FOO"), "");
    }
}
