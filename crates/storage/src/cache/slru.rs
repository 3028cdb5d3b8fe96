//! A sharded, byte-weighted SLRU cache whose bytes are reserved on the
//! server's memory account.
//!
//! Each shard keeps two LRU lists: an entry enters `probation`, and its
//! first hit moves it to `protected`; when `protected` outgrows its share
//! ([`PROTECTED_SHARE`]) of the shard, its least recent entries fall back to
//! probation. Eviction takes probation's least recent entries first, so a
//! scan that touches each block once passes through probation without
//! pushing out the blocks point lookups keep hitting.
//!
//! Resizing stores the new capacity (new admissions see it at once) and then
//! evicts shard by shard, at most [`EVICTION_BATCH`] entries per lock, so no
//! reader waits on more than one short batch. Every lock held for eviction
//! is timed and the longest hold is kept ([`Slru::longest_eviction_hold`]).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lru::LruCache;
use parking_lot::Mutex;
use strata_memory::ServerMemory;

/// Shards per cache: readers of different blocks rarely meet on one lock.
pub const SHARDS: usize = 16;
/// The share of a shard the protected segment may hold, as ClickHouse's
/// `*_cache_size_ratio` default.
pub const PROTECTED_SHARE: f64 = 0.5;
/// Entries evicted under one shard lock by a resize, reclaim or drop.
pub const EVICTION_BATCH: usize = 32;

/// A value and the bytes it is charged for.
struct Weighted<V> {
    value: V,
    bytes: usize,
}

struct Shard<K: Hash + Eq, V> {
    probation: LruCache<K, Weighted<V>>,
    protected: LruCache<K, Weighted<V>>,
    probation_bytes: usize,
    protected_bytes: usize,
}

impl<K: Hash + Eq, V> Shard<K, V> {
    fn new() -> Self {
        Shard {
            probation: LruCache::unbounded(),
            protected: LruCache::unbounded(),
            probation_bytes: 0,
            protected_bytes: 0,
        }
    }

    fn bytes(&self) -> usize {
        self.probation_bytes + self.protected_bytes
    }

    /// The least valuable entry: probation's least recent, else protected's.
    fn pop_victim(&mut self) -> Option<(K, Weighted<V>)> {
        if let Some((key, entry)) = self.probation.pop_lru() {
            self.probation_bytes -= entry.bytes;
            return Some((key, entry));
        }
        let (key, entry) = self.protected.pop_lru()?;
        self.protected_bytes -= entry.bytes;
        Some((key, entry))
    }

    fn remove(&mut self, key: &K) -> Option<Weighted<V>> {
        if let Some(entry) = self.probation.pop(key) {
            self.probation_bytes -= entry.bytes;
            return Some(entry);
        }
        let entry = self.protected.pop(key)?;
        self.protected_bytes -= entry.bytes;
        Some(entry)
    }

    /// Moves protected's least recent entries to probation's front until
    /// protected fits `limit` bytes.
    fn demote_protected(&mut self, limit: usize) {
        while self.protected_bytes > limit {
            let Some((key, entry)) = self.protected.pop_lru() else {
                break;
            };
            self.protected_bytes -= entry.bytes;
            self.probation_bytes += entry.bytes;
            self.probation.put(key, entry);
        }
    }
}

/// Figures of one cache, as the system tables show them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlruStats {
    pub bytes: usize,
    pub entries: usize,
    pub capacity: usize,
}

pub struct Slru<K: Hash + Eq, V> {
    shards: Box<[Mutex<Shard<K, V>>]>,
    hasher: RandomState,
    /// Bytes all shards may hold together.
    capacity: AtomicUsize,
    bytes: AtomicUsize,
    entries: AtomicUsize,
    /// The account cached bytes are reserved on; `None` for a cache of
    /// something other than RAM (the filesystem cache's local files).
    server: Option<Arc<ServerMemory>>,
    /// The shard a reclaim starts at, turning so no shard is always first.
    reclaim_cursor: AtomicUsize,
    longest_hold_ns: AtomicU64,
}

impl<K: Hash + Eq + Clone, V: Clone> Slru<K, V> {
    /// An empty cache of `capacity` bytes reserving on `server`.
    pub fn new(capacity: usize, server: Arc<ServerMemory>) -> Self {
        Self::with_account(capacity, Some(server))
    }

    /// An empty cache of `capacity` bytes that reserves no memory: its
    /// values hold something other than RAM.
    pub fn unaccounted(capacity: usize) -> Self {
        Self::with_account(capacity, None)
    }

    fn with_account(capacity: usize, server: Option<Arc<ServerMemory>>) -> Self {
        Slru {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::new())).collect(),
            hasher: RandomState::new(),
            capacity: AtomicUsize::new(capacity),
            bytes: AtomicUsize::new(0),
            entries: AtomicUsize::new(0),
            server,
            reclaim_cursor: AtomicUsize::new(0),
            longest_hold_ns: AtomicU64::new(0),
        }
    }

    pub fn stats(&self) -> SlruStats {
        SlruStats {
            bytes: self.bytes.load(Ordering::Relaxed),
            entries: self.entries.load(Ordering::Relaxed),
            capacity: self.capacity(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity.load(Ordering::Relaxed)
    }

    /// The longest time one shard lock was held to evict entries.
    pub fn longest_eviction_hold(&self) -> Duration {
        Duration::from_nanos(self.longest_hold_ns.load(Ordering::Relaxed))
    }

    fn shard_capacity(&self) -> usize {
        self.capacity() / SHARDS
    }

    fn shard(&self, key: &K) -> &Mutex<Shard<K, V>> {
        &self.shards[self.hasher.hash_one(key) as usize % SHARDS]
    }

    /// The value of `key`, counted as a hit: a probation entry moves to
    /// protected.
    pub fn get(&self, key: &K) -> Option<V> {
        let protected_limit = (self.shard_capacity() as f64 * PROTECTED_SHARE) as usize;
        let mut shard = self.shard(key).lock();
        if let Some(entry) = shard.protected.get(key) {
            return Some(entry.value.clone());
        }
        let entry = shard.probation.pop(key)?;
        let value = entry.value.clone();
        shard.probation_bytes -= entry.bytes;
        shard.protected_bytes += entry.bytes;
        shard.protected.put(key.clone(), entry);
        shard.demote_protected(protected_limit);
        Some(value)
    }

    /// Takes `key` out of the cache.
    pub fn remove(&self, key: &K) -> Option<V> {
        let entry = self.shard(key).lock().remove(key)?;
        self.forget(entry.bytes, 1);
        Some(entry.value)
    }

    /// Caches `value` under `key`, charged `bytes`, unless it cannot fit:
    /// larger than a shard, or the server has no room even after as many
    /// bytes of the cache's least valuable entries went. Returns the
    /// entries evicted for it with their bytes, already given back.
    pub fn insert(&self, key: K, value: V, bytes: usize) -> Vec<(K, V, usize)> {
        let shard_capacity = self.shard_capacity();
        if bytes == 0 || bytes > shard_capacity {
            return Vec::new();
        }
        if let Some(server) = &self.server
            && !server.try_reserve_cache(bytes)
        {
            self.reclaim(bytes);
            if !server.try_reserve_cache(bytes) {
                return Vec::new();
            }
        }
        let mut evicted = Vec::new();
        let mut freed = (0, 0);
        {
            let mut shard = self.shard(&key).lock();
            if let Some(old) = shard.remove(&key) {
                freed = (old.bytes, 1);
            }
            shard.probation_bytes += bytes;
            shard.probation.put(key, Weighted { value, bytes });
            // Counted under the lock: whoever evicts the entry takes the lock
            // after, so the totals never dip below zero.
            self.bytes.fetch_add(bytes, Ordering::Relaxed);
            self.entries.fetch_add(1, Ordering::Relaxed);
            while shard.bytes() > shard_capacity {
                let Some((key, entry)) = shard.pop_victim() else {
                    break;
                };
                freed.0 += entry.bytes;
                freed.1 += 1;
                evicted.push((key, entry.value, entry.bytes));
            }
        }
        self.forget(freed.0, freed.1);
        evicted
    }

    /// Evicts least valuable entries of `shard` until `bytes` are freed or
    /// it is empty, one batch per lock; the bytes freed.
    fn evict_from(&self, shard: &Mutex<Shard<K, V>>, bytes: usize) -> usize {
        let mut freed = 0;
        while freed < bytes {
            let (batch, batch_bytes) =
                self.evict_batch(shard, |_, freed_now| freed + freed_now < bytes);
            if batch.is_empty() {
                break;
            }
            freed += batch_bytes;
        }
        freed
    }

    /// Under one lock, evicts up to [`EVICTION_BATCH`] entries while
    /// `more(shard, bytes freed so far)` holds; gives their bytes back. The
    /// entries are returned so their values are dropped after the lock.
    fn evict_batch(
        &self,
        shard: &Mutex<Shard<K, V>>,
        more: impl Fn(&Shard<K, V>, usize) -> bool,
    ) -> (Vec<(K, V, usize)>, usize) {
        let mut batch = Vec::new();
        let mut freed = 0;
        {
            let mut shard = shard.lock();
            let start = Instant::now();
            while batch.len() < EVICTION_BATCH && more(&shard, freed) {
                let Some((key, entry)) = shard.pop_victim() else {
                    break;
                };
                freed += entry.bytes;
                batch.push((key, entry.value, entry.bytes));
            }
            let held = start.elapsed().as_nanos() as u64;
            self.longest_hold_ns.fetch_max(held, Ordering::Relaxed);
        }
        self.forget(freed, batch.len());
        (batch, freed)
    }

    /// Gives back the bytes of `entries` entries that left the cache.
    fn forget(&self, bytes: usize, entries: usize) {
        if entries == 0 {
            return;
        }
        let before = self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        debug_assert!(before >= bytes, "cache forgets {bytes} of {before} bytes");
        let before = self.entries.fetch_sub(entries, Ordering::Relaxed);
        debug_assert!(
            before >= entries,
            "cache forgets {entries} of {before} entries"
        );
        if let Some(server) = &self.server {
            server.release_cache(bytes);
        }
    }

    /// Sets the capacity: new admissions see it at once, and each shard over
    /// its new share is trimmed a batch per lock.
    pub fn resize(&self, capacity: usize) {
        self.capacity.store(capacity, Ordering::Relaxed);
        for shard in self.shards.iter() {
            loop {
                let limit = self.shard_capacity();
                let (batch, _) = self.evict_batch(shard, |s, _| s.bytes() > limit);
                if batch.is_empty() {
                    break;
                }
            }
        }
    }

    /// Frees at least `bytes` if the cache holds that much, least valuable
    /// entries first, shard after shard; the bytes freed.
    pub fn reclaim(&self, bytes: usize) -> usize {
        let first = self.reclaim_cursor.fetch_add(1, Ordering::Relaxed);
        let mut freed = 0;
        for i in 0..SHARDS {
            if freed >= bytes {
                break;
            }
            let shard = &self.shards[(first + i) % SHARDS];
            freed += self.evict_from(shard, bytes - freed);
        }
        freed
    }

    /// Every entry with its bytes, a shard at a time (for system tables;
    /// entries may come and go meanwhile).
    pub fn entries(&self) -> Vec<(K, V, usize)> {
        let mut entries = Vec::new();
        for shard in self.shards.iter() {
            let shard = shard.lock();
            for (key, entry) in shard.protected.iter().chain(shard.probation.iter()) {
                entries.push((key.clone(), entry.value.clone(), entry.bytes));
            }
        }
        entries
    }

    /// Empties the cache, a batch per lock.
    pub fn clear(&self) {
        for shard in self.shards.iter() {
            while !self.evict_batch(shard, |_, _| true).0.is_empty() {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(capacity: usize, server_limit: u64) -> (Slru<u64, u64>, Arc<ServerMemory>) {
        let server = ServerMemory::with_limit(server_limit);
        (Slru::new(capacity, Arc::clone(&server)), server)
    }

    #[test]
    fn every_cached_byte_is_on_the_server_account() {
        let (slru, server) = cache(SHARDS * 1000, 1 << 30);
        for key in 0..100 {
            slru.insert(key, key, 100);
        }
        assert_eq!(slru.stats().bytes, server.cached());
        assert_eq!(server.cached(), server.reserved());
        assert!(slru.stats().bytes <= slru.capacity());
        slru.clear();
        assert_eq!((slru.stats().bytes, slru.stats().entries), (0, 0));
        assert_eq!(server.reserved(), 0);
    }

    #[test]
    fn a_scan_passes_through_probation_without_evicting_the_hot_set() {
        let (slru, _server) = cache(SHARDS * 1000, 1 << 30);
        let hot: Vec<u64> = (0..40).collect();
        for &key in &hot {
            slru.insert(key, key, 10);
            assert_eq!(slru.get(&key), Some(key), "a first hit promotes");
        }
        // A scan of 100 times the cache, each block touched once.
        for key in 1000..1_001_000 {
            slru.insert(key, key, 10);
        }
        for &key in &hot {
            assert_eq!(slru.get(&key), Some(key), "hot key {key} survived the scan");
        }
    }

    #[test]
    fn no_admission_without_server_headroom() {
        let (slru, server) = cache(1 << 30, 10_000);
        // The server keeps CACHE_HEADROOM free of caches.
        for key in 0..1000 {
            slru.insert(key, key, 100);
        }
        let ceiling = 10_000 - (10_000.0 * strata_memory::CACHE_HEADROOM) as usize;
        assert!(server.reserved() <= ceiling, "{}", server.reserved());
        assert!(server.reserved() > ceiling - 200, "{}", server.reserved());
        assert!(slru.get(&999).is_some(), "a new entry displaces old ones");
        assert_eq!(slru.stats().bytes, server.cached());
    }

    #[test]
    fn shrinking_evicts_down_to_the_new_size_in_batches() {
        let (slru, server) = cache(SHARDS * 10_000, 1 << 30);
        for key in 0..(SHARDS as u64 * 90) {
            slru.insert(key, key, 100);
        }
        let full = slru.stats().bytes;
        slru.resize(full / 10);
        assert!(slru.stats().bytes <= full / 10);
        assert_eq!(slru.stats().bytes, server.reserved());
        slru.resize(SHARDS * 10_000);
        for key in 0..(SHARDS as u64 * 90) {
            slru.insert(key, key, 100);
        }
        assert!(slru.stats().bytes > full / 2, "growing back admits again");
    }

    #[test]
    fn reclaim_frees_what_it_is_asked_for_least_valuable_first() {
        let (slru, server) = cache(SHARDS * 10_000, 1 << 30);
        for key in 0..200 {
            slru.insert(key, key, 100);
        }
        slru.get(&7);
        let freed = slru.reclaim(300);
        assert!(freed >= 300, "{freed}");
        assert_eq!(server.reserved(), 200 * 100 - freed);
        assert!(slru.get(&7).is_some(), "a protected entry goes last");
        let rest = server.cached();
        assert_eq!(slru.reclaim(usize::MAX), rest);
        assert_eq!((server.reserved(), slru.stats().entries), (0, 0));
    }
}
