//! A log kept in memory whose oldest entries go first once it holds its
//! capacity: the store behind `system.query_log` and `system.part_log`.

use std::collections::VecDeque;

use parking_lot::Mutex;

#[derive(Debug)]
pub struct BoundedLog<T> {
    entries: Mutex<VecDeque<T>>,
    /// Entries kept before the oldest are dropped.
    capacity: usize,
}

impl<T: Clone> BoundedLog<T> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "a log keeps an entry at least");
        BoundedLog {
            entries: Mutex::new(VecDeque::new()),
            capacity,
        }
    }

    pub fn push(&self, entry: T) {
        let mut entries = self.entries.lock();
        if entries.len() == self.capacity {
            entries.pop_front();
        }
        entries.push_back(entry);
        debug_assert!(entries.len() <= self.capacity);
    }

    pub fn entries(&self) -> Vec<T> {
        self.entries.lock().iter().cloned().collect()
    }
}
