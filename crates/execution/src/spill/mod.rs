//! The engine's own swap: where operators put data their memory budget cannot
//! hold, in two tiers below their own (hot) memory.
//!
//! - **Warm**: compressed blocks in RAM (LZ4 by default, ZSTD or none by
//!   `temporary_data_compression`), reserved from the query's memory account
//!   like any operator memory. It is an LRU cache in front of disk, as zswap is
//!   in front of a swap device: when it cannot grow, its oldest blocks are
//!   written out and freed, and reading a warm block never touches disk.
//! - **Cold**: files under the temporary directories, one per directory and
//!   store, written round-robin like swap devices of equal priority. They are
//!   removed when the store is dropped (the query ends, fails or is cancelled)
//!   and at start-up for processes that no longer exist.
//!
//! DataFusion's own spilling operators (the external sort) write their runs
//! to files of the same directories and figures ([`RunFileFactory`]).
//!
//! Operators decide *what* goes down (whole partitions, so hot ones stay hot);
//! the store decides *where*. Every byte is counted per query
//! ([`SpillCounters`]) and for the whole process ([`process_tiers`]).

mod block_codec;
pub mod planned;
mod run_files;
mod store;

pub use block_codec::{decode_batch, encode_batch};
pub use run_files::RunFileFactory;
pub use store::{BlockId, SpillStore};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use datafusion::execution::TaskContext;
use datafusion::execution::memory_pool::MemoryLimit;
use strata_common::{ErrorCode, StrataError};

/// How warm blocks are compressed (`temporary_data_compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemporaryCodec {
    None,
    Lz4,
    Zstd,
}

impl TemporaryCodec {
    pub fn parse(name: &str) -> Result<Self, StrataError> {
        match name.to_ascii_lowercase().as_str() {
            "none" | "" => Ok(TemporaryCodec::None),
            "lz4" => Ok(TemporaryCodec::Lz4),
            "zstd" => Ok(TemporaryCodec::Zstd),
            other => Err(StrataError::new(
                ErrorCode::UNKNOWN_CODEC,
                format!("Unknown temporary data compression '{other}': expected none, lz4 or zstd"),
            )),
        }
    }
}

/// One query's spill settings and counters, handed to operators as a
/// DataFusion session-config extension.
#[derive(Debug)]
pub struct SpillConfig {
    pub codec: TemporaryCodec,
    /// Where cold blocks go; never empty.
    pub directories: Vec<PathBuf>,
    /// `max_temporary_data_on_disk_size_for_query`; 0 means no limit.
    pub max_disk_bytes: u64,
    /// The share of its spill threshold an operator may keep as warm blocks
    /// before the oldest go to disk.
    pub warm_ratio: f64,
    /// `max_bytes_before_external_join`: a join or set operation spills past
    /// this many bytes of its own; 0 leaves it to the ratio below.
    pub join_bytes_before_external: u64,
    /// `max_bytes_ratio_before_external_join`: the share of the query's memory
    /// limit a join or set operation may hold before it spills.
    pub join_ratio_before_external: f64,
    /// `max_bytes_before_external_group_by`: a GROUP BY's tables spill past
    /// this many bytes together; 0 leaves it to the ratio below.
    pub group_by_bytes_before_external: u64,
    /// `max_bytes_ratio_before_external_group_by`: the share of the query's
    /// memory limit a GROUP BY's tables may hold before they spill.
    pub group_by_ratio_before_external: f64,
    /// `max_bytes_before_external_sort`: an ORDER BY's buffered rows are
    /// sorted and spilled as runs past this many bytes together; 0 leaves it
    /// to the ratio below.
    pub sort_bytes_before_external: u64,
    /// `max_bytes_ratio_before_external_sort`: the share of the query's
    /// memory limit an ORDER BY's buffered rows may hold before they spill.
    pub sort_ratio_before_external: f64,
    pub counters: Arc<SpillCounters>,
}

impl SpillConfig {
    /// Defaults for one query spilling into `directory`.
    pub fn new(directory: PathBuf) -> Self {
        SpillConfig {
            codec: TemporaryCodec::Lz4,
            directories: vec![directory],
            max_disk_bytes: 0,
            warm_ratio: 0.5,
            join_bytes_before_external: 0,
            join_ratio_before_external: 0.5,
            group_by_bytes_before_external: 0,
            group_by_ratio_before_external: 0.5,
            sort_bytes_before_external: 0,
            sort_ratio_before_external: 0.5,
            counters: Arc::new(SpillCounters::default()),
        }
    }

    /// The running query's configuration, or defaults over the system's
    /// temporary directory where the plan runs outside a Strata session.
    pub fn of_task(context: &TaskContext) -> Arc<SpillConfig> {
        context
            .session_config()
            .get_extension::<SpillConfig>()
            .unwrap_or_else(|| Arc::new(SpillConfig::new(std::env::temp_dir())))
    }

    /// The query's memory limit, which spill thresholds are shares of.
    pub fn memory_limit(context: &TaskContext) -> usize {
        match context.memory_pool().memory_limit() {
            MemoryLimit::Finite(bytes) => bytes,
            _ => usize::MAX / 4,
        }
    }

    /// Bytes a join or set operation may hold before it spills, given the
    /// query's memory limit and how many instances of it run side by side.
    pub fn join_threshold(&self, memory_limit: usize, instances: usize) -> usize {
        threshold(
            memory_limit,
            self.join_ratio_before_external,
            self.join_bytes_before_external,
        ) / instances.max(1)
    }

    /// Bytes all of a GROUP BY's tables may hold together before they spill.
    pub fn group_by_threshold(&self, memory_limit: usize) -> usize {
        threshold(
            memory_limit,
            self.group_by_ratio_before_external,
            self.group_by_bytes_before_external,
        )
    }

    /// Bytes an ORDER BY's buffered rows may hold, over all its threads,
    /// before they spill as sorted runs.
    pub fn sort_threshold(&self, memory_limit: usize) -> usize {
        threshold(
            memory_limit,
            self.sort_ratio_before_external,
            self.sort_bytes_before_external,
        )
    }
}

/// The smaller of a share of the memory limit and a byte count; a ratio or
/// count of 0 sets no bound, as in ClickHouse, and with neither the
/// threshold is `usize::MAX`.
fn threshold(memory_limit: usize, ratio: f64, bytes: u64) -> usize {
    let by_ratio = if ratio > 0.0 {
        (memory_limit as f64 * ratio) as usize
    } else {
        usize::MAX
    };
    match bytes {
        0 => by_ratio,
        bytes => by_ratio.min(usize::try_from(bytes).unwrap_or(usize::MAX)),
    }
}

/// What one query moved down the tiers; shown in the summary and
/// `system.query_log`.
#[derive(Debug, Default)]
pub struct SpillCounters {
    /// Uncompressed bytes of blocks put into the store.
    pub bytes_spilled: AtomicU64,
    /// Their size after compression.
    pub bytes_compressed: AtomicU64,
    pub disk_bytes_written: AtomicU64,
    pub disk_bytes_read: AtomicU64,
    /// Bytes this query holds on disk now, for its disk limit.
    pub disk_bytes_live: AtomicU64,
    /// The largest warm tier of any store of this query.
    pub warm_peak: AtomicU64,
}

impl SpillCounters {
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }

    pub fn figures(&self) -> SpillFigures {
        SpillFigures {
            bytes_spilled: Self::get(&self.bytes_spilled),
            bytes_compressed: Self::get(&self.bytes_compressed),
            warm_peak: Self::get(&self.warm_peak),
            disk_bytes_written: Self::get(&self.disk_bytes_written),
            disk_bytes_read: Self::get(&self.disk_bytes_read),
        }
    }
}

/// A snapshot of [`SpillCounters`] for the summary and the query log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpillFigures {
    pub bytes_spilled: u64,
    pub bytes_compressed: u64,
    pub warm_peak: u64,
    pub disk_bytes_written: u64,
    pub disk_bytes_read: u64,
}

/// Bytes in each tier below hot memory for the whole process.
#[derive(Debug, Default)]
pub struct ProcessTiers {
    pub warm_bytes: AtomicU64,
    pub warm_uncompressed_bytes: AtomicU64,
    pub disk_bytes: AtomicU64,
    pub disk_files: AtomicU64,
}

static PROCESS_TIERS: ProcessTiers = ProcessTiers {
    warm_bytes: AtomicU64::new(0),
    warm_uncompressed_bytes: AtomicU64::new(0),
    disk_bytes: AtomicU64::new(0),
    disk_files: AtomicU64::new(0),
};

pub fn process_tiers() -> &'static ProcessTiers {
    &PROCESS_TIERS
}

/// Prefix of a store's directory of cold files: `strata-spill-<pid>-<n>`.
const DIRECTORY_PREFIX: &str = "strata-spill-";

/// The `<n>` of the next spill directory of this process.
fn next_directory_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Removes spill directories under `directory` left by processes that no
/// longer run (a crash or a kill leaves them behind). Returns how many.
pub fn remove_leftovers(directory: &Path) -> std::io::Result<usize> {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(DIRECTORY_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            std::fs::remove_dir_all(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}
