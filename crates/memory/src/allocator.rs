//! A global allocator that counts live heap bytes, over mimalloc.
//!
//! The tracker knows what operators reserve; this knows what the process
//! really allocated, so `system.asynchronous_metrics` can show both and a
//! difference between them points at untracked memory. Counting every
//! allocation on one shared atomic would make all threads contend on a cache
//! line, so each thread keeps a local delta and publishes it once it passes
//! [`FLUSH_BYTES`]; the published total is therefore exact to within
//! `FLUSH_BYTES` per thread.
//!
//! mimalloc rather than the system allocator: glibc malloc returns large
//! blocks to the OS with munmap and maps them again on the next query, which
//! shows as high system time under parallel aggregation.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// Bytes a thread may allocate or free before publishing its delta.
pub const FLUSH_BYTES: i64 = 1 << 20;

static ALLOCATED: AtomicI64 = AtomicI64::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    // A const-initialised Cell without Drop needs no thread-exit destructor, so
    // it is safe to touch from inside the allocator.
    static UNPUBLISHED: Cell<i64> = const { Cell::new(0) };
}

pub struct CountingAllocator<A> {
    inner: A,
}

impl<A> CountingAllocator<A> {
    pub const fn new(inner: A) -> Self {
        CountingAllocator { inner }
    }
}

/// The allocator the `strata` binary installs.
pub type StrataAllocator = CountingAllocator<mimalloc::MiMalloc>;

pub const fn strata_allocator() -> StrataAllocator {
    CountingAllocator::new(mimalloc::MiMalloc)
}

#[inline]
fn count(delta: i64) {
    let published = UNPUBLISHED.try_with(|cell| {
        let pending = cell.get() + delta;
        if pending.abs() >= FLUSH_BYTES {
            ALLOCATED.fetch_add(pending, Ordering::Relaxed);
            cell.set(0);
        } else {
            cell.set(pending);
        }
    });
    if published.is_err() {
        ALLOCATED.fetch_add(delta, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to the inner allocator unchanged; counting
// only touches atomics and a thread-local Cell, and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as i64);
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as i64);
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.inner.dealloc(ptr, layout) };
        count(-(layout.size() as i64));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        new
    }
}

/// Marks the counting allocator as the process's global allocator; the binary
/// that installs it calls this so metrics can say whether counts are real.
pub fn mark_installed() {
    INSTALLED.store(true, Ordering::Relaxed);
}

/// Live heap bytes counted so far, or None when the counting allocator is not
/// the global allocator of this process.
pub fn allocated_bytes() -> Option<i64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| ALLOCATED.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_allocations_and_frees_through_the_inner_allocator() {
        let alloc = CountingAllocator::new(std::alloc::System);
        let before = ALLOCATED.load(Ordering::Relaxed) + UNPUBLISHED.with(Cell::get);
        let layout = Layout::from_size_align(4 << 20, 8).unwrap();
        let ptr = unsafe { alloc.alloc(layout) };
        assert!(!ptr.is_null());
        // 4 MiB passes the flush threshold, so it is published at once.
        let after_alloc = ALLOCATED.load(Ordering::Relaxed) + UNPUBLISHED.with(Cell::get);
        assert_eq!(after_alloc - before, 4 << 20);
        let grown = unsafe { alloc.realloc(ptr, layout, 6 << 20) };
        let after_realloc = ALLOCATED.load(Ordering::Relaxed) + UNPUBLISHED.with(Cell::get);
        assert_eq!(after_realloc - before, 6 << 20);
        unsafe { alloc.dealloc(grown, Layout::from_size_align(6 << 20, 8).unwrap()) };
        let after_free = ALLOCATED.load(Ordering::Relaxed) + UNPUBLISHED.with(Cell::get);
        assert_eq!(after_free, before);
    }
}
