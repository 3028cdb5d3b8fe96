//! `set(N)`: each index granule's distinct values, unless there are more
//! than N.

use std::collections::HashSet;
use std::ops::Range;

use datafusion::arrow::array::{Array, ArrayRef, UInt32Array, UInt64Array};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use strata_common::error::Result;

use super::Summary;

/// The count of an index granule with more values than its set holds.
pub(super) const UNKNOWN_COUNT: u32 = u32::MAX;

/// Each index granule's distinct values, up to `max_values` (0: any number).
pub(super) fn build_set(
    values: &ArrayRef,
    ranges: &[Range<usize>],
    max_values: usize,
) -> Result<Summary> {
    let converter = RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
    let rows = converter.convert_columns(std::slice::from_ref(values))?;
    let mut counts = Vec::with_capacity(ranges.len());
    let mut kept: Vec<u64> = Vec::new();
    for range in ranges {
        let mut seen = HashSet::new();
        let first = kept.len();
        let mut overflow = false;
        for row in range.clone() {
            if seen.insert(rows.row(row)) {
                if max_values > 0 && seen.len() > max_values {
                    overflow = true;
                    break;
                }
                kept.push(row as u64);
            }
        }
        if overflow {
            kept.truncate(first);
            counts.push(UNKNOWN_COUNT);
        } else {
            counts.push((kept.len() - first) as u32);
        }
    }
    let values = take(values.as_ref(), &UInt64Array::from(kept), None)?;
    Ok(Summary::Set {
        counts: UInt32Array::from(counts),
        values,
    })
}

/// For each index granule: false where the set holds none of `values`,
/// true where it holds only values among them, else null.
pub(super) fn set_contains(
    counts: &UInt32Array,
    set: &ArrayRef,
    wanted: &ArrayRef,
) -> Option<Vec<Option<bool>>> {
    let converter = RowConverter::new(vec![SortField::new(set.data_type().clone())]).ok()?;
    let wanted = converter
        .convert_columns(std::slice::from_ref(wanted))
        .ok()?;
    let wanted: HashSet<_> = wanted.iter().collect();
    let held = converter.convert_columns(std::slice::from_ref(set)).ok()?;
    let mut start = 0;
    Some(
        counts
            .values()
            .iter()
            .map(|&count| {
                if count == UNKNOWN_COUNT {
                    return None;
                }
                let range = start..start + count as usize;
                start = range.end;
                // A NULL never equals a value, so it counts as neither.
                let found: Vec<bool> = range
                    .filter(|&i| set.is_valid(i))
                    .map(|i| wanted.contains(&held.row(i)))
                    .collect();
                if !found.iter().any(|&f| f) {
                    Some(false)
                } else if found.iter().all(|&f| f) {
                    Some(true)
                } else {
                    None
                }
            })
            .collect(),
    )
}

/// `values` as one array of `data_type`; `None` if one does not convert.
pub(super) fn literal_array(
    values: &HashSet<ScalarValue>,
    data_type: &DataType,
) -> Option<ArrayRef> {
    let array = ScalarValue::iter_to_array(values.iter().cloned()).ok()?;
    let converted = cast(&array, data_type).ok()?;
    // A value that does not survive the conversion (a cut number, text
    // that is not one) could match nothing or anything: unknown.
    (converted.null_count() == array.null_count()).then_some(converted)
}
