//! `system.processes`: the queries running now, with their live counters.
//!
//! The list holds weak references, so a query that ends (or whose caller
//! drops it) disappears without a separate unregister step that could be
//! forgotten on an error path.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::query_context::QueryContext;

#[derive(Debug, Default)]
pub struct ProcessList {
    queries: Mutex<Vec<Weak<QueryContext>>>,
}

impl ProcessList {
    pub fn add(&self, query: &Arc<QueryContext>) {
        let mut queries = self.queries.lock();
        queries.retain(|q| q.upgrade().is_some_and(|q| !q.is_finished()));
        queries.push(Arc::downgrade(query));
    }

    /// Running queries, oldest first.
    pub fn running(&self) -> Vec<Arc<QueryContext>> {
        self.queries
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|q| !q.is_finished())
            .collect()
    }
}
