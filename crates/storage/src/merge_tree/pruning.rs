//! Which parts and granules a filter can need, step by step: parts by the
//! min/max of the partition key's columns, then granules by the sparse
//! primary index, by each column's granule bounds, and by each skipping
//! index (see [`super::skip_index`]). Each step is reported for `EXPLAIN
//! indexes = 1`.
//!
//! The steps go through DataFusion's `PruningPredicate`, which rewrites the
//! filter into a test on each container's min and max. Through the index,
//! key column `k` lies between its values at the granule's first row and
//! the next granule's first row whenever the key columns before `k` are
//! equal at both ends (so every row in between shares them).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, StringArray, UInt64Array, make_comparator, new_null_array,
};
use datafusion::arrow::compute::{SortOptions, concat, take};
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::common::{Column, ScalarValue};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::pruning::{
    PruningPredicate, PruningPredicateBuilder, PruningStatistics,
};
use strata_common::error::Result;

use super::data_part::DataPart;
use super::keys::TableKeys;
use super::skip_index::{IndexKind, Need, SkipIndexKey};
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

/// The granule ranges a scan reads, and how each step narrowed them.
#[derive(Debug, Default)]
pub struct Selection {
    pub ranges: Vec<GranuleRange>,
    pub report: PruningReport,
}

/// What each pruning step kept, in order, for `EXPLAIN indexes = 1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PruningReport {
    pub steps: Vec<PruningStep>,
}

/// One pruning step: the parts and granules it was given and kept.
#[derive(Debug, Clone, PartialEq)]
pub struct PruningStep {
    pub kind: StepKind,
    pub parts_in: usize,
    pub parts_kept: usize,
    pub granules_in: usize,
    pub granules_kept: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// Parts by the min/max of the partition key's columns.
    MinMax,
    /// Granules by the sparse primary index.
    PrimaryKey,
    /// Granules by each column's granule bounds.
    GranuleBounds,
    /// Granules by a skipping index: its name and type.
    Skip { name: String, description: String },
}

impl PruningStep {
    fn new(kind: StepKind) -> Self {
        PruningStep {
            kind,
            parts_in: 0,
            parts_kept: 0,
            granules_in: 0,
            granules_kept: 0,
        }
    }

    /// Counts one part the step was given with `before` granules kept and
    /// left with `after`.
    fn count(&mut self, before: &[bool], after: &[bool]) {
        let kept = |keep: &[bool]| keep.iter().filter(|&&k| k).count();
        self.parts_in += usize::from(before.contains(&true));
        self.parts_kept += usize::from(after.contains(&true));
        self.granules_in += kept(before);
        self.granules_kept += kept(after);
        debug_assert!(
            self.granules_kept <= self.granules_in,
            "a step only drops granules"
        );
    }
}

/// What pruning may know a part's rows by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summaries {
    /// The keys, granule bounds and skipping indexes: the rows are read as
    /// the part holds them.
    Written,
    /// Only the keys, which nothing changes: for rows an earlier command of
    /// a mutation may have changed.
    KeysOnly,
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
    summaries: Summaries,
) -> Result<Selection> {
    let mut keeps: Vec<Vec<bool>> = parts.iter().map(|p| vec![true; p.granules()]).collect();
    let mut report = PruningReport::default();
    if let Some(filter) = filter {
        let pruning = Pruning {
            schema,
            keys,
            virtuals,
            parts,
        };
        report.steps = pruning.prune(filter, summaries, &mut keeps)?;
    }
    let mut ranges = Vec::new();
    for (part, keep) in parts.iter().zip(keeps) {
        let mut start = None;
        for (granule, keep) in keep.iter().chain([&false]).enumerate() {
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
    Ok(Selection { ranges, report })
}

/// The parts one selection prunes, and what it knows of them.
struct Pruning<'a> {
    schema: &'a SchemaRef,
    keys: &'a TableKeys,
    virtuals: &'a [VirtualColumn],
    parts: &'a [Arc<DataPart>],
}

impl Pruning<'_> {
    /// Clears the granules of `keeps` (one list per part) that no row
    /// matching `filter` can be in, step by step, and returns the steps.
    fn prune(
        &self,
        filter: &Arc<dyn PhysicalExpr>,
        summaries: Summaries,
        keeps: &mut [Vec<bool>],
    ) -> Result<Vec<PruningStep>> {
        let mut steps = Vec::new();
        // A filter the pruning rewrite cannot use keeps everything.
        let predicate = PruningPredicateBuilder::new()
            .with_file_schema(Arc::clone(self.schema))
            .build(Arc::clone(filter));
        if let Some(predicate) = &predicate {
            if !self.keys.partition_columns.is_empty() || !self.virtuals.is_empty() {
                steps.push(self.by_partition(predicate, keeps)?);
            }
            if self
                .keys
                .primary_columns()
                .first()
                .copied()
                .flatten()
                .is_some()
            {
                steps.push(self.by_primary_key(predicate, keeps)?);
            }
            if summaries == Summaries::Written {
                steps.push(self.by_granule_bounds(predicate, keeps)?);
            }
        }
        if summaries == Summaries::Written {
            for index in &self.keys.indexes {
                if let Some(step) = self.by_index(index, filter, keeps)? {
                    steps.push(step);
                }
            }
        }
        Ok(steps)
    }

    fn by_partition(
        &self,
        predicate: &PruningPredicate,
        keeps: &mut [Vec<bool>],
    ) -> Result<PruningStep> {
        let (schema, parts) = (self.schema, self.parts);
        let part_keep = predicate.prune(&Containers {
            containers: parts.len(),
            bound: |column: &Column, upper| match self
                .virtuals
                .iter()
                .find(|v| v.name() == column.name)
            {
                Some(&virtual_column) => virtual_bounds(virtual_column, parts),
                None => part_bounds(schema, self.keys, parts, column, upper),
            },
            contained: values_unknown,
        })?;
        let mut step = PruningStep::new(StepKind::MinMax);
        for (keep, part_kept) in keeps.iter_mut().zip(part_keep) {
            let before = keep.clone();
            if !part_kept {
                keep.fill(false);
            }
            step.count(&before, keep);
        }
        Ok(step)
    }

    fn by_primary_key(
        &self,
        predicate: &PruningPredicate,
        keeps: &mut [Vec<bool>],
    ) -> Result<PruningStep> {
        let primary_columns = self.keys.primary_columns();
        let mut step = PruningStep::new(StepKind::PrimaryKey);
        prune_granules(self.parts, keeps, &mut step, |part, keep| {
            let index_keep = predicate.prune(&Containers {
                containers: part.granules(),
                bound: |column: &Column, upper| {
                    granule_bounds(self.schema, &primary_columns, part, column, upper)
                },
                contained: values_unknown,
            })?;
            and_into(keep, &index_keep);
            Ok(())
        })?;
        Ok(step)
    }

    fn by_granule_bounds(
        &self,
        predicate: &PruningPredicate,
        keeps: &mut [Vec<bool>],
    ) -> Result<PruningStep> {
        let mut step = PruningStep::new(StepKind::GranuleBounds);
        prune_granules(self.parts, keeps, &mut step, |part, keep| {
            let bounds_keep = predicate.prune(&Containers {
                containers: part.granules(),
                bound: |column: &Column, upper| written_bounds(self.schema, part, column, upper),
                contained: values_unknown,
            })?;
            and_into(keep, &bounds_keep);
            Ok(())
        })?;
        Ok(step)
    }

    /// `None` where the filter reads none of the index's expressions.
    fn by_index(
        &self,
        index: &SkipIndexKey,
        filter: &Arc<dyn PhysicalExpr>,
        keeps: &mut [Vec<bool>],
    ) -> Result<Option<PruningStep>> {
        let Some(index_predicate) = IndexPredicate::new(index, self.schema, filter)? else {
            return Ok(None);
        };
        let mut step = PruningStep::new(StepKind::Skip {
            name: index.name.clone(),
            description: index.description(),
        });
        prune_granules(self.parts, keeps, &mut step, |part, keep| {
            index_predicate.prune(self.schema, part, keep)
        })?;
        Ok(Some(step))
    }
}

/// Runs `step` over each part with granules left, counting what it keeps.
fn prune_granules(
    parts: &[Arc<DataPart>],
    keeps: &mut [Vec<bool>],
    step: &mut PruningStep,
    mut prune_part: impl FnMut(&DataPart, &mut [bool]) -> Result<()>,
) -> Result<()> {
    for (part, keep) in parts.iter().zip(keeps.iter_mut()) {
        if !keep.contains(&true) {
            continue;
        }
        let before = keep.clone();
        prune_part(part, keep)?;
        step.count(&before, keep);
    }
    Ok(())
}

/// Clears `keep` where `other` is false.
fn and_into(keep: &mut [bool], other: &[bool]) {
    debug_assert_eq!(keep.len(), other.len(), "one flag per granule");
    for (kept, &other) in keep.iter_mut().zip(other) {
        *kept &= other;
    }
}

/// A filter as one skipping index can prune by it.
struct IndexPredicate<'a> {
    index: &'a SkipIndexKey,
    check: IndexCheck,
    /// The column each of the index's expressions is in the filter, and
    /// its type there.
    columns: Vec<(String, DataType)>,
}

/// How an index's summaries answer a filter.
enum IndexCheck {
    /// Through DataFusion's pruning, from bounds and value sets.
    Statistics(Arc<PruningPredicate>),
    /// By what a matching string must contain (text indexes).
    Text(Need),
}

impl<'a> IndexPredicate<'a> {
    /// `None` where the filter reads none of the index's expressions or
    /// has no form pruning can use.
    fn new(
        index: &'a SkipIndexKey,
        schema: &SchemaRef,
        filter: &Arc<dyn PhysicalExpr>,
    ) -> Result<Option<Self>> {
        let Some(rewritten) = index.rewrite(schema, filter)? else {
            return Ok(None);
        };
        let check = match index.kind {
            IndexKind::Text(shape) => {
                let names: Vec<String> = rewritten.columns.iter().map(|(n, _)| n.clone()).collect();
                let need = shape.need(&rewritten.predicate, &names);
                need.is_known().then_some(IndexCheck::Text(need))
            }
            _ => PruningPredicateBuilder::new()
                .with_file_schema(rewritten.schema)
                .build(rewritten.predicate)
                .map(IndexCheck::Statistics),
        };
        Ok(check.map(|check| IndexPredicate {
            index,
            check,
            columns: rewritten.columns,
        }))
    }

    /// Clears `keep` for the granules of `part` the index rules out.
    fn prune(&self, schema: &Schema, part: &DataPart, keep: &mut [bool]) -> Result<()> {
        let Some(summaries) = part.skip_index(self.index, schema) else {
            return Ok(());
        };
        let granules = part.granules();
        let predicate = match &self.check {
            IndexCheck::Text(need) => {
                and_into(keep, &summaries.may_match(need, granules));
                return Ok(());
            }
            IndexCheck::Statistics(predicate) => predicate,
        };
        let element = |column: &Column| self.columns.iter().position(|(c, _)| *c == column.name);
        let statistics = Containers {
            containers: granules,
            bound: |column: &Column, upper| {
                let element = element(column)?;
                summaries.bounds(element, upper, granules, &self.columns[element].1)
            },
            contained: |column: &Column, values: &HashSet<ScalarValue>| {
                summaries.contained(element(column)?, values, granules)
            },
        };
        and_into(keep, &predicate.prune(&statistics)?);
        Ok(())
    }
}

/// Containers (parts or granules) known by each column's lower and upper
/// bounds (`bound(column, upper)`, one row per container) and, for a
/// skipping index, which values they hold (`contained`).
struct Containers<B, C> {
    containers: usize,
    bound: B,
    contained: C,
}

impl<B, C> PruningStatistics for Containers<B, C>
where
    B: Fn(&Column, bool) -> Option<ArrayRef>,
    C: Fn(&Column, &HashSet<ScalarValue>) -> Option<BooleanArray>,
{
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

    fn contained(&self, column: &Column, values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        (self.contained)(column, values)
    }
}

/// For containers known by bounds alone: which values they hold is unknown.
fn values_unknown(_column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
    None
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

/// One part's granules as containers, bounded by the column's granule
/// bounds: only where the part holds the column in the table's type and no
/// patch changed its values since they were written.
fn written_bounds(
    schema: &Schema,
    part: &DataPart,
    column: &Column,
    upper: bool,
) -> Option<ArrayRef> {
    let field = schema.field_with_name(&column.name).ok()?;
    let stored = part.part.column(&column.name)?;
    if stored.data_type() != field.data_type() || part.part.patches.column(&column.name).is_some() {
        return None;
    }
    match part.part.granule_bounds(&column.name) {
        Ok(bounds) => bounds.map(|b| {
            if upper {
                Arc::clone(&b.max)
            } else {
                Arc::clone(&b.min)
            }
        }),
        Err(error) => {
            log::warn!(
                "Granule bounds of {} in part {}: {error}",
                column.name,
                part.part.name
            );
            None
        }
    }
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
