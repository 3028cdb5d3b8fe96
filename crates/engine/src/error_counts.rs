//! `system.errors`: how many times each error code ended a query since
//! start-up, with the last one's time, message and query id.

use std::collections::BTreeMap;
use std::time::SystemTime;

use strata_common::StrataError;

/// The count and the last occurrence of one error code.
#[derive(Debug, Clone)]
pub struct ErrorCount {
    pub name: &'static str,
    pub code: i32,
    pub count: u64,
    pub last_time: SystemTime,
    pub last_message: String,
    pub last_query_id: String,
}

#[derive(Debug, Default)]
pub struct ErrorCounts {
    by_code: parking_lot::Mutex<BTreeMap<i32, ErrorCount>>,
}

impl ErrorCounts {
    pub fn record(&self, error: &StrataError, query_id: &str) {
        let mut by_code = self.by_code.lock();
        let entry = by_code
            .entry(error.code.code)
            .or_insert_with(|| ErrorCount {
                name: error.code.name,
                code: error.code.code,
                count: 0,
                last_time: SystemTime::UNIX_EPOCH,
                last_message: String::new(),
                last_query_id: String::new(),
            });
        entry.count += 1;
        entry.last_time = SystemTime::now();
        entry.last_message = error.message.clone();
        entry.last_query_id = query_id.to_string();
    }

    /// The codes counted so far, by code.
    pub fn entries(&self) -> Vec<ErrorCount> {
        self.by_code.lock().values().cloned().collect()
    }
}
