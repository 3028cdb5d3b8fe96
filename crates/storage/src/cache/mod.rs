//! The data cache: what MergeTree reads keep in RAM, inside the server's
//! one memory budget. Three tiers, each an SLRU ([`slru`]) whose every byte
//! is reserved on the server account:
//!
//! - **marks** (`mark_cache_size`): a column's marks in a part, which every
//!   read of the column needs;
//! - **uncompressed**, the hot tier (`uncompressed_cache_size`, read when a
//!   query sets `use_uncompressed_cache`): granules decoded into arrays,
//!   each with the compressed block it came from;
//! - **page**, the warm tier (`page_cache_max_size`, read unless a query sets
//!   `use_page_cache_for_disks_without_file_cache = 0`): granules' compressed
//!   blocks as stored, decoded on each hit. A hot entry evicted to make room
//!   falls here instead of leaving RAM; a warm hit read hot moves up.
//!
//! A tier's size is the smaller of its setting and its share of the server
//! limit, so the caches follow the budget when the cgroup limit changes, and
//! resizing never stops readers (see [`slru`]). Caches only admit while the
//! server has headroom, and give memory back the moment a query needs it
//! (warm first, then hot, then marks), so they float between empty (the
//! warm tier: `page_cache_min_size`) and their size on what queries leave
//! free.
//!
//! Entries are keyed by a part's process-unique id: a part replaced by a
//! merge or mutation is a new id, so no block of it is ever served again;
//! its entries age out.

pub mod slru;

use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use datafusion::arrow::array::{Array, ArrayRef};
use parking_lot::Mutex;
use strata_common::error::Result;
use strata_common::events::{self, Event};
use strata_memory::{Reclaim, ServerMemory};

use crate::disk::file_cache::CacheUse;
use crate::part::reader::Mark;
use slru::{Slru, SlruStats};

/// The share of the server limit each tier may hold at most.
pub const MARK_CACHE_SHARE: f64 = 0.05;
pub const UNCOMPRESSED_CACHE_SHARE: f64 = 0.25;
pub const PAGE_CACHE_SHARE: f64 = 0.25;
/// Bytes charged per entry beyond its data: keys, list links, the map slot.
const ENTRY_OVERHEAD: usize = 96;

/// Each tier's configured size in bytes, before the server limit's shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSizes {
    pub mark_cache_size: u64,
    pub uncompressed_cache_size: u64,
    pub page_cache_max_size: u64,
    /// The warm tier's bytes that reclaiming for queries leaves in place.
    pub page_cache_min_size: u64,
}

/// One tier, as `SYSTEM DROP ... CACHE` and the metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheTier {
    Mark,
    Uncompressed,
    Page,
}

impl CacheTier {
    pub const ALL: [CacheTier; 3] = [CacheTier::Mark, CacheTier::Uncompressed, CacheTier::Page];

    /// ClickHouse's metric prefix: `MarkCacheBytes`, `UncompressedCacheBytes`, `PageCacheBytes`.
    pub fn metric_prefix(self) -> &'static str {
        match self {
            CacheTier::Mark => "MarkCache",
            CacheTier::Uncompressed => "UncompressedCache",
            CacheTier::Page => "PageCache",
        }
    }
}

/// A column of one part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnKey {
    pub part: u64,
    /// The column's place among the part's columns.
    pub column: u32,
}

/// A granule of a column of one part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockKey {
    pub column: ColumnKey,
    pub granule: u32,
}

/// A decoded granule and the block it was decoded from.
#[derive(Clone)]
struct HotBlock {
    array: ArrayRef,
    compressed: Bytes,
}

/// What the cache has of a granule.
pub enum Cached {
    Decoded(ArrayRef),
    Compressed(Bytes),
    Missing,
}

/// How one scan uses the cache, from its settings.
#[derive(Debug, Clone)]
pub struct CacheRead {
    pub cache: Arc<DataCache>,
    /// Look in and fill the hot tier (`use_uncompressed_cache`).
    pub hot: bool,
    /// Look in and fill the warm tier.
    pub warm: bool,
    /// Add what is read, not only take hits: false for scans past
    /// `merge_tree_max_rows_to_use_cache`, which would only churn the tiers.
    pub admit: bool,
    /// How reads of a `cache` disk's objects use its filesystem cache.
    pub files: CacheUse,
}

pub struct DataCache {
    marks: Slru<ColumnKey, Arc<Vec<Mark>>>,
    hot: Slru<BlockKey, HotBlock>,
    warm: Slru<BlockKey, Bytes>,
    configured: Mutex<CacheSizes>,
    server: Arc<ServerMemory>,
}

impl std::fmt::Debug for DataCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataCache")
            .field("marks", &self.marks.stats())
            .field("uncompressed", &self.hot.stats())
            .field("page", &self.warm.stats())
            .finish()
    }
}

impl DataCache {
    /// Empty tiers of `sizes` on `server`'s account, which can take their
    /// memory back.
    pub fn new(server: Arc<ServerMemory>, sizes: CacheSizes) -> Arc<DataCache> {
        let cache = Arc::new(DataCache {
            marks: Slru::new(0, Arc::clone(&server)),
            hot: Slru::new(0, Arc::clone(&server)),
            warm: Slru::new(0, Arc::clone(&server)),
            configured: Mutex::new(sizes),
            server: Arc::clone(&server),
        });
        cache.apply(server.limit());
        let weak: Weak<DataCache> = Arc::downgrade(&cache);
        server.add_reclaimer(weak);
        cache
    }

    /// New configured sizes, in force at once.
    pub fn resize(&self, sizes: CacheSizes) {
        *self.configured.lock() = sizes;
        self.apply(self.server.limit());
    }

    pub fn configured(&self) -> CacheSizes {
        *self.configured.lock()
    }

    /// Sizes each tier to the smaller of its setting and its share of `limit`.
    fn apply(&self, limit: usize) {
        let sizes = self.configured();
        let size = |configured: u64, share: f64| {
            usize::try_from(configured)
                .unwrap_or(usize::MAX)
                .min((limit as f64 * share) as usize)
        };
        self.marks
            .resize(size(sizes.mark_cache_size, MARK_CACHE_SHARE));
        self.hot.resize(size(
            sizes.uncompressed_cache_size,
            UNCOMPRESSED_CACHE_SHARE,
        ));
        self.warm
            .resize(size(sizes.page_cache_max_size, PAGE_CACHE_SHARE));
    }

    pub fn stats(&self, tier: CacheTier) -> SlruStats {
        match tier {
            CacheTier::Mark => self.marks.stats(),
            CacheTier::Uncompressed => self.hot.stats(),
            CacheTier::Page => self.warm.stats(),
        }
    }

    /// `SYSTEM DROP MARK | UNCOMPRESSED | PAGE CACHE`.
    pub fn clear(&self, tier: CacheTier) {
        match tier {
            CacheTier::Mark => self.marks.clear(),
            CacheTier::Uncompressed => self.hot.clear(),
            CacheTier::Page => self.warm.clear(),
        }
    }

    /// The longest any shard lock was held to evict, over all tiers.
    pub fn longest_eviction_hold(&self) -> Duration {
        self.marks
            .longest_eviction_hold()
            .max(self.hot.longest_eviction_hold())
            .max(self.warm.longest_eviction_hold())
    }

    /// The marks of `key`, cached, or read by `load` and kept.
    pub fn marks(
        &self,
        key: ColumnKey,
        load: impl FnOnce() -> Result<Arc<Vec<Mark>>>,
    ) -> Result<Arc<Vec<Mark>>> {
        if let Some(marks) = self.marks.get(&key) {
            events::add(Event::MarkCacheHits, 1);
            return Ok(marks);
        }
        events::add(Event::MarkCacheMisses, 1);
        let marks = load()?;
        let bytes = marks.len() * std::mem::size_of::<Mark>() + ENTRY_OVERHEAD;
        self.marks.insert(key, Arc::clone(&marks), bytes);
        Ok(marks)
    }
}

impl CacheRead {
    /// The granule `key` from the hot tier, else the warm one; a miss in
    /// each tier looked in is counted.
    pub fn lookup(&self, key: BlockKey) -> Cached {
        let cache = &self.cache;
        if self.hot {
            if let Some(block) = cache.hot.get(&key) {
                events::add(Event::UncompressedCacheHits, 1);
                return Cached::Decoded(block.array);
            }
            events::add(Event::UncompressedCacheMisses, 1);
        }
        if self.warm {
            // A block read hot leaves warm: it moves up with its array.
            let found = match self.hot && self.admit {
                true => cache.warm.remove(&key),
                false => cache.warm.get(&key),
            };
            if let Some(compressed) = found {
                events::add(Event::PageCacheHits, 1);
                return Cached::Compressed(compressed);
            }
            events::add(Event::PageCacheMisses, 1);
        }
        Cached::Missing
    }

    /// After a warm hit on `key`, decoded into `array`: a scan reading hot
    /// moves the block up; otherwise it stays where the hit left it.
    pub fn keep_warm_hit(&self, key: BlockKey, array: &ArrayRef, compressed: Bytes) {
        if self.hot {
            self.keep(key, array, compressed);
        }
    }

    /// Keeps granule `key`'s `compressed` block, just read, in the warm
    /// tier, for a scan that keeps no decoded arrays.
    pub fn keep_compressed(&self, key: BlockKey, compressed: &Bytes) {
        debug_assert!(!self.hot, "a scan reading hot keeps decoded arrays");
        if self.admit && self.warm {
            // A copy: the block shares its neighbours' buffer.
            keep_warm(&self.cache, key, Bytes::copy_from_slice(compressed));
        }
    }

    /// Keeps granule `key`, just decoded from `compressed`: hot when the
    /// scan reads hot, else warm. Hot entries evicted for it fall to warm.
    pub fn keep(&self, key: BlockKey, array: &ArrayRef, compressed: Bytes) {
        if !self.hot {
            self.keep_compressed(key, &compressed);
            return;
        }
        if !self.admit {
            return;
        }
        // A block read with its neighbours shares their buffer: a copy keeps
        // the cache charged for exactly the bytes it holds.
        let compressed = Bytes::copy_from_slice(&compressed);
        let cache = &self.cache;
        let bytes = array.get_array_memory_size() + compressed.len() + ENTRY_OVERHEAD;
        let block = HotBlock {
            array: Arc::clone(array),
            compressed,
        };
        for (key, evicted, bytes) in cache.hot.insert(key, block, bytes) {
            events::add(Event::UncompressedCacheWeightLost, bytes as u64);
            if self.warm {
                keep_warm(cache, key, evicted.compressed);
            }
        }
    }
}

fn keep_warm(cache: &DataCache, key: BlockKey, compressed: Bytes) {
    let bytes = compressed.len() + ENTRY_OVERHEAD;
    let evicted = cache.warm.insert(key, compressed, bytes);
    let lost: usize = evicted.iter().map(|(_, _, bytes)| bytes).sum();
    events::add(Event::PageCacheWeightLost, lost as u64);
}

impl Reclaim for DataCache {
    /// The warm tier goes first (a re-read costs a decode), then the hot
    /// tier, then marks.
    fn reclaim(&self, bytes: usize) -> usize {
        let floor = usize::try_from(self.configured().page_cache_min_size).unwrap_or(usize::MAX);
        let above_floor = self.warm.stats().bytes.saturating_sub(floor);
        let mut freed = match above_floor {
            0 => 0,
            // Whole entries go, so the tier may end an entry below its floor.
            above => self.warm.reclaim(bytes.min(above)),
        };
        if freed < bytes {
            freed += self.hot.reclaim(bytes - freed);
        }
        if freed < bytes {
            freed += self.marks.reclaim(bytes - freed);
        }
        freed
    }

    fn limit_changed(&self, limit: usize) {
        self.apply(limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: usize = 1000;

    fn filled(min: u64) -> Arc<DataCache> {
        let server = ServerMemory::with_limit(64 << 20);
        let sizes = CacheSizes {
            mark_cache_size: 1 << 20,
            uncompressed_cache_size: 1 << 20,
            page_cache_max_size: 1 << 20,
            page_cache_min_size: min,
        };
        let cache = DataCache::new(server, sizes);
        for granule in 0..100 {
            let column = ColumnKey { part: 1, column: 0 };
            let key = BlockKey { column, granule };
            keep_warm(&cache, key, Bytes::from(vec![0u8; BLOCK]));
        }
        cache
    }

    #[test]
    fn queries_take_the_warm_tier_back_down_to_its_floor() {
        let floor = 30 * (BLOCK + ENTRY_OVERHEAD) as u64;
        let cache = filled(floor);
        let held = cache.stats(CacheTier::Page).bytes;
        assert_eq!(held, 100 * (BLOCK + ENTRY_OVERHEAD));
        let freed = cache.reclaim(usize::MAX);
        assert_eq!(freed, held - floor as usize);
        assert_eq!(cache.stats(CacheTier::Page).bytes, floor as usize);
        assert_eq!(cache.reclaim(1), 0, "nothing above the floor is left");
        // Without a floor the tier empties.
        let cache = filled(0);
        cache.reclaim(usize::MAX);
        assert_eq!(cache.stats(CacheTier::Page).bytes, 0);
    }
}
