//! The one account all tracked memory goes through.
//!
//! Every query gets a [`QueryMemory`], which is the DataFusion `MemoryPool` its
//! operators reserve from; each reservation is checked against the query's own
//! limit (`max_memory_usage`) and then against the server's ([`ServerMemory`]).
//! When the server limit is reached, a policy picks the query to stop instead
//! of failing whichever query happens to allocate next:
//!
//! - Every running query has an overcommit ratio: its tracked bytes divided by
//!   its `memory_overcommit_ratio_denominator` (0 exempts the query).
//! - The query with the largest ratio is selected to stop. If that is the query
//!   asking for memory, it fails at once. Otherwise the selected query fails at
//!   its next reservation or cancellation check, and the asking query waits up
//!   to `memory_usage_overcommit_max_wait_microseconds` for the memory to be
//!   freed, then fails itself if it was not.
//! - While a selected query still holds memory, no second one is selected.
//!
//! Every failure is MEMORY_LIMIT_EXCEEDED with the real figures; the process
//! and the other queries go on.
//!
//! Caches reserve on the same account, below queries in priority: they are
//! admitted only while [`CACHE_HEADROOM`] of the limit stays free, and a
//! reservation that finds the server full takes cache memory back
//! ([`Reclaim`]) before any query is waited for or stopped.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};
use parking_lot::{Condvar, Mutex};
use strata_common::readable::readable_size;
use strata_common::{ErrorCode, StrataError};

use crate::budget::{Budget, BudgetConfig, SystemProbe};
use crate::process;

/// Overcommit decisions kept for `system.asynchronous_metrics` and tests.
const DECISIONS_KEPT: usize = 1000;
/// A waiting query re-checks at least this often, so a missed wake-up costs
/// milliseconds, not the whole wait.
const WAIT_SLICE: Duration = Duration::from_millis(10);

/// The share of the server limit a cache admission leaves free, so queries
/// rarely have to take cache memory back themselves.
pub const CACHE_HEADROOM: f64 = 0.15;

/// Memory the server can take back at once: the data caches.
pub trait Reclaim: Send + Sync {
    /// Frees at least `bytes` if it holds that much; returns the bytes freed.
    fn reclaim(&self, bytes: usize) -> usize;
    /// The server limit is now `limit` bytes.
    fn limit_changed(&self, limit: usize);
}

/// A query chosen to stop by the overcommit policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OvercommitDecision {
    pub stopped_query_id: String,
    /// The query whose reservation found the server full.
    pub requested_by: String,
}

/// The server account: its limit, its total, and the running queries.
#[derive(Debug)]
pub struct ServerMemory {
    config: BudgetConfig,
    probe: SystemProbe,
    budget: Mutex<Budget>,
    /// The enforced limit in bytes, kept apart from `budget` so the hot path
    /// reads one atomic.
    limit: AtomicUsize,
    /// Every byte on the account: queries' and caches'.
    reserved: AtomicUsize,
    /// The caches' share of `reserved`.
    cached: AtomicUsize,
    peak: AtomicUsize,
    queries: Mutex<Vec<Weak<QueryMemory>>>,
    reclaimers: Mutex<Vec<Weak<dyn Reclaim>>>,
    waiters: AtomicUsize,
    freed_lock: Mutex<()>,
    freed: Condvar,
    decisions: Mutex<Vec<OvercommitDecision>>,
    decision_count: AtomicUsize,
}

impl ServerMemory {
    pub fn new(config: BudgetConfig, probe: SystemProbe) -> Arc<Self> {
        let budget = Budget::compute(config, &probe);
        Arc::new(ServerMemory {
            config,
            probe,
            limit: AtomicUsize::new(usize::try_from(budget.limit).unwrap_or(usize::MAX)),
            budget: Mutex::new(budget),
            reserved: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            queries: Mutex::new(Vec::new()),
            reclaimers: Mutex::new(Vec::new()),
            waiters: AtomicUsize::new(0),
            freed_lock: Mutex::new(()),
            freed: Condvar::new(),
            decisions: Mutex::new(Vec::new()),
            decision_count: AtomicUsize::new(0),
        })
    }

    /// A server with a fixed limit, whatever the machine has (tests, embedding).
    pub fn with_limit(bytes: u64) -> Arc<Self> {
        let probe = SystemProbe {
            meminfo: "/nonexistent".into(),
            proc_self_cgroup: "/nonexistent".into(),
            cgroup_root: "/nonexistent".into(),
        };
        let config = BudgetConfig {
            max_server_memory_usage: bytes,
            ratio: 1.0,
        };
        Self::new(config, probe)
    }

    /// Re-reads RAM and the cgroup limit, so a resized container is noticed;
    /// caches follow a new limit at once.
    pub fn refresh(&self) {
        let budget = Budget::compute(self.config, &self.probe);
        let limit = usize::try_from(budget.limit).unwrap_or(usize::MAX);
        let before = self.limit.swap(limit, Ordering::Relaxed);
        *self.budget.lock() = budget;
        if before != limit {
            for reclaimer in self.reclaimers() {
                reclaimer.limit_changed(limit);
            }
            let over = self.reserved().saturating_sub(limit);
            if over > 0 {
                self.reclaim(over);
            }
        }
    }

    /// Refreshes the budget every `interval` on a background thread for as
    /// long as the server exists.
    pub fn watch(self: &Arc<Self>, interval: Duration) {
        let weak = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("memory-budget".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(interval);
                    match weak.upgrade() {
                        Some(server) => server.refresh(),
                        None => return,
                    }
                }
            })
            .expect("spawning the budget watcher");
    }

    pub fn budget(&self) -> Budget {
        self.budget.lock().clone()
    }

    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// Bytes on the account: queries' and caches'.
    pub fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Relaxed)
    }

    /// Bytes the caches hold, part of [`ServerMemory::reserved`].
    pub fn cached(&self) -> usize {
        self.cached.load(Ordering::Relaxed)
    }

    /// Bytes queries hold: [`ServerMemory::reserved`] less the caches.
    pub fn query_reserved(&self) -> usize {
        self.reserved().saturating_sub(self.cached())
    }

    /// Lets the server take memory back from `reclaimer` when it is full.
    pub fn add_reclaimer(&self, reclaimer: Weak<dyn Reclaim>) {
        let mut reclaimers = self.reclaimers.lock();
        reclaimers.retain(|r| r.strong_count() > 0);
        reclaimers.push(reclaimer);
    }

    fn reclaimers(&self) -> Vec<Arc<dyn Reclaim>> {
        self.reclaimers
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// Reserves `bytes` for a cache when the account stays under the limit
    /// less [`CACHE_HEADROOM`]; a cache never takes memory from anyone.
    pub fn try_reserve_cache(&self, bytes: usize) -> bool {
        let limit = self.limit();
        let ceiling = limit - (limit as f64 * CACHE_HEADROOM) as usize;
        if !self.try_reserve_under(bytes, ceiling) {
            return false;
        }
        self.cached.fetch_add(bytes, Ordering::Relaxed);
        true
    }

    /// Gives back bytes a cache reserved.
    pub fn release_cache(&self, bytes: usize) {
        let before = self.cached.fetch_sub(bytes, Ordering::Relaxed);
        debug_assert!(before >= bytes, "caches release {bytes} of {before} bytes");
        self.release(bytes);
    }

    /// Takes at least `bytes` back from the caches if they hold that much;
    /// the bytes freed.
    pub fn reclaim(&self, bytes: usize) -> usize {
        let mut freed = 0;
        for reclaimer in self.reclaimers() {
            if freed >= bytes {
                break;
            }
            freed += reclaimer.reclaim(bytes - freed);
        }
        freed
    }

    /// Frees cache memory for a reservation of `additional` bytes that did
    /// not fit; true when some was freed, so the reservation is worth retrying.
    fn reclaim_for(&self, additional: usize) -> bool {
        let over = self
            .reserved()
            .saturating_add(additional)
            .saturating_sub(self.limit());
        self.cached() > 0 && self.reclaim(over.max(1)) > 0
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    pub fn decision_count(&self) -> usize {
        self.decision_count.load(Ordering::Relaxed)
    }

    pub fn decisions(&self) -> Vec<OvercommitDecision> {
        self.decisions.lock().clone()
    }

    /// Opens the account of a new query.
    pub fn new_query(self: &Arc<Self>, query_id: String, limits: QueryLimits) -> Arc<QueryMemory> {
        let query = Arc::new(QueryMemory {
            query_id,
            server: Arc::clone(self),
            limits,
            reserved: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            stop_reason: Mutex::new(None),
        });
        let mut queries = self.queries.lock();
        queries.retain(|q| q.strong_count() > 0);
        queries.push(Arc::downgrade(&query));
        query
    }

    fn try_reserve(&self, additional: usize) -> bool {
        self.try_reserve_under(additional, self.limit())
    }

    /// Reserves `additional` bytes if the account stays at most `limit`.
    fn try_reserve_under(&self, additional: usize, limit: usize) -> bool {
        let mut current = self.reserved.load(Ordering::Relaxed);
        loop {
            let wanted = current.saturating_add(additional);
            if wanted > limit {
                return false;
            }
            match self.reserved.compare_exchange_weak(
                current,
                wanted,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.peak.fetch_max(wanted, Ordering::Relaxed);
                    return true;
                }
                Err(actual) => current = actual,
            }
        }
    }

    fn force_reserve(&self, additional: usize) {
        let now = self.reserved.fetch_add(additional, Ordering::Relaxed) + additional;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn release(&self, bytes: usize) {
        let before = self.reserved.fetch_sub(bytes, Ordering::Relaxed);
        debug_assert!(before >= bytes, "release {bytes} of {before} bytes");
        if self.waiters.load(Ordering::Relaxed) > 0 {
            let _guard = self.freed_lock.lock();
            self.freed.notify_all();
        }
    }

    /// The query the policy stops: one already selected that still holds
    /// memory, else the largest overcommit ratio.
    fn choose_victim(&self) -> Option<Arc<QueryMemory>> {
        let queries: Vec<Arc<QueryMemory>> = self
            .queries
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        if let Some(pending) = queries.iter().find(|q| q.is_stopped() && q.reserved() > 0) {
            return Some(Arc::clone(pending));
        }
        queries
            .into_iter()
            .filter(|q| !q.is_stopped() && q.limits.overcommit_ratio_denominator > 0)
            .filter(|q| q.reserved() > 0)
            .max_by(|a, b| a.overcommit_ratio().total_cmp(&b.overcommit_ratio()))
    }

    fn record(&self, decision: OvercommitDecision) {
        self.decision_count.fetch_add(1, Ordering::Relaxed);
        let mut decisions = self.decisions.lock();
        if decisions.len() == DECISIONS_KEPT {
            decisions.remove(0);
        }
        decisions.push(decision);
    }

    /// Reserves `additional` bytes for `query` on the server account, applying
    /// the overcommit policy when the server is full.
    fn reserve_for(&self, query: &QueryMemory, additional: usize, consumer: &str) -> Result<()> {
        let deadline = Instant::now() + query.limits.overcommit_max_wait;
        let mut waiting = false;
        let outcome = loop {
            if self.try_reserve(additional) {
                break Ok(());
            }
            if self.reclaim_for(additional) {
                continue;
            }
            if let Err(e) = query.check_stopped() {
                break Err(e);
            }
            let total_error = |decision: &str| {
                let wanted = self.reserved().saturating_add(additional);
                limit_error(
                    "Memory limit (total) exceeded",
                    wanted,
                    additional,
                    self.limit(),
                    consumer,
                    Some(decision),
                )
            };
            match self.choose_victim() {
                Some(victim) if victim.query_id != query.query_id => {
                    if Instant::now() >= deadline {
                        break Err(total_error(&format!(
                            "Waiting timeout for memory to be freed is reached: query {} was selected to stop but has not freed its memory",
                            victim.query_id
                        )));
                    }
                    if !victim.is_stopped() {
                        let reason = total_error(&format!(
                            "Query was selected to stop by OvercommitTracker (largest ratio of memory to memory_overcommit_ratio_denominator; query {} needed memory)",
                            query.query_id
                        ));
                        if victim.select_to_stop(reason) {
                            self.record(OvercommitDecision {
                                stopped_query_id: victim.query_id.clone(),
                                requested_by: query.query_id.clone(),
                            });
                        }
                    }
                    drop(victim);
                    if !waiting {
                        waiting = true;
                        self.waiters.fetch_add(1, Ordering::Relaxed);
                    }
                    let mut guard = self.freed_lock.lock();
                    let slice = deadline
                        .saturating_duration_since(Instant::now())
                        .min(WAIT_SLICE);
                    self.freed.wait_for(&mut guard, slice);
                }
                Some(_) => {
                    let error = total_error(
                        "Query was selected to stop by OvercommitTracker (largest ratio of memory to memory_overcommit_ratio_denominator)",
                    );
                    query.select_to_stop(error.clone());
                    self.record(OvercommitDecision {
                        stopped_query_id: query.query_id.clone(),
                        requested_by: query.query_id.clone(),
                    });
                    break Err(error);
                }
                None => {
                    break Err(total_error(
                        "no running query can be stopped for it (memory_overcommit_ratio_denominator is 0 or nothing else holds memory)",
                    ));
                }
            }
        };
        if waiting {
            self.waiters.fetch_sub(1, Ordering::Relaxed);
        }
        outcome.map_err(|e| DataFusionError::External(Box::new(e)))
    }
}

/// A query's own limits, from its settings.
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    /// `max_memory_usage`; 0 means none.
    pub max_memory_usage: usize,
    pub overcommit_ratio_denominator: usize,
    pub overcommit_max_wait: Duration,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            max_memory_usage: 0,
            overcommit_ratio_denominator: 1 << 30,
            overcommit_max_wait: Duration::from_secs(5),
        }
    }
}

/// One query's account and its DataFusion memory pool.
#[derive(Debug)]
pub struct QueryMemory {
    query_id: String,
    server: Arc<ServerMemory>,
    limits: QueryLimits,
    reserved: AtomicUsize,
    peak: AtomicUsize,
    stopped: AtomicBool,
    stop_reason: Mutex<Option<StrataError>>,
}

impl QueryMemory {
    pub fn query_id(&self) -> &str {
        &self.query_id
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    fn overcommit_ratio(&self) -> f64 {
        self.reserved() as f64 / self.limits.overcommit_ratio_denominator as f64
    }

    /// Marks the query to stop; true when it was not already marked.
    fn select_to_stop(&self, reason: StrataError) -> bool {
        let mut slot = self.stop_reason.lock();
        if slot.is_some() {
            return false;
        }
        *slot = Some(reason);
        self.stopped.store(true, Ordering::Relaxed);
        true
    }

    /// Fails when the overcommit policy selected this query to stop; operators
    /// and sources reach this through every reservation and cancellation check.
    pub fn check_stopped(&self) -> std::result::Result<(), StrataError> {
        if !self.is_stopped() {
            return Ok(());
        }
        Err(self
            .stop_reason
            .lock()
            .clone()
            .expect("a stopped query has a reason"))
    }

    fn add(&self, additional: usize) -> usize {
        let now = self.reserved.fetch_add(additional, Ordering::Relaxed) + additional;
        self.peak.fetch_max(now, Ordering::Relaxed);
        now
    }
}

impl Drop for QueryMemory {
    fn drop(&mut self) {
        let left = self.reserved();
        if left > 0 {
            self.server.release(left);
        }
    }
}

impl std::fmt::Display for QueryMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "QueryMemory({}: reserved={}, peak={})",
            self.query_id,
            self.reserved(),
            self.peak()
        )
    }
}

impl MemoryPool for QueryMemory {
    fn name(&self) -> &str {
        "QueryMemory"
    }

    fn grow(&self, _reservation: &MemoryReservation, additional: usize) {
        self.add(additional);
        self.server.force_reserve(additional);
    }

    fn shrink(&self, _reservation: &MemoryReservation, shrink: usize) {
        self.reserved.fetch_sub(shrink, Ordering::Relaxed);
        self.server.release(shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        self.check_stopped()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        // Asking for nothing never fails, even when a spilling operator's
        // rounding left the account a little over its limit: the next real
        // request is the one to refuse.
        if additional == 0 {
            return Ok(());
        }
        let consumer = reservation.consumer().name();
        let wanted = self.reserved.fetch_add(additional, Ordering::Relaxed) + additional;
        let limit = self.limits.max_memory_usage;
        if limit > 0 && wanted > limit {
            self.reserved.fetch_sub(additional, Ordering::Relaxed);
            let error = limit_error(
                "Query memory limit exceeded",
                wanted,
                additional,
                limit,
                consumer,
                None,
            );
            return Err(DataFusionError::External(Box::new(error)));
        }
        // A consumer that can spill answers a full server by spilling, so it
        // neither waits nor has any query stopped for it.
        let reserved = if reservation.consumer().can_spill() {
            let fits = || self.server.try_reserve(additional);
            if fits() || (self.server.reclaim_for(additional) && fits()) {
                Ok(())
            } else {
                let error = limit_error(
                    "Memory limit (total) exceeded",
                    self.server.reserved().saturating_add(additional),
                    additional,
                    self.server.limit(),
                    consumer,
                    Some("the consumer spills instead"),
                );
                Err(DataFusionError::External(Box::new(error)))
            }
        } else {
            self.server.reserve_for(self, additional, consumer)
        };
        if let Err(e) = reserved {
            self.reserved.fetch_sub(additional, Ordering::Relaxed);
            return Err(e);
        }
        self.peak.fetch_max(wanted, Ordering::Relaxed);
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Relaxed)
    }

    fn memory_limit(&self) -> MemoryLimit {
        let server = self.server.limit();
        match self.limits.max_memory_usage {
            0 => MemoryLimit::Finite(server),
            limit => MemoryLimit::Finite(limit.min(server)),
        }
    }

    fn register(&self, _consumer: &MemoryConsumer) {}
}

/// MEMORY_LIMIT_EXCEEDED with the figures ClickHouse gives: what the account
/// would use, the chunk asked for, the process RSS, and the limit.
fn limit_error(
    what: &str,
    would_use: usize,
    chunk: usize,
    limit: usize,
    consumer: &str,
    decision: Option<&str>,
) -> StrataError {
    let rss = process::resident().current;
    let mut message = format!(
        "{what}: would use {} (attempt to allocate chunk of {chunk} bytes), current RSS: {}, maximum: {}",
        readable_size(would_use as f64),
        readable_size(rss as f64),
        readable_size(limit as f64),
    );
    if let Some(decision) = decision {
        message.push_str(". OvercommitTracker decision: ");
        message.push_str(decision);
    }
    message.push_str(&format!(": While executing {consumer}"));
    StrataError::new(ErrorCode::MEMORY_LIMIT_EXCEEDED, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn pool(query: &Arc<QueryMemory>) -> Arc<dyn MemoryPool> {
        Arc::clone(query) as Arc<dyn MemoryPool>
    }

    fn code(e: DataFusionError) -> (ErrorCode, String) {
        let e = StrataError::from(e);
        (e.code, e.message)
    }

    #[test]
    fn query_limit_fails_that_query_with_the_figures() {
        let server = ServerMemory::with_limit(1 << 40);
        let limits = QueryLimits {
            max_memory_usage: 1000,
            ..QueryLimits::default()
        };
        let q = server.new_query("q1".into(), limits);
        let a = MemoryConsumer::new("HashJoin").register(&pool(&q));
        a.try_grow(600).unwrap();
        let (c, message) = code(a.try_grow(600).unwrap_err());
        assert_eq!(c, ErrorCode::MEMORY_LIMIT_EXCEEDED);
        assert!(message.starts_with("Query memory limit exceeded: would use 1.17 KiB (attempt to allocate chunk of 600 bytes), current RSS: "), "{message}");
        assert!(
            message.ends_with("maximum: 1000.00 B: While executing HashJoin"),
            "{message}"
        );
        assert_eq!(server.reserved(), 600);
        a.shrink(500);
        a.try_grow(600).unwrap();
        assert_eq!((q.reserved(), q.peak(), server.reserved()), (700, 700, 700));
        drop(a);
        assert_eq!((q.reserved(), server.reserved()), (0, 0));
        let next = server.new_query("q2".into(), limits);
        MemoryConsumer::new("x")
            .register(&pool(&next))
            .try_grow(900)
            .unwrap();
    }

    #[test]
    fn a_spilling_consumer_at_the_server_limit_is_refused_without_stopping_anyone() {
        let server = ServerMemory::with_limit(1000);
        let q = server.new_query("spills".into(), QueryLimits::default());
        let other = MemoryConsumer::new("Sort").register(&pool(&q));
        other.try_grow(800).unwrap();
        let join = MemoryConsumer::new("Join")
            .with_can_spill(true)
            .register(&pool(&q));
        let (c, message) = code(join.try_grow(800).unwrap_err());
        assert_eq!(c, ErrorCode::MEMORY_LIMIT_EXCEEDED);
        assert!(message.contains("the consumer spills instead"), "{message}");
        assert_eq!(server.decision_count(), 0);
        assert!(q.check_stopped().is_ok());
        join.try_grow(100).unwrap();
    }

    #[test]
    fn asking_for_nothing_succeeds_even_over_the_limit() {
        let server = ServerMemory::with_limit(1 << 30);
        let limits = QueryLimits {
            max_memory_usage: 1000,
            ..QueryLimits::default()
        };
        let q = server.new_query("over".into(), limits);
        let forced = MemoryConsumer::new("Join").register(&pool(&q));
        forced.grow(1500);
        let other = MemoryConsumer::new("Aggregate").register(&pool(&q));
        other.try_grow(0).unwrap();
        assert!(other.try_grow(1).is_err());
    }

    #[test]
    fn a_lone_query_over_the_server_limit_stops_itself() {
        let server = ServerMemory::with_limit(1000);
        let q = server.new_query("only".into(), QueryLimits::default());
        let r = MemoryConsumer::new("Sort").register(&pool(&q));
        r.try_grow(800).unwrap();
        let (c, message) = code(r.try_grow(800).unwrap_err());
        assert_eq!(c, ErrorCode::MEMORY_LIMIT_EXCEEDED);
        assert!(
            message.starts_with("Memory limit (total) exceeded: would use 1.56 KiB"),
            "{message}"
        );
        assert!(
            message.contains("OvercommitTracker decision: Query was selected to stop"),
            "{message}"
        );
        assert_eq!(server.decisions()[0].stopped_query_id, "only");
    }

    #[test]
    fn the_largest_ratio_is_stopped_and_the_asker_proceeds() {
        let server = ServerMemory::with_limit(1000);
        let big_limits = QueryLimits {
            overcommit_max_wait: Duration::from_secs(10),
            ..QueryLimits::default()
        };
        let big = server.new_query("big".into(), big_limits);
        let small = server.new_query("small".into(), big_limits);
        let held = MemoryConsumer::new("Aggregate").register(&pool(&big));
        held.try_grow(700).unwrap();
        let asker = MemoryConsumer::new("Join").register(&pool(&small));
        asker.try_grow(100).unwrap();
        let releaser = std::thread::spawn(move || {
            // The stopped query notices at its next check and frees its memory.
            while big.check_stopped().is_ok() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let (c, _) = code(held.try_grow(1).unwrap_err());
            assert_eq!(c, ErrorCode::MEMORY_LIMIT_EXCEEDED);
            drop(held);
        });
        asker.try_grow(500).unwrap();
        releaser.join().unwrap();
        assert_eq!(
            server.decisions(),
            vec![OvercommitDecision {
                stopped_query_id: "big".into(),
                requested_by: "small".into()
            }]
        );
        assert_eq!(server.reserved(), 600);
    }

    #[test]
    fn waiting_times_out_when_the_stopped_query_keeps_its_memory() {
        let server = ServerMemory::with_limit(1000);
        let limits = QueryLimits {
            overcommit_max_wait: Duration::from_millis(50),
            ..QueryLimits::default()
        };
        let hog = server.new_query("hog".into(), limits);
        let _held = {
            let r = MemoryConsumer::new("x").register(&pool(&hog));
            r.try_grow(900).unwrap();
            r
        };
        let other = server.new_query("other".into(), limits);
        let r = MemoryConsumer::new("y").register(&pool(&other));
        let (c, message) = code(r.try_grow(200).unwrap_err());
        assert_eq!(c, ErrorCode::MEMORY_LIMIT_EXCEEDED);
        assert!(message.contains("Waiting timeout"), "{message}");
        assert!(hog.is_stopped());
    }

    #[test]
    fn denominator_zero_exempts_a_query() {
        let server = ServerMemory::with_limit(1000);
        let exempt = server.new_query(
            "exempt".into(),
            QueryLimits {
                overcommit_ratio_denominator: 0,
                ..QueryLimits::default()
            },
        );
        let r = MemoryConsumer::new("x").register(&pool(&exempt));
        r.try_grow(900).unwrap();
        // The exempt query is never chosen: the asker is the only candidate.
        let asker = server.new_query("asker".into(), QueryLimits::default());
        let a = MemoryConsumer::new("y").register(&pool(&asker));
        let (_, message) = code(a.try_grow(200).unwrap_err());
        assert!(message.contains("Query was selected to stop"), "{message}");
        assert!(asker.is_stopped() && !exempt.is_stopped());
        // With every query exempt, nobody is chosen and the asker just fails.
        let exempt_asker = server.new_query(
            "exempt asker".into(),
            QueryLimits {
                overcommit_ratio_denominator: 0,
                ..QueryLimits::default()
            },
        );
        let b = MemoryConsumer::new("z").register(&pool(&exempt_asker));
        let (_, message) = code(b.try_grow(200).unwrap_err());
        assert!(
            message.contains("no running query can be stopped"),
            "{message}"
        );
        assert!(!exempt.is_stopped() && !exempt_asker.is_stopped());
    }

    /// Eight queries that together need twice the server limit: exactly the
    /// queries the policy chose fail, every other one finishes.
    #[test]
    fn eight_concurrent_queries_exactly_the_chosen_fail() {
        let server = ServerMemory::with_limit(8_000);
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let server = Arc::clone(&server);
                std::thread::spawn(move || {
                    let limits = QueryLimits {
                        // Different denominators give distinct ratios.
                        overcommit_ratio_denominator: 1000 + i * 100,
                        overcommit_max_wait: Duration::from_secs(20),
                        ..QueryLimits::default()
                    };
                    let id = format!("q{i}");
                    let q = server.new_query(id.clone(), limits);
                    let r = MemoryConsumer::new("op").register(&pool(&q));
                    for _ in 0..20 {
                        if r.try_grow(100).is_err() {
                            return (id, false);
                        }
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    // Hold the memory for a while, checking for cancellation
                    // as a running query does between blocks.
                    for _ in 0..20 {
                        if q.check_stopped().is_err() {
                            return (id, false);
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    // Release, then look once more: a query can only be chosen
                    // while it holds memory, so after this nothing can choose it.
                    drop(r);
                    (id, q.check_stopped().is_ok())
                })
            })
            .collect();
        let results: Vec<(String, bool)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let failed: BTreeSet<String> = results
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(id, _)| id.clone())
            .collect();
        let chosen: BTreeSet<String> = server
            .decisions()
            .into_iter()
            .map(|d| d.stopped_query_id)
            .collect();
        assert!(!failed.is_empty(), "16,000 bytes cannot fit in 8,000");
        assert_eq!(failed, chosen);
        assert!(
            failed.len() < 8,
            "the policy stops some queries, not all: {results:?}"
        );
        assert_eq!(server.reserved(), 0);
        assert!(server.peak() <= 8_000);
    }

    /// A cache that gives back what it holds when asked.
    struct FakeCache {
        server: Arc<ServerMemory>,
        held: Mutex<usize>,
        limits_seen: Mutex<Vec<usize>>,
    }

    impl Reclaim for FakeCache {
        fn reclaim(&self, bytes: usize) -> usize {
            let mut held = self.held.lock();
            let freed = bytes.min(*held);
            *held -= freed;
            self.server.release_cache(freed);
            freed
        }

        fn limit_changed(&self, limit: usize) {
            self.limits_seen.lock().push(limit);
        }
    }

    fn fake_cache(server: &Arc<ServerMemory>, bytes: usize) -> Arc<FakeCache> {
        assert!(server.try_reserve_cache(bytes));
        let cache = Arc::new(FakeCache {
            server: Arc::clone(server),
            held: Mutex::new(bytes),
            limits_seen: Mutex::new(Vec::new()),
        });
        let weak: Weak<FakeCache> = Arc::downgrade(&cache);
        server.add_reclaimer(weak);
        cache
    }

    #[test]
    fn caches_give_memory_back_before_any_query_is_stopped() {
        let server = ServerMemory::with_limit(10_000);
        let cache = fake_cache(&server, 8_000);
        assert!(!server.try_reserve_cache(1_000), "caches leave headroom");
        let q = server.new_query("q".into(), QueryLimits::default());
        let r = MemoryConsumer::new("Sort").register(&pool(&q));
        r.try_grow(9_000).unwrap();
        assert_eq!(server.decision_count(), 0);
        assert_eq!(*cache.held.lock(), 1_000);
        assert_eq!((server.cached(), server.query_reserved()), (1_000, 9_000));
        // A spilling consumer takes cache memory too before it spills.
        let s = MemoryConsumer::new("Join")
            .with_can_spill(true)
            .register(&pool(&q));
        s.try_grow(1_000).unwrap();
        assert_eq!((*cache.held.lock(), server.reserved()), (0, 10_000));
    }

    #[test]
    fn refresh_notices_a_new_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("meminfo"), "MemTotal: 1000000 kB\n").unwrap();
        std::fs::write(dir.path().join("cgroup"), "0::/\n").unwrap();
        std::fs::create_dir_all(dir.path().join("fs")).unwrap();
        std::fs::write(dir.path().join("fs/memory.max"), "100000000\n").unwrap();
        let probe = SystemProbe {
            meminfo: dir.path().join("meminfo"),
            proc_self_cgroup: dir.path().join("cgroup"),
            cgroup_root: dir.path().join("fs"),
        };
        let config = BudgetConfig {
            max_server_memory_usage: 0,
            ratio: 0.5,
        };
        let server = ServerMemory::new(config, probe);
        assert_eq!(server.limit(), 50_000_000);
        let cache = fake_cache(&server, 40_000_000);
        std::fs::write(dir.path().join("fs/memory.max"), "200000000\n").unwrap();
        server.refresh();
        assert_eq!(server.limit(), 100_000_000);
        std::fs::write(dir.path().join("fs/memory.max"), "60000000\n").unwrap();
        server.refresh();
        assert_eq!(*cache.limits_seen.lock(), vec![100_000_000, 30_000_000]);
        assert_eq!(
            *cache.held.lock(),
            30_000_000,
            "caches shrink under a lower limit"
        );
        std::fs::write(dir.path().join("fs/memory.max"), "200000000\n").unwrap();
        server.refresh();
        assert!(server.budget().source.contains("cgroup limit"));
    }
}
