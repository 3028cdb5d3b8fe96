//! Writes one part from rows already sorted by the table's sorting key.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::hash::Hasher;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch, UInt64Array};
use datafusion::arrow::compute::{cast, concat, take};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::Accumulator;
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Event};
use strata_common::types::{field_type_name, parse_clickhouse_type};
use twox_hash::XxHash64;

use super::bounds::{self, BOUNDS_SUFFIX, GranuleBounds};
use super::name::PartName;
use super::patch::{PATCHES_FILE, Patches};
use super::reader::{Mark, Part};
use super::{
    CHECKSUMS_FILE, COLUMNS_FILE, COUNT_FILE, DATA_SUFFIX, MARKS_SUFFIX, PARTITION_FILE,
    PRIMARY_INDEX_FILE, TEMPORARY_PREFIX, UNCOMPRESSED_SIZES_FILE, array_bytes, escape_file_name,
    escape_line, minmax_file,
};
use crate::compression::{Codec, CodecChain, check_blocks, write_block, write_chain_block};
use crate::disk::object_ref::ObjectRef;
use crate::disk::{DISK_FILE, Disk, ObjectDisk, ObjectWriter};

/// What a part's writer needs to know about the table.
pub struct PartLayout<'a> {
    /// Each column's codec, in the batch's column order.
    pub codecs: &'a [CodecChain],
    /// The primary key's values for every row of the batch, one array per
    /// key expression; the index keeps each granule's first row.
    pub primary_key: &'a [ArrayRef],
    /// Rows per granule.
    pub granularity: usize,
    /// The partition's value as `system.parts` shows it.
    pub partition: &'a str,
    /// Batch columns the partition key reads; the part keeps each one's
    /// minimum and maximum so filters on them can skip the whole part.
    pub minmax_columns: &'a [usize],
    /// Skipping index files, by name, built from the batch by the caller.
    pub index_files: &'a [(String, Vec<u8>)],
}

/// Rows of each granule of a part of `rows` rows.
pub fn granule_rows(rows: usize, granularity: usize) -> Vec<usize> {
    assert!(granularity > 0, "a granule has at least one row");
    (0..rows)
        .step_by(granularity)
        .map(|start| granularity.min(rows - start))
        .collect()
}

/// Sizes of one written column, for `system.parts_columns`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSizes {
    pub compressed: u64,
    pub uncompressed: u64,
    /// Data and marks files together.
    pub on_disk: u64,
}

/// Writes `batch` as part `name` under `table_dir` and returns the sizes of
/// each column. The part appears under its name only once it is complete
/// and synced.
pub fn write_part(
    table_dir: &Path,
    name: &PartName,
    batch: &RecordBatch,
    layout: &PartLayout,
    disk: Option<&Arc<Disk>>,
) -> Result<Vec<ColumnSizes>> {
    assert!(layout.granularity > 0, "a granule has at least one row");
    assert_eq!(
        layout.codecs.len(),
        batch.num_columns(),
        "one codec per column"
    );
    let batch = &canonical(batch)?;
    build_part_dir(table_dir, name, "insert", disk, |dir| {
        write_files(dir, batch, layout)
    })
}

/// Makes part `name` under `table_dir` of hard links to the files of
/// `source`: the same rows under a new name (a mutation that changes none
/// of them), without copying; on an object disk the objects are shared.
pub fn link_part(source: &Part, table_dir: &Path, name: &PartName) -> Result<()> {
    build_part_dir(table_dir, name, "link", source.disk.as_ref(), |dir| {
        link_files(source, &dir.path, &[])
    })
}

/// Bytes a copy reads and writes at a time: few requests to an object
/// store, without holding a whole column file in memory.
const COPY_CHUNK_BYTES: u64 = 16 << 20;

/// Makes part `name` under `table_dir` a copy of `source` with its column
/// data on `disk` (`None`: the default disk): a move between disks. Every
/// file's checksum is checked as it is copied, so a move never carries
/// damage along.
pub fn copy_part(
    source: &Part,
    table_dir: &Path,
    name: &PartName,
    disk: Option<&Arc<Disk>>,
) -> Result<()> {
    build_part_dir(table_dir, name, "move", disk, |dir| {
        let mut copied = BTreeMap::new();
        for (file, &(size, _)) in &source.files {
            let mut out = HashedFile::create(dir, file)?;
            let mut offset = 0;
            while offset < size {
                let end = (offset + COPY_CHUNK_BYTES).min(size);
                out.write(&source.read_range(file, offset..end)?)?;
                offset = end;
            }
            out.finish(&mut copied)?;
        }
        if copied != source.files {
            return Err(StrataError::new(
                ErrorCode::CHECKSUM_DOESNT_MATCH,
                format!(
                    "Part {} changed or is damaged: its copy does not match checksums.txt",
                    source.dir.display()
                ),
            ));
        }
        write_checksums(dir, &copied)
    })
}

/// A column an UPDATE writes anew, in its table type.
pub struct ChangedColumn<'a> {
    pub field: &'a Field,
    pub codec: CodecChain,
}

/// Makes part `name` under `table_dir` from the part `source` with the
/// `changed` columns written anew and every other file a hard link: an
/// UPDATE writes only what it changes. Of a changed column, the granules of
/// the `rewritten` runs (ascending) take the values `values` gives for each
/// run (one array per changed column, every row of the run, patched values
/// included); the other granules keep their compressed blocks, copied
/// without decoding, so the caller must know no value of theirs changed
/// (and rewrite every granule of a column the part lacks).
///
/// A column keeps its type; one the part lacks is added to `columns.txt`.
/// The key files stay, as keys are never changed; the part's patch stays
/// without the columns written. The `stale` files (skipping indexes of
/// changed columns) are left out.
pub fn write_changed_columns(
    source: &Part,
    table_dir: &Path,
    name: &PartName,
    changed: &[ChangedColumn],
    rewritten: &[Range<usize>],
    values: impl FnMut(Range<usize>) -> Result<Vec<ArrayRef>>,
    stale: &[String],
) -> Result<()> {
    let added: Vec<&Field> = changed
        .iter()
        .map(|c| c.field)
        .filter(|field| source.column(field.name()).is_none())
        .collect();
    let mut replaced = vec![
        CHECKSUMS_FILE.to_string(),
        UNCOMPRESSED_SIZES_FILE.to_string(),
        COLUMNS_FILE.to_string(),
        PATCHES_FILE.to_string(),
    ];
    replaced.extend(stale.iter().cloned());
    for column in changed {
        replaced.extend(column_files(&escape_file_name(column.field.name())));
    }
    let written: Vec<&str> = changed.iter().map(|c| c.field.name().as_str()).collect();
    let patches = source.patches.without(&written);
    build_part_dir(table_dir, name, "update", source.disk.as_ref(), |dir| {
        link_files(source, &dir.path, &replaced)?;
        let mut checksums = source.files.clone();
        checksums.retain(|file, _| !replaced.contains(file));
        let mut uncompressed = source.uncompressed_sizes()?;
        let sizes = write_column_runs(dir, source, changed, rewritten, values, &mut checksums)?;
        for (column, sizes) in changed.iter().zip(sizes) {
            uncompressed.insert(column.field.name().clone(), sizes.uncompressed);
        }
        write_uncompressed_sizes(dir, &uncompressed, &mut checksums)?;
        let columns: Vec<&Field> = source.columns.iter().chain(added).collect();
        write_columns_file(dir, &columns, &mut checksums)?;
        write_patches_file(dir, &patches, &mut checksums)?;
        write_checksums(dir, &checksums)
    })
}

/// Writes the `changed` columns' files for [`write_changed_columns`]: the
/// granules between the `rewritten` runs copied from `source`, each run
/// encoded from `values`. A column's bounds are written when every run has
/// them (a source part written before bounds has none to copy).
fn write_column_runs(
    dir: &PartDir,
    source: &Part,
    changed: &[ChangedColumn],
    rewritten: &[Range<usize>],
    mut values: impl FnMut(Range<usize>) -> Result<Vec<ArrayRef>>,
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<Vec<ColumnSizes>> {
    let granules: Vec<usize> = source.granules.iter().map(|&rows| rows as usize).collect();
    let file_names: Vec<String> = changed
        .iter()
        .map(|c| escape_file_name(c.field.name()))
        .collect();
    let mut files = changed
        .iter()
        .zip(&file_names)
        .map(|(column, file)| ColumnFiles::create(dir, file, column.codec))
        .collect::<Result<Vec<_>>>()?;
    let mut bounds: Vec<Option<Vec<GranuleBounds>>> = vec![Some(Vec::new()); changed.len()];
    let mut next = 0;
    let end = granules.len()..granules.len();
    for run in rewritten.iter().chain([&end]) {
        debug_assert!(next <= run.start, "runs ascend without overlapping");
        if next < run.start {
            for ((column, files), bounds) in changed.iter().zip(&mut files).zip(&mut bounds) {
                copy_granules(source, column.field.name(), next..run.start, files, bounds)?;
            }
        }
        if !run.is_empty() {
            let arrays = values(run.clone())?;
            debug_assert_eq!(arrays.len(), changed.len(), "values for every column");
            for (((column, files), bounds), array) in
                changed.iter().zip(&mut files).zip(&mut bounds).zip(arrays)
            {
                let array = canonical_array(column.field, &array)?;
                files.encode(&array, &granules[run.clone()])?;
                let computed = bounds::compute(&array, &granules[run.clone()])?;
                add_bounds(bounds, computed);
            }
        }
        next = run.end;
    }
    let mut sizes = Vec::with_capacity(changed.len());
    for ((files, bounds), file) in files.into_iter().zip(bounds).zip(&file_names) {
        sizes.push(files.finish(checksums)?);
        if let Some(pieces) = bounds.filter(|pieces| !pieces.is_empty()) {
            write_bounds(dir, file, &GranuleBounds::concat(&pieces)?, checksums)?;
        }
    }
    Ok(sizes)
}

/// Copies `granules` of `column` from `source`'s files into `files`, with
/// their bounds, reading about [`COPY_CHUNK_BYTES`] at a time (more for a
/// single larger granule).
fn copy_granules(
    source: &Part,
    column: &str,
    granules: Range<usize>,
    files: &mut ColumnFiles,
    bounds: &mut Option<Vec<GranuleBounds>>,
) -> Result<()> {
    let data_file = format!("{}{DATA_SUFFIX}", escape_file_name(column));
    let marks = source.marks(column)?;
    let file_bytes = source.files.get(&data_file).map_or(0, |(bytes, _)| *bytes);
    let offset = |granule: usize| marks.get(granule).map_or(file_bytes, |mark| mark.offset);
    let mut first = granules.start;
    while first < granules.end {
        let from = offset(first);
        let mut end = first + 1;
        while end < granules.end && offset(end + 1) - from <= COPY_CHUNK_BYTES {
            end += 1;
        }
        let blocks = source.read_range(&data_file, from..offset(end))?;
        files.copy(&blocks, from, &marks[first..end])?;
        first = end;
    }
    let copied = source.granule_bounds(column)?;
    add_bounds(bounds, copied.map(|all| all.slice(granules)));
    Ok(())
}

/// The files of the column whose file name is `file`: data, marks, bounds.
fn column_files(file: &str) -> [String; 3] {
    [DATA_SUFFIX, MARKS_SUFFIX, BOUNDS_SUFFIX].map(|suffix| format!("{file}{suffix}"))
}

/// Adds the bounds of the next granules; without them, the column gets none.
fn add_bounds(pieces: &mut Option<Vec<GranuleBounds>>, next: Option<GranuleBounds>) {
    match next {
        Some(next) => {
            if let Some(pieces) = pieces {
                pieces.push(next);
            }
        }
        None => *pieces = None,
    }
}

/// The rows a DELETE keeps of a run of granules, every table column in the
/// part's order, with their primary key values (one array per key column).
pub struct KeptRows {
    pub rows: RecordBatch,
    pub primary_key: Vec<ArrayRef>,
}

/// Makes part `name` under `table_dir` from the part `source` without the
/// rows a DELETE removes, and without its patch. The granules of the
/// `rewritten` runs (ascending, not every granule) take the rows `kept`
/// gives for each run, in granules of at most `granularity` rows (none for
/// a run that keeps none); the other granules keep their compressed blocks,
/// primary index entries and bounds, copied without decoding, so the
/// caller must know they hold no removed or patched row. The caller also
/// makes sure the part holds the table's columns in their table types, and
/// that the table has no skipping index (its files would need rebuilding).
/// The partition's minmax files are linked: the kept rows lie within them.
/// Returns the rows written.
pub fn write_without_rows(
    source: &Part,
    table_dir: &Path,
    name: &PartName,
    codecs: &[CodecChain],
    key_types: &[DataType],
    granularity: usize,
    rewritten: &[Range<usize>],
    mut kept: impl FnMut(Range<usize>) -> Result<KeptRows>,
) -> Result<u64> {
    let granules = source.granules.len();
    assert!(
        rewritten.iter().map(ExactSizeIterator::len).sum::<usize>() < granules,
        "a granule is copied, so the part keeps rows"
    );
    let mut replaced = vec![
        CHECKSUMS_FILE.to_string(),
        UNCOMPRESSED_SIZES_FILE.to_string(),
        PATCHES_FILE.to_string(),
        PRIMARY_INDEX_FILE.to_string(),
        COUNT_FILE.to_string(),
    ];
    let file_names: Vec<String> = source
        .columns
        .iter()
        .map(|field| escape_file_name(field.name()))
        .collect();
    replaced.extend(file_names.iter().flat_map(|file| column_files(file)));
    build_part_dir(table_dir, name, "delete", source.disk.as_ref(), |dir| {
        link_files(source, &dir.path, &replaced)?;
        let mut checksums = source.files.clone();
        checksums.retain(|file, _| !replaced.contains(file));
        let source_index = source.primary_index(key_types)?;
        let mut out = KeptPart::create(dir, source, &file_names, codecs, key_types.len())?;
        let mut next = 0;
        let end = granules..granules;
        for run in rewritten.iter().chain([&end]) {
            if next < run.start {
                out.copy(next..run.start, &source_index)?;
            }
            if !run.is_empty() {
                out.keep(&kept(run.clone())?, granularity)?;
            }
            next = run.end;
        }
        let last = match out.last.take() {
            Some(LastRow::Kept(keys)) => keys,
            Some(LastRow::CopiedUpTo(end)) if end == granules => {
                source_index.iter().map(|all| all.slice(end, 1)).collect()
            }
            Some(LastRow::CopiedUpTo(end)) => last_row(&kept(end - 1..end)?.primary_key),
            None => unreachable!("a granule was copied"),
        };
        out.finish(last, &mut checksums)
    })
}

/// The last row of a part [`KeptPart`] writes, for its primary index.
enum LastRow {
    /// Kept from a rewritten run: its key values.
    Kept(Vec<ArrayRef>),
    /// The last of the granules copied up to this one.
    CopiedUpTo(usize),
}

/// A part being written by [`write_without_rows`], granules in order.
struct KeptPart<'a> {
    dir: &'a PartDir,
    source: &'a Part,
    file_names: &'a [String],
    files: Vec<ColumnFiles>,
    bounds: Vec<Option<Vec<GranuleBounds>>>,
    /// Each key column's index entries, piece by piece.
    index: Vec<Vec<ArrayRef>>,
    rows: u64,
    last: Option<LastRow>,
}

impl<'a> KeptPart<'a> {
    fn create(
        dir: &'a PartDir,
        source: &'a Part,
        file_names: &'a [String],
        codecs: &[CodecChain],
        key_columns: usize,
    ) -> Result<Self> {
        let files = file_names
            .iter()
            .zip(codecs)
            .map(|(file, &codec)| ColumnFiles::create(dir, file, codec))
            .collect::<Result<Vec<_>>>()?;
        Ok(KeptPart {
            dir,
            source,
            file_names,
            files,
            bounds: vec![Some(Vec::new()); file_names.len()],
            index: vec![Vec::new(); key_columns],
            rows: 0,
            last: None,
        })
    }

    /// Copies `granules` of every column, with their index entries from
    /// `source_index`.
    fn copy(&mut self, granules: Range<usize>, source_index: &[ArrayRef]) -> Result<()> {
        let columns = self.source.columns.iter();
        for ((field, files), bounds) in columns.zip(&mut self.files).zip(&mut self.bounds) {
            copy_granules(self.source, field.name(), granules.clone(), files, bounds)?;
        }
        for (entries, all) in self.index.iter_mut().zip(source_index) {
            entries.push(all.slice(granules.start, granules.len()));
        }
        self.rows += self.source.granules[granules.clone()].iter().sum::<u64>();
        self.last = Some(LastRow::CopiedUpTo(granules.end));
        Ok(())
    }

    /// Encodes the rows a run kept, if any, in granules of at most
    /// `granularity` rows.
    fn keep(&mut self, kept: &KeptRows, granularity: usize) -> Result<()> {
        let rows = kept.rows.num_rows();
        if rows == 0 {
            return Ok(());
        }
        let granules = granule_rows(rows, granularity);
        let schema = kept.rows.schema();
        let columns = schema.fields().iter().zip(kept.rows.columns());
        for ((field, column), (files, bounds)) in
            columns.zip(self.files.iter_mut().zip(&mut self.bounds))
        {
            let column = canonical_array(field, column)?;
            files.encode(&column, &granules)?;
            add_bounds(bounds, bounds::compute(&column, &granules)?);
        }
        let firsts = UInt64Array::from_iter_values((0..rows as u64).step_by(granularity));
        for (entries, key) in self.index.iter_mut().zip(&kept.primary_key) {
            entries.push(take(key.as_ref(), &firsts, None)?);
        }
        self.rows += rows as u64;
        self.last = Some(LastRow::Kept(last_row(&kept.primary_key)));
        Ok(())
    }

    /// Writes the index (with the `last` row's keys), bounds, sizes, count
    /// and checksums; returns the rows written.
    fn finish(
        self,
        last: Vec<ArrayRef>,
        checksums: &mut BTreeMap<String, (u64, u64)>,
    ) -> Result<u64> {
        let mut entries = Vec::with_capacity(self.index.len());
        for (mut pieces, last) in self.index.into_iter().zip(last) {
            pieces.push(last);
            let pieces: Vec<&dyn Array> = pieces.iter().map(|p| p.as_ref()).collect();
            entries.push(concat(&pieces)?);
        }
        write_primary_index(self.dir, &entries, checksums)?;
        let mut uncompressed = BTreeMap::new();
        let columns = self.source.columns.iter().zip(self.file_names);
        for ((field, file), (files, bounds)) in columns.zip(self.files.into_iter().zip(self.bounds))
        {
            let sizes = files.finish(checksums)?;
            uncompressed.insert(field.name().clone(), sizes.uncompressed);
            if let Some(pieces) = bounds.filter(|pieces| !pieces.is_empty()) {
                write_bounds(self.dir, file, &GranuleBounds::concat(&pieces)?, checksums)?;
            }
        }
        write_uncompressed_sizes(self.dir, &uncompressed, checksums)?;
        write_count(self.dir, self.rows, checksums)?;
        write_checksums(self.dir, checksums)?;
        Ok(self.rows)
    }
}

/// The last value of each key column.
fn last_row(keys: &[ArrayRef]) -> Vec<ArrayRef> {
    keys.iter().map(|key| key.slice(key.len() - 1, 1)).collect()
}

/// Makes part `name` under `table_dir` from the part `source` with
/// `patches` as its patch (the source's own folded in by the caller) and
/// every other file a hard link: a lightweight DELETE or UPDATE writes
/// only the rows it changes.
pub fn write_patched(
    source: &Part,
    table_dir: &Path,
    name: &PartName,
    patches: &Patches,
) -> Result<()> {
    let replaced = [CHECKSUMS_FILE.to_string(), PATCHES_FILE.to_string()];
    build_part_dir(table_dir, name, "patch", source.disk.as_ref(), |dir| {
        link_files(source, &dir.path, &replaced)?;
        let mut checksums = source.files.clone();
        checksums.remove(PATCHES_FILE);
        write_patches_file(dir, patches, &mut checksums)?;
        write_checksums(dir, &checksums)
    })
}

/// Makes part `name` under `table_dir` from the part `source` with `files`
/// (name and bytes) added or replaced and every other file a hard link: a
/// skipping index built for rows already written.
pub fn write_with_files(
    source: &Part,
    table_dir: &Path,
    name: &PartName,
    files: &[(String, Vec<u8>)],
) -> Result<()> {
    let mut replaced = vec![CHECKSUMS_FILE.to_string()];
    replaced.extend(files.iter().map(|(file, _)| file.clone()));
    build_part_dir(table_dir, name, "index", source.disk.as_ref(), |dir| {
        link_files(source, &dir.path, &replaced)?;
        let mut checksums = source.files.clone();
        for (file, bytes) in files {
            let mut out = HashedFile::create(dir, file)?;
            out.write(bytes)?;
            out.finish(&mut checksums)?;
        }
        write_checksums(dir, &checksums)
    })
}

/// Writes `patches.bin` unless the patch is empty.
fn write_patches_file(
    dir: &PartDir,
    patches: &Patches,
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    if patches.is_empty() {
        return Ok(());
    }
    let mut file = HashedFile::create(dir, PATCHES_FILE)?;
    file.write(&patches.encode()?)?;
    file.finish(checksums)
}

/// Writes `columns.txt`: each column's name and ClickHouse type.
fn write_columns_file(
    dir: &PartDir,
    fields: &[&Field],
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    let mut columns = String::new();
    for field in fields {
        columns.push_str(&format!(
            "{}\t{}\n",
            escape_line(field.name()),
            field_type_name(field)
        ));
    }
    let mut columns_file = HashedFile::create(dir, COLUMNS_FILE)?;
    columns_file.write(columns.as_bytes())?;
    columns_file.finish(checksums)
}

/// A part directory being written, and the disk its column data goes to.
pub(crate) struct PartDir {
    pub path: PathBuf,
    objects: Option<Arc<ObjectDisk>>,
}

/// Builds a part's directory under a `tmp_` name with `build`, syncs it and
/// renames it to `name`, so a crash leaves either no part or a whole one.
/// On an object disk, `disk.txt` names it before any object is written.
fn build_part_dir<T>(
    table_dir: &Path,
    name: &PartName,
    purpose: &str,
    disk: Option<&Arc<Disk>>,
    build: impl FnOnce(&PartDir) -> Result<T>,
) -> Result<T> {
    let final_dir = table_dir.join(name.to_string());
    if final_dir.exists() {
        return Err(StrataError::new(
            ErrorCode::DIRECTORY_ALREADY_EXISTS,
            format!("Part directory {} already exists", final_dir.display()),
        ));
    }
    let temporary = table_dir.join(format!("{TEMPORARY_PREFIX}{purpose}_{name}"));
    if temporary.exists() {
        fs::remove_dir_all(&temporary).map_err(|e| io_error(&temporary, e))?;
    }
    fs::create_dir_all(&temporary).map_err(|e| io_error(&temporary, e))?;
    let objects = disk.and_then(|disk| disk.object_store()).cloned();
    if let Some(disk) = disk.filter(|_| objects.is_some()) {
        let path = temporary.join(DISK_FILE);
        fs::write(&path, &disk.name).map_err(|e| io_error(&path, e))?;
    }
    let out = PartDir {
        path: temporary.clone(),
        objects,
    };
    let built = build(&out).and_then(|value| {
        sync_directory(&temporary)?;
        Ok(value)
    });
    let value = match built {
        Ok(value) => value,
        Err(error) => {
            // Best effort: a leftover is removed when the table opens anyway.
            let _ = fs::remove_dir_all(&temporary);
            return Err(error);
        }
    };
    fs::rename(&temporary, &final_dir).map_err(|e| io_error(&final_dir, e))?;
    sync_directory(table_dir)?;
    Ok(value)
}

/// Hard-links every file of `source` but those named in `except` (and
/// `disk.txt`, which the new part has already) into `dir`.
/// Hard-links into `dir` the files `source`'s checksums list, and the
/// checksums file, but `except`. The list, not the directory, says what a
/// part holds: a file missing from the source fails the new part instead
/// of leaving it torn.
fn link_files(source: &Part, dir: &Path, except: &[String]) -> Result<()> {
    let files = source.files.keys().map(String::as_str);
    for file in files.chain([CHECKSUMS_FILE]) {
        if except.iter().any(|name| name == file) {
            continue;
        }
        let target = dir.join(file);
        fs::hard_link(source.dir.join(file), &target).map_err(|e| io_error(&target, e))?;
    }
    Ok(())
}

/// `batch` with each column in the Arrow type its ClickHouse type reads back
/// as (a dictionary as plain strings, a Date64 as Date32), so a part's
/// `columns.txt` alone says how to decode its files.
fn canonical(batch: &RecordBatch) -> Result<RecordBatch> {
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let read_as = parse_clickhouse_type(&field_type_name(field))?;
        // The column's own type, not the field's: a batch assembled with
        // DataFusion's looser check may hold items without their metadata.
        if &read_as.data_type == column.data_type() {
            fields.push(field.as_ref().clone());
        } else {
            fields.push(read_as.field(field.name()));
        }
        columns.push(canonical_array(field, column)?);
    }
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}

/// `column` of `field` in the Arrow type its ClickHouse type reads back as.
fn canonical_array(field: &Field, column: &ArrayRef) -> Result<ArrayRef> {
    let read_as = parse_clickhouse_type(&field_type_name(field))?;
    if &read_as.data_type == column.data_type() {
        return Ok(Arc::clone(column));
    }
    Ok(cast(column, &read_as.data_type)?)
}

/// Writes a column's data and marks files, one block per granule of
/// `granules` rows each, and its bounds, and records their checksums.
fn write_column(
    dir: &PartDir,
    file_name: &str,
    column: &ArrayRef,
    codec: CodecChain,
    granules: &[usize],
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<ColumnSizes> {
    let mut files = ColumnFiles::create(dir, file_name, codec)?;
    files.encode(column, granules)?;
    let sizes = files.finish(checksums)?;
    if let Some(bounds) = bounds::compute(column, granules)? {
        write_bounds(dir, file_name, &bounds, checksums)?;
    }
    Ok(sizes)
}

fn write_bounds(
    dir: &PartDir,
    file_name: &str,
    bounds: &GranuleBounds,
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    let mut file = HashedFile::create(dir, &format!("{file_name}{BOUNDS_SUFFIX}"))?;
    file.write(&bounds::encode(bounds)?)?;
    file.finish(checksums)
}

/// A column's data and marks files, written granule by granule: each
/// granule one block, encoded here or copied from another part's file.
struct ColumnFiles {
    data: HashedFile,
    marks: HashedFile,
    codec: CodecChain,
    uncompressed: u64,
    encoded: Vec<u8>,
    block: Vec<u8>,
}

impl ColumnFiles {
    fn create(dir: &PartDir, file_name: &str, codec: CodecChain) -> Result<Self> {
        Ok(ColumnFiles {
            data: HashedFile::create(dir, &format!("{file_name}{DATA_SUFFIX}"))?,
            marks: HashedFile::create(dir, &format!("{file_name}{MARKS_SUFFIX}"))?,
            codec,
            uncompressed: 0,
            encoded: Vec::new(),
            block: Vec::new(),
        })
    }

    /// Appends `column` as one block per granule of `granules` rows each.
    fn encode(&mut self, column: &ArrayRef, granules: &[usize]) -> Result<()> {
        debug_assert_eq!(
            granules.iter().sum::<usize>(),
            column.len(),
            "granules cover the column"
        );
        let lane_width = column.data_type().primitive_width();
        let mut start = 0;
        for &rows in granules {
            self.encoded.clear();
            array_bytes::encode(&column.slice(start, rows).to_data(), &mut self.encoded);
            self.block.clear();
            write_chain_block(&self.codec, lane_width, &self.encoded, &mut self.block)?;
            self.mark(self.data.bytes, rows as u64)?;
            self.data.write(&self.block)?;
            self.uncompressed += self.encoded.len() as u64;
            start += rows;
        }
        Ok(())
    }

    /// Appends granules as they are compressed in another part's file:
    /// `blocks` holds them whole, from its offset `from` on, and `marks`
    /// are their marks there. Each block's checksum is checked.
    fn copy(&mut self, blocks: &[u8], from: u64, marks: &[Mark]) -> Result<()> {
        let base = self.data.bytes;
        for mark in marks {
            debug_assert!(
                mark.offset >= from,
                "a copied granule starts in the copied bytes"
            );
            self.mark(base + mark.offset - from, mark.rows)?;
        }
        self.uncompressed += check_blocks(blocks)?;
        self.data.write(blocks)
    }

    fn mark(&mut self, offset: u64, rows: u64) -> Result<()> {
        self.marks.write(&offset.to_le_bytes())?;
        self.marks.write(&rows.to_le_bytes())
    }

    fn finish(self, checksums: &mut BTreeMap<String, (u64, u64)>) -> Result<ColumnSizes> {
        let sizes = ColumnSizes {
            compressed: self.data.bytes,
            uncompressed: self.uncompressed,
            on_disk: self.data.bytes + self.marks.bytes,
        };
        self.data.finish(checksums)?;
        self.marks.finish(checksums)?;
        Ok(sizes)
    }
}

/// Writes `primary.idx`: each key column's `entries` (a granule's first
/// row each, then the part's last row) as one block.
fn write_primary_index(
    dir: &PartDir,
    entries: &[ArrayRef],
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    let mut index = HashedFile::create(dir, PRIMARY_INDEX_FILE)?;
    let (mut encoded, mut block) = (Vec::new(), Vec::new());
    for key in entries {
        encoded.clear();
        array_bytes::encode(&key.to_data(), &mut encoded);
        block.clear();
        write_block(Codec::Lz4, &encoded, &mut block)?;
        index.write(&block)?;
    }
    index.finish(checksums)
}

/// Writes `uncompressed_sizes.txt`: each column's bytes before compression.
fn write_uncompressed_sizes(
    dir: &PartDir,
    sizes: &BTreeMap<String, u64>,
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    let listing: String = sizes
        .iter()
        .map(|(column, bytes)| format!("{}\t{bytes}\n", escape_line(column)))
        .collect();
    let mut file = HashedFile::create(dir, UNCOMPRESSED_SIZES_FILE)?;
    file.write(listing.as_bytes())?;
    file.finish(checksums)
}

fn write_count(
    dir: &PartDir,
    rows: u64,
    checksums: &mut BTreeMap<String, (u64, u64)>,
) -> Result<()> {
    let mut count = HashedFile::create(dir, COUNT_FILE)?;
    count.write(rows.to_string().as_bytes())?;
    count.finish(checksums)
}

/// Writes `checksums.txt`, the size and checksum of every other file.
fn write_checksums(dir: &PartDir, checksums: &BTreeMap<String, (u64, u64)>) -> Result<()> {
    let mut listing = String::new();
    for (file, (bytes, hash)) in checksums {
        listing.push_str(&format!("{file}\t{bytes}\t{hash:016x}\n"));
    }
    let mut checksums_file = HashedFile::create(dir, CHECKSUMS_FILE)?;
    checksums_file.write(listing.as_bytes())?;
    checksums_file.finish(&mut BTreeMap::new())
}

fn write_files(
    dir: &PartDir,
    batch: &RecordBatch,
    layout: &PartLayout,
) -> Result<Vec<ColumnSizes>> {
    let rows = batch.num_rows();
    let granule_starts: Vec<usize> = (0..rows).step_by(layout.granularity).collect();
    let granules = granule_rows(rows, layout.granularity);
    let mut checksums = BTreeMap::new();
    let mut sizes = Vec::with_capacity(batch.num_columns());
    let mut encoded = Vec::new();
    for ((field, column), &codec) in batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .zip(layout.codecs)
    {
        let file_name = escape_file_name(field.name());
        sizes.push(write_column(
            dir,
            &file_name,
            column,
            codec,
            &granules,
            &mut checksums,
        )?);
    }

    // Each granule's first row, then the part's last row, so the last
    // granule's keys are bounded too.
    let starts = UInt64Array::from_iter_values(
        granule_starts
            .iter()
            .map(|&s| s as u64)
            .chain(rows.checked_sub(1).map(|last| last as u64)),
    );
    let entries = layout
        .primary_key
        .iter()
        .map(|key| {
            assert_eq!(key.len(), rows, "a primary key value per row");
            Ok(take(key.as_ref(), &starts, None)?)
        })
        .collect::<Result<Vec<_>>>()?;
    write_primary_index(dir, &entries, &mut checksums)?;

    for &column in layout.minmax_columns {
        let values = batch.column(column);
        let mut min = MinAccumulator::try_new(values.data_type())?;
        let mut max = MaxAccumulator::try_new(values.data_type())?;
        min.update_batch(std::slice::from_ref(values))?;
        max.update_batch(std::slice::from_ref(values))?;
        let bounds = ScalarValue::iter_to_array([min.evaluate()?, max.evaluate()?])?;
        encoded.clear();
        array_bytes::encode(&bounds.to_data(), &mut encoded);
        let name = batch.schema().field(column).name().clone();
        let mut file = HashedFile::create(dir, &minmax_file(&name))?;
        file.write(&encoded)?;
        file.finish(&mut checksums)?;
    }

    for (name, bytes) in layout.index_files {
        let mut file = HashedFile::create(dir, name)?;
        file.write(bytes)?;
        file.finish(&mut checksums)?;
    }

    let uncompressed = batch
        .schema()
        .fields()
        .iter()
        .zip(&sizes)
        .map(|(field, sizes)| (field.name().clone(), sizes.uncompressed))
        .collect();
    write_uncompressed_sizes(dir, &uncompressed, &mut checksums)?;

    let mut partition = HashedFile::create(dir, PARTITION_FILE)?;
    partition.write(layout.partition.as_bytes())?;
    partition.finish(&mut checksums)?;

    let schema = batch.schema();
    let fields: Vec<&Field> = schema.fields().iter().map(|f| f.as_ref()).collect();
    write_columns_file(dir, &fields, &mut checksums)?;

    write_count(dir, rows as u64, &mut checksums)?;

    write_checksums(dir, &checksums)?;
    Ok(sizes)
}

/// A file being written, with its size and running checksum.
struct HashedFile {
    path: PathBuf,
    name: String,
    out: FileSink,
    hasher: XxHash64,
    bytes: u64,
}

/// Where a part file's bytes go: the part directory, or an object whose
/// reference the directory holds.
enum FileSink {
    Local(BufWriter<File>),
    Object(ObjectRef, ObjectWriter),
}

impl HashedFile {
    /// Column data of a part on an object disk goes to a new object; its
    /// reference is written first, so a sweep never takes it for an orphan.
    fn create(dir: &PartDir, name: &str) -> Result<Self> {
        let path = dir.path.join(name);
        let out = match &dir.objects {
            Some(objects) if name.ends_with(DATA_SUFFIX) => {
                let table_dir = dir.path.parent().unwrap_or(&dir.path);
                let reference = ObjectRef {
                    key: ObjectDisk::new_key(table_dir),
                    size: 0,
                };
                reference.write(&path)?;
                let writer = objects.writer(reference.key.clone());
                FileSink::Object(reference, writer)
            }
            _ => {
                let file = File::create(&path).map_err(|e| io_error(&path, e))?;
                events::add(Event::FileOpen, 1);
                FileSink::Local(BufWriter::with_capacity(1 << 20, file))
            }
        };
        Ok(HashedFile {
            path,
            name: name.to_string(),
            out,
            hasher: XxHash64::with_seed(0),
            bytes: 0,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.out {
            FileSink::Local(file) => {
                file.write_all(bytes).map_err(|e| io_error(&self.path, e))?;
                events::add(
                    Event::WriteBufferFromFileDescriptorWriteBytes,
                    bytes.len() as u64,
                );
            }
            FileSink::Object(_, writer) => writer.write(bytes)?,
        }
        self.hasher.write(bytes);
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Flushes and syncs the file (or stores the object and then its
    /// reference with the size) and records its size and checksum.
    fn finish(self, checksums: &mut BTreeMap<String, (u64, u64)>) -> Result<()> {
        match self.out {
            FileSink::Local(out) => {
                let file = out
                    .into_inner()
                    .map_err(|e| io_error(&self.path, e.into_error()))?;
                file.sync_all().map_err(|e| {
                    StrataError::new(
                        ErrorCode::CANNOT_FSYNC,
                        format!("Cannot fsync {}: {e}", self.path.display()),
                    )
                })?;
            }
            FileSink::Object(mut reference, writer) => {
                reference.size = writer.finish()?;
                debug_assert_eq!(reference.size, self.bytes, "the object holds every byte");
                reference.write(&self.path)?;
            }
        }
        checksums.insert(self.name, (self.bytes, self.hasher.finish()));
        Ok(())
    }
}

pub(crate) fn sync_directory(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_FSYNC,
            format!("Cannot fsync directory {}: {e}", dir.display()),
        )
    })
}

pub(crate) fn io_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
        format!("Cannot write {}: {error}", path.display()),
    )
}
