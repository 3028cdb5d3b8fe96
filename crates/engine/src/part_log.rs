//! `system.part_log`: what happened to the parts of MergeTree tables (new,
//! merged, mutated, moved, removed), kept in memory as events arrive. Only
//! changes that took effect are logged, so `error` is always 0. The log is
//! bounded: the oldest entries go first.

use std::sync::Arc;

use strata_storage::merge_tree::{PartEvent, PartLog as TablePartLog};
use uuid::Uuid;

use crate::bounded_log::BoundedLog;

/// Entries kept before the oldest are dropped.
pub const PART_LOG_CAPACITY: usize = 100_000;

#[derive(Debug, Clone)]
pub struct PartLogEntry {
    pub database: String,
    pub table: String,
    pub table_uuid: Uuid,
    pub event: PartEvent,
}

#[derive(Debug)]
pub struct PartLog {
    entries: BoundedLog<PartLogEntry>,
}

impl Default for PartLog {
    fn default() -> Self {
        PartLog {
            entries: BoundedLog::new(PART_LOG_CAPACITY),
        }
    }
}

impl PartLog {
    pub fn record(&self, entry: PartLogEntry) {
        self.entries.push(entry);
    }

    pub fn entries(&self) -> Vec<PartLogEntry> {
        self.entries.entries()
    }

    /// What the table `database.table` reports its part events to.
    pub fn for_table(self: &Arc<Self>, database: &str, table: &str, uuid: Uuid) -> TablePartLog {
        let log = Arc::clone(self);
        let (database, table) = (database.to_string(), table.to_string());
        Arc::new(move |event| {
            log.record(PartLogEntry {
                database: database.clone(),
                table: table.clone(),
                table_uuid: uuid,
                event,
            });
        })
    }
}
