//! How rows with the same sorting key combine in the MergeTree family's
//! engines: ReplacingMergeTree keeps one row per key, SummingMergeTree adds
//! up its numeric columns, CollapsingMergeTree cancels "state" rows
//! (sign 1) against "cancel" rows (sign -1), AggregatingMergeTree merges
//! its aggregate-function states.
//!
//! As in ClickHouse, the rows combine when a part is written, whether by an
//! insert (ClickHouse's `optimize_on_insert`) or a merge, and when a query
//! reads the table with `FINAL`; a key's rows in different parts stay apart
//! until those parts merge. The rows come sorted by the sorting key with the
//! rows of one key in insertion order, which decides "the last row" below.

use std::fmt::Debug;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, ArrowNativeTypeOp, AsArray, BooleanArray, Int8Array, PrimitiveArray,
    RecordBatch, UInt64Array,
};
use datafusion::arrow::compute::{cast, filter_record_batch, take_record_batch};
use datafusion::arrow::datatypes::{ArrowPrimitiveType, DataType, Schema};
use datafusion::arrow::row::{RowConverter, SortField};
use strata_common::error::{ErrorCode, Result, StrataError};

/// The rule a table's engine combines rows of one key by; columns are
/// indices into the table's schema.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MergeMode {
    /// MergeTree: rows never combine.
    #[default]
    Ordinary,
    /// ReplacingMergeTree([version[, is_deleted]]): the row with the highest
    /// version, the last inserted among equals; under FINAL, none if that
    /// row's `is_deleted` is 1.
    Replacing {
        version: Option<usize>,
        is_deleted: Option<usize>,
    },
    /// SummingMergeTree([columns]): one row whose `columns` are the sums,
    /// whose `combined` columns (aggregate states) are merged as
    /// AggregatingMergeTree merges them, and whose other columns come from
    /// the first row; a row whose sums are all zero goes.
    Summing {
        columns: Vec<usize>,
        combined: Vec<CombinedColumn>,
    },
    /// CollapsingMergeTree(sign): per key, with `s` state and `c` cancel
    /// rows: the first cancel and the last state row when `s == c` and the
    /// last row is a state row, none when `s == c` otherwise, the last state
    /// row when `s > c`, the first cancel row when `c > s`; FINAL shows only
    /// the state rows of that.
    Collapsing { sign: usize },
    /// AggregatingMergeTree: one row whose `columns` are combined by their
    /// aggregate and whose other columns come from the first row.
    Aggregating { columns: Vec<CombinedColumn> },
    /// VersionedCollapsingMergeTree(sign, version), whose sorting key ends
    /// with the version: per key, in order, a row cancels the last row
    /// not yet cancelled if their signs differ; the rows left stay, with
    /// either sign, under FINAL too.
    VersionedCollapsing { sign: usize },
}

/// Combines a column's values of each group of rows into one value. The
/// engine supplies it: storage does not know aggregate functions.
pub trait GroupCombiner: Debug + Send + Sync {
    /// One value per range of `column`'s rows.
    fn combine(&self, column: &ArrayRef, groups: &[Range<usize>]) -> Result<ArrayRef>;
}

/// A column of an AggregatingMergeTree and how its values combine; equal
/// when the column is (a table's columns have one combiner each).
#[derive(Debug, Clone)]
pub struct CombinedColumn {
    pub index: usize,
    pub combiner: Arc<dyn GroupCombiner>,
}

impl PartialEq for CombinedColumn {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for CombinedColumn {}

impl MergeMode {
    pub fn combines(&self) -> bool {
        *self != MergeMode::Ordinary
    }

    /// `rows`, sorted by the sorting key whose values are `keys` (one array
    /// per key expression), with each key's rows combined. `final_read`
    /// applies what only FINAL does (ReplacingMergeTree's `is_deleted`).
    pub fn combine(
        &self,
        rows: &RecordBatch,
        keys: &[ArrayRef],
        final_read: bool,
    ) -> Result<RecordBatch> {
        if !self.combines() || rows.num_rows() == 0 {
            return Ok(rows.clone());
        }
        let groups = key_groups(keys, rows.num_rows())?;
        match self {
            MergeMode::Ordinary => Ok(rows.clone()),
            MergeMode::Replacing {
                version,
                is_deleted,
            } => {
                let chosen = replacing_rows(rows, &groups, *version)?;
                let kept = take_record_batch(rows, &chosen)?;
                match (final_read, is_deleted) {
                    (true, Some(column)) => drop_deleted(&kept, *column),
                    _ => Ok(kept),
                }
            }
            MergeMode::Summing { columns, combined } => {
                summing_rows(rows, &groups, columns, combined)
            }
            MergeMode::Aggregating { columns } => {
                let firsts: UInt64Array = groups.iter().map(|g| g.start as u64).collect();
                combine_columns(take_record_batch(rows, &firsts)?, rows, &groups, columns)
            }
            MergeMode::VersionedCollapsing { sign } => {
                let chosen = versioned_collapsing_rows(rows.column(*sign), &groups)?;
                Ok(take_record_batch(rows, &chosen)?)
            }
            MergeMode::Collapsing { sign } => {
                let chosen = collapsing_rows(rows.column(*sign), &groups)?;
                let kept = take_record_batch(rows, &chosen)?;
                match final_read {
                    // FINAL shows the state rows only.
                    true => state_rows(&kept, *sign),
                    false => Ok(kept),
                }
            }
        }
    }
}

/// The rows of `rows` but those equal to an earlier one in `columns`.
pub fn first_of_equal_rows(rows: &RecordBatch, columns: &[usize]) -> Result<RecordBatch> {
    let values: Vec<ArrayRef> = columns
        .iter()
        .map(|&c| Arc::clone(rows.column(c)))
        .collect();
    let fields = values
        .iter()
        .map(|v| SortField::new(v.data_type().clone()))
        .collect();
    let converted = RowConverter::new(fields)?.convert_columns(&values)?;
    let mut seen = std::collections::HashSet::with_capacity(rows.num_rows());
    let kept: BooleanArray = converted.iter().map(|row| Some(seen.insert(row))).collect();
    Ok(filter_record_batch(rows, &kept)?)
}

/// The ranges of rows with equal keys, in order.
fn key_groups(keys: &[ArrayRef], rows: usize) -> Result<Vec<Range<usize>>> {
    if keys.is_empty() {
        // No sorting key: every row has the same (empty) key.
        return Ok(vec![0..rows]);
    }
    let fields = keys
        .iter()
        .map(|k| SortField::new(k.data_type().clone()))
        .collect();
    let converted = RowConverter::new(fields)?.convert_columns(keys)?;
    let mut groups = Vec::new();
    let mut start = 0;
    for row in 1..rows {
        if converted.row(row) != converted.row(row - 1) {
            groups.push(start..row);
            start = row;
        }
    }
    groups.push(start..rows);
    Ok(groups)
}

/// ReplacingMergeTree: per group, the row with the highest version, the
/// last of equals (the last row without a version column).
fn replacing_rows(
    rows: &RecordBatch,
    groups: &[Range<usize>],
    version: Option<usize>,
) -> Result<UInt64Array> {
    let Some(column) = version else {
        return Ok(groups.iter().map(|g| (g.end - 1) as u64).collect());
    };
    let versions = ordered_versions(rows.column(column))?;
    Ok(groups
        .iter()
        .map(|group| {
            let best = group
                .clone()
                .max_by_key(|&row| (versions[row], row))
                .expect("a group has rows");
            best as u64
        })
        .collect())
}

/// Versions (integers, dates, times) as numbers that order as they do.
fn ordered_versions(values: &ArrayRef) -> Result<Vec<i128>> {
    let unsigned = matches!(
        values.data_type(),
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64
    );
    if unsigned {
        let wide = cast(values, &DataType::UInt64)?;
        let wide = wide.as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
        return Ok(wide.values().iter().map(|&v| i128::from(v)).collect());
    }
    let wide = cast(values, &DataType::Int64)?;
    let wide = wide.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
    Ok(wide.values().iter().map(|&v| i128::from(v)).collect())
}

/// Rows whose `is_deleted` column is not 1.
fn drop_deleted(rows: &RecordBatch, column: usize) -> Result<RecordBatch> {
    let deleted = cast(rows.column(column), &DataType::UInt8)?;
    let deleted = deleted.as_primitive::<datafusion::arrow::datatypes::UInt8Type>();
    let kept: BooleanArray = deleted.iter().map(|d| Some(d != Some(1))).collect();
    Ok(filter_record_batch(rows, &kept)?)
}

/// CollapsingMergeTree: the rows each group keeps, by the rule on
/// [`MergeMode::Collapsing`].
fn collapsing_rows(sign: &ArrayRef, groups: &[Range<usize>]) -> Result<UInt64Array> {
    let signs = signs(sign)?;
    let mut kept = Vec::new();
    for group in groups {
        let states = group.clone().filter(|&r| signs.value(r) == 1);
        let cancels = group.clone().filter(|&r| signs.value(r) == -1);
        let (state_count, cancel_count) = (states.clone().count(), cancels.clone().count());
        debug_assert_eq!(state_count + cancel_count, group.len());
        let last_is_state = signs.value(group.end - 1) == 1;
        let first_cancel = cancels.clone().next();
        let last_state = states.clone().last();
        let chosen: Vec<Option<usize>> = match state_count.cmp(&cancel_count) {
            std::cmp::Ordering::Equal if last_is_state => vec![first_cancel, last_state],
            std::cmp::Ordering::Equal => vec![],
            std::cmp::Ordering::Greater => vec![last_state],
            std::cmp::Ordering::Less => vec![first_cancel],
        };
        kept.extend(chosen.into_iter().flatten().map(|r| r as u64));
    }
    Ok(UInt64Array::from(kept))
}

/// VersionedCollapsingMergeTree: the rows each group keeps, by the rule on
/// [`MergeMode::VersionedCollapsing`].
fn versioned_collapsing_rows(sign: &ArrayRef, groups: &[Range<usize>]) -> Result<UInt64Array> {
    let signs = signs(sign)?;
    let mut kept = Vec::new();
    for group in groups {
        // Rows not yet cancelled; all of one sign.
        let mut pending: Vec<usize> = Vec::new();
        for row in group.clone() {
            match pending.last() {
                Some(&last) if signs.value(last) != signs.value(row) => {
                    pending.pop();
                }
                _ => pending.push(row),
            }
        }
        kept.extend(pending.into_iter().map(|r| r as u64));
    }
    Ok(UInt64Array::from(kept))
}

/// A sign column as Int8, failing on a value other than 1 or -1.
fn signs(sign: &ArrayRef) -> Result<Int8Array> {
    let signs = cast(sign, &DataType::Int8)?;
    let signs: &Int8Array = signs.as_primitive();
    if signs.iter().any(|s| !matches!(s, Some(1 | -1))) {
        return Err(StrataError::new(
            ErrorCode::INCORRECT_DATA,
            "The sign column of a collapsing table holds a value other than 1 or -1",
        ));
    }
    Ok(signs.clone())
}

/// The rows whose sign is 1.
fn state_rows(rows: &RecordBatch, sign: usize) -> Result<RecordBatch> {
    let signs = cast(rows.column(sign), &DataType::Int8)?;
    let signs: &Int8Array = signs.as_primitive();
    let states: BooleanArray = signs.iter().map(|s| Some(s == Some(1))).collect();
    Ok(filter_record_batch(rows, &states)?)
}

/// SummingMergeTree: each group as its first row with `columns` summed and
/// `states` combined; groups whose sums are all zero are left out.
fn summing_rows(
    rows: &RecordBatch,
    groups: &[Range<usize>],
    columns: &[usize],
    states: &[CombinedColumn],
) -> Result<RecordBatch> {
    let firsts: UInt64Array = groups.iter().map(|g| g.start as u64).collect();
    let mut combined = take_record_batch(rows, &firsts)?.columns().to_vec();
    let mut all_zero = vec![true; groups.len()];
    for &column in columns {
        let sums = group_sums(rows.column(column), groups)?;
        for (flag, zero) in all_zero.iter_mut().zip(is_zero(&sums)?) {
            *flag &= zero;
        }
        combined[column] = sums;
    }
    let schema: Arc<Schema> = rows.schema();
    let combined = RecordBatch::try_new(schema, combined)?;
    let combined = combine_columns(combined, rows, groups, states)?;
    if columns.is_empty() {
        return Ok(combined);
    }
    let kept: BooleanArray = all_zero.iter().map(|&z| Some(!z)).collect();
    Ok(filter_record_batch(&combined, &kept)?)
}

/// `combined`, one row per group of `rows`, with `columns` replaced by
/// their values combined over each group.
fn combine_columns(
    combined: RecordBatch,
    rows: &RecordBatch,
    groups: &[Range<usize>],
    columns: &[CombinedColumn],
) -> Result<RecordBatch> {
    debug_assert_eq!(combined.num_rows(), groups.len());
    if columns.is_empty() {
        return Ok(combined);
    }
    let mut out = combined.columns().to_vec();
    for column in columns {
        let values = column.combiner.combine(rows.column(column.index), groups)?;
        debug_assert_eq!(values.len(), groups.len());
        out[column.index] = values;
    }
    Ok(RecordBatch::try_new(rows.schema(), out)?)
}

/// The sum of `values` over each group, in `values`' type (integers wrap,
/// as ClickHouse's do; NULLs are skipped).
fn group_sums(values: &ArrayRef, groups: &[Range<usize>]) -> Result<ArrayRef> {
    use datafusion::arrow::datatypes::*;
    macro_rules! sums {
        ($($variant:ident => $ty:ty),*) => {
            match values.data_type() {
                $(DataType::$variant => Ok(Arc::new(sums_of::<$ty>(values, groups)))),*,
                other => Err(StrataError::new(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("SummingMergeTree cannot sum a column of type {other}"),
                )),
            }
        };
    }
    sums!(Int8 => Int8Type, Int16 => Int16Type, Int32 => Int32Type, Int64 => Int64Type,
        UInt8 => UInt8Type, UInt16 => UInt16Type, UInt32 => UInt32Type, UInt64 => UInt64Type,
        Float32 => Float32Type, Float64 => Float64Type)
}

fn sums_of<T>(values: &ArrayRef, groups: &[Range<usize>]) -> PrimitiveArray<T>
where
    T: ArrowPrimitiveType,
    T::Native: ArrowNativeTypeOp,
{
    let values = values.as_primitive::<T>();
    groups
        .iter()
        .map(|group| {
            group
                .clone()
                .filter(|&row| values.is_valid(row))
                .map(|row| values.value(row))
                .reduce(|sum, value| sum.add_wrapping(value))
        })
        .collect()
}

/// Whether each value is zero (or NULL).
fn is_zero(values: &ArrayRef) -> Result<Vec<bool>> {
    let as_float = cast(values, &DataType::Float64)?;
    let floats = as_float.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
    Ok(floats.iter().map(|v| v.unwrap_or(0.0) == 0.0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray, UInt32Array};
    use datafusion::arrow::datatypes::Field;

    fn batch(keys: &[u32], values: &[i64], texts: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::UInt32, false),
            Field::new("v", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(UInt32Array::from(keys.to_vec())),
                Arc::new(Int64Array::from(values.to_vec())),
                Arc::new(StringArray::from(texts.to_vec())),
            ],
        )
        .unwrap()
    }

    fn column<T: Clone>(
        rows: &RecordBatch,
        index: usize,
        f: impl Fn(&ArrayRef, usize) -> T,
    ) -> Vec<T> {
        (0..rows.num_rows())
            .map(|r| f(rows.column(index), r))
            .collect()
    }

    fn texts(rows: &RecordBatch) -> Vec<String> {
        column(rows, 2, |a, r| a.as_string::<i32>().value(r).to_string())
    }

    #[test]
    fn replacing_keeps_the_highest_version_then_the_last_row() {
        let rows = batch(
            &[1, 1, 1, 2, 3, 3],
            &[5, 7, 7, 0, 1, 0],
            &["a", "b", "c", "d", "e", "f"],
        );
        let keys = vec![Arc::clone(rows.column(0))];
        let by_version = MergeMode::Replacing {
            version: Some(1),
            is_deleted: None,
        };
        let kept = by_version.combine(&rows, &keys, false).unwrap();
        assert_eq!(texts(&kept), ["c", "d", "e"]);
        let last = MergeMode::Replacing {
            version: None,
            is_deleted: None,
        };
        assert_eq!(
            texts(&last.combine(&rows, &keys, false).unwrap()),
            ["c", "d", "f"]
        );
    }

    #[test]
    fn summing_adds_numbers_keeps_the_first_text_and_drops_zero_sums() {
        let rows = batch(
            &[1, 1, 2, 2, 3],
            &[2, 3, 4, -4, 0],
            &["x", "y", "z", "w", "v"],
        );
        let keys = vec![Arc::clone(rows.column(0))];
        let kept = MergeMode::Summing {
            columns: vec![1],
            combined: Vec::new(),
        }
        .combine(&rows, &keys, false)
        .unwrap();
        assert_eq!(texts(&kept), ["x"]);
        assert_eq!(
            column(&kept, 1, |a, r| a
                .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                .value(r)),
            [5]
        );
    }

    /// Joins a group's texts, as an aggregate state would combine.
    #[derive(Debug)]
    struct Joined;

    impl GroupCombiner for Joined {
        fn combine(&self, column: &ArrayRef, groups: &[Range<usize>]) -> Result<ArrayRef> {
            let texts = column.as_string::<i32>();
            let joined: StringArray = groups
                .iter()
                .map(|g| Some(g.clone().map(|r| texts.value(r)).collect::<String>()))
                .collect();
            Ok(Arc::new(joined))
        }
    }

    #[test]
    fn aggregating_combines_its_columns_and_keeps_the_first_row_of_others() {
        let rows = batch(
            &[1, 1, 2, 2, 2],
            &[7, 8, 0, 1, 2],
            &["a", "b", "c", "d", "e"],
        );
        let keys = vec![Arc::clone(rows.column(0))];
        let texts_joined = CombinedColumn {
            index: 2,
            combiner: Arc::new(Joined),
        };
        let kept = MergeMode::Aggregating {
            columns: vec![texts_joined.clone()],
        }
        .combine(&rows, &keys, false)
        .unwrap();
        assert_eq!(texts(&kept), ["ab", "cde"]);
        let int = |a: &ArrayRef, r| {
            a.as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                .value(r)
        };
        assert_eq!(column(&kept, 1, int), [7, 0]);
        // Summing drops the group whose sums are zero after combining the rest.
        let rows = batch(&[1, 1, 2, 2], &[2, 3, 4, -4], &["x", "y", "z", "w"]);
        let keys = vec![Arc::clone(rows.column(0))];
        let kept = MergeMode::Summing {
            columns: vec![1],
            combined: vec![texts_joined],
        }
        .combine(&rows, &keys, false)
        .unwrap();
        assert_eq!(texts(&kept), ["xy"]);
        assert_eq!(column(&kept, 1, int), [5]);
    }

    #[test]
    fn versioned_collapsing_cancels_each_row_against_the_last_pending_one() {
        // Key 1: +a +b -c leaves a; key 2: +d -e +f leaves f; key 3: -g stays.
        let rows = batch(
            &[1, 1, 1, 2, 2, 2, 3],
            &[1, 1, -1, 1, -1, 1, -1],
            &["a", "b", "c", "d", "e", "f", "g"],
        );
        let keys = [Arc::clone(rows.column(0))];
        let mode = MergeMode::VersionedCollapsing { sign: 1 };
        for final_read in [false, true] {
            let kept = mode.combine(&rows, &keys, final_read).unwrap();
            assert_eq!(texts(&kept), ["a", "f", "g"]);
        }
        let bad = batch(&[1], &[2], &["x"]);
        let error = mode.combine(&bad, &[Arc::clone(bad.column(0))], false);
        assert!(error.is_err());
    }

    #[test]
    fn collapsing_cancels_state_rows_against_cancel_rows() {
        // Key 1: 2 states, 1 cancel: the last state. Key 2: state then
        // cancel: nothing. Key 3: cancel then state: both. Key 4: 1 cancel.
        let rows = batch(
            &[1, 1, 1, 2, 2, 3, 3, 4],
            &[1, -1, 1, 1, -1, -1, 1, -1],
            &["a", "b", "c", "d", "e", "f", "g", "h"],
        );
        let keys = vec![Arc::clone(rows.column(0))];
        let kept = MergeMode::Collapsing { sign: 1 }
            .combine(&rows, &keys, false)
            .unwrap();
        assert_eq!(texts(&kept), ["c", "f", "g", "h"]);
        let bad = batch(&[1], &[2], &["x"]);
        assert!(
            MergeMode::Collapsing { sign: 1 }
                .combine(&bad, &[Arc::clone(bad.column(0))], false)
                .is_err()
        );
    }
}
