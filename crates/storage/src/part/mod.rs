//! Parts: a sorted run of rows, written once into its own directory and
//! never changed; merges and mutations write new parts.
//!
//! A part's directory holds, in ClickHouse's names where a file has one:
//! - `columns.txt`: each column's name and ClickHouse type, so a part reads
//!   back without the table's metadata (and after the table's columns change);
//! - `count.txt`: the number of rows;
//! - `<column>.bin`: one compressed block per granule of the column;
//! - `<column>.mrk2`: a mark per granule, the block's offset and row count;
//! - `<column>.bounds`: the column's least and greatest value in each
//!   granule, for types with an order filters share (see [`bounds`]);
//! - `primary.idx`: the primary key's values at the first row of each
//!   granule and at the part's last row;
//! - `uncompressed_sizes.txt`: each column's bytes before compression;
//! - `minmax_<column>.idx`: the least and greatest value of each column the
//!   partition key reads, so a filter on them can skip the part;
//! - `partition.txt`: the partition's value as text;
//! - `patches.bin`: new values of some rows (lightweight DELETE and UPDATE),
//!   which reads apply (see [`patch`]);
//! - `checksums.txt`: the size and xxHash64 of every other file;
//! - `disk.txt`: on a disk other than `default`, the disk's name; each
//!   `*.bin` file is then a reference to the object holding its bytes (see
//!   [`crate::disk`]), and `checksums.txt` lists the object's size and hash.
//!
//! Parts are written under a `tmp_` name, synced, and renamed into place, so
//! a crash leaves either no part or a whole one; `tmp_` leftovers are removed
//! when the table is opened.

use crate::disk::ObjectDisk;
use crate::disk::object_ref::ObjectRef;

pub mod array_bytes;
pub mod bounds;
pub mod flat_column;
pub mod lanes;
pub mod name;
pub mod patch;
pub mod reader;
pub mod writer;

/// Prefix of a part directory still being written.
pub const TEMPORARY_PREFIX: &str = "tmp_";
/// Rows per granule unless the table says otherwise, as in ClickHouse.
pub const DEFAULT_GRANULARITY: usize = 8192;

const COLUMNS_FILE: &str = "columns.txt";
const COUNT_FILE: &str = "count.txt";
const CHECKSUMS_FILE: &str = "checksums.txt";
const PRIMARY_INDEX_FILE: &str = "primary.idx";
const PARTITION_FILE: &str = "partition.txt";
const UNCOMPRESSED_SIZES_FILE: &str = "uncompressed_sizes.txt";
pub(crate) const DATA_SUFFIX: &str = ".bin";
const MARKS_SUFFIX: &str = ".mrk2";
/// Bytes of one mark: the block's offset and the granule's rows, u64 each.
const MARK_BYTES: usize = 16;

/// A column name as a file name: bytes other than ASCII letters, digits and
/// `_` are written `%XX`, so every name maps to one safe file name.
pub fn escape_file_name(column: &str) -> String {
    let mut escaped = String::with_capacity(column.len());
    for byte in column.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'_' {
            escaped.push(byte as char);
        } else {
            escaped.push_str(&format!("%{byte:02X}"));
        }
    }
    escaped
}

/// Removes a part's directory so that a crash midway never leaves a part
/// with files missing under its own name: it is renamed to a `tmp_` name in
/// one step first, and a `tmp_` leftover is removed when the table opens.
/// Objects on `objects` that no other part links to go after the directory;
/// if that fails, the next sweep of the table removes them.
pub fn remove_part_directory(
    dir: &std::path::Path,
    objects: Option<&ObjectDisk>,
) -> std::io::Result<()> {
    let Some(name) = dir.file_name() else {
        return Ok(());
    };
    let doomed = dir.with_file_name(format!(
        "{TEMPORARY_PREFIX}delete_{}",
        name.to_string_lossy()
    ));
    std::fs::rename(dir, &doomed)?;
    let orphaned = match objects {
        Some(_) => last_references(&doomed),
        None => Vec::new(),
    };
    std::fs::remove_dir_all(&doomed)?;
    if let Some(objects) = objects
        && !orphaned.is_empty()
        && let Err(error) = objects.remove(orphaned)
    {
        log::warn!("Objects of removed part {}: {error}", dir.display());
    }
    Ok(())
}

/// Keys of the objects whose only reference is in `dir`: a reference file
/// another part shares is a hard link, so its link count is above one.
fn last_references(dir: &std::path::Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(DATA_SUFFIX))
        .filter(|entry| entry.metadata().is_ok_and(|m| m.nlink() == 1))
        .filter_map(|entry| ObjectRef::read(&entry.path()).ok())
        .map(|reference| reference.key)
        .collect()
}

fn minmax_file(column: &str) -> String {
    format!("minmax_{}.idx", escape_file_name(column))
}

/// `name` with tabs, newlines and backslashes escaped, for one-line text files.
fn escape_line(name: &str) -> String {
    name.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

fn unescape_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_column_names_become_safe_file_names() {
        assert_eq!(escape_file_name("plain_Name1"), "plain_Name1");
        assert_eq!(escape_file_name("a.b/c d"), "a%2Eb%2Fc%20d");
        assert_eq!(escape_file_name("é"), "%C3%A9");
        for name in ["tab\there", "new\nline", "back\\slash", "plain"] {
            assert_eq!(unescape_line(&escape_line(name)), name);
            assert!(!escape_line(name).contains(['\t', '\n']));
        }
    }
}
