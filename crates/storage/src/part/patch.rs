//! Patches: new values for some rows of a part's columns, kept in the
//! part's `patches.bin` beside its column files instead of written into
//! them. A lightweight DELETE patches the `_row_exists` column to 0 for the
//! rows it deletes; `UPDATE ... SET` patches the columns it assigns. Every
//! read of a part's column applies its patch ([`Patches::apply`]); merges
//! and rewrites read through it, so the part they write holds the patched
//! values and no patch.
//!
//! A part has at most one patch file: a new patch is folded into the part's
//! current one (the newer value of a row wins) and written, with every other
//! file linked, as the mutated part. The file grows with the rows patched,
//! never with the part.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, UInt64Array, make_array};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::compute::{cast, interleave};
use datafusion::arrow::datatypes::Field;
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::types::{field_type_name, parse_clickhouse_type};

use super::array_bytes;
use crate::compression::{Codec, read_block, write_block};

/// The file of a part's patch.
pub const PATCHES_FILE: &str = "patches.bin";

/// The version of the layout below, first in the file.
const FORMAT_VERSION: u64 = 1;

/// New values of one column for some rows of a part.
#[derive(Debug, Clone)]
pub struct ColumnPatch {
    /// The column, in the type its values are stored in.
    pub field: Field,
    /// Row offsets in the part, ascending and distinct.
    pub rows: UInt64Array,
    /// One value per row of `rows`.
    pub values: ArrayRef,
}

impl ColumnPatch {
    pub fn new(field: Field, rows: UInt64Array, values: ArrayRef) -> Self {
        assert_eq!(rows.len(), values.len(), "a value per patched row");
        debug_assert!(
            rows.values().windows(2).all(|pair| pair[0] < pair[1]),
            "patched rows ascend"
        );
        ColumnPatch {
            field,
            rows,
            values,
        }
    }

    /// This patch with `newer` over it: a row both patch takes `newer`'s
    /// value, in `newer`'s type.
    fn fold(&self, newer: &ColumnPatch) -> Result<ColumnPatch> {
        let older_values = cast_to(&self.values, &newer.field)?;
        let (older, recent) = (self.rows.values(), newer.rows.values());
        let mut rows = Vec::with_capacity(older.len() + recent.len());
        let mut picks = Vec::with_capacity(rows.capacity());
        let (mut i, mut j) = (0, 0);
        while i < older.len() || j < recent.len() {
            let take_older = j == recent.len() || (i < older.len() && older[i] < recent[j]);
            if take_older {
                rows.push(older[i]);
                picks.push((0, i));
                i += 1;
                continue;
            }
            if i < older.len() && older[i] == recent[j] {
                i += 1;
            }
            rows.push(recent[j]);
            picks.push((1, j));
            j += 1;
        }
        let values = interleave(&[older_values.as_ref(), newer.values.as_ref()], &picks)?;
        Ok(ColumnPatch::new(
            newer.field.clone(),
            UInt64Array::from(rows),
            values,
        ))
    }
}

/// A part's patch: at most one [`ColumnPatch`] per column.
#[derive(Debug, Clone, Default)]
pub struct Patches {
    columns: Vec<ColumnPatch>,
}

impl Patches {
    pub fn new(columns: Vec<ColumnPatch>) -> Self {
        let mut patches = Patches::default();
        for column in columns {
            patches.put(column);
        }
        patches
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    pub fn columns(&self) -> &[ColumnPatch] {
        &self.columns
    }

    pub fn column(&self, name: &str) -> Option<&ColumnPatch> {
        self.columns.iter().find(|c| c.field.name() == name)
    }

    /// Bytes the patch holds in memory.
    pub fn memory_size(&self) -> usize {
        self.columns
            .iter()
            .map(|c| c.rows.get_array_memory_size() + c.values.get_array_memory_size())
            .sum()
    }

    /// Rows `start..start + values.len()` of column `name`, `values` as
    /// the part stores them, with the patched rows' new values.
    pub fn apply(&self, name: &str, start: u64, values: ArrayRef) -> Result<ArrayRef> {
        let Some(patch) = self.column(name) else {
            return Ok(values);
        };
        let rows = patch.rows.values();
        let end = start + values.len() as u64;
        let first = rows.partition_point(|&row| row < start);
        let last = rows.partition_point(|&row| row < end);
        if first == last {
            return Ok(values);
        }
        let new = patch.values.slice(first, last - first);
        let new = match new.data_type() == values.data_type() {
            true => new,
            false => cast(&new, values.data_type())?,
        };
        let mut picks = Vec::with_capacity(values.len());
        let mut next = first;
        for row in 0..values.len() {
            if next < last && rows[next] == start + row as u64 {
                picks.push((1, next - first));
                next += 1;
            } else {
                picks.push((0, row));
            }
        }
        Ok(interleave(&[values.as_ref(), new.as_ref()], &picks)?)
    }

    /// This patch with `newer` folded over it.
    pub fn fold(&self, newer: &Patches) -> Result<Patches> {
        let mut folded = self.clone();
        for column in &newer.columns {
            match folded.column(column.field.name()) {
                Some(older) => {
                    let merged = older.fold(column)?;
                    folded.put(merged);
                }
                None => folded.put(column.clone()),
            }
        }
        Ok(folded)
    }

    /// This patch without the columns `names`, written whole since.
    pub fn without(&self, names: &[&str]) -> Patches {
        Patches {
            columns: self
                .columns
                .iter()
                .filter(|c| !names.contains(&c.field.name().as_str()))
                .cloned()
                .collect(),
        }
    }

    /// Sets a column's patch, replacing the one it had.
    fn put(&mut self, column: ColumnPatch) {
        match self
            .columns
            .iter_mut()
            .find(|c| c.field.name() == column.field.name())
        {
            Some(slot) => *slot = column,
            None => self.columns.push(column),
        }
    }

    /// The patch file's bytes: one compressed block holding the format
    /// version, then each column's name, type, rows and values.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut payload = Vec::new();
        put_u64(&mut payload, FORMAT_VERSION);
        put_u64(&mut payload, self.columns.len() as u64);
        for column in &self.columns {
            put_bytes(&mut payload, column.field.name().as_bytes());
            put_bytes(&mut payload, field_type_name(&column.field).as_bytes());
            array_bytes::encode(&column.rows.to_data(), &mut payload);
            array_bytes::encode(&column.values.to_data(), &mut payload);
        }
        let mut block = Vec::new();
        write_block(Codec::Zstd(1), &payload, &mut block)?;
        Ok(block)
    }

    /// Reads a patch file's bytes back.
    pub fn decode(bytes: &[u8]) -> Result<Patches> {
        let (payload, used) = read_block(bytes)?;
        if used != bytes.len() {
            return Err(corrupted("bytes after its block"));
        }
        let payload = Buffer::from(payload);
        let mut position = 0;
        if take_u64(&payload, &mut position)? != FORMAT_VERSION {
            return Err(corrupted("an unknown format version"));
        }
        let count = take_u64(&payload, &mut position)?;
        let mut columns = Vec::new();
        for _ in 0..count {
            let name = take_text(&payload, &mut position)?;
            let type_name = take_text(&payload, &mut position)?;
            let field = parse_clickhouse_type(&type_name)?.field(name);
            let rows = array_bytes::decode(
                &datafusion::arrow::datatypes::DataType::UInt64,
                &payload,
                &mut position,
            )?;
            let values = make_array(array_bytes::decode(
                field.data_type(),
                &payload,
                &mut position,
            )?);
            let rows = UInt64Array::from(rows);
            if rows.len() != values.len() || rows.null_count() > 0 {
                return Err(corrupted("rows and values that do not match"));
            }
            if rows.values().windows(2).any(|pair| pair[0] >= pair[1]) {
                return Err(corrupted("rows out of order"));
            }
            columns.push(ColumnPatch::new(field, rows, values));
        }
        if position != payload.len() {
            return Err(corrupted("bytes after its columns"));
        }
        Ok(Patches::new(columns))
    }
}

fn cast_to(values: &ArrayRef, field: &Field) -> Result<ArrayRef> {
    match values.data_type() == field.data_type() {
        true => Ok(Arc::clone(values)),
        false => Ok(cast(values, field.data_type())?),
    }
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn take_u64(payload: &Buffer, position: &mut usize) -> Result<u64> {
    let Some(head) = payload
        .as_slice()
        .get(*position..)
        .and_then(|rest| rest.first_chunk::<8>())
    else {
        return Err(corrupted("a number cut short"));
    };
    *position += 8;
    Ok(u64::from_le_bytes(*head))
}

fn take_text(payload: &Buffer, position: &mut usize) -> Result<String> {
    let len = take_u64(payload, position)? as usize;
    let Some(bytes) = payload
        .as_slice()
        .get(*position..)
        .and_then(|r| r.get(..len))
    else {
        return Err(corrupted("a name cut short"));
    };
    *position += len;
    String::from_utf8(bytes.to_vec()).map_err(|_| corrupted("a name that is not UTF-8"))
}

fn corrupted(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CORRUPTED_DATA,
        format!("Corrupted data: {PATCHES_FILE} has {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::DataType;

    fn strings(rows: &[u64], values: &[Option<&str>]) -> ColumnPatch {
        ColumnPatch::new(
            Field::new("s", DataType::Utf8, true),
            UInt64Array::from(rows.to_vec()),
            Arc::new(StringArray::from(values.to_vec())),
        )
    }

    #[test]
    fn a_patch_replaces_only_its_rows_in_a_read_range() {
        let patches = Patches::new(vec![strings(&[1, 5, 9], &[Some("x"), None, Some("z")])]);
        let read: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c", "d"]));
        let out = patches.apply("s", 4, Arc::clone(&read)).unwrap();
        let out = out.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            vec![Some("a"), None, Some("c"), Some("d")]
        );
        // Another column, or a range without patched rows, is unchanged.
        assert!(Arc::ptr_eq(
            &patches.apply("t", 4, Arc::clone(&read)).unwrap(),
            &read
        ));
        assert!(Arc::ptr_eq(
            &patches.apply("s", 10, Arc::clone(&read)).unwrap(),
            &read
        ));
    }

    #[test]
    fn folding_keeps_the_newer_value_of_a_row() {
        let older = Patches::new(vec![strings(
            &[1, 3, 5],
            &[Some("a"), Some("b"), Some("c")],
        )]);
        let newer = Patches::new(vec![
            strings(&[0, 3, 7], &[Some("x"), Some("y"), Some("z")]),
            ColumnPatch::new(
                Field::new("n", DataType::Int64, false),
                UInt64Array::from(vec![2]),
                Arc::new(Int64Array::from(vec![7])),
            ),
        ]);
        let folded = older.fold(&newer).unwrap();
        let s = folded.column("s").unwrap();
        assert_eq!(s.rows.values().to_vec(), vec![0, 1, 3, 5, 7]);
        let values = s.values.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(
            values.iter().flatten().collect::<Vec<_>>(),
            vec!["x", "a", "y", "c", "z"]
        );
        assert!(folded.column("n").is_some());
        assert!(folded.without(&["n"]).column("n").is_none());
    }

    #[test]
    fn patches_round_trip_through_their_file_and_torn_bytes_fail() {
        let patches = Patches::new(vec![strings(&[2, 4], &[Some("é"), None])]);
        let bytes = patches.encode().unwrap();
        let back = Patches::decode(&bytes).unwrap();
        let column = back.column("s").unwrap();
        assert_eq!(column.rows.values().to_vec(), vec![2, 4]);
        assert_eq!(column.values.null_count(), 1);
        let mut torn = bytes.clone();
        let last = torn.len() - 1;
        torn[last] ^= 1;
        assert!(Patches::decode(&torn).is_err());
        assert!(Patches::decode(&bytes[..bytes.len() - 1]).is_err());
    }
}
