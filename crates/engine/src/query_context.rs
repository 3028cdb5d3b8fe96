//! Per-query accounting: identity and text, rows and bytes read by sources,
//! result rows, the query's memory account, cancellation and the deadline.
//!
//! Every figure in the query summary comes from here and is counted as it
//! happens; nothing is estimated after the fact.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use datafusion::common::Result;
use strata_common::events::QueryEvents;
use strata_common::readable::readable_quantity;
use strata_common::settings::Settings;
use strata_common::settings::constraints::SettingsConstraints;
use strata_common::{ErrorCode, StrataError};
use strata_execution::spill::SpillCounters;
use strata_memory::{QueryLimits, QueryMemory, ServerMemory};

/// How a client reached the server, as `system.query_log.interface` numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    Http = 2,
    Local = 6,
}

/// Who runs a query and from where, for `system.processes` and `system.query_log`.
#[derive(Debug, Clone)]
pub struct ClientInfo {
    pub user: String,
    /// The peer's IP address; empty in `strata local`.
    pub address: String,
    pub interface: Interface,
    pub http_user_agent: String,
    /// The client's product name, the first word of its User-Agent.
    pub client_name: String,
}

impl ClientInfo {
    pub fn local() -> Self {
        ClientInfo {
            user: "default".to_string(),
            address: String::new(),
            interface: Interface::Local,
            http_user_agent: String::new(),
            client_name: String::new(),
        }
    }
}

/// Counters a query's sources and operators update while it runs.
#[derive(Debug)]
pub struct QueryContext {
    pub query_id: String,
    pub client: Arc<ClientInfo>,
    /// The statement as the user wrote it.
    pub text: String,
    pub started: Instant,
    pub start_time: SystemTime,
    rows_read: AtomicU64,
    /// Rows the query's sources chose to read when planned (after the
    /// sparse index), ClickHouse's `total_rows_to_read`.
    rows_to_read: AtomicU64,
    bytes_read: AtomicU64,
    result_rows: AtomicU64,
    /// Bytes of the result's blocks in memory, ClickHouse's `result_bytes`.
    result_bytes: AtomicU64,
    written_rows: AtomicU64,
    written_bytes: AtomicU64,
    cancelled: AtomicBool,
    running: AtomicBool,
    finished: AtomicBool,
    deadline: Option<Duration>,
    /// The query's memory account; DataFusion operators reserve through it.
    pub memory: Arc<QueryMemory>,
    /// What the query's operators moved to temporary data.
    pub spill: Arc<SpillCounters>,
    /// The events its work counted (`ProfileEvents`), shared by every query
    /// context of one statement.
    pub events: Arc<QueryEvents>,
    /// The settings the query runs with (session settings plus its SETTINGS clause).
    pub settings: Settings,
    /// What the session may change of its settings (`system.settings` shows them).
    pub constraints: Arc<SettingsConstraints>,
    pub current_database: String,
    /// Tables (database, name) the query reads with FINAL.
    final_tables: parking_lot::RwLock<Vec<(String, String)>>,
    /// Whether the query names a virtual column of `file()` or `s3()`
    /// (`_path`, `_file`, `_size`, `_time`), which their tables then show.
    names_input_columns: AtomicBool,
}

impl QueryContext {
    /// A query named `query_id`, or by a fresh UUID when it is `None`.
    pub fn new(
        text: String,
        (settings, constraints): (Settings, Arc<SettingsConstraints>),
        current_database: String,
        identity: (Option<String>, Arc<ClientInfo>),
        server_memory: &Arc<ServerMemory>,
        events: Arc<QueryEvents>,
    ) -> Arc<Self> {
        let (query_id, client) = identity;
        let query_id = query_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let limits = QueryLimits {
            max_memory_usage: settings.max_memory_usage() as usize,
            overcommit_ratio_denominator: settings.memory_overcommit_ratio_denominator() as usize,
            overcommit_max_wait: Duration::from_micros(
                settings.memory_usage_overcommit_max_wait_microseconds(),
            ),
        };
        let seconds = settings.max_execution_time();
        let max_execution_time = (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
        Arc::new(QueryContext {
            memory: server_memory.new_query(query_id.clone(), limits),
            query_id,
            client,
            text,
            started: Instant::now(),
            start_time: SystemTime::now(),
            rows_read: AtomicU64::new(0),
            rows_to_read: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            result_rows: AtomicU64::new(0),
            result_bytes: AtomicU64::new(0),
            written_rows: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            running: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            deadline: max_execution_time,
            spill: Arc::new(SpillCounters::default()),
            events,
            settings,
            constraints,
            current_database,
            final_tables: parking_lot::RwLock::new(Vec::new()),
            names_input_columns: AtomicBool::new(false),
        })
    }

    pub fn set_names_input_columns(&self, names: bool) {
        self.names_input_columns.store(names, Ordering::Relaxed);
    }

    /// Whether `file()` and `s3()` show their virtual columns to this query.
    pub fn names_input_columns(&self) -> bool {
        self.names_input_columns.load(Ordering::Relaxed)
    }

    pub fn set_final_tables(&self, tables: Vec<(String, String)>) {
        *self.final_tables.write() = tables;
    }

    /// Whether the query reads `database.table` with FINAL.
    pub fn reads_final(&self, database: &str, table: &str) -> bool {
        self.final_tables
            .read()
            .iter()
            .any(|(d, t)| d == database && t == table)
    }

    /// Counts rows and bytes read; past `max_rows_to_read` (with
    /// `read_overflow_mode = 'throw'`) the query fails with TOO_MANY_ROWS.
    pub fn add_read(&self, rows: u64, bytes: u64) -> Result<()> {
        let total = self.rows_read.fetch_add(rows, Ordering::Relaxed) + rows;
        self.bytes_read.fetch_add(bytes, Ordering::Relaxed);
        let limit = self.settings.max_rows_to_read();
        if limit > 0 && total > limit && self.settings.read_overflow_mode() == "throw" {
            return Err(StrataError::new(
                ErrorCode::TOO_MANY_ROWS,
                format!(
                    "Limit for rows (controlled by 'max_rows_to_read' setting) exceeded, max rows: {}, current rows: {}",
                    readable_quantity(limit as f64),
                    readable_quantity(total as f64)
                ),
            )
            .into_datafusion());
        }
        Ok(())
    }

    pub fn add_rows_to_read(&self, rows: u64) {
        self.rows_to_read.fetch_add(rows, Ordering::Relaxed);
    }

    pub fn rows_to_read(&self) -> u64 {
        self.rows_to_read.load(Ordering::Relaxed)
    }

    pub fn rows_read(&self) -> u64 {
        self.rows_read.load(Ordering::Relaxed)
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Rows an INSERT stored and the bytes their parts take on disk.
    pub fn add_written(&self, rows: u64, bytes: u64) {
        self.written_rows.fetch_add(rows, Ordering::Relaxed);
        self.written_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn written_rows(&self) -> u64 {
        self.written_rows.load(Ordering::Relaxed)
    }

    pub fn written_bytes(&self) -> u64 {
        self.written_bytes.load(Ordering::Relaxed)
    }

    /// Counts a block of the result.
    pub fn add_result(&self, rows: u64, bytes: u64) {
        self.result_rows.fetch_add(rows, Ordering::Relaxed);
        self.result_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn result_rows(&self) -> u64 {
        self.result_rows.load(Ordering::Relaxed)
    }

    pub fn result_bytes(&self) -> u64 {
        self.result_bytes.load(Ordering::Relaxed)
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Marks the query as running; true the first time.
    pub fn begin(&self) -> bool {
        !self.running.swap(true, Ordering::Relaxed)
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }

    /// Marks the query ended; true the first time, so it is logged once.
    pub fn mark_finished(&self) -> bool {
        !self.finished.swap(true, Ordering::Relaxed)
    }

    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Fails if the query was cancelled, ran past `max_execution_time`, or was
    /// selected to stop by the memory overcommit policy; sources call this
    /// between blocks so a long query stops promptly.
    pub fn check(&self) -> Result<()> {
        self.memory
            .check_stopped()
            .map_err(StrataError::into_datafusion)?;
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(
                StrataError::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled")
                    .into_datafusion(),
            );
        }
        if let Some(limit) = self.deadline {
            let elapsed = self.started.elapsed();
            if elapsed > limit {
                return Err(StrataError::new(
                    ErrorCode::TIMEOUT_EXCEEDED,
                    format!(
                        "Timeout exceeded: elapsed {:.6} seconds, maximum: {:.6}",
                        elapsed.as_secs_f64(),
                        limit.as_secs_f64()
                    ),
                )
                .into_datafusion());
            }
        }
        Ok(())
    }
}
