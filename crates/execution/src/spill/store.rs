//! One operator instance's spill store: warm compressed blocks in RAM in front
//! of cold files, blocks put once and taken once.
//!
//! Blocks are taken back in roughly the order they were put (a partition is
//! written, then read whole), so the oldest warm block is also the least
//! recently used: eviction writes the oldest first.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, MemoryReservation};
use parking_lot::Mutex;
use strata_common::{ErrorCode, StrataError};

use super::{
    DIRECTORY_PREFIX, SpillConfig, SpillCounters, TemporaryCodec, next_directory_number,
    process_tiers,
};

/// A block in the store, good for one `take`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockId(u64);

/// How a stored block's bytes are encoded (its first byte).
const RAW: u8 = 0;
const LZ4: u8 = 1;
const ZSTD: u8 = 2;
/// ZSTD's fastest level: spill is about speed, ZSTD already wins on ratio.
const ZSTD_LEVEL: i32 = 1;

pub struct SpillStore {
    config: Arc<SpillConfig>,
    /// Compressed bytes the warm tier may hold before its oldest go to disk.
    warm_limit: usize,
    state: Mutex<State>,
}

struct State {
    reservation: MemoryReservation,
    next_id: u64,
    warm: BTreeMap<u64, WarmBlock>,
    warm_bytes: usize,
    warm_uncompressed: usize,
    cold: HashMap<u64, ColdBlock>,
    /// One file per configured directory, created on first use.
    files: Vec<Option<ColdFile>>,
    next_file: usize,
    disk_live: u64,
    store_number: u64,
}

struct WarmBlock {
    /// Codec byte, then the payload.
    stored: Vec<u8>,
    uncompressed: usize,
}

struct ColdBlock {
    file: usize,
    offset: u64,
    len: usize,
    uncompressed: usize,
}

struct ColdFile {
    directory: PathBuf,
    file: File,
    len: u64,
}

fn io_error(what: &str, error: std::io::Error) -> DataFusionError {
    DataFusionError::External(Box::new(StrataError::new(
        ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
        format!("Cannot {what} temporary data: {error}"),
    )))
}

impl SpillStore {
    /// A store whose warm tier holds up to `warm_limit` compressed bytes,
    /// reserved from `pool` as they come.
    pub fn new(config: Arc<SpillConfig>, pool: &Arc<dyn MemoryPool>, warm_limit: usize) -> Self {
        assert!(!config.directories.is_empty(), "spill needs a directory");
        let reservation = MemoryConsumer::new("SpillStore(warm)")
            .with_can_spill(true)
            .register(pool);
        let files = config.directories.iter().map(|_| None).collect();
        SpillStore {
            config,
            warm_limit,
            state: Mutex::new(State {
                reservation,
                next_id: 0,
                warm: BTreeMap::new(),
                warm_bytes: 0,
                warm_uncompressed: 0,
                cold: HashMap::new(),
                files,
                next_file: 0,
                disk_live: 0,
                store_number: next_directory_number(),
            }),
        }
    }

    pub fn counters(&self) -> &SpillCounters {
        &self.config.counters
    }

    /// Compresses `bytes` into the warm tier, moving the oldest warm blocks to
    /// disk when it is full; a block the warm tier cannot take at all goes
    /// straight to disk.
    pub fn put(&self, bytes: &[u8]) -> Result<BlockId> {
        let stored = compress(self.config.codec, bytes)?;
        let counters = &self.config.counters;
        counters
            .bytes_spilled
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        counters
            .bytes_compressed
            .fetch_add(stored.len() as u64 - 1, Ordering::Relaxed);
        let mut state = self.state.lock();
        let id = state.next_id;
        state.next_id += 1;
        let block = WarmBlock {
            stored,
            uncompressed: bytes.len(),
        };
        while state.warm_bytes + block.stored.len() > self.warm_limit
            || state.reservation.try_grow(block.stored.len()).is_err()
        {
            if !self.evict_oldest(&mut state)? {
                self.write_cold(&mut state, id, &block)?;
                return Ok(BlockId(id));
            }
        }
        state.warm_bytes += block.stored.len();
        state.warm_uncompressed += block.uncompressed;
        let tiers = process_tiers();
        tiers
            .warm_bytes
            .fetch_add(block.stored.len() as u64, Ordering::Relaxed);
        tiers
            .warm_uncompressed_bytes
            .fetch_add(block.uncompressed as u64, Ordering::Relaxed);
        counters
            .warm_peak
            .fetch_max(state.warm_bytes as u64, Ordering::Relaxed);
        state.warm.insert(id, block);
        Ok(BlockId(id))
    }

    /// The block's bytes, uncompressed; the block leaves the store.
    pub fn take(&self, id: BlockId) -> Result<Vec<u8>> {
        let mut state = self.state.lock();
        if let Some(block) = state.warm.remove(&id.0) {
            Self::forget_warm(&mut state, &block);
            drop(state);
            return decompress(&block.stored, block.uncompressed);
        }
        let Some(cold) = state.cold.remove(&id.0) else {
            return Err(DataFusionError::Internal(format!(
                "spill block {} was taken twice or never put",
                id.0
            )));
        };
        let mut stored = vec![0u8; cold.len];
        let file = state.files[cold.file]
            .as_ref()
            .expect("a cold block's file exists");
        file.file
            .read_exact_at(&mut stored, cold.offset)
            .map_err(|e| io_error("read", e))?;
        state.disk_live -= cold.len as u64;
        drop(state);
        let counters = &self.config.counters;
        counters
            .disk_bytes_read
            .fetch_add(cold.len as u64, Ordering::Relaxed);
        counters
            .disk_bytes_live
            .fetch_sub(cold.len as u64, Ordering::Relaxed);
        process_tiers()
            .disk_bytes
            .fetch_sub(cold.len as u64, Ordering::Relaxed);
        decompress(&stored, cold.uncompressed)
    }

    /// The shrinker: moves warm blocks to disk until `bytes` of warm memory
    /// are freed or none is left. Returns the bytes freed.
    pub fn shrink(&self, bytes: usize) -> Result<usize> {
        let mut state = self.state.lock();
        let before = state.warm_bytes;
        while before - state.warm_bytes < bytes && self.evict_oldest(&mut state)? {}
        Ok(before - state.warm_bytes)
    }

    pub fn warm_bytes(&self) -> usize {
        self.state.lock().warm_bytes
    }

    pub fn disk_bytes(&self) -> u64 {
        self.state.lock().disk_live
    }

    fn forget_warm(state: &mut State, block: &WarmBlock) {
        state.warm_bytes -= block.stored.len();
        state.warm_uncompressed -= block.uncompressed;
        state.reservation.shrink(block.stored.len());
        let tiers = process_tiers();
        tiers
            .warm_bytes
            .fetch_sub(block.stored.len() as u64, Ordering::Relaxed);
        tiers
            .warm_uncompressed_bytes
            .fetch_sub(block.uncompressed as u64, Ordering::Relaxed);
    }

    /// Writes the oldest warm block to disk; false when the tier is empty.
    fn evict_oldest(&self, state: &mut State) -> Result<bool> {
        let Some((id, block)) = state.warm.pop_first() else {
            return Ok(false);
        };
        Self::forget_warm(state, &block);
        self.write_cold(state, id, &block)?;
        Ok(true)
    }

    fn write_cold(&self, state: &mut State, id: u64, block: &WarmBlock) -> Result<()> {
        let len = block.stored.len();
        let counters = &self.config.counters;
        let limit = self.config.max_disk_bytes;
        let live = counters
            .disk_bytes_live
            .fetch_add(len as u64, Ordering::Relaxed)
            + len as u64;
        if limit > 0 && live > limit {
            counters
                .disk_bytes_live
                .fetch_sub(len as u64, Ordering::Relaxed);
            return Err(DataFusionError::External(Box::new(StrataError::new(
                ErrorCode::TOO_MANY_ROWS_OR_BYTES,
                format!(
                    "Limit for temporary files size exceeded (would consume {live} bytes, maximum {limit} bytes): max_temporary_data_on_disk_size_for_query"
                ),
            ))));
        }
        let index = state.next_file;
        state.next_file = (index + 1) % state.files.len();
        if state.files[index].is_none() {
            let directory = self.config.directories[index].join(format!(
                "{DIRECTORY_PREFIX}{}-{}",
                std::process::id(),
                state.store_number
            ));
            std::fs::create_dir_all(&directory)
                .map_err(|e| io_error("create a directory for", e))?;
            let file = File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(directory.join("blocks.bin"))
                .map_err(|e| io_error("create a file for", e))?;
            process_tiers().disk_files.fetch_add(1, Ordering::Relaxed);
            state.files[index] = Some(ColdFile {
                directory,
                file,
                len: 0,
            });
        }
        let file = state.files[index].as_mut().expect("created above");
        let offset = file.len;
        if let Err(e) = file.file.write_all_at(&block.stored, offset) {
            counters
                .disk_bytes_live
                .fetch_sub(len as u64, Ordering::Relaxed);
            return Err(io_error("write", e));
        }
        file.len += len as u64;
        state.disk_live += len as u64;
        state.cold.insert(
            id,
            ColdBlock {
                file: index,
                offset,
                len,
                uncompressed: block.uncompressed,
            },
        );
        counters
            .disk_bytes_written
            .fetch_add(len as u64, Ordering::Relaxed);
        process_tiers()
            .disk_bytes
            .fetch_add(len as u64, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for SpillStore {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        let tiers = process_tiers();
        tiers
            .warm_bytes
            .fetch_sub(state.warm_bytes as u64, Ordering::Relaxed);
        tiers
            .warm_uncompressed_bytes
            .fetch_sub(state.warm_uncompressed as u64, Ordering::Relaxed);
        tiers
            .disk_bytes
            .fetch_sub(state.disk_live, Ordering::Relaxed);
        self.config
            .counters
            .disk_bytes_live
            .fetch_sub(state.disk_live, Ordering::Relaxed);
        for file in state.files.drain(..).flatten() {
            tiers.disk_files.fetch_sub(1, Ordering::Relaxed);
            drop(file.file);
            // Nothing can be done about a directory that will not go: the
            // start-up sweep removes it once this process is gone.
            let _ = std::fs::remove_dir_all(&file.directory);
        }
    }
}

fn compress(codec: TemporaryCodec, bytes: &[u8]) -> Result<Vec<u8>> {
    let compressed = match codec {
        TemporaryCodec::None => None,
        TemporaryCodec::Lz4 => {
            let mut out = vec![LZ4];
            out.extend_from_slice(&lz4_flex::block::compress(bytes));
            Some(out)
        }
        TemporaryCodec::Zstd => {
            let payload = zstd::bulk::compress(bytes, ZSTD_LEVEL).map_err(|e| {
                DataFusionError::External(Box::new(StrataError::new(
                    ErrorCode::CANNOT_COMPRESS,
                    format!("Cannot compress temporary data: {e}"),
                )))
            })?;
            let mut out = Vec::with_capacity(payload.len() + 1);
            out.push(ZSTD);
            out.extend_from_slice(&payload);
            Some(out)
        }
    };
    // Data that does not compress is kept raw, so reading it costs a copy.
    Ok(match compressed {
        Some(out) if out.len() < bytes.len() => out,
        _ => {
            let mut out = Vec::with_capacity(bytes.len() + 1);
            out.push(RAW);
            out.extend_from_slice(bytes);
            out
        }
    })
}

fn decompress(stored: &[u8], uncompressed: usize) -> Result<Vec<u8>> {
    let corrupt = |what: String| {
        DataFusionError::External(Box::new(StrataError::new(
            ErrorCode::CANNOT_DECOMPRESS,
            format!("Cannot decompress temporary data: {what}"),
        )))
    };
    let (&tag, payload) = stored
        .split_first()
        .ok_or_else(|| corrupt("empty block".into()))?;
    let bytes = match tag {
        RAW => payload.to_vec(),
        LZ4 => lz4_flex::block::decompress(payload, uncompressed)
            .map_err(|e| corrupt(e.to_string()))?,
        ZSTD => {
            zstd::bulk::decompress(payload, uncompressed).map_err(|e| corrupt(e.to_string()))?
        }
        other => return Err(corrupt(format!("unknown codec byte {other}"))),
    };
    if bytes.len() != uncompressed {
        return Err(corrupt(format!(
            "{} bytes where {uncompressed} were written",
            bytes.len()
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use datafusion::execution::memory_pool::GreedyMemoryPool;

    use super::*;

    fn store(directory: &std::path::Path, codec: TemporaryCodec, warm_limit: usize) -> SpillStore {
        let mut config = SpillConfig::new(directory.to_path_buf());
        config.codec = codec;
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1 << 30));
        SpillStore::new(Arc::new(config), &pool, warm_limit)
    }

    fn block(seed: u64, len: usize, compressible: bool) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|i| {
                if compressible {
                    (i / 100) as u8
                } else {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                }
            })
            .collect()
    }

    #[test]
    fn blocks_come_back_from_every_tier_with_every_codec() {
        for codec in [
            TemporaryCodec::None,
            TemporaryCodec::Lz4,
            TemporaryCodec::Zstd,
        ] {
            let dir = tempfile::tempdir().unwrap();
            // Room for about three blocks: the rest go to disk, oldest first.
            let store = store(dir.path(), codec, 3 * 10_001);
            let blocks: Vec<Vec<u8>> = (0..10).map(|i| block(i, 10_000, i % 2 == 0)).collect();
            let ids: Vec<BlockId> = blocks.iter().map(|b| store.put(b).unwrap()).collect();
            assert!(store.warm_bytes() <= 3 * 10_001);
            assert!(store.disk_bytes() > 0, "{codec:?}: nothing reached disk");
            // Out of order, to read both tiers interleaved.
            for i in [9, 0, 5, 1, 8, 2, 7, 3, 6, 4] {
                assert_eq!(
                    store.take(ids[i]).unwrap(),
                    blocks[i],
                    "{codec:?} block {i}"
                );
            }
            assert_eq!(store.warm_bytes(), 0);
            assert_eq!(store.disk_bytes(), 0);
            assert!(store.take(ids[0]).is_err(), "a block is taken once");
        }
    }

    #[test]
    fn compression_shrinks_what_compresses_and_keeps_the_rest_raw() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), TemporaryCodec::Lz4, 1 << 20);
        store.put(&block(1, 100_000, true)).unwrap();
        let compressed = SpillCounters::get(&store.counters().bytes_compressed);
        assert!(
            compressed < 10_000,
            "compressible block stored in {compressed} bytes"
        );
        store.put(&block(2, 100_000, false)).unwrap();
        let total = SpillCounters::get(&store.counters().bytes_compressed);
        assert_eq!(total - compressed, 100_000, "random bytes are kept raw");
    }

    #[test]
    fn the_shrinker_moves_warm_blocks_to_disk_and_files_go_with_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), TemporaryCodec::None, 1 << 20);
        let ids: Vec<BlockId> = (0..4)
            .map(|i| store.put(&block(i, 1000, false)).unwrap())
            .collect();
        assert_eq!(store.disk_bytes(), 0);
        let freed = store.shrink(1500).unwrap();
        assert_eq!(freed, 2 * 1001);
        assert_eq!(store.disk_bytes(), 2 * 1001);
        assert_eq!(store.take(ids[0]).unwrap(), block(0, 1000, false));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        drop(store);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_disk_limit_fails_with_clickhouse_code() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = SpillConfig::new(dir.path().to_path_buf());
        config.codec = TemporaryCodec::None;
        config.max_disk_bytes = 2500;
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1 << 30));
        let store = SpillStore::new(Arc::new(config), &pool, 0);
        store.put(&block(0, 1000, false)).unwrap();
        store.put(&block(1, 1000, false)).unwrap();
        let error = store.put(&block(2, 1000, false)).unwrap_err();
        let error = StrataError::from_datafusion(error);
        assert_eq!(error.code, ErrorCode::TOO_MANY_ROWS_OR_BYTES);
    }

    #[test]
    fn leftovers_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // No process has this id: pid_max is at most 2^22.
        let dead = dir
            .path()
            .join(format!("{DIRECTORY_PREFIX}{}-0", 1u32 << 30));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("blocks.bin"), b"x").unwrap();
        let mine = dir
            .path()
            .join(format!("{DIRECTORY_PREFIX}{}-7", std::process::id()));
        std::fs::create_dir(&mine).unwrap();
        assert_eq!(super::super::remove_leftovers(dir.path()).unwrap(), 1);
        assert!(!dead.exists());
        assert!(mine.exists());
    }
}
