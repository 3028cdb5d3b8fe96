//! Opens a written part and reads its columns granule by granule.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use datafusion::arrow::array::{ArrayRef, make_array};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::{DataType, Field};
use parking_lot::Mutex;
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Event};
use strata_common::types::parse_clickhouse_type;
use twox_hash::XxHash64;

use super::bounds::{self, BOUNDS_SUFFIX, GranuleBounds};
use super::flat_column::FlatColumn;
use super::name::PartName;
use super::patch::{PATCHES_FILE, Patches};
use super::writer::ColumnSizes;
use super::{
    CHECKSUMS_FILE, COLUMNS_FILE, COUNT_FILE, DATA_SUFFIX, MARK_BYTES, MARKS_SUFFIX,
    PARTITION_FILE, PRIMARY_INDEX_FILE, UNCOMPRESSED_SIZES_FILE, array_bytes, escape_file_name,
    minmax_file, unescape_line,
};
use crate::cache::{BlockKey, CacheRead, Cached, ColumnKey};
use crate::compression::{read_block, read_block_into, uncompressed_bytes};
use crate::disk::file_cache::CacheUse;
use crate::disk::object_ref::ObjectRef;
use crate::disk::{DEFAULT_DISK, DISK_FILE, Disk, ObjectDisk, StoragePolicy};

/// A granule's place in a column's data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub offset: u64,
    pub rows: u64,
}

/// The id the next opened part gets.
static NEXT_PART_ID: AtomicU64 = AtomicU64::new(1);

/// A part on disk, with the metadata every read needs.
#[derive(Debug)]
pub struct Part {
    /// Unique in the process: the data cache's key for the part's blocks,
    /// so a part opened again (replaced, patched) never meets old blocks.
    pub id: u64,
    pub name: PartName,
    pub dir: PathBuf,
    /// The disk holding the column data, when it is not the directory
    /// itself (the default disk).
    pub disk: Option<Arc<Disk>>,
    /// The files kept as objects on `disk`, by file name.
    object_refs: BTreeMap<String, ObjectRef>,
    pub rows: u64,
    /// The columns the part was written with, in order.
    pub columns: Vec<Field>,
    /// Size and xxHash64 of every file but `checksums.txt`, by file name.
    pub files: BTreeMap<String, (u64, u64)>,
    /// Rows of each granule.
    pub granules: Vec<u64>,
    /// New values of some rows, applied by every read of the part's rows.
    pub patches: Patches,
    /// Marks read so far, by column: every read of a column needs them.
    marks: Mutex<HashMap<String, Arc<Vec<Mark>>>>,
    /// Granule bounds read so far, by column (`None`: the part has none).
    bounds: Mutex<HashMap<String, Option<Arc<GranuleBounds>>>>,
}

impl Part {
    /// Opens the part in `dir`: its name, columns and row count, and checks
    /// that every file it lists is there with the size it lists. A part on
    /// a disk other than the default one must be on a disk of `policy`.
    pub fn open(dir: &Path, policy: Option<&StoragePolicy>) -> Result<Part> {
        let file_name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| corrupted(dir, "the part directory has no name"))?;
        let name = PartName::parse(file_name)?;
        let disk = part_disk(dir, policy)?;
        let listing = read_text(dir, CHECKSUMS_FILE)?;
        let mut object_refs = BTreeMap::new();
        let mut files = BTreeMap::new();
        for line in listing.lines() {
            let mut fields = line.split('\t');
            let (Some(file), Some(bytes), Some(hash), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(corrupted(dir, &format!("bad checksums line {line:?}")));
            };
            let bytes: u64 = bytes
                .parse()
                .map_err(|_| corrupted(dir, &format!("bad size in {line:?}")))?;
            let hash = u64::from_str_radix(hash, 16)
                .map_err(|_| corrupted(dir, &format!("bad checksum in {line:?}")))?;
            let actual = fs::metadata(dir.join(file)).map_err(|_| {
                StrataError::new(
                    ErrorCode::NO_FILE_IN_DATA_PART,
                    format!("No file {file} in data part {}", dir.display()),
                )
            })?;
            let actual = if disk.is_some() && file.ends_with(DATA_SUFFIX) {
                let reference = ObjectRef::read(&dir.join(file))?;
                let size = reference.size;
                object_refs.insert(file.to_string(), reference);
                size
            } else {
                actual.len()
            };
            if actual != bytes {
                return Err(corrupted(
                    dir,
                    &format!("{file} has {actual} bytes, {bytes} expected"),
                ));
            }
            files.insert(file.to_string(), (bytes, hash));
        }
        let rows: u64 = read_text_verified(dir, &files, COUNT_FILE)?
            .trim()
            .parse()
            .map_err(|_| corrupted(dir, "count.txt is not a number"))?;
        let mut columns = Vec::new();
        for line in read_text_verified(dir, &files, COLUMNS_FILE)?.lines() {
            let Some((column, type_name)) = line.split_once('\t') else {
                return Err(corrupted(dir, &format!("bad columns line {line:?}")));
            };
            let parsed = parse_clickhouse_type(type_name)?;
            columns.push(parsed.field(unescape_line(column)));
        }
        let mut part = Part {
            id: NEXT_PART_ID.fetch_add(1, Ordering::Relaxed),
            name,
            dir: dir.to_path_buf(),
            disk,
            object_refs,
            rows,
            columns,
            files,
            granules: Vec::new(),
            patches: Patches::default(),
            marks: Mutex::new(HashMap::new()),
            bounds: Mutex::new(HashMap::new()),
        };
        if let Some(first) = part.columns.first() {
            part.granules = part.marks(first.name())?.iter().map(|m| m.rows).collect();
        }
        if part.granules.iter().sum::<u64>() != rows {
            return Err(corrupted(dir, "the granules do not add up to count.txt"));
        }
        if part.files.contains_key(PATCHES_FILE) {
            part.patches = Patches::decode(&part.read_file(PATCHES_FILE)?)
                .map_err(|e| at_place(e, &dir.join(PATCHES_FILE), 0))?;
            let beyond = |c: &super::patch::ColumnPatch| c.rows.values().last() >= Some(&rows);
            if part.patches.columns().iter().any(beyond) {
                return Err(corrupted(dir, "patches.bin names rows past the part's end"));
            }
        }
        Ok(part)
    }

    /// Bytes of all the part's files.
    pub fn bytes_on_disk(&self) -> u64 {
        let listing = fs::metadata(self.dir.join(CHECKSUMS_FILE)).map_or(0, |m| m.len());
        self.files.values().map(|(bytes, _)| bytes).sum::<u64>() + listing
    }

    /// Bytes of `column`'s data file as stored; 0 for a column the part lacks.
    pub fn column_data_bytes(&self, column: &str) -> u64 {
        let file_name = format!("{}{DATA_SUFFIX}", escape_file_name(column));
        self.files.get(&file_name).map_or(0, |(bytes, _)| *bytes)
    }

    /// The offset of granule `granule`'s first row in the part.
    pub fn first_row(&self, granule: usize) -> u64 {
        self.granules[..granule].iter().sum()
    }

    pub fn column(&self, name: &str) -> Option<&Field> {
        self.columns.iter().find(|f| f.name() == name)
    }

    /// The marks of `column`, one per granule, read once per part.
    pub fn marks(&self, column: &str) -> Result<Arc<Vec<Mark>>> {
        if let Some(marks) = self.marks.lock().get(column) {
            return Ok(Arc::clone(marks));
        }
        let marks = self.read_marks(column)?;
        self.marks
            .lock()
            .insert(column.to_string(), Arc::clone(&marks));
        Ok(marks)
    }

    /// The marks of `column`: those read when the part opened, else from
    /// the data cache, else the marks file (then kept in the cache).
    fn cached_marks(
        &self,
        column: &str,
        index: usize,
        cache: &CacheRead,
    ) -> Result<Arc<Vec<Mark>>> {
        if let Some(marks) = self.marks.lock().get(column) {
            return Ok(Arc::clone(marks));
        }
        let key = ColumnKey {
            part: self.id,
            column: index as u32,
        };
        cache.cache.marks(key, || self.read_marks(column))
    }

    /// The granule bounds of `column` as written, read once per part;
    /// `None` where the part has none (a type without bounds, a part written
    /// before bounds were). Bounds hold the column's values as written:
    /// patched values are not in them.
    pub fn granule_bounds(&self, column: &str) -> Result<Option<Arc<GranuleBounds>>> {
        if let Some(bounds) = self.bounds.lock().get(column) {
            return Ok(bounds.clone());
        }
        let file = format!("{}{BOUNDS_SUFFIX}", escape_file_name(column));
        let read = match self.column(column) {
            Some(field) if self.files.contains_key(&file) => {
                let bytes = self.read_file(&file)?;
                let decoded = bounds::decode(field.data_type(), &bytes, self.granules.len())
                    .map_err(|e| at_place(e, &self.dir.join(&file), 0))?;
                Some(Arc::new(decoded))
            }
            _ => None,
        };
        self.bounds.lock().insert(column.to_string(), read.clone());
        Ok(read)
    }

    fn read_marks(&self, column: &str) -> Result<Arc<Vec<Mark>>> {
        let bytes = self.read_file(&format!("{}{MARKS_SUFFIX}", escape_file_name(column)))?;
        if bytes.len() % MARK_BYTES != 0 {
            return Err(corrupted(
                &self.dir,
                &format!("marks of {column} are cut short"),
            ));
        }
        let marks: Arc<Vec<Mark>> = Arc::new(
            bytes
                .chunks_exact(MARK_BYTES)
                .map(|mark| Mark {
                    offset: u64::from_le_bytes(mark[..8].try_into().expect("8 bytes")),
                    rows: u64::from_le_bytes(mark[8..].try_into().expect("8 bytes")),
                })
                .collect(),
        );
        Ok(marks)
    }

    /// Rows of granules `granules` of `column`, as one array.
    pub fn read_column(&self, column: &str, granules: Range<usize>) -> Result<ArrayRef> {
        self.read_column_through(column, granules, None)
    }

    /// Rows of granules `granules` of `column`, as one array, taking what
    /// `cache` has and reading the rest, a run of missing granules per read.
    pub fn read_column_through(
        &self,
        column: &str,
        granules: Range<usize>,
        cache: Option<&CacheRead>,
    ) -> Result<ArrayRef> {
        let Some(index) = self.columns.iter().position(|f| f.name() == column) else {
            return Err(StrataError::new(
                ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                format!("There is no column {column} in part {}", self.name),
            ));
        };
        let field = &self.columns[index];
        let marks = match cache {
            Some(cache) => self.cached_marks(column, index, cache)?,
            None => self.marks(column)?,
        };
        if granules.end > marks.len() {
            return Err(corrupted(
                &self.dir,
                &format!(
                    "{column} has {} marks, granule {} asked for",
                    marks.len(),
                    granules.end
                ),
            ));
        }
        if granules.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(field.data_type()));
        }
        let key = |granule: usize| BlockKey {
            column: ColumnKey {
                part: self.id,
                column: index as u32,
            },
            granule: granule as u32,
        };
        if !cache.is_some_and(|cache| cache.hot) {
            return self.read_flat_or_each(field, &marks, granules, cache, key);
        }
        let mut arrays: Vec<Option<ArrayRef>> = vec![None; granules.len()];
        if let Some(cache) = cache {
            for (slot, granule) in arrays.iter_mut().zip(granules.clone()) {
                *slot = match cache.lookup(key(granule)) {
                    Cached::Decoded(array) => Some(array),
                    Cached::Compressed(block) => {
                        let offset = marks[granule].offset;
                        let array = self.decode_granule(field, &marks, granule, &block, offset)?;
                        cache.keep_warm_hit(key(granule), &array, block);
                        Some(array)
                    }
                    Cached::Missing => None,
                };
            }
        }
        for run in missing_runs(&arrays, granules.start) {
            let using = cache.map_or(CacheUse::IfExists, |cache| cache.files);
            let blocks = self.read_blocks(field, &marks, run.clone(), using)?;
            for (granule, block) in run.zip(blocks) {
                let offset = marks[granule].offset;
                let array = self.decode_granule(field, &marks, granule, &block, offset)?;
                if let Some(cache) = cache {
                    cache.keep(key(granule), &array, block);
                }
                arrays[granule - granules.start] = Some(array);
            }
        }
        single(
            arrays
                .into_iter()
                .map(|a| a.expect("every granule read"))
                .collect(),
        )
    }

    /// Granules `granules` of `field` for a scan that keeps no decoded
    /// arrays: their compressed blocks, from the warm tier or the file, then
    /// decoded into one array ([`FlatColumn`]) where the type is flat, else
    /// one array per granule, concatenated.
    fn read_flat_or_each(
        &self,
        field: &Field,
        marks: &[Mark],
        granules: Range<usize>,
        cache: Option<&CacheRead>,
        key: impl Fn(usize) -> BlockKey,
    ) -> Result<ArrayRef> {
        let mut blocks: Vec<Option<Bytes>> = granules
            .clone()
            .map(
                |granule| match cache.map(|cache| cache.lookup(key(granule))) {
                    Some(Cached::Compressed(block)) => Some(block),
                    _ => None,
                },
            )
            .collect();
        for run in missing_runs(&blocks, granules.start) {
            let using = cache.map_or(CacheUse::IfExists, |cache| cache.files);
            let read = self.read_blocks(field, marks, run.clone(), using)?;
            for (granule, block) in run.zip(read) {
                if let Some(cache) = cache {
                    cache.keep_compressed(key(granule), &block);
                }
                blocks[granule - granules.start] = Some(block);
            }
        }
        let blocks = blocks.into_iter().map(|b| b.expect("every granule read"));
        let rows: u64 = marks[granules.clone()].iter().map(|m| m.rows).sum();
        let bytes = blocks
            .clone()
            .map(|block| uncompressed_bytes(&block))
            .sum::<Result<usize>>()?;
        let Some(mut flat) = FlatColumn::new(field.data_type(), rows as usize, bytes) else {
            let arrays = granules
                .zip(blocks)
                .map(|(granule, block)| {
                    self.decode_granule(field, marks, granule, &block, marks[granule].offset)
                })
                .collect::<Result<Vec<_>>>()?;
            return single(arrays);
        };
        let mut scratch = Vec::new();
        for (granule, block) in granules.zip(blocks) {
            let decompressed =
                self.decompress(field, &block, marks[granule].offset, &mut scratch)?;
            let appended = flat.append(decompressed)?;
            self.check_granule_rows(field, marks, granule, appended)?;
        }
        flat.finish()
    }

    /// The compressed blocks of granules `granules` of column `field`, read
    /// from its file in one range (through a filesystem cache as `using`
    /// says).
    fn read_blocks(
        &self,
        field: &Field,
        marks: &[Mark],
        granules: Range<usize>,
        using: CacheUse,
    ) -> Result<Vec<Bytes>> {
        let file_name = format!("{}{DATA_SUFFIX}", escape_file_name(field.name()));
        let file_size = self.column_data_bytes(field.name());
        let start = marks[granules.start].offset;
        let end = marks.get(granules.end).map_or(file_size, |m| m.offset);
        let bytes = self.read_range_using(&file_name, start..end, using)?;
        let mut blocks = Vec::with_capacity(granules.len());
        let mut offset = 0;
        for granule in granules {
            let next = marks.get(granule + 1).map_or(bytes.len(), |mark| {
                mark.offset.saturating_sub(start) as usize
            });
            if next < offset || next > bytes.len() {
                return Err(corrupted(
                    &self.dir,
                    &format!("the marks of {} are out of order", field.name()),
                ));
            }
            blocks.push(bytes.slice(offset..next));
            offset = next;
        }
        Ok(blocks)
    }

    /// The uncompressed bytes of `block`, a granule of `field` starting at
    /// `offset` of its file, in the first bytes of `scratch`; the block
    /// must be the whole granule.
    fn decompress<'a>(
        &self,
        field: &Field,
        block: &[u8],
        offset: u64,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8]> {
        let path = || {
            self.dir
                .join(format!("{}{DATA_SUFFIX}", escape_file_name(field.name())))
        };
        let (size, used) =
            read_block_into(block, scratch).map_err(|e| at_place(e, &path(), offset))?;
        if used != block.len() {
            return Err(corrupted(
                &self.dir,
                &format!("a granule of {} does not end at its mark", field.name()),
            ));
        }
        Ok(&scratch[..size])
    }

    fn check_granule_rows(
        &self,
        field: &Field,
        marks: &[Mark],
        granule: usize,
        rows: usize,
    ) -> Result<()> {
        if rows as u64 != marks[granule].rows {
            return Err(corrupted(
                &self.dir,
                &format!("a granule of {} has the wrong row count", field.name()),
            ));
        }
        Ok(())
    }

    /// Granule `granule` of `field` decoded from its compressed `block`,
    /// which starts at `offset` of the column's file.
    fn decode_granule(
        &self,
        field: &Field,
        marks: &[Mark],
        granule: usize,
        block: &[u8],
        offset: u64,
    ) -> Result<ArrayRef> {
        let mut decompressed = Vec::new();
        let size = self
            .decompress(field, block, offset, &mut decompressed)?
            .len();
        decompressed.truncate(size);
        let array = make_array(array_bytes::decode(
            field.data_type(),
            &Buffer::from(decompressed),
            &mut 0,
        )?);
        self.check_granule_rows(field, marks, granule, array.len())?;
        Ok(array)
    }

    /// Bytes `range` of the part's file `name`, from its directory or its
    /// disk; a filesystem cache is read where it has them, not filled (for
    /// merges, mutations and checks, which read each byte once).
    pub(crate) fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>> {
        Ok(self
            .read_range_using(name, range, CacheUse::IfExists)?
            .to_vec())
    }

    fn read_range_using(&self, name: &str, range: Range<u64>, using: CacheUse) -> Result<Bytes> {
        if let Some(reference) = self.object_refs.get(name) {
            let store = self
                .objects()
                .expect("a part with objects is on an object disk");
            return store.read_range_using(&reference.key, reference.size, range, using);
        }
        let path = self.dir.join(name);
        let len = range.end.saturating_sub(range.start);
        // Read into spare capacity: zeroing bytes about to be read costs a
        // pass over them.
        let mut bytes = Vec::with_capacity(len as usize);
        let mut file = File::open(&path).map_err(|e| read_error(&path, e))?;
        events::add(Event::FileOpen, 1);
        file.seek(SeekFrom::Start(range.start))
            .and_then(|_| (&mut file).take(len).read_to_end(&mut bytes))
            .and_then(|read| match read as u64 == len {
                true => Ok(()),
                false => Err(std::io::ErrorKind::UnexpectedEof.into()),
            })
            .map_err(|e| read_error(&path, e))?;
        events::add(
            Event::ReadBufferFromFileDescriptorReadBytes,
            bytes.len() as u64,
        );
        Ok(Bytes::from(bytes))
    }

    /// The store of the part's column data, unless it is in the directory.
    pub fn objects(&self) -> Option<&ObjectDisk> {
        self.disk
            .as_ref()
            .and_then(|disk| disk.object_store())
            .map(AsRef::as_ref)
    }

    /// The name `system.parts.disk_name` shows.
    pub fn disk_name(&self) -> &str {
        self.disk.as_ref().map_or(DEFAULT_DISK, |disk| &disk.name)
    }

    /// The primary key's values at the first row of each granule and at the
    /// last row, one array per key column of types `key_types`.
    pub fn primary_index(&self, key_types: &[DataType]) -> Result<Vec<ArrayRef>> {
        let bytes = self.read_file(PRIMARY_INDEX_FILE)?;
        let path = self.dir.join(PRIMARY_INDEX_FILE);
        let mut rest = bytes.as_slice();
        key_types
            .iter()
            .map(|data_type| {
                let offset = (bytes.len() - rest.len()) as u64;
                let (block, used) = read_block(rest).map_err(|e| at_place(e, &path, offset))?;
                rest = &rest[used..];
                Ok(make_array(array_bytes::decode(
                    data_type,
                    &Buffer::from(block),
                    &mut 0,
                )?))
            })
            .collect()
    }

    /// Each column's sizes: data bytes before and after compression, and
    /// its data and marks files on disk.
    pub fn column_sizes(&self) -> Result<Vec<(String, ColumnSizes)>> {
        let uncompressed = self.uncompressed_sizes()?;
        let file_bytes = |name: String| self.files.get(&name).map_or(0, |(bytes, _)| *bytes);
        Ok(self
            .columns
            .iter()
            .map(|field| {
                let file = escape_file_name(field.name());
                let compressed = file_bytes(format!("{file}{DATA_SUFFIX}"));
                let marks = file_bytes(format!("{file}{MARKS_SUFFIX}"));
                let sizes = ColumnSizes {
                    compressed,
                    uncompressed: uncompressed.get(field.name()).copied().unwrap_or(0),
                    on_disk: compressed + marks,
                };
                (field.name().clone(), sizes)
            })
            .collect())
    }

    /// Each column's data bytes before compression, by column name.
    pub fn uncompressed_sizes(&self) -> Result<BTreeMap<String, u64>> {
        let listing = read_text_verified(&self.dir, &self.files, UNCOMPRESSED_SIZES_FILE)?;
        let mut uncompressed = BTreeMap::new();
        for line in listing.lines() {
            let (column, bytes) = line
                .split_once('\t')
                .and_then(|(c, b)| Some((unescape_line(c), b.parse::<u64>().ok()?)))
                .ok_or_else(|| corrupted(&self.dir, &format!("bad size line {line:?}")))?;
            uncompressed.insert(column, bytes);
        }
        Ok(uncompressed)
    }

    /// The partition's value as text.
    pub fn partition(&self) -> Result<String> {
        read_text_verified(&self.dir, &self.files, PARTITION_FILE)
    }

    /// The least and greatest value of `column`, a column the partition key
    /// reads, as a two-row array; `None` if the part keeps no such index.
    pub fn minmax(&self, column: &str) -> Result<Option<ArrayRef>> {
        let file = minmax_file(column);
        if !self.files.contains_key(&file) {
            return Ok(None);
        }
        let field = self.column(column).ok_or_else(|| {
            corrupted(&self.dir, &format!("{file} names a column the part lacks"))
        })?;
        let bytes = self.read_file(&file)?;
        let array = make_array(array_bytes::decode(
            field.data_type(),
            &Buffer::from(bytes),
            &mut 0,
        )?);
        if array.len() != 2 {
            return Err(corrupted(
                &self.dir,
                &format!("{file} is not a min and a max"),
            ));
        }
        Ok(Some(array))
    }

    /// Reads every file and compares its size and checksum (CHECK TABLE).
    pub fn verify_checksums(&self) -> Result<()> {
        for file in self.files.keys() {
            self.read_file(file)?;
        }
        Ok(())
    }

    /// A whole file, checked against the size and checksum the part lists.
    pub(crate) fn read_file(&self, name: &str) -> Result<Vec<u8>> {
        let Some(reference) = self.object_refs.get(name) else {
            return read_verified(&self.dir, &self.files, name);
        };
        let bytes = self.read_range(name, 0..reference.size)?;
        check_sum(&self.dir, &self.files, name, &bytes)?;
        Ok(bytes)
    }
}

/// The disk a part's `disk.txt` names, which must be one of `policy`'s;
/// `None` without the file, or for a disk that keeps no objects: the part's
/// data is in its directory.
pub(crate) fn part_disk(dir: &Path, policy: Option<&StoragePolicy>) -> Result<Option<Arc<Disk>>> {
    let path = dir.join(DISK_FILE);
    let name = match fs::read_to_string(&path) {
        Ok(text) => text.trim().to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_error(&path, e)),
    };
    let disk = policy
        .and_then(|policy| policy.disk(&name))
        .ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_DISK,
                format!(
                    "Part {} is on disk {name}, which the table's storage policy does not have",
                    dir.display()
                ),
            )
        })?;
    Ok(disk.object_store().is_some().then(|| Arc::clone(disk)))
}

/// Reads file `name` of the part in `dir` and, when `files` lists it,
/// checks its size and xxHash64, so no whole-file read returns torn bytes.
fn read_verified(dir: &Path, files: &BTreeMap<String, (u64, u64)>, name: &str) -> Result<Vec<u8>> {
    let path = dir.join(name);
    let bytes = fs::read(&path).map_err(|e| file_error(dir, name, e))?;
    count_whole_read(bytes.len());
    check_sum(dir, files, name, &bytes)?;
    Ok(bytes)
}

/// Fails unless `bytes` have the size and xxHash64 `files` lists for `name`.
fn check_sum(
    dir: &Path,
    files: &BTreeMap<String, (u64, u64)>,
    name: &str,
    bytes: &[u8],
) -> Result<()> {
    if let Some(&(size, hash)) = files.get(name) {
        let actual = XxHash64::oneshot(0, &bytes);
        if bytes.len() as u64 != size || actual != hash {
            return Err(StrataError::new(
                ErrorCode::CHECKSUM_DOESNT_MATCH,
                format!(
                    "Checksum doesn't match for file {name} in data part {}: expected {size} bytes with hash {hash:016x}, got {} bytes with hash {actual:016x}",
                    dir.display(),
                    bytes.len()
                ),
            ));
        }
    }
    Ok(())
}

fn read_text_verified(
    dir: &Path,
    files: &BTreeMap<String, (u64, u64)>,
    name: &str,
) -> Result<String> {
    let bytes = read_verified(dir, files, name)?;
    String::from_utf8(bytes).map_err(|_| corrupted(dir, &format!("{name} is not UTF-8 text")))
}

/// `error` with the file and offset of the block it came from.
fn at_place(error: StrataError, path: &Path, offset: u64) -> StrataError {
    StrataError::new(
        error.code,
        format!(
            "{} (while reading {} at offset {offset})",
            error.message,
            path.display()
        ),
    )
}

/// The runs of consecutive granules whose slot in `slots` (the first for
/// granule `first`) is empty, each to be read from the file at once.
fn missing_runs<T>(slots: &[Option<T>], first: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (index, slot) in slots.iter().enumerate() {
        if slot.is_some() {
            continue;
        }
        let granule = first + index;
        match runs.last_mut() {
            Some(run) if run.end == granule => run.end += 1,
            _ => runs.push(granule..granule + 1),
        }
    }
    runs
}

fn single(mut arrays: Vec<ArrayRef>) -> Result<ArrayRef> {
    if arrays.len() == 1 {
        return Ok(arrays.pop().expect("one array"));
    }
    let refs: Vec<&dyn datafusion::arrow::array::Array> = arrays.iter().map(Arc::as_ref).collect();
    concat(&refs).map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))
}

fn read_text(dir: &Path, name: &str) -> Result<String> {
    let text = fs::read_to_string(dir.join(name)).map_err(|e| file_error(dir, name, e))?;
    count_whole_read(text.len());
    Ok(text)
}

fn count_whole_read(bytes: usize) {
    events::add(Event::FileOpen, 1);
    events::add(Event::ReadBufferFromFileDescriptorReadBytes, bytes as u64);
}

fn file_error(dir: &Path, name: &str, error: std::io::Error) -> StrataError {
    if error.kind() == std::io::ErrorKind::NotFound {
        StrataError::new(
            ErrorCode::NO_FILE_IN_DATA_PART,
            format!("No file {name} in data part {}", dir.display()),
        )
    } else {
        read_error(&dir.join(name), error)
    }
}

fn read_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
        format!("Cannot read {}: {error}", path.display()),
    )
}

fn corrupted(dir: &Path, what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CORRUPTED_DATA,
        format!("Corrupted data part {}: {what}", dir.display()),
    )
}
