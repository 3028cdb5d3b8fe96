//! What a planner may know of a MergeTree table without reading it: its
//! rows, and the most distinct values its first primary-key column can hold
//! (the span of its integer values, from the primary index). Join ordering
//! takes that as the column's number of distinct values: exact for a key
//! that is unique and dense, as a dimension table's usually is.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::Statistics;
use datafusion::common::stats::Precision;

use super::{MergeTreeTable, Snapshot};

/// The table's statistics now: rows exact as the parts hold them (rows a
/// lightweight DELETE hides included), one column's distinct values at most.
pub fn table_statistics(table: &MergeTreeTable) -> Statistics {
    let parts = table.snapshot();
    let rows: u64 = parts.iter().map(|p| p.part.rows).sum();
    let mut statistics = Statistics::new_unknown(table.schema());
    statistics.num_rows = Precision::Inexact(rows as usize);
    let first_key = table.keys().primary_columns().first().copied().flatten();
    if let Some(column) = first_key
        && let Some(span) = key_span(&parts)
    {
        let distinct = span.min(rows as f64) as usize;
        statistics.column_statistics[column].distinct_count = Precision::Inexact(distinct);
    }
    statistics
}

/// How many integers lie between the least and greatest value of the first
/// primary-key column in all parts; `None` for a key of another type.
fn key_span(parts: &Snapshot) -> Option<f64> {
    let (mut least, mut greatest) = (f64::INFINITY, f64::NEG_INFINITY);
    for part in parts.iter().filter(|p| p.part.rows > 0) {
        let index = part.primary_index.first()?;
        if !index.data_type().is_integer() {
            return None;
        }
        let values = cast(index, &DataType::Float64).ok()?;
        let values = values.as_primitive::<Float64Type>();
        // Granule starts and the last row, in key order.
        if values.null_count() > 0 || values.is_empty() {
            return None;
        }
        least = least.min(values.value(0));
        greatest = greatest.max(values.value(values.len() - 1));
    }
    (least <= greatest).then(|| greatest - least + 1.0)
}
