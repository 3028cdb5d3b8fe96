//! One thread's dense GROUP BY table, and the parallel merge of several.
//!
//! The aggregate states are groups accumulators whose group index is the
//! key's slot, so every aggregate function with a groups accumulator works
//! here unchanged. A table remembers which slots it touched; the merge visits
//! only those, so a sparse key set (`k % 100` in 65,537 slots) costs what its
//! 100 keys cost. It also remembers the order it first saw them in: a table
//! that needs no merge gives its groups in that order, as ClickHouse's
//! DISTINCT gives rows of one stream (`SELECT DISTINCT x` over 3, 1, 3, 2 is
//! 3, 1, 2, not 1, 2, 3).
//!
//! The merge divides the slots among workers in interleaved blocks. Native
//! states (e.g. `uniq`) reach each worker directly and merge object to
//! object; DataFusion's functions go through their state arrays, which for
//! count, sum, min and max are a few bytes per group.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::logical_expr::EmitTo;
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use strata_functions::aggregate::native::NativeGroups;

use super::dense_keys::DenseKeys;
use super::group_states::{GroupStates, MergeStates, TableArrays, distribute, update_all};
use super::merge::{run_workers, take_rows};

/// Slots per unit of merge work: workers take blocks in turn (block `b` goes
/// to worker `b % workers`), so keys clustered in one range still spread
/// over every worker, while each worker reads runs of neighbouring slots.
pub const MERGE_BLOCK_SLOTS: usize = 1024;

pub struct DenseTable {
    keys: DenseKeys,
    accumulators: Vec<GroupStates>,
    occupied: Vec<bool>,
    /// The occupied slots in the order the table first saw them.
    first_seen: Vec<usize>,
    slots: Vec<usize>,
}

impl DenseTable {
    pub fn new(keys: DenseKeys, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(DenseTable {
            keys,
            accumulators: GroupStates::for_each(aggregates)?,
            occupied: vec![false; keys.slots()],
            first_seen: Vec::new(),
            slots: Vec::new(),
        })
    }

    /// Adds one batch: its key column, each aggregate's argument columns and
    /// each aggregate's FILTER mask.
    pub fn update(
        &mut self,
        key_column: &ArrayRef,
        arguments: &[Vec<ArrayRef>],
        filters: &[Option<BooleanArray>],
    ) -> Result<()> {
        self.keys.slots_of(key_column, &mut self.slots)?;
        for &slot in &self.slots {
            if !self.occupied[slot] {
                self.occupied[slot] = true;
                self.first_seen.push(slot);
            }
        }
        let total = self.keys.slots();
        update_all(
            &mut self.accumulators,
            arguments,
            filters,
            &self.slots,
            total,
        )
    }

    /// Bytes the states hold, for the memory reservation.
    pub fn size(&self) -> usize {
        GroupStates::total_size(&self.accumulators)
            + self.occupied.capacity()
            + (self.first_seen.capacity() + self.slots.capacity()) * size_of::<usize>()
    }

    fn occupied_range(&self) -> Option<(usize, usize)> {
        debug_assert_eq!(
            self.first_seen.len(),
            self.occupied.iter().filter(|&&o| o).count(),
            "every occupied slot was seen first once"
        );
        let first = self.occupied.iter().position(|&o| o)?;
        let last = self.occupied.iter().rposition(|&o| o)?;
        Some((first, last))
    }

    /// The results of a table that needs no merge: its occupied slots only,
    /// in the order it first saw them.
    /// DataFusion's states of those slots are merged into an accumulator of
    /// just them first: a slot never seen holds an empty state whose result
    /// some aggregates cannot compute (a Decimal `avg` divides by its zero count).
    fn evaluate(
        mut self,
        aggregates: &[Arc<AggregateFunctionExpr>],
        schema: &SchemaRef,
    ) -> Result<RecordBatch> {
        let groups = std::mem::take(&mut self.first_seen);
        let slots: Vec<u32> = groups.iter().map(|&s| s as u32).collect();
        let mut columns = vec![self.keys.keys_of(&groups)];
        for (states, aggregate) in self.accumulators.iter_mut().zip(aggregates) {
            columns.push(match states {
                GroupStates::DataFusion(all) => {
                    let occupied = take_rows(&all.state(EmitTo::All)?, &slots)?;
                    let mut compact = aggregate.create_groups_accumulator()?;
                    let targets: Vec<usize> = (0..groups.len()).collect();
                    compact.merge_batch(&occupied, &targets, groups.len())?;
                    compact.evaluate(EmitTo::All)?
                }
                GroupStates::Native(all) => {
                    let all = all.evaluate(EmitTo::All)?;
                    take(all.as_ref(), &UInt32Array::from(slots.clone()), None)?
                }
            });
        }
        Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
    }
}

/// Merges the tables with `workers` threads; each returns one batch of its
/// share of the groups (key column first, then each aggregate's result). A
/// single table is evaluated directly, without a merge.
pub fn merge_parallel(
    tables: Vec<DenseTable>,
    keys: DenseKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    let mut tables: Vec<DenseTable> = tables
        .into_iter()
        .filter(|t| t.occupied_range().is_some())
        .collect();
    let Some((low, high)) = tables
        .iter()
        .filter_map(DenseTable::occupied_range)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    else {
        return Ok(Vec::new());
    };
    if tables.len() == 1 {
        let table = tables.pop().expect("one table");
        return Ok(vec![table.evaluate(aggregates, schema)?]);
    }
    let blocks = (low / MERGE_BLOCK_SLOTS)..=(high / MERGE_BLOCK_SLOTS);
    let workers = workers.clamp(1, blocks.clone().count());
    let owner = move |slot: usize| (slot / MERGE_BLOCK_SLOTS) % workers;
    let mut occupied = Vec::with_capacity(tables.len());
    let mut states = Vec::with_capacity(tables.len());
    for table in tables {
        occupied.push(table.occupied);
        states.push(table.accumulators);
    }
    let states = run_workers(states, |accumulators| {
        accumulators
            .into_iter()
            .map(|a| a.into_merge_states(workers, &owner))
            .collect::<Result<Vec<MergeStates>>>()
    })?;
    let (arrays, native) = distribute(states, workers);
    let (arrays, occupied) = (&arrays, &occupied);
    let inputs: Vec<(usize, Vec<Vec<Box<dyn NativeGroups>>>)> =
        native.into_iter().enumerate().collect();
    let results = run_workers(inputs, |(worker, native)| {
        let groups: Vec<usize> = blocks
            .clone()
            .filter(|b| b % workers == worker)
            .flat_map(|b| {
                (b * MERGE_BLOCK_SLOTS).max(low)..((b + 1) * MERGE_BLOCK_SLOTS).min(high + 1)
            })
            .filter(|&slot| occupied.iter().any(|o| o[slot]))
            .collect();
        merge_share(arrays, occupied, native, &groups, keys, aggregates, schema)
    })?;
    Ok(results.into_iter().flatten().collect())
}

/// Merges the slots in `groups` (ascending, occupied somewhere) from every table.
fn merge_share(
    arrays: &[TableArrays],
    occupied: &[Vec<bool>],
    native: Vec<Vec<Box<dyn NativeGroups>>>,
    groups: &[usize],
    keys: DenseKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
) -> Result<Option<RecordBatch>> {
    if groups.is_empty() {
        return Ok(None);
    }
    let slots = UInt32Array::from_iter_values(groups.iter().map(|&s| s as u32));
    // Per table, the share's slots it occupies and their positions in `groups`.
    let table_rows: Vec<(Vec<u32>, Vec<usize>)> = occupied
        .iter()
        .map(|table_occupied| {
            groups
                .iter()
                .enumerate()
                .filter(|(_, slot)| table_occupied[**slot])
                .map(|(position, &slot)| (slot as u32, position))
                .unzip()
        })
        .collect();
    let mut columns = vec![keys.keys_of(groups)];
    for (index, (aggregate, parts)) in aggregates.iter().zip(native).enumerate() {
        let merged = if parts.is_empty() {
            let mut accumulator = aggregate.create_groups_accumulator()?;
            for (table, (rows, targets)) in arrays.iter().zip(&table_rows) {
                if rows.is_empty() {
                    continue;
                }
                let states = table[index]
                    .as_ref()
                    .expect("an aggregate has the same kind of states in every table");
                accumulator.merge_batch(&take_rows(states, rows)?, targets, groups.len())?;
            }
            accumulator.evaluate(EmitTo::All)?
        } else {
            let mut parts = parts.into_iter();
            let mut merged = parts.next().expect("a part per table");
            for mut part in parts {
                merged.merge_groups(part.as_mut(), groups, groups, keys.slots())?;
            }
            let all = merged.evaluate(EmitTo::All)?;
            take(all.as_ref(), &slots, None)?
        };
        columns.push(merged);
    }
    Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
}
