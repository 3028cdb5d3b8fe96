//! Per-query accounting: rows and bytes read by sources, tracked memory with its
//! peak and limit, cancellation and the execution deadline.
//!
//! Every figure in the query summary comes from here and is counted as it
//! happens; nothing is estimated after the fact.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};
use strata_common::settings::Settings;
use strata_common::{ErrorCode, StrataError};
use strata_functions::misc::readable_size;

/// Counters a query's sources and operators update while it runs.
#[derive(Debug)]
pub struct QueryContext {
    pub started: Instant,
    rows_read: AtomicU64,
    bytes_read: AtomicU64,
    cancelled: AtomicBool,
    deadline: Option<Duration>,
    pub memory: Arc<QueryMemoryPool>,
    /// The settings the query runs with (session settings plus its SETTINGS clause).
    pub settings: Settings,
    pub current_database: String,
}

impl QueryContext {
    pub fn new(settings: Settings, current_database: String) -> Arc<Self> {
        let memory_limit = match settings.get_u64("max_memory_usage") {
            0 => None,
            limit => Some(limit as usize),
        };
        let seconds = settings.get_f64("max_execution_time");
        let max_execution_time = (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
        Arc::new(QueryContext {
            started: Instant::now(),
            rows_read: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            deadline: max_execution_time,
            memory: Arc::new(QueryMemoryPool::new(memory_limit)),
            settings,
            current_database,
        })
    }

    pub fn add_read(&self, rows: u64, bytes: u64) {
        self.rows_read.fetch_add(rows, Ordering::Relaxed);
        self.bytes_read.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn rows_read(&self) -> u64 {
        self.rows_read.load(Ordering::Relaxed)
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Fails if the query was cancelled or ran past `max_execution_time`; sources
    /// call this between blocks so a long query stops promptly.
    pub fn check(&self) -> Result<()> {
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

/// The memory pool of one query: every reservation DataFusion operators make
/// is counted here, the peak is kept, and `max_memory_usage` is enforced.
#[derive(Debug)]
pub struct QueryMemoryPool {
    limit: Option<usize>,
    reserved: AtomicUsize,
    peak: AtomicUsize,
}

impl QueryMemoryPool {
    pub fn new(limit: Option<usize>) -> Self {
        QueryMemoryPool {
            limit,
            reserved: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn note_peak(&self, now: usize) {
        self.peak.fetch_max(now, Ordering::Relaxed);
    }
}

impl std::fmt::Display for QueryMemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "QueryMemoryPool(reserved={}, peak={})",
            self.reserved(),
            self.peak()
        )
    }
}

impl MemoryPool for QueryMemoryPool {
    fn name(&self) -> &str {
        "QueryMemoryPool"
    }

    fn grow(&self, _reservation: &MemoryReservation, additional: usize) {
        let now = self.reserved.fetch_add(additional, Ordering::Relaxed) + additional;
        self.note_peak(now);
    }

    fn shrink(&self, _reservation: &MemoryReservation, shrink: usize) {
        self.reserved.fetch_sub(shrink, Ordering::Relaxed);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        let mut current = self.reserved.load(Ordering::Relaxed);
        loop {
            let wanted = current + additional;
            if let Some(limit) = self.limit {
                if wanted > limit {
                    return Err(DataFusionError::External(Box::new(StrataError::new(
                        ErrorCode::MEMORY_LIMIT_EXCEEDED,
                        format!(
                            "Query memory limit exceeded: would use {} (attempt to allocate chunk of {} bytes) by {}, maximum: {}",
                            readable_size(wanted as f64),
                            additional,
                            reservation.consumer().name(),
                            readable_size(limit as f64)
                        ),
                    ))));
                }
            }
            match self.reserved.compare_exchange_weak(
                current,
                wanted,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.note_peak(wanted);
                    return Ok(());
                }
                Err(actual) => current = actual,
            }
        }
    }

    fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Relaxed)
    }

    fn memory_limit(&self) -> MemoryLimit {
        match self.limit {
            Some(limit) => MemoryLimit::Finite(limit),
            None => MemoryLimit::Infinite,
        }
    }

    fn register(&self, _consumer: &MemoryConsumer) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_tracks_peak_and_enforces_limit() {
        let pool: Arc<dyn MemoryPool> = Arc::new(QueryMemoryPool::new(Some(1000)));
        let a = MemoryConsumer::new("a").register(&pool);
        a.try_grow(600).unwrap();
        let b = MemoryConsumer::new("b").register(&pool);
        let err = b.try_grow(600).unwrap_err();
        assert_eq!(
            StrataError::from(err).code,
            ErrorCode::MEMORY_LIMIT_EXCEEDED
        );
        a.shrink(500);
        b.try_grow(600).unwrap();
        assert_eq!(pool.reserved(), 700);
        drop(a);
        drop(b);
        assert_eq!(pool.reserved(), 0);
    }
}
