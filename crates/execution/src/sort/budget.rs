//! `max_bytes_before_external_sort` for DataFusion's external sort.
//!
//! The sort buffers rows until its memory reservation is refused, then
//! sorts them and writes a run. Left to the query's limit alone, it fills
//! the whole budget first, and the merge of its runs then finds no memory
//! left. [`SortBudget`] is the query's pool with one more rule: the sort
//! buffers of a query (DataFusion's `ExternalSorter[n]` consumers) may hold
//! at most the threshold together, so they spill earlier and leave the rest
//! for merging.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};

/// The consumer name DataFusion's sort gives its row buffer, one per
/// partition (`ExternalSorterMerge[n]`, its merge memory, is not capped).
const SORT_BUFFER_PREFIX: &str = "ExternalSorter[";

#[derive(Debug)]
pub struct SortBudget {
    inner: Arc<dyn MemoryPool>,
    /// Bytes all sort buffers may hold together.
    threshold: usize,
    /// Bytes the sort buffers hold now.
    buffered: AtomicUsize,
}

impl SortBudget {
    pub fn new(inner: Arc<dyn MemoryPool>, threshold: usize) -> Self {
        SortBudget {
            inner,
            threshold,
            buffered: AtomicUsize::new(0),
        }
    }
}

impl std::fmt::Display for SortBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SortBudget(buffered={}, threshold={}) over {}",
            self.buffered.load(Ordering::Relaxed),
            self.threshold,
            self.inner
        )
    }
}

fn is_sort_buffer(reservation: &MemoryReservation) -> bool {
    reservation
        .consumer()
        .name()
        .starts_with(SORT_BUFFER_PREFIX)
}

impl MemoryPool for SortBudget {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.inner.register(consumer);
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.inner.unregister(consumer);
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        if is_sort_buffer(reservation) {
            self.buffered.fetch_add(additional, Ordering::Relaxed);
        }
        self.inner.grow(reservation, additional);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        if is_sort_buffer(reservation) {
            self.buffered.fetch_sub(shrink, Ordering::Relaxed);
        }
        self.inner.shrink(reservation, shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        if !is_sort_buffer(reservation) {
            return self.inner.try_grow(reservation, additional);
        }
        let buffered = self.buffered.fetch_add(additional, Ordering::Relaxed) + additional;
        // A buffer holding nothing yet takes its first batch whatever its
        // size: with nothing to spill, a refusal would fail the query.
        if buffered > self.threshold && reservation.size() > 0 {
            self.buffered.fetch_sub(additional, Ordering::Relaxed);
            return Err(DataFusionError::ResourcesExhausted(format!(
                "{} holds {} bytes of the {} that max_bytes_before_external_sort allows the query's sorts",
                reservation.consumer().name(),
                buffered - additional,
                self.threshold
            )));
        }
        self.inner
            .try_grow(reservation, additional)
            .inspect_err(|_| {
                self.buffered.fetch_sub(additional, Ordering::Relaxed);
            })
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.inner.memory_limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::execution::memory_pool::UnboundedMemoryPool;

    #[test]
    fn sort_buffers_share_the_threshold_and_other_consumers_do_not() {
        let pool: Arc<dyn MemoryPool> = Arc::new(SortBudget::new(
            Arc::new(UnboundedMemoryPool::default()),
            1000,
        ));
        let first = MemoryConsumer::new("ExternalSorter[0]").register(&pool);
        let second = MemoryConsumer::new("ExternalSorter[1]").register(&pool);
        let merge = MemoryConsumer::new("ExternalSorterMerge[0]").register(&pool);
        // An empty buffer takes its first batch even past the threshold.
        first.try_grow(1200).unwrap();
        second.try_grow(10).unwrap();
        assert!(second.try_grow(10).is_err());
        assert!(first.try_grow(1).is_err());
        merge.try_grow(5000).unwrap();
        first.free();
        second.try_grow(500).unwrap();
        assert_eq!(pool.reserved(), 5510);
    }
}
