//! `system.text_log`: the process's recent log records, kept in memory as
//! well as written to stderr, so an operator can read them with SQL. The
//! log is bounded: the oldest records go first.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::SystemTime;

/// Records kept before the oldest are dropped.
pub const TEXT_LOG_CAPACITY: usize = 10_000;

#[derive(Debug, Clone)]
pub struct TextLogRecord {
    pub event_time: SystemTime,
    /// ClickHouse's level name: `Error`, `Warning`, `Information`, `Debug`, `Trace`.
    pub level: &'static str,
    pub logger_name: String,
    pub message: String,
    pub thread_name: String,
}

static RECORDS: Mutex<VecDeque<TextLogRecord>> = Mutex::new(VecDeque::new());

pub fn push(record: TextLogRecord) {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    if records.len() == TEXT_LOG_CAPACITY {
        records.pop_front();
    }
    records.push_back(record);
}

/// The records kept, oldest first.
pub fn records() -> Vec<TextLogRecord> {
    let records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    records.iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_records_go_first() {
        for i in 0..TEXT_LOG_CAPACITY + 5 {
            push(TextLogRecord {
                event_time: SystemTime::now(),
                level: "Information",
                logger_name: "test".into(),
                message: i.to_string(),
                thread_name: String::new(),
            });
        }
        let kept = records();
        assert_eq!(kept.len(), TEXT_LOG_CAPACITY);
        assert_eq!(kept[0].message, "5");
    }
}
