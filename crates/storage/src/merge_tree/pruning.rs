//! Which parts and granules a filter can need: parts by the min/max of the
//! partition key's columns, granules by the sparse primary index.
//!
//! Both go through DataFusion's `PruningPredicate`, which rewrites the filter
//! into a test on each container's min and max. A granule's bounds come from
//! the index: key column `k` lies between its values at the granule's first
//! row and the next granule's first row whenever the key columns before `k`
//! are equal at both ends (so every row in between shares them).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, StringArray, UInt64Array, make_comparator, new_null_array,
};
use datafusion::arrow::compute::{SortOptions, concat, take};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::common::{Column, ScalarValue};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::pruning::{PruningPredicateBuilder, PruningStatistics};
use strata_common::error::Result;

use super::data_part::DataPart;
use super::keys::TableKeys;
use super::virtual_columns::VirtualColumn;

/// A run of granules of one part that a query reads.
#[derive(Debug, Clone)]
pub struct GranuleRange {
    pub part: Arc<DataPart>,
    pub granules: Range<usize>,
}

impl GranuleRange {
    pub fn rows(&self) -> u64 {
        self.part.part.granules[self.granules.clone()].iter().sum()
    }
}

/// The granule ranges of `parts` that rows matching `filter` can be in.
/// `schema` is the table's, followed by the `virtuals` the filter may name;
/// a part's virtual columns are its constant bounds.
pub fn select_granules(
    schema: &SchemaRef,
    keys: &TableKeys,
    virtuals: &[VirtualColumn],
    parts: &[Arc<DataPart>],
    filter: Option<&Arc<dyn PhysicalExpr>>,
) -> Result<Vec<GranuleRange>> {
    let whole = |part: &Arc<DataPart>| GranuleRange {
        part: Arc::clone(part),
        granules: 0..part.granules(),
    };
    let Some(filter) = filter else {
        return Ok(parts.iter().map(whole).collect());
    };
    // A filter the pruning rewrite cannot use keeps everything.
    let Some(predicate) = PruningPredicateBuilder::new()
        .with_file_schema(Arc::clone(schema))
        .build(Arc::clone(filter))
    else {
        return Ok(parts.iter().map(whole).collect());
    };
    let part_keep = if keys.partition_columns.is_empty() && virtuals.is_empty() {
        vec![true; parts.len()]
    } else {
        predicate.prune(&Bounds {
            containers: parts.len(),
            bound: |column: &Column, upper| match virtuals.iter().find(|v| v.name() == column.name)
            {
                Some(&virtual_column) => virtual_bounds(virtual_column, parts),
                None => part_bounds(schema, keys, parts, column, upper),
            },
        })?
    };
    let primary_columns = keys.primary_columns();
    let mut ranges = Vec::new();
    for (part, keep) in parts.iter().zip(part_keep) {
        if !keep || part.granules() == 0 {
            continue;
        }
        if primary_columns.first().copied().flatten().is_none() {
            ranges.push(whole(part));
            continue;
        }
        let granule_keep = predicate.prune(&Bounds {
            containers: part.granules(),
            bound: |column: &Column, upper| {
                granule_bounds(schema, &primary_columns, part, column, upper)
            },
        })?;
        let mut start = None;
        for (granule, keep) in granule_keep.iter().chain([&false]).enumerate() {
            match (keep, start) {
                (true, None) => start = Some(granule),
                (false, Some(s)) => {
                    ranges.push(GranuleRange {
                        part: Arc::clone(part),
                        granules: s..granule,
                    });
                    start = None;
                }
                _ => {}
            }
        }
    }
    Ok(ranges)
}

/// Containers (parts or granules) known only by each column's lower and
/// upper bounds; `bound(column, upper)` gives one row per container.
struct Bounds<F: Fn(&Column, bool) -> Option<ArrayRef>> {
    containers: usize,
    bound: F,
}

impl<F: Fn(&Column, bool) -> Option<ArrayRef>> PruningStatistics for Bounds<F> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        (self.bound)(column, false)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        (self.bound)(column, true)
    }

    fn num_containers(&self) -> usize {
        self.containers
    }

    fn null_counts(&self, _column: &Column) -> Option<ArrayRef> {
        None
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        None
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}

/// Parts as containers, bounded by their partition columns' min/max index.
fn part_bounds(
    schema: &Schema,
    keys: &TableKeys,
    parts: &[Arc<DataPart>],
    column: &Column,
    upper: bool,
) -> Option<ArrayRef> {
    let index = schema.index_of(&column.name).ok()?;
    let slot = keys.partition_columns.iter().position(|&c| c == index)?;
    let bounds: Vec<ArrayRef> = parts
        .iter()
        .map(|part| match &part.minmax[slot] {
            Some(minmax) => minmax.slice(usize::from(upper), 1),
            None => new_null_array(schema.field(index).data_type(), 1),
        })
        .collect();
    let refs: Vec<&dyn Array> = bounds.iter().map(Arc::as_ref).collect();
    concat(&refs).ok()
}

/// Parts as containers, bounded by the value a virtual column has in each.
fn virtual_bounds(column: VirtualColumn, parts: &[Arc<DataPart>]) -> Option<ArrayRef> {
    let values = parts.iter().map(|part| column.value(part));
    Some(Arc::new(StringArray::from_iter_values(values)))
}

/// One part's granules as containers, bounded through the primary index:
/// index rows `g` (lower) or `g + 1` (upper), or null where an earlier key
/// column changes within the granule.
fn granule_bounds(
    schema: &Schema,
    primary_columns: &[Option<usize>],
    part: &DataPart,
    column: &Column,
    upper: bool,
) -> Option<ArrayRef> {
    let index = schema.index_of(&column.name).ok()?;
    let key = primary_columns.iter().position(|&c| c == Some(index))?;
    if primary_columns[..key].iter().any(Option::is_none) {
        return None;
    }
    let values = &part.primary_index;
    let comparators = values[..key]
        .iter()
        .map(|v| make_comparator(v.as_ref(), v.as_ref(), SortOptions::default()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .ok()?;
    let rows: UInt64Array = (0..part.granules())
        .map(|g| {
            let prefix_fixed = comparators
                .iter()
                .zip(&values[..key])
                .all(|(cmp, v)| !v.is_null(g) && cmp(g, g + 1) == Ordering::Equal);
            prefix_fixed.then_some((g + usize::from(upper)) as u64)
        })
        .collect();
    take(values[key].as_ref(), &rows, None).ok()
}
