//! `system.part_log`: what happened to the parts of MergeTree tables (new,
//! merged, mutated, moved, removed), kept in memory as events arrive. Only
//! changes that took effect are logged, so `error` is always 0. The log is
//! bounded: the oldest entries go first.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_storage::merge_tree::{PartEvent, PartLog as TablePartLog};
use uuid::Uuid;

/// Entries kept before the oldest are dropped.
pub const PART_LOG_CAPACITY: usize = 100_000;

#[derive(Debug, Clone)]
pub struct PartLogEntry {
    pub database: String,
    pub table: String,
    pub table_uuid: Uuid,
    pub event: PartEvent,
}

#[derive(Debug, Default)]
pub struct PartLog {
    entries: Mutex<VecDeque<PartLogEntry>>,
}

impl PartLog {
    pub fn record(&self, entry: PartLogEntry) {
        let mut entries = self.entries.lock();
        if entries.len() == PART_LOG_CAPACITY {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    pub fn entries(&self) -> Vec<PartLogEntry> {
        self.entries.lock().iter().cloned().collect()
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
