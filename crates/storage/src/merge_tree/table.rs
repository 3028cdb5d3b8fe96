//! A MergeTree table's data: its directory of parts, the set of active
//! parts that queries take snapshots of, block numbers for new parts, and
//! the writes that change the set (inserts, merges, TRUNCATE).
//!
//! The active set is an immutable list behind a lock; a change builds a new
//! list and swaps it in, so a query's snapshot never changes under it and a
//! replaced part's files stay until the last snapshot holding it is gone.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use parking_lot::{Mutex, RwLock};
use strata_common::error::{ErrorCode, Result, StrataError};

use super::data_part::DataPart;
use super::keys::TableKeys;
use crate::compression::Codec;
use crate::part::name::PartName;
use crate::part::writer::{PartLayout, io_error, write_part};
use crate::part::{DEFAULT_GRANULARITY, TEMPORARY_PREFIX};

/// Table-level settings from `SETTINGS` in `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeTreeSettings {
    /// Rows per granule: one primary index entry and one mark each.
    pub index_granularity: usize,
    /// A partition with at least this many active parts gets a background merge.
    pub parts_to_merge: usize,
    /// Most parts one merge takes.
    pub max_parts_to_merge_at_once: usize,
}

impl Default for MergeTreeSettings {
    fn default() -> Self {
        MergeTreeSettings {
            index_granularity: DEFAULT_GRANULARITY,
            parts_to_merge: 8,
            max_parts_to_merge_at_once: 16,
        }
    }
}

pub type Snapshot = Arc<Vec<Arc<DataPart>>>;

#[derive(Debug)]
pub struct MergeTreeTable {
    dir: PathBuf,
    schema: SchemaRef,
    keys: TableKeys,
    codecs: Vec<Codec>,
    settings: MergeTreeSettings,
    /// Active parts ordered by (partition id, min block).
    active: RwLock<Snapshot>,
    next_block: AtomicU64,
    /// Held while a change to the active set is computed and swapped in.
    commit: Mutex<()>,
}

impl MergeTreeTable {
    /// Opens the table stored in `dir`, creating the directory if needed.
    /// Unfinished parts (`tmp_*`) and parts a finished merge covers are removed.
    pub fn open(
        dir: &Path,
        schema: SchemaRef,
        keys: TableKeys,
        codecs: Vec<Codec>,
        settings: MergeTreeSettings,
    ) -> Result<MergeTreeTable> {
        assert_eq!(codecs.len(), schema.fields().len(), "one codec per column");
        assert!(
            settings.index_granularity > 0,
            "granules hold at least one row"
        );
        fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        let mut found: Vec<PathBuf> = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
            let entry = entry.map_err(|e| io_error(dir, e))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with(TEMPORARY_PREFIX) {
                fs::remove_dir_all(&path).map_err(|e| io_error(&path, e))?;
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
        // Widest range first, so a merged part is seen before the parts it covers.
        names.sort_by(|(a, _), (b, _)| {
            (&a.partition_id, a.min_block, std::cmp::Reverse(a.max_block)).cmp(&(
                &b.partition_id,
                b.min_block,
                std::cmp::Reverse(b.max_block),
            ))
        });
        let mut parts: Vec<Arc<DataPart>> = Vec::new();
        let mut next_block = 1;
        for (name, path) in names {
            next_block = next_block.max(name.max_block + 1);
            let covered = parts.last().is_some_and(|last| {
                last.part.name.partition_id == name.partition_id
                    && last.part.name.max_block >= name.max_block
            });
            if covered {
                fs::remove_dir_all(&path).map_err(|e| io_error(&path, e))?;
                continue;
            }
            parts.push(Arc::new(DataPart::open(&path, &schema, &keys)?));
        }
        Ok(MergeTreeTable {
            dir: dir.to_path_buf(),
            schema,
            keys,
            codecs,
            settings,
            active: RwLock::new(Arc::new(parts)),
            next_block: AtomicU64::new(next_block),
            commit: Mutex::new(()),
        })
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

    /// Writes `batch` as one new part per partition, each sorted by the
    /// sorting key. The parts are not visible until [`Self::commit`].
    pub fn write(&self, batch: &RecordBatch) -> Result<Vec<Arc<DataPart>>> {
        let mut written = Vec::new();
        if batch.num_rows() == 0 {
            return Ok(written);
        }
        for partition in self.keys.split_partitions(batch)? {
            let block = self.next_block.fetch_add(1, Ordering::Relaxed);
            let name = PartName::inserted(&partition.id, block);
            match self.write_sorted(&name, &partition.rows, &partition.value) {
                Ok(part) => written.push(part),
                Err(error) => {
                    self.discard(written);
                    return Err(error);
                }
            }
        }
        Ok(written)
    }

    fn write_sorted(
        &self,
        name: &PartName,
        rows: &RecordBatch,
        partition: &str,
    ) -> Result<Arc<DataPart>> {
        let (sorted, primary_key) = self.keys.sort(rows)?;
        let layout = PartLayout {
            codecs: &self.codecs,
            primary_key: &primary_key,
            granularity: self.settings.index_granularity,
            partition,
            minmax_columns: &self.keys.partition_columns,
        };
        write_part(&self.dir, name, &sorted, &layout)?;
        Ok(Arc::new(DataPart::open(
            &self.dir.join(name.to_string()),
            &self.schema,
            &self.keys,
        )?))
    }

    /// Makes written parts visible, all at once.
    pub fn commit(&self, parts: Vec<Arc<DataPart>>) {
        if parts.is_empty() {
            return;
        }
        let _guard = self.commit.lock();
        let mut next: Vec<Arc<DataPart>> = self.snapshot().as_ref().clone();
        next.extend(parts);
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
    }

    /// Removes written parts that will never be committed.
    pub fn discard(&self, parts: Vec<Arc<DataPart>>) {
        for part in parts {
            part.retire();
        }
    }

    /// Removes every part (TRUNCATE). Their directories are renamed away at
    /// once, so the table is empty even if the process stops now.
    pub fn truncate(&self) -> Result<()> {
        let _guard = self.commit.lock();
        let old = std::mem::replace(&mut *self.active.write(), Arc::new(Vec::new()));
        for part in old.iter() {
            let gone = self
                .dir
                .join(format!("{TEMPORARY_PREFIX}truncated_{}", part.name()));
            fs::rename(&part.part.dir, &gone).map_err(|e| io_error(&gone, e))?;
            fs::remove_dir_all(&gone).map_err(|e| io_error(&gone, e))?;
        }
        Ok(())
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

    /// Merges `sources`, adjacent active parts of one partition, into one
    /// part and swaps it in for them (one source is rewritten, for
    /// OPTIMIZE FINAL). Returns `None` if another change got to one of the
    /// sources first.
    pub fn merge(&self, sources: &[Arc<DataPart>]) -> Result<Option<Arc<DataPart>>> {
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
        };
        let mut batches = Vec::with_capacity(sources.len());
        for source in sources {
            batches.push(self.read_all(source)?);
        }
        let rows = concat_batches(&self.schema, &batches)?;
        drop(batches);
        let merged = self.write_sorted(&name, &rows, &sources[0].partition)?;
        let _guard = self.commit.lock();
        let current = self.snapshot();
        let still_active = sources
            .iter()
            .all(|s| current.iter().any(|p| Arc::ptr_eq(p, s)));
        if !still_active {
            merged.retire();
            return Ok(None);
        }
        let mut next: Vec<Arc<DataPart>> = current
            .iter()
            .filter(|p| !sources.iter().any(|s| Arc::ptr_eq(p, s)))
            .cloned()
            .collect();
        next.push(Arc::clone(&merged));
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
        for source in sources {
            source.retire();
        }
        Ok(Some(merged))
    }

    /// Every row of `part` in the table's current columns.
    pub fn read_all(&self, part: &DataPart) -> Result<RecordBatch> {
        let granules = 0..part.granules();
        let columns = self
            .schema
            .fields()
            .iter()
            .map(|field| {
                let column = part.part.read_column(field.name(), granules.clone())?;
                if column.data_type() == field.data_type() {
                    Ok(column)
                } else {
                    Ok(datafusion::arrow::compute::cast(
                        &column,
                        field.data_type(),
                    )?)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new(Arc::clone(&self.schema), columns).map_err(|e| {
            StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                format!("Part {}: {e}", part.name()),
            )
        })
    }

    /// Removes the table's directory (DROP TABLE).
    pub fn remove_files(&self) -> Result<()> {
        let _guard = self.commit.lock();
        *self.active.write() = Arc::new(Vec::new());
        if self.dir.exists() {
            fs::remove_dir_all(&self.dir).map_err(|e| io_error(&self.dir, e))?;
        }
        Ok(())
    }
}

/// The background merge selector: in the partition with the most active
/// parts, once it has at least `parts_to_merge`, the run of up to
/// `max_parts_to_merge_at_once` parts adjacent by block number with the
/// fewest bytes. Small fresh parts are merged first and big merged parts
/// rarely touched again, so each row is rewritten about log(parts) times.
pub fn select_merge(
    by_partition: &BTreeMap<String, Vec<Arc<DataPart>>>,
    settings: &MergeTreeSettings,
) -> Option<Vec<Arc<DataPart>>> {
    let (_, parts) = by_partition
        .iter()
        .filter(|(_, parts)| parts.len() >= settings.parts_to_merge.max(2))
        .max_by_key(|(_, parts)| parts.len())?;
    let width = parts.len().min(settings.max_parts_to_merge_at_once.max(2));
    let bytes: Vec<u64> = parts.iter().map(|p| p.part.bytes_on_disk()).collect();
    let start = (0..=parts.len() - width)
        .min_by_key(|&start| bytes[start..start + width].iter().sum::<u64>())?;
    Some(parts[start..start + width].to_vec())
}
