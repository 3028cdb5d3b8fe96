//! A MergeTree table's data: its directory of parts, the set of active
//! parts that queries take snapshots of, block numbers for new parts, and
//! the writes that change the set (inserts, merges, TRUNCATE).
//!
//! The active set is an immutable list behind a lock; a change builds a new
//! list and swaps it in, so a query's snapshot never changes under it and a
//! replaced part's files stay until the last snapshot holding it is gone.
//!
//! An ALTER closes the table object and opens the directory again with the
//! new columns. Opening rewrites the parts that hold a dropped column or a
//! renamed one under its old name, so the same code finishes an ALTER that
//! a crash interrupted.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use datafusion::arrow::array::{RecordBatch, new_null_array};
use datafusion::arrow::compute::{concat_batches, filter_record_batch};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, MemoryReservation};
use parking_lot::{Mutex, RwLock};
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Event};

use super::data_part::{DataPart, PastColumns, ROW_EXISTS};
use super::keys::TableKeys;
use super::merge_mode::MergeMode;
use super::mutation::MutationEntry;
use super::part_log::{PartEvent, PartEventType, PartLog};
use crate::compression::CodecChain;
use crate::disk::{DEFAULT_DISK, Disk, StoragePolicy};
use crate::part::name::PartName;
use crate::part::writer::{PartLayout, granule_rows, io_error, write_part};
use crate::part::{DEFAULT_GRANULARITY, TEMPORARY_PREFIX, remove_part_directory};

mod copy_partition;
mod detached;
mod moves;
mod mutate;
mod removal_list;
mod ttl;

pub use detached::{DETACHED_DIR, DetachedPart, PartCheck};
pub use mutate::{MutationFailure, MutationStatus};
pub use removal_list::RemovalList;
use ttl::TtlBounds;
pub use ttl::{TableTtl, TtlTarget};

/// Table-level settings from `SETTINGS` in `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeTreeSettings {
    /// Rows per granule: one primary index entry and one mark each.
    pub index_granularity: usize,
    /// A partition with at least this many active parts gets a background merge.
    pub parts_to_merge: usize,
    /// Most parts one merge takes.
    pub max_parts_to_merge_at_once: usize,
    /// Most broken parts opening detaches; with more, something larger is
    /// wrong (a wrong path, a disk gone) and the table refuses to load.
    pub max_suspicious_broken_parts: usize,
    /// How the engine combines rows of one sorting key as parts are written.
    pub merge_mode: MergeMode,
    /// The disks parts go to (`storage_policy`, or `disk`).
    pub policy: Arc<StoragePolicy>,
}

impl Default for MergeTreeSettings {
    fn default() -> Self {
        MergeTreeSettings {
            index_granularity: DEFAULT_GRANULARITY,
            parts_to_merge: 8,
            max_parts_to_merge_at_once: 16,
            max_suspicious_broken_parts: 100,
            merge_mode: MergeMode::Ordinary,
            policy: Arc::new(StoragePolicy::local_default()),
        }
    }
}

pub type Snapshot = Arc<Vec<Arc<DataPart>>>;

/// Gives each merge or rewrite its own memory account: the rows it holds
/// count against the server's budget like a query's.
pub type MergeMemory = Arc<dyn Fn(&str) -> Arc<dyn MemoryPool> + Send + Sync>;

/// A merge or rewrite in progress, for `system.merges`. Its counters are
/// updated as it reads and writes.
#[derive(Debug)]
pub struct MergeProgress {
    pub partition_id: String,
    pub source_parts: Vec<String>,
    pub result_part: String,
    /// A rewrite of one part after an ALTER rather than a merge.
    pub is_mutation: bool,
    pub started: std::time::Instant,
    pub total_rows: u64,
    pub total_bytes_compressed: u64,
    pub rows_read: AtomicU64,
    pub rows_written: AtomicU64,
    /// Bytes of the rows the merge holds in memory, counted from the arrays.
    pub memory_usage: AtomicU64,
}

/// Removes a merge from the running list when it ends, however it ends.
struct RunningMerge<'a> {
    table: &'a MergeTreeTable,
    progress: Arc<MergeProgress>,
}

impl Drop for RunningMerge<'_> {
    fn drop(&mut self) {
        self.table
            .merges
            .lock()
            .retain(|m| !Arc::ptr_eq(m, &self.progress));
    }
}

/// Written in the table's directory before a column rename is stored, and
/// removed once every part holds the new name: `old<TAB>new`.
const RENAME_FILE: &str = "column_rename.txt";

pub struct MergeTreeTable {
    dir: PathBuf,
    schema: SchemaRef,
    keys: TableKeys,
    codecs: Vec<CodecChain>,
    /// How parts written under an earlier definition read a column.
    past: Arc<PastColumns>,
    memory: MergeMemory,
    settings: MergeTreeSettings,
    /// Active parts ordered by (partition id, min block).
    active: RwLock<Snapshot>,
    next_block: AtomicU64,
    /// Held while a change to the active set is computed and swapped in.
    commit: Mutex<()>,
    /// Set by [`Self::close`]: no more writes or commits.
    closed: AtomicBool,
    /// Set by `SYSTEM STOP MERGES`: no background merge is picked.
    merges_stopped: AtomicBool,
    /// Block numbers taken by inserts whose parts are not yet committed or
    /// discarded. Concurrent inserts commit out of block order, so a merge
    /// of committed parts must not span one: its result would cover the
    /// in-flight part, which then counts as merged away (and start-up
    /// removes it as covered).
    uncommitted: Mutex<BTreeSet<u64>>,
    /// Numbers the removal lists of inserts and truncates in progress.
    removal_lists: AtomicU64,
    merges: Mutex<Vec<Arc<MergeProgress>>>,
    /// Mutations by number, from their files and ALTERs since.
    mutations: Mutex<BTreeMap<u64, mutate::MutationState>>,
    /// TTL rules, in the order written.
    ttl: Vec<TableTtl>,
    ttl_bounds: TtlBounds,
    /// Where the parts' events go (`system.part_log`), if anywhere.
    part_log: Option<PartLog>,
}

impl std::fmt::Debug for MergeTreeTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeTreeTable")
            .field("dir", &self.dir)
            .field("parts", &self.snapshot().len())
            .finish()
    }
}

impl MergeTreeTable {
    /// Opens the table stored in `dir`, creating the directory if needed.
    /// Unfinished parts (`tmp_*`) and parts a finished merge covers are
    /// removed; parts that fail to open are moved to `detached/broken_<name>`.
    pub fn open(
        dir: &Path,
        schema: SchemaRef,
        keys: TableKeys,
        codecs: Vec<CodecChain>,
        past: PastColumns,
        memory: MergeMemory,
        settings: MergeTreeSettings,
    ) -> Result<MergeTreeTable> {
        assert_eq!(codecs.len(), schema.fields().len(), "one codec per column");
        assert!(
            settings.index_granularity > 0,
            "granules hold at least one row"
        );
        fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        removal_list::apply_removal_lists(dir)?;
        let mut found: Vec<PathBuf> = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
            let entry = entry.map_err(|e| io_error(dir, e))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with(TEMPORARY_PREFIX) {
                let removed = if path.is_dir() {
                    fs::remove_dir_all(&path)
                } else {
                    fs::remove_file(&path)
                };
                removed.map_err(|e| io_error(&path, e))?;
            } else if path.is_dir() {
                found.push(path);
            }
        }
        // Directories that are not parts (`detached`, a user's own) are left alone.
        let mut names: Vec<(PartName, PathBuf)> = found
            .into_iter()
            .filter_map(|path| {
                let name = path.file_name()?.to_string_lossy().to_string();
                Some((PartName::parse(&name).ok()?, path))
            })
            .collect();
        // Widest range and highest level first, so a merged or rewritten part
        // is seen before the parts it covers.
        names.sort_by(|(a, _), (b, _)| {
            use std::cmp::Reverse;
            (
                &a.partition_id,
                a.min_block,
                Reverse(a.max_block),
                Reverse(a.level),
                Reverse(a.mutation),
            )
                .cmp(&(
                    &b.partition_id,
                    b.min_block,
                    Reverse(b.max_block),
                    Reverse(b.level),
                    Reverse(b.mutation),
                ))
        });
        let mut parts: Vec<Arc<DataPart>> = Vec::new();
        let mut broken: Vec<(PathBuf, StrataError)> = Vec::new();
        let mutations = MutationEntry::load_all(dir)?;
        // Block and mutation numbers share one counter: a new insert's block
        // must come after every mutation, or the mutation would claim it.
        let mut next_block = mutations.last().map_or(1, |m| m.number + 1);
        for (name, path) in names {
            next_block = next_block.max(name.max_block + 1).max(name.mutation + 1);
            // Only a part that opened covers others: the sources of a broken
            // merged part stay and load in its place.
            let covered = parts.last().is_some_and(|last| {
                last.part.name.partition_id == name.partition_id
                    && last.part.name.max_block >= name.max_block
            });
            if covered {
                let disk = crate::part::reader::part_disk(&path, Some(&settings.policy))?;
                let objects = disk.as_ref().and_then(|d| d.object_store());
                remove_part_directory(&path, objects.map(AsRef::as_ref))
                    .map_err(|e| io_error(&path, e))?;
                continue;
            }
            match DataPart::open(&path, &schema, &keys, &settings.policy) {
                Ok(part) => parts.push(Arc::new(part)),
                Err(error) => broken.push((path, error)),
            }
        }
        detached::detach_broken(dir, broken, settings.max_suspicious_broken_parts)?;
        // A table loads while its object store is unreachable: its reads
        // fail until it is back, and the next load sweeps again.
        for disk in settings.policy.disks() {
            if let Err(error) = disk.sweep(dir) {
                log::warn!(
                    "Sweep of unreferenced objects of {} skipped: {error}",
                    dir.display()
                );
            }
        }
        let table = MergeTreeTable {
            dir: dir.to_path_buf(),
            schema,
            keys,
            codecs,
            past: Arc::new(past),
            memory,
            settings,
            active: RwLock::new(Arc::new(parts)),
            next_block: AtomicU64::new(next_block),
            commit: Mutex::new(()),
            closed: AtomicBool::new(false),
            merges_stopped: AtomicBool::new(false),
            uncommitted: Mutex::new(BTreeSet::new()),
            removal_lists: AtomicU64::new(0),
            merges: Mutex::new(Vec::new()),
            mutations: Mutex::new(
                mutations
                    .into_iter()
                    .map(|entry| (entry.number, mutate::MutationState::loaded(entry)))
                    .collect(),
            ),
            ttl: Vec::new(),
            ttl_bounds: TtlBounds::default(),
            part_log: None,
        };
        table.finish_alters()?;
        Ok(table)
    }

    /// The table with TTL `rules`, before it is shared.
    pub fn with_ttl(mut self, rules: Vec<TableTtl>) -> Self {
        self.ttl = rules;
        self
    }

    /// The table reporting its parts' events to `log`, before it is shared.
    pub fn with_part_log(mut self, log: PartLog) -> Self {
        self.part_log = Some(log);
        self
    }

    /// Whether [`Self::close`] retired this object.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Whether the table has TTL rules to apply.
    pub fn has_ttl(&self) -> bool {
        !self.ttl.is_empty()
    }

    /// Whether the table's policy moves parts by free space (`move_factor`).
    pub fn moves_by_space(&self) -> bool {
        let policy = &self.settings.policy;
        policy.volumes.len() > 1 && policy.move_factor > 0.0
    }

    /// Records, before the new definition is stored, that column `old` is
    /// being renamed to `new`, so opening the table finishes the rename in
    /// every part whether or not the process stops in between.
    pub fn record_rename(dir: &Path, old: &str, new: &str) -> Result<()> {
        if [old, new].iter().any(|name| name.contains(['\t', '\n'])) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "A renamed column's names cannot hold tabs or line breaks",
            ));
        }
        let path = dir.join(RENAME_FILE);
        let temporary = dir.join(format!("{TEMPORARY_PREFIX}{RENAME_FILE}"));
        fs::write(&temporary, format!("{old}\t{new}"))
            .and_then(|_| fs::File::open(&temporary)?.sync_all())
            .map_err(|e| io_error(&temporary, e))?;
        fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_error(dir, e))
    }

    /// Rewrites the parts an ALTER left behind: those holding a column the
    /// table no longer has, or a renamed column under its old name.
    fn finish_alters(&self) -> Result<()> {
        let rename_path = self.dir.join(RENAME_FILE);
        let mut renamed_from: HashMap<String, String> = HashMap::new();
        if rename_path.exists() {
            let text = fs::read_to_string(&rename_path).map_err(|e| io_error(&rename_path, e))?;
            if let Some((old, new)) = text.split_once('\t')
                && self.schema.field_with_name(new).is_ok()
            {
                renamed_from.insert(new.to_string(), old.to_string());
            }
        }
        for part in self.snapshot().iter() {
            // A patch of a column the table lost (dropped or renamed) is
            // stale too: folded in now, it cannot meet a later column of
            // that name.
            let patched = part.part.patches.columns().iter().map(|c| &c.field);
            let stale =
                part.part.columns.iter().chain(patched).any(|c| {
                    c.name() != ROW_EXISTS && self.schema.field_with_name(c.name()).is_err()
                });
            if stale {
                self.rewrite(part, &renamed_from)?;
            }
        }
        if rename_path.exists() {
            fs::remove_file(&rename_path).map_err(|e| io_error(&rename_path, e))?;
        }
        Ok(())
    }

    /// Writes `part` again with the table's columns, at the next level, and
    /// swaps it in.
    fn rewrite(&self, part: &Arc<DataPart>, renamed_from: &HashMap<String, String>) -> Result<()> {
        let mut name = part.part.name.clone();
        name.level += 1;
        let Some(running) = self.start_merge(std::slice::from_ref(part), &name, true) else {
            return Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                format!(
                    "Part {} cannot be rewritten: a merge holds it or replaced it",
                    part.name()
                ),
            ));
        };
        let pool = (self.memory)(&format!("rewrite {name}"));
        let reservation = MemoryConsumer::new("MergeTree rewrite").register(&pool);
        let rows = self.read_renamed(part, 0..part.granules(), renamed_from)?;
        reservation.try_grow(rows.get_array_memory_size())?;
        running
            .progress
            .rows_read
            .store(rows.num_rows() as u64, Ordering::Relaxed);
        running
            .progress
            .memory_usage
            .store(reservation.size() as u64, Ordering::Relaxed);
        let rewritten = self.write_rows(&name, &rows, &part.partition, part.part.disk.as_ref())?;
        running
            .progress
            .rows_written
            .store(rows.num_rows() as u64, Ordering::Relaxed);
        self.swap_parts(
            std::slice::from_ref(part),
            rewritten,
            PartEventType::MutatePart,
            running.progress.started,
        );
        Ok(())
    }

    /// Stops this object's writes before an ALTER or DROP opens the
    /// directory anew: later inserts and commits fail, and this waits for
    /// parts already written by inserts to be committed or discarded. The
    /// caller also waits for background merges to stop.
    pub fn close(&self) {
        {
            let _guard = self.commit.lock();
            self.closed.store(true, Ordering::Release);
        }
        // In-flight inserts end first. Running merges and mutations can no
        // longer commit: each removes the part it wrote and leaves the
        // running list. Waiting for them matters because the directory is
        // opened again next: a table object opened there would take such a
        // part as its own (and drop its sources as covered) just before
        // this one removes it.
        while !self.uncommitted.lock().is_empty() || !self.merges.lock().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(StrataError::new(
                ErrorCode::TABLE_IS_DROPPED,
                "The table was altered or dropped while the query ran; run it again",
            ));
        }
        Ok(())
    }

    /// Merges and rewrites running now.
    pub fn running_merges(&self) -> Vec<Arc<MergeProgress>> {
        self.merges.lock().clone()
    }

    /// Names of the parts that running merges and rewrites read.
    pub fn merging_parts(&self) -> HashSet<String> {
        self.merges
            .lock()
            .iter()
            .flat_map(|m| m.source_parts.iter().cloned())
            .collect()
    }

    /// Registers a merge of `sources` into `result`, or returns `None` if a
    /// running merge holds one of them or one is no longer active (two
    /// merges of one part would write the same result part), or an insert
    /// in flight holds a block inside `result`'s range. A merge
    /// commits before it leaves the running list, so one of the two checks
    /// sees it.
    fn start_merge(
        &self,
        sources: &[Arc<DataPart>],
        result: &PartName,
        is_mutation: bool,
    ) -> Option<RunningMerge<'_>> {
        let mut merges = self.merges.lock();
        // Under the list's lock: `close` sees either this merge or the flag.
        if self.closed.load(Ordering::Acquire) {
            return None;
        }
        let held = merges.iter().any(|running| {
            sources
                .iter()
                .any(|source| running.source_parts.contains(&source.name()))
        });
        let active = self.snapshot();
        let all_active = sources
            .iter()
            .all(|source| active.iter().any(|part| Arc::ptr_eq(part, source)));
        let spans_insert = self
            .uncommitted
            .lock()
            .range(result.min_block..=result.max_block)
            .next()
            .is_some();
        if held || !all_active || spans_insert {
            return None;
        }
        let progress = Arc::new(MergeProgress {
            partition_id: result.partition_id.clone(),
            source_parts: sources.iter().map(|p| p.name()).collect(),
            result_part: result.to_string(),
            is_mutation,
            started: std::time::Instant::now(),
            total_rows: sources.iter().map(|p| p.part.rows).sum(),
            total_bytes_compressed: sources.iter().map(|p| p.part.bytes_on_disk()).sum(),
            rows_read: AtomicU64::new(0),
            rows_written: AtomicU64::new(0),
            memory_usage: AtomicU64::new(0),
        });
        merges.push(Arc::clone(&progress));
        Some(RunningMerge {
            table: self,
            progress,
        })
    }

    pub fn past(&self) -> &Arc<PastColumns> {
        &self.past
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    pub fn keys(&self) -> &TableKeys {
        &self.keys
    }

    pub fn settings(&self) -> &MergeTreeSettings {
        &self.settings
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The active parts now; later changes do not affect it.
    pub fn snapshot(&self) -> Snapshot {
        Arc::clone(&self.active.read())
    }

    fn removal_list(&self) -> RemovalList {
        RemovalList::new(
            &self.dir,
            self.removal_lists.fetch_add(1, Ordering::Relaxed),
        )
    }

    /// Starts an INSERT: its parts, written by [`Self::write`], become
    /// visible together at [`Self::commit`], even across a crash.
    pub fn begin_insert(&self) -> RemovalList {
        self.removal_list()
    }

    /// Writes `batch` as one new part per partition of `insert`, each sorted
    /// by the sorting key. The parts are not visible until [`Self::commit`].
    pub fn write(&self, insert: &RemovalList, batch: &RecordBatch) -> Result<Vec<Arc<DataPart>>> {
        let mut written = Vec::new();
        if batch.num_rows() == 0 {
            return Ok(written);
        }
        self.check_open()?;
        if batch.schema().fields() != self.schema.fields() {
            return Err(StrataError::new(
                ErrorCode::TABLE_IS_DROPPED,
                "The table's columns changed while the INSERT ran; run it again",
            ));
        }
        for partition in self.keys.split_partitions(batch)? {
            let block = self.take_insert_block();
            let name = PartName::inserted(&partition.id, block);
            let part = insert.record(&name).and_then(|_| {
                let bytes = partition.rows.get_array_memory_size() as u64;
                let disk = self.settings.policy.disk_for(bytes);
                self.write_rows(&name, &partition.rows, &partition.value, Some(disk))
            });
            match part {
                Ok(Some(part)) => written.push(part),
                Ok(None) => self.release_blocks(&[block]),
                Err(error) => {
                    self.release_blocks(&[block]);
                    self.discard_parts(written);
                    return Err(error);
                }
            }
        }
        Ok(written)
    }

    /// The next block number, marked uncommitted in the same step, so a
    /// merge that does not see it started before it existed and covers
    /// only lower blocks.
    fn take_insert_block(&self) -> u64 {
        let mut uncommitted = self.uncommitted.lock();
        let block = self.next_block.fetch_add(1, Ordering::Relaxed);
        uncommitted.insert(block);
        block
    }

    /// Ends the uncommitted state of `blocks`: their parts are committed or
    /// removed.
    fn release_blocks(&self, blocks: &[u64]) {
        let mut uncommitted = self.uncommitted.lock();
        for block in blocks {
            let was_taken = uncommitted.remove(block);
            debug_assert!(was_taken, "block {block} released twice");
        }
    }

    fn inserted_blocks(parts: &[Arc<DataPart>]) -> Vec<u64> {
        let block = |p: &Arc<DataPart>| {
            debug_assert_eq!(
                p.part.name.min_block, p.part.name.max_block,
                "an inserted part"
            );
            p.part.name.min_block
        };
        parts.iter().map(block).collect()
    }

    /// Writes `rows` as part `name`: sorted by the sorting key, the rows of
    /// one key combined as the engine's merge mode says. No part when no row
    /// is left (a merge or rewrite of parts whose rows lightweight DELETEs
    /// all masked, or rows that cancel out in a CollapsingMergeTree). The
    /// column data goes to `disk` (`None`: the default disk).
    fn write_rows(
        &self,
        name: &PartName,
        rows: &RecordBatch,
        partition: &str,
        disk: Option<&Arc<Disk>>,
    ) -> Result<Option<Arc<DataPart>>> {
        let (sorted, primary_key) = match &self.settings.merge_mode {
            mode if mode.combines() => {
                let (sorted, sorting) = self.keys.sort_stable(rows)?;
                let combined = mode.combine(&sorted, &sorting, false)?;
                let primary_key = self.keys.primary_values(&combined)?;
                (combined, primary_key)
            }
            _ => self.keys.sort(rows)?,
        };
        if sorted.num_rows() == 0 {
            return Ok(None);
        }
        let granules = granule_rows(sorted.num_rows(), self.settings.index_granularity);
        let index_files = self
            .keys
            .indexes
            .iter()
            .map(|index| Ok((index.file_name(), index.build(&sorted, &granules)?)))
            .collect::<Result<Vec<_>>>()?;
        let layout = PartLayout {
            codecs: &self.codecs,
            primary_key: &primary_key,
            granularity: self.settings.index_granularity,
            partition,
            minmax_columns: &self.keys.partition_columns,
            index_files: &index_files,
        };
        write_part(&self.dir, name, &sorted, &layout, disk)?;
        self.open_written(name).map(Some)
    }

    /// The part just written under `name` in the table's directory.
    fn open_written(&self, name: &PartName) -> Result<Arc<DataPart>> {
        let dir = self.dir.join(name.to_string());
        Ok(Arc::new(DataPart::open(
            &dir,
            &self.schema,
            &self.keys,
            &self.settings.policy,
        )?))
    }

    /// Makes the parts `insert` wrote visible, all at once; if the table was
    /// closed meanwhile, removes them instead.
    pub fn commit(&self, insert: &RemovalList, parts: Vec<Arc<DataPart>>) -> Result<()> {
        if parts.is_empty() {
            return insert.finish();
        }
        let guard = self.commit.lock();
        // Removing the list is the commit point on disk.
        if let Err(error) = self.check_open().and_then(|_| insert.finish()) {
            drop(guard);
            self.discard(insert, parts);
            return Err(error);
        }
        let blocks = Self::inserted_blocks(&parts);
        let mut next: Vec<Arc<DataPart>> = self.snapshot().as_ref().clone();
        next.extend(parts.iter().cloned());
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
        // Only now: a merge must see the parts either uncommitted or active.
        self.release_blocks(&blocks);
        drop(guard);
        for part in &parts {
            let event = PartEvent::of(PartEventType::NewPart, part, insert.started, &[]);
            self.log_part(event);
        }
        Ok(())
    }

    /// Removes the parts `insert` wrote, which will never be committed, then
    /// its list (if that fails, opening the table removes them again).
    pub fn discard(&self, insert: &RemovalList, parts: Vec<Arc<DataPart>>) {
        self.discard_parts(parts);
        let _ = insert.finish();
    }

    fn discard_parts(&self, parts: Vec<Arc<DataPart>>) {
        let blocks = Self::inserted_blocks(&parts);
        for part in parts {
            // The last holder: its directory goes now.
            part.retire();
        }
        self.release_blocks(&blocks);
    }

    /// Removes every part (TRUNCATE), all or none across a crash.
    pub fn truncate(&self) -> Result<()> {
        self.drop_parts(|_| true).map(|_| ())
    }

    /// Removes the active parts `dropped` selects (TRUNCATE, `DROP PARTITION`,
    /// `DROP PART`), all or none across a crash: the parts are named in a
    /// removal list, put in place whole, before they leave the set. So are
    /// the parts running merges and mutations over them will write, and the
    /// list stays until they are gone: each fails to commit and removes its
    /// part, but a crash in between would otherwise bring the dropped rows
    /// back. Returns the names of the parts removed.
    pub fn drop_parts(&self, dropped: impl Fn(&PartName) -> bool) -> Result<Vec<String>> {
        let list = self.removal_list();
        let (removed, running, held) = {
            let _guard = self.commit.lock();
            // Held while the set changes, so no merge starts from its parts.
            let merges = self.merges.lock();
            let old = self.snapshot();
            let (gone, kept): (Vec<_>, Vec<_>) =
                old.iter().cloned().partition(|p| dropped(&p.part.name));
            let mut names: Vec<PartName> = gone.iter().map(|p| p.part.name.clone()).collect();
            let held = self.replaced_parts_within(&gone)?;
            names.extend(held.iter().cloned());
            let mut running = Vec::new();
            for merge in merges.iter() {
                let result = PartName::parse(&merge.result_part)?;
                if dropped(&result) {
                    names.push(result);
                    running.push(Arc::clone(merge));
                }
            }
            list.record_all(&names)?;
            *self.active.write() = Arc::new(kept);
            for part in &gone {
                remove_part_directory(&part.part.dir, part.part.objects())
                    .map_err(|e| io_error(&part.part.dir, e))?;
            }
            (gone, running, held)
        };
        // Their sources are gone, so they fail at their next read if not sooner.
        while self
            .merges
            .lock()
            .iter()
            .any(|m| running.iter().any(|r| Arc::ptr_eq(m, r)))
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        // A reader still holding a replaced part keeps the list in place
        // until the next open applies it.
        if held
            .iter()
            .all(|name| !self.dir.join(name.to_string()).exists())
        {
            list.finish()?;
        }
        self.log_removed(&removed);
        Ok(removed.iter().map(|p| p.name()).collect())
    }

    /// Part directories within the blocks of `dropped` that are not active:
    /// parts merges and mutations replaced, kept on disk while a query
    /// still reads them. Nothing covers them once `dropped` are gone, so a
    /// crash before their readers end would bring them back.
    fn replaced_parts_within(&self, dropped: &[Arc<DataPart>]) -> Result<Vec<PartName>> {
        let mut found = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(|e| io_error(&self.dir, e))? {
            let entry = entry.map_err(|e| io_error(&self.dir, e))?;
            let Ok(name) = PartName::parse(&entry.file_name().to_string_lossy()) else {
                continue;
            };
            let replaced = dropped.iter().any(|part| {
                let by = &part.part.name;
                by != &name
                    && by.partition_id == name.partition_id
                    && by.min_block <= name.min_block
                    && name.max_block <= by.max_block
            });
            if replaced {
                found.push(name);
            }
        }
        Ok(found)
    }

    /// Active parts by partition id, for the merge selector and OPTIMIZE.
    pub fn parts_by_partition(&self) -> BTreeMap<String, Vec<Arc<DataPart>>> {
        let mut by_partition: BTreeMap<String, Vec<Arc<DataPart>>> = BTreeMap::new();
        for part in self.snapshot().iter() {
            by_partition
                .entry(part.part.name.partition_id.clone())
                .or_default()
                .push(Arc::clone(part));
        }
        by_partition
    }

    /// The next background merge [`select_merge`] picks, past the parts
    /// running merges hold, among parts of one mutation generation with no
    /// uncommitted insert between them.
    pub fn next_merge(&self) -> Option<Vec<Arc<DataPart>>> {
        if self.merges_stopped() {
            return None;
        }
        let uncommitted = self.uncommitted.lock().clone();
        let mergeable = |a: &DataPart, b: &DataPart| {
            let between = a.part.name.max_block + 1..b.part.name.min_block;
            self.generation(a) == self.generation(b) && uncommitted.range(between).next().is_none()
        };
        // Parts on a `prefer_not_to_merge` volume stay out, as if merging.
        let mut held = self.merging_parts();
        for volume in &self.settings.policy.volumes {
            if !volume.prefer_not_to_merge {
                continue;
            }
            for part in self.snapshot().iter() {
                if volume.disks.iter().any(|d| d.name == part.part.disk_name()) {
                    held.insert(part.name());
                }
            }
        }
        select_merge(
            &self.parts_by_partition(),
            &held,
            &mergeable,
            &self.settings,
        )
    }

    /// Stops (`SYSTEM STOP MERGES`) or starts again the picking of
    /// background merges; one already running finishes.
    pub fn set_merges_stopped(&self, stopped: bool) {
        self.merges_stopped.store(stopped, Ordering::Release);
    }

    /// Whether `SYSTEM STOP MERGES` holds this table's merges.
    pub fn merges_stopped(&self) -> bool {
        self.merges_stopped.load(Ordering::Acquire)
    }

    /// Merges `sources`, adjacent active parts of one partition, into one
    /// part and swaps it in for them (one source is rewritten, for
    /// OPTIMIZE FINAL). Returns `false` if another merge holds one of the
    /// sources, another change got to one of them first, an insert in
    /// flight holds a block inside their range, or they are of different
    /// mutation generations.
    pub fn merge(&self, sources: &[Arc<DataPart>]) -> Result<bool> {
        self.merge_deduplicating(sources, None)
    }

    /// [`merge`](Self::merge) that keeps, of rows equal in the `deduplicate`
    /// columns, the first (OPTIMIZE ... DEDUPLICATE).
    pub fn merge_deduplicating(
        &self,
        sources: &[Arc<DataPart>],
        deduplicate: Option<&[usize]>,
    ) -> Result<bool> {
        assert!(!sources.is_empty(), "a merge takes at least one part");
        let first = &sources[0].part.name;
        assert!(
            sources
                .iter()
                .all(|p| p.part.name.partition_id == first.partition_id),
            "a merge stays within a partition"
        );
        let name = PartName {
            partition_id: first.partition_id.clone(),
            min_block: sources
                .iter()
                .map(|p| p.part.name.min_block)
                .min()
                .unwrap_or(0),
            max_block: sources
                .iter()
                .map(|p| p.part.name.max_block)
                .max()
                .unwrap_or(0),
            level: sources.iter().map(|p| p.part.name.level).max().unwrap_or(0) + 1,
            mutation: merged_mutation(sources),
        };
        let generation = self.generation(&sources[0]);
        if sources.iter().any(|p| self.generation(p) != generation) {
            // A mutation is pending for some of them only.
            return Ok(false);
        }
        let Some(running) = self.start_merge(sources, &name, false) else {
            return Ok(false);
        };
        let progress = &running.progress;
        // The sources' rows, then their concatenation, are held in memory;
        // a merge the budget cannot hold fails and leaves its sources.
        let pool = (self.memory)(&format!("merge {name}"));
        let reservation = MemoryConsumer::new("MergeTree merge").register(&pool);
        let mut batches = Vec::with_capacity(sources.len());
        for source in sources {
            // A closed table waits for this merge: give up early.
            self.check_open()?;
            let batch = self.read_all(source)?;
            reservation.try_grow(batch.get_array_memory_size())?;
            let counted = [Event::MergedRows, Event::MergedUncompressedBytes];
            count_rewritten(&batch, counted, progress, &reservation);
            batches.push(batch);
        }
        let concatenated: usize = batches.iter().map(|b| b.get_array_memory_size()).sum();
        reservation.try_grow(concatenated)?;
        progress
            .memory_usage
            .store(reservation.size() as u64, Ordering::Relaxed);
        let mut rows = concat_batches(&self.schema, &batches)?;
        drop(batches);
        if let Some(columns) = deduplicate {
            rows = super::merge_mode::first_of_equal_rows(&rows, columns)?;
        }
        reservation.shrink(concatenated);
        progress
            .memory_usage
            .store(reservation.size() as u64, Ordering::Relaxed);
        let disk = self.merge_target(sources);
        let merged = self.write_rows(&name, &rows, &sources[0].partition, disk)?;
        progress
            .rows_written
            .store(rows.num_rows() as u64, Ordering::Relaxed);
        Ok(self.swap_parts(sources, merged, PartEventType::MergeParts, progress.started))
    }

    /// Swaps `replacement` in for `sources` (or just takes them out), unless
    /// the table was closed or one of them left the active set meanwhile:
    /// then the replacement is discarded and this returns `false`. The part
    /// log has the replacement as `made` (begun at `started`) and, but for a
    /// move, each source as removed.
    fn swap_parts(
        &self,
        sources: &[Arc<DataPart>],
        replacement: Option<Arc<DataPart>>,
        made: PartEventType,
        started: Instant,
    ) -> bool {
        let guard = self.commit.lock();
        let current = self.snapshot();
        let still_active = !self.closed.load(Ordering::Acquire)
            && sources
                .iter()
                .all(|s| current.iter().any(|p| Arc::ptr_eq(p, s)));
        if !still_active {
            if let Some(replacement) = replacement {
                replacement.retire();
            }
            return false;
        }
        let mut next: Vec<Arc<DataPart>> = current
            .iter()
            .filter(|p| !sources.iter().any(|s| Arc::ptr_eq(p, s)))
            .cloned()
            .collect();
        next.extend(replacement.clone());
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
        for source in sources {
            source.retire();
        }
        drop(guard);
        if let Some(part) = &replacement {
            self.log_part(PartEvent::of(made, part, started, sources));
        }
        if made != PartEventType::MovePart {
            self.log_removed(sources);
        }
        true
    }

    fn log_part(&self, event: PartEvent) {
        if let Some(log) = &self.part_log {
            log(event);
        }
    }

    /// Logs `parts` as removed from the active set.
    fn log_removed(&self, parts: &[Arc<DataPart>]) {
        for part in parts {
            let event = PartEvent::of(PartEventType::RemovePart, part, Instant::now(), &[]);
            self.log_part(event);
        }
    }

    /// Every row of `part` in the table's current columns, those a
    /// lightweight DELETE masked left out.
    pub fn read_all(&self, part: &DataPart) -> Result<RecordBatch> {
        self.read_renamed(part, 0..part.granules(), &HashMap::new())
    }

    /// The rows of `granules` of `part` with only `columns` read and the
    /// others NULL (in the table's schema made nullable): enough to evaluate
    /// conditions that read only `columns`. With `with_masked`, the rows a
    /// lightweight DELETE masked are kept, in the part's order.
    fn read_for_conditions(
        &self,
        part: &DataPart,
        granules: Range<usize>,
        columns: &[usize],
        with_masked: bool,
    ) -> Result<RecordBatch> {
        let rows = part.part.granules[granules.clone()].iter().sum::<u64>() as usize;
        let mut fields = Vec::with_capacity(self.schema.fields().len());
        let mut arrays = Vec::with_capacity(fields.capacity());
        for (index, field) in self.schema.fields().iter().enumerate() {
            fields.push(field.as_ref().clone().with_nullable(true));
            arrays.push(match columns.contains(&index) {
                true => part.read_column(field, granules.clone(), &self.past, None)?,
                false => new_null_array(field.data_type(), rows),
            });
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?;
        match (with_masked, part.row_exists(granules)?) {
            (false, Some(exists)) => Ok(filter_record_batch(&batch, &exists)?),
            _ => Ok(batch),
        }
    }

    /// The rows of `granules` of `part` as [`Self::read_all`] reads them,
    /// reading a column the part lacks from the old name `renamed_from`
    /// gives for it.
    fn read_renamed(
        &self,
        part: &DataPart,
        granules: Range<usize>,
        renamed_from: &HashMap<String, String>,
    ) -> Result<RecordBatch> {
        let rows = self.read_columns(part, granules.clone(), renamed_from)?;
        match part.row_exists(granules)? {
            Some(exists) => Ok(filter_record_batch(&rows, &exists)?),
            None => Ok(rows),
        }
    }

    fn read_columns(
        &self,
        part: &DataPart,
        granules: Range<usize>,
        renamed_from: &HashMap<String, String>,
    ) -> Result<RecordBatch> {
        let columns = self
            .schema
            .fields()
            .iter()
            .map(|field| {
                let stored = match renamed_from.get(field.name()) {
                    Some(old) if part.part.column(field.name()).is_none() => {
                        field.as_ref().clone().with_name(old)
                    }
                    _ => field.as_ref().clone(),
                };
                part.read_column(&stored, granules.clone(), &self.past, None)
            })
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new(Arc::clone(&self.schema), columns).map_err(|e| {
            StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                format!("Part {}: {e}", part.name()),
            )
        })
    }

    /// The disk a merge of `sources` writes to: the one furthest down the
    /// policy among theirs, so a merge never brings data back from a
    /// colder volume.
    fn merge_target<'a>(&self, sources: &'a [Arc<DataPart>]) -> Option<&'a Arc<Disk>> {
        let policy = &self.settings.policy;
        let rank = |disk: Option<&Arc<Disk>>| {
            let name = disk.map_or(DEFAULT_DISK, |d| d.name.as_str());
            policy.disks().position(|d| d.name == name).unwrap_or(0)
        };
        sources
            .iter()
            .map(|source| source.part.disk.as_ref())
            .max_by_key(|&disk| rank(disk))
            .flatten()
    }

    /// Removes the table's directory (DROP TABLE).
    pub fn remove_files(&self) -> Result<()> {
        let _guard = self.commit.lock();
        *self.active.write() = Arc::new(Vec::new());
        if self.dir.exists() {
            fs::remove_dir_all(&self.dir).map_err(|e| io_error(&self.dir, e))?;
        }
        for disk in self.settings.policy.disks() {
            if let Some(objects) = disk.object_store() {
                objects.remove_table(&self.dir)?;
            }
        }
        Ok(())
    }
}

/// The background merge selector: among runs of adjacent parts of one
/// partition that no running merge holds, the longest, once it has at
/// least `parts_to_merge` parts; in it, the window of up to
/// `max_parts_to_merge_at_once` parts with the fewest bytes. Small fresh
/// parts are merged first and big merged parts rarely touched again, so
/// each row is rewritten about log(parts) times. A part held by a running
/// merge splits its partition's runs: a window spanning it would produce
/// a part whose block range overlaps that merge's result; so do two
/// neighbours that are not `mergeable` (of another mutation generation, or
/// with an insert in flight between them).
pub fn select_merge(
    by_partition: &BTreeMap<String, Vec<Arc<DataPart>>>,
    merging: &HashSet<String>,
    mergeable: &dyn Fn(&DataPart, &DataPart) -> bool,
    settings: &MergeTreeSettings,
) -> Option<Vec<Arc<DataPart>>> {
    let parts = by_partition
        .values()
        .flat_map(|parts| parts.split(|p| merging.contains(&p.name())))
        .flat_map(|run| run.chunk_by(|a, b| mergeable(a, b)))
        .filter(|run| run.len() >= settings.parts_to_merge.max(2))
        .max_by_key(|run| run.len())?;
    let width = parts.len().min(settings.max_parts_to_merge_at_once.max(2));
    let bytes: Vec<u64> = parts.iter().map(|p| p.part.bytes_on_disk()).collect();
    let start = (0..=parts.len() - width)
        .min_by_key(|&start| bytes[start..start + width].iter().sum::<u64>())?;
    Some(parts[start..start + width].to_vec())
}

/// A merged part's mutation: none while no source has one (its first block
/// then stands for its data version), else its sources' highest data
/// version, so it claims no mutation a source lacked.
fn merged_mutation(sources: &[Arc<DataPart>]) -> u64 {
    if sources.iter().all(|p| p.part.name.mutation == 0) {
        return 0;
    }
    sources
        .iter()
        .map(|p| p.part.name.data_version())
        .max()
        .unwrap_or(0)
}

/// Counts `rows`, read to be written again by a merge or a mutation, in
/// the `counted` events (rows, then bytes) and in the progress.
fn count_rewritten(
    rows: &RecordBatch,
    counted: [Event; 2],
    progress: &MergeProgress,
    reservation: &MemoryReservation,
) {
    events::add(counted[0], rows.num_rows() as u64);
    events::add(counted[1], rows.get_array_memory_size() as u64);
    progress
        .rows_read
        .fetch_add(rows.num_rows() as u64, Ordering::Relaxed);
    progress
        .memory_usage
        .store(reservation.size() as u64, Ordering::Relaxed);
}

#[cfg(test)]
mod tests;
