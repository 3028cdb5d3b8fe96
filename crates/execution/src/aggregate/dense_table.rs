//! One thread's dense GROUP BY table, and the parallel merge of several.
//!
//! The aggregate states are groups accumulators whose group index is the
//! key's slot, so every aggregate function with a groups accumulator works
//! here unchanged. A table remembers which slots it touched; the merge visits
//! only those, so a sparse key set (`k % 100` in 65,537 slots) costs what its
//! 100 keys cost.
//!
//! The merge divides the slots among workers. Functions with in-place states
//! ([`NativeGroups`], e.g. `uniq`) hand each worker its slots' states
//! directly, and the worker merges them object to object. Other functions go
//! through DataFusion's state arrays, which for count, sum, min and max are a
//! few bytes per group.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use strata_functions::aggregate::native::{NativeGroups, native_groups};

use super::dense_keys::DenseKeys;

/// Slots per unit of merge work: workers take blocks in turn (block `b` goes
/// to worker `b % workers`), so keys clustered in one range still spread
/// over every worker, while each worker reads runs of neighbouring slots.
pub const MERGE_BLOCK_SLOTS: usize = 1024;

/// One aggregate's states in a table.
enum SlotStates {
    DataFusion(Box<dyn GroupsAccumulator>),
    Native(Box<dyn NativeGroups>),
}

impl SlotStates {
    fn new(aggregate: &AggregateFunctionExpr) -> Result<Self> {
        Ok(match native_groups(aggregate.fun()) {
            Some(native) => SlotStates::Native(native),
            None => SlotStates::DataFusion(aggregate.create_groups_accumulator()?),
        })
    }

    fn groups(&mut self) -> &mut dyn GroupsAccumulator {
        match self {
            SlotStates::DataFusion(a) => a.as_mut(),
            SlotStates::Native(a) => a.as_mut(),
        }
    }

    fn size(&self) -> usize {
        match self {
            SlotStates::DataFusion(a) => a.size(),
            SlotStates::Native(a) => a.size(),
        }
    }
}

pub struct DenseTable {
    keys: DenseKeys,
    accumulators: Vec<SlotStates>,
    occupied: Vec<bool>,
    slots: Vec<usize>,
}

impl DenseTable {
    pub fn new(keys: DenseKeys, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(DenseTable {
            keys,
            accumulators: aggregates
                .iter()
                .map(|a| SlotStates::new(a))
                .collect::<Result<_>>()?,
            occupied: vec![false; keys.slots()],
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
            self.occupied[slot] = true;
        }
        let total = self.keys.slots();
        for ((accumulator, args), filter) in
            self.accumulators.iter_mut().zip(arguments).zip(filters)
        {
            accumulator
                .groups()
                .update_batch(args, &self.slots, filter.as_ref(), total)?;
        }
        Ok(())
    }

    /// Bytes the states hold, for the memory reservation.
    pub fn size(&self) -> usize {
        self.accumulators.iter().map(SlotStates::size).sum::<usize>()
            + self.occupied.capacity()
            + self.slots.capacity() * size_of::<usize>()
    }

    /// The finished table, ready to merge.
    pub fn finish(self) -> FinishedTable {
        FinishedTable {
            accumulators: self.accumulators,
            occupied: self.occupied,
        }
    }
}

/// A table whose input is exhausted.
pub struct FinishedTable {
    accumulators: Vec<SlotStates>,
    occupied: Vec<bool>,
}

impl FinishedTable {
    fn occupied_range(&self) -> Option<(usize, usize)> {
        let first = self.occupied.iter().position(|&o| o)?;
        let last = self.occupied.iter().rposition(|&o| o)?;
        Some((first, last))
    }

    /// Prepares the merge: the table's state arrays of DataFusion's
    /// functions, and per aggregate its native states divided among the
    /// workers by `owner(slot)` (no parts for DataFusion's functions).
    fn into_states(
        self,
        workers: usize,
        owner: &dyn Fn(usize) -> usize,
    ) -> Result<(TableStates, Vec<Vec<Box<dyn NativeGroups>>>)> {
        let mut arrays = Vec::with_capacity(self.accumulators.len());
        let mut native = Vec::with_capacity(self.accumulators.len());
        for accumulator in self.accumulators {
            match accumulator {
                SlotStates::DataFusion(mut a) => {
                    arrays.push(Some(a.state(EmitTo::All)?));
                    native.push(Vec::new());
                }
                SlotStates::Native(a) => {
                    arrays.push(None);
                    native.push(a.split(workers, owner));
                }
            }
        }
        let states = TableStates {
            arrays,
            occupied: self.occupied,
        };
        Ok((states, native))
    }

    /// The results of a table that needs no merge: its occupied slots only.
    fn evaluate(mut self, keys: DenseKeys, schema: &SchemaRef) -> Result<RecordBatch> {
        let groups: Vec<usize> = (0..self.occupied.len())
            .filter(|&s| self.occupied[s])
            .collect();
        let rows = UInt32Array::from_iter_values(groups.iter().map(|&s| s as u32));
        let mut columns = vec![keys.keys_of(&groups)];
        for accumulator in &mut self.accumulators {
            let all = accumulator.groups().evaluate(EmitTo::All)?;
            columns.push(take(all.as_ref(), &rows, None)?);
        }
        Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
    }
}

/// What every merge worker reads of a table: per aggregate, DataFusion's
/// state columns with one row per slot (none for native aggregates).
struct TableStates {
    arrays: Vec<Option<Vec<ArrayRef>>>,
    occupied: Vec<bool>,
}

/// What one worker merges: the state arrays of every table, and its own
/// part of each native aggregate from every table (`[aggregate][table]`).
struct WorkerInput<'a> {
    tables: &'a [TableStates],
    native: Vec<Vec<Box<dyn NativeGroups>>>,
}

/// Merges the tables with `workers` threads; each returns one batch of its
/// share of the groups (key column first, then each aggregate's result). A
/// single table is evaluated directly, without a round trip through states.
pub fn merge_parallel(
    tables: Vec<FinishedTable>,
    keys: DenseKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    let mut tables: Vec<FinishedTable> = tables
        .into_iter()
        .filter(|t| t.occupied_range().is_some())
        .collect();
    let Some((low, high)) = tables
        .iter()
        .filter_map(FinishedTable::occupied_range)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    else {
        return Ok(Vec::new());
    };
    if tables.len() == 1 {
        let table = tables.pop().expect("one table");
        return Ok(vec![table.evaluate(keys, schema)?]);
    }
    let blocks = (low / MERGE_BLOCK_SLOTS)..=(high / MERGE_BLOCK_SLOTS);
    let workers = workers.clamp(1, blocks.clone().count());
    let owner = move |slot: usize| (slot / MERGE_BLOCK_SLOTS) % workers;
    // Each table's states are extracted on its own thread.
    let prepared: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = tables
            .into_iter()
            .map(|t| scope.spawn(move || t.into_states(workers, &owner)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| worker_panicked())?)
            .collect::<Result<Vec<_>>>()
    })?;
    let mut inputs: Vec<Vec<Vec<Box<dyn NativeGroups>>>> = (0..workers)
        .map(|_| (0..aggregates.len()).map(|_| Vec::new()).collect())
        .collect();
    let mut tables = Vec::with_capacity(prepared.len());
    for (table, native) in prepared {
        tables.push(table);
        for (aggregate, parts) in native.into_iter().enumerate() {
            for (worker, part) in parts.into_iter().enumerate() {
                inputs[worker][aggregate].push(part);
            }
        }
    }
    let results: Vec<Result<Option<RecordBatch>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .into_iter()
            .enumerate()
            .map(|(worker, native)| {
                let input = WorkerInput {
                    tables: &tables,
                    native,
                };
                let blocks = blocks.clone();
                scope.spawn(move || {
                    let share: Vec<usize> = blocks
                        .filter(|b| b % workers == worker)
                        .flat_map(|b| {
                            let start = (b * MERGE_BLOCK_SLOTS).max(low);
                            let end = ((b + 1) * MERGE_BLOCK_SLOTS).min(high + 1);
                            start..end
                        })
                        .collect();
                    merge_share(input, &share, keys, aggregates, schema)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| worker_panicked())?)
            .collect()
    });
    let mut batches = Vec::new();
    for result in results {
        batches.extend(result?);
    }
    Ok(batches)
}

fn worker_panicked() -> datafusion::error::DataFusionError {
    datafusion::common::internal_datafusion_err!("a GROUP BY merge worker panicked")
}

/// Merges the groups in `share` (slots, ascending) from every table.
fn merge_share(
    input: WorkerInput,
    share: &[usize],
    keys: DenseKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
) -> Result<Option<RecordBatch>> {
    let tables = input.tables;
    let groups: Vec<usize> = share
        .iter()
        .copied()
        .filter(|&slot| tables.iter().any(|t| t.occupied[slot]))
        .collect();
    if groups.is_empty() {
        return Ok(None);
    }
    let slots = UInt32Array::from_iter_values(groups.iter().map(|&s| s as u32));
    let mut columns = vec![keys.keys_of(&groups)];
    for (index, (aggregate, native)) in aggregates.iter().zip(input.native).enumerate() {
        let merged = if native.is_empty() {
            merge_arrays(tables, index, aggregate, &groups, keys.slots())?
        } else {
            merge_native(native, &groups, &slots)?
        };
        columns.push(merged);
    }
    Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
}

/// Merges one native aggregate's parts into the first; its results for `groups`.
fn merge_native(
    parts: Vec<Box<dyn NativeGroups>>,
    groups: &[usize],
    slots: &UInt32Array,
) -> Result<ArrayRef> {
    let mut parts = parts.into_iter();
    let mut merged = parts.next().expect("a part per table");
    for mut part in parts {
        merged.merge_groups(part.as_mut(), groups)?;
    }
    let all = merged.evaluate(EmitTo::All)?;
    Ok(take(all.as_ref(), slots, None)?)
}

/// Merges one aggregate's state arrays from every table into a fresh
/// accumulator numbered by position in `groups`; its results for `groups`.
fn merge_arrays(
    tables: &[TableStates],
    index: usize,
    aggregate: &AggregateFunctionExpr,
    groups: &[usize],
    total_slots: usize,
) -> Result<ArrayRef> {
    let mut local = vec![u32::MAX; total_slots];
    for (position, &slot) in groups.iter().enumerate() {
        local[slot] = position as u32;
    }
    let mut accumulator = aggregate.create_groups_accumulator()?;
    for table in tables {
        let states = table.arrays[index]
            .as_ref()
            .expect("an aggregate has the same kind of states in every table");
        let rows: Vec<u32> = groups
            .iter()
            .filter(|&&slot| table.occupied[slot])
            .map(|&slot| slot as u32)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let group_indices: Vec<usize> = rows.iter().map(|&r| local[r as usize] as usize).collect();
        let rows = UInt32Array::from(rows);
        let taken = states
            .iter()
            .map(|column| take(column.as_ref(), &rows, None))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        accumulator.merge_batch(&taken, &group_indices, groups.len())?;
    }
    accumulator.evaluate(EmitTo::All)
}
