//! A part as a table holds it: the files' metadata plus what every query
//! needs from them in memory (the sparse primary index and the partition's
//! min/max bounds), and the rule that a replaced part's files go only when
//! the last query reading it lets go.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, UInt8Array, new_null_array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use parking_lot::Mutex;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::keys::TableKeys;
use super::skip_index::{PartIndex, SkipIndexKey};
use crate::cache::CacheRead;
use crate::disk::StoragePolicy;
use crate::part::patch::Patches;
use crate::part::reader::Part;
use crate::part::remove_part_directory;

/// A conversion of a column's stored values to its type now, as
/// ClickHouse's `CAST` converts them (the engine gives it; storage does not
/// know SQL's conversions).
pub type Conversion = Arc<dyn Fn(&ArrayRef, &Field) -> Result<ArrayRef> + Send + Sync>;

/// How parts written under an earlier definition of the table read a column.
#[derive(Clone, Default)]
pub struct PastColumns {
    /// Values for columns a part lacks because it was written before they
    /// were added (constant DEFAULTs); other columns get the type default.
    pub fills: HashMap<String, ScalarValue>,
    /// For columns a part holds in an earlier type (MODIFY COLUMN); Arrow's
    /// cast without it.
    pub convert: Option<Conversion>,
}

impl std::fmt::Debug for PastColumns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PastColumns")
            .field("fills", &self.fills)
            .field("convert", &self.convert.is_some())
            .finish()
    }
}

/// The column a lightweight DELETE patches in a part: 0 for a deleted row.
/// Not a table column; every reader of the part filters on it.
pub const ROW_EXISTS: &str = "_row_exists";

#[derive(Debug)]
pub struct DataPart {
    pub part: Part,
    /// The partition's value as `system.parts` shows it.
    pub partition: String,
    /// The primary key's values at each granule's first row and the last row.
    pub primary_index: Vec<ArrayRef>,
    /// Min and max of each partition-key column, in `TableKeys::partition_columns` order.
    pub minmax: Vec<Option<ArrayRef>>,
    pub modification_time: SystemTime,
    /// Set when a merge or TRUNCATE replaced the part: its directory is
    /// removed when the last reference goes.
    outdated: AtomicBool,
    /// Skipping indexes read so far, by signature (`None`: not usable).
    skip_indexes: Mutex<HashMap<String, Option<Arc<PartIndex>>>>,
}

impl DataPart {
    pub fn open(
        dir: &Path,
        schema: &Schema,
        keys: &TableKeys,
        policy: &StoragePolicy,
    ) -> Result<DataPart> {
        let part = Part::open(dir, Some(policy))?;
        let key_types: Vec<DataType> = keys.primary_types(schema)?;
        let primary_index = part.primary_index(&key_types)?;
        // One entry per granule and one for the last row; pruning relies on it.
        let expected = if part.rows == 0 {
            0
        } else {
            part.granules.len() + 1
        };
        if primary_index.iter().any(|key| key.len() != expected) {
            return Err(StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!(
                    "Corrupted data part {}: the primary index does not have {expected} rows",
                    dir.display()
                ),
            ));
        }
        let minmax = keys
            .partition_columns
            .iter()
            .map(|&column| part.minmax(schema.field(column).name()))
            .collect::<Result<_>>()?;
        let modification_time = fs::metadata(dir)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Ok(DataPart {
            partition: part.partition()?,
            part,
            primary_index,
            minmax,
            modification_time,
            outdated: AtomicBool::new(false),
            skip_indexes: Mutex::new(HashMap::new()),
        })
    }

    pub fn name(&self) -> String {
        self.part.name.to_string()
    }

    pub fn granules(&self) -> usize {
        self.part.granules.len()
    }

    /// Granules `granules` of the table column `field`, with the part's
    /// patch applied. A part written before the column was added has no
    /// data for it: it reads as its fill in `past`, or the type's default
    /// (NULL if Nullable); one written before the column's type changed
    /// reads converted. Scans read through the data cache; merges and
    /// mutations read past it (`cache` None), as they read each block once.
    pub fn read_column(
        &self,
        field: &Field,
        granules: Range<usize>,
        past: &PastColumns,
        cache: Option<&CacheRead>,
    ) -> Result<ArrayRef> {
        let first_row = self.part.first_row(granules.start);
        let stored = self.read_stored(field, granules, past, cache)?;
        self.part.patches.apply(field.name(), first_row, stored)
    }

    fn read_stored(
        &self,
        field: &Field,
        granules: Range<usize>,
        past: &PastColumns,
        cache: Option<&CacheRead>,
    ) -> Result<ArrayRef> {
        if self.part.column(field.name()).is_some() {
            let column = self
                .part
                .read_column_through(field.name(), granules, cache)?;
            if column.data_type() == field.data_type() {
                return Ok(column);
            }
            return match &past.convert {
                Some(convert) => convert(&column, field),
                None => Ok(cast(&column, field.data_type())?),
            };
        }
        let rows = self.part.granules[granules].iter().sum::<u64>() as usize;
        match past.fills.get(field.name()) {
            Some(value) => Ok(value.to_array_of_size(rows)?),
            None if field.is_nullable() => Ok(new_null_array(field.data_type(), rows)),
            None => Ok(strata_common::types::field_default_value(field)?.to_array_of_size(rows)?),
        }
    }

    /// The part's skipping index `index` (of a table of `schema`), read
    /// once; `None` where the part has none built for the index as declared
    /// now, or a patch changed a column the index reads since it was built.
    pub fn skip_index(&self, index: &SkipIndexKey, schema: &Schema) -> Option<Arc<PartIndex>> {
        let patched = index
            .columns()
            .iter()
            .any(|&c| self.part.patches.column(schema.field(c).name()).is_some());
        if patched {
            return None;
        }
        let key = index.signature(schema).ok()?;
        if let Some(read) = self.skip_indexes.lock().get(&key) {
            return read.clone();
        }
        let file = index.file_name();
        let read = if self.part.files.contains_key(&file) {
            let decoded = self
                .part
                .read_file(&file)
                .and_then(|bytes| index.decode(schema, &bytes, self.granules()));
            match decoded {
                Ok(read) => read.map(Arc::new),
                Err(error) => {
                    log::warn!("Index {} of part {}: {error}", index.name, self.name());
                    None
                }
            }
        } else {
            None
        };
        self.skip_indexes.lock().insert(key, read.clone());
        read
    }

    /// Whether a lightweight DELETE masked rows of the part.
    pub fn has_deleted_rows(&self) -> bool {
        self.part.patches.column(ROW_EXISTS).is_some()
    }

    /// Which rows of `granules` exist (`None`: all of them), from the
    /// `_row_exists` column of the part's patch.
    pub fn row_exists(&self, granules: Range<usize>) -> Result<Option<BooleanArray>> {
        if !self.has_deleted_rows() {
            return Ok(None);
        }
        let rows = self.part.granules[granules.clone()].iter().sum::<u64>() as usize;
        let all: ArrayRef = Arc::new(UInt8Array::from(vec![1u8; rows]));
        let first_row = self.part.first_row(granules.start);
        let mask = self.part.patches.apply(ROW_EXISTS, first_row, all)?;
        let Some(mask) = mask.as_any().downcast_ref::<UInt8Array>() else {
            return Err(StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!("Part {}: {ROW_EXISTS} is not UInt8", self.name()),
            ));
        };
        Ok(Some(
            mask.iter().map(|v| Some(v.unwrap_or(0) != 0)).collect(),
        ))
    }

    /// Marks the part replaced; its files go with the last reference.
    pub fn retire(&self) {
        self.outdated.store(true, Ordering::Release);
    }

    pub fn is_active(&self) -> bool {
        !self.outdated.load(Ordering::Acquire)
    }
}

/// Rows `patches` marks deleted.
pub fn deleted_rows(patches: &Patches) -> usize {
    patches.column(ROW_EXISTS).map_or(0, |c| {
        let values = c.values.as_any().downcast_ref::<UInt8Array>();
        values.map_or(0, |v| v.values().iter().filter(|&&e| e == 0).count())
    })
}

impl Drop for DataPart {
    fn drop(&mut self) {
        if self.outdated.load(Ordering::Acquire) {
            // A leftover is also found and removed when the table next opens.
            let _ = remove_part_directory(&self.part.dir, self.part.objects());
        }
    }
}
