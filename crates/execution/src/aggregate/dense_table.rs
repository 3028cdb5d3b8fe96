//! One thread's dense GROUP BY table, and the parallel merge of several.
//!
//! The aggregate states are DataFusion `GroupsAccumulator`s whose group index
//! is the key's slot, so every aggregate function with a groups accumulator
//! works here unchanged. A table remembers which slots it touched; the merge
//! visits only those, so a sparse key set (`k % 100` in 65,537 slots) costs
//! what its 100 keys cost.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;

use super::dense_keys::DenseKeys;

/// Slots per unit of merge work: workers take blocks in turn (block `b` goes
/// to worker `b % workers`), so keys clustered in one range still spread
/// over every worker, while each worker reads runs of neighbouring slots.
pub const MERGE_BLOCK_SLOTS: usize = 1024;

pub struct DenseTable {
    keys: DenseKeys,
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    occupied: Vec<bool>,
    slots: Vec<usize>,
}

impl DenseTable {
    pub fn new(keys: DenseKeys, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(DenseTable {
            keys,
            accumulators: aggregates
                .iter()
                .map(|a| a.create_groups_accumulator())
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
            accumulator.update_batch(args, &self.slots, filter.as_ref(), total)?;
        }
        Ok(())
    }

    /// Bytes the states hold, for the memory reservation.
    pub fn size(&self) -> usize {
        self.accumulators.iter().map(|a| a.size()).sum::<usize>()
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
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    occupied: Vec<bool>,
}

impl FinishedTable {
    fn occupied_range(&self) -> Option<(usize, usize)> {
        let first = self.occupied.iter().position(|&o| o)?;
        let last = self.occupied.iter().rposition(|&o| o)?;
        Some((first, last))
    }

    fn into_states(mut self) -> Result<TableStates> {
        Ok(TableStates {
            states: self
                .accumulators
                .iter_mut()
                .map(|a| a.state(EmitTo::All))
                .collect::<Result<_>>()?,
            occupied: self.occupied,
        })
    }

    /// The results of a table that needs no merge: its occupied slots only.
    fn evaluate(mut self, keys: DenseKeys, schema: &SchemaRef) -> Result<RecordBatch> {
        let groups: Vec<usize> = (0..self.occupied.len())
            .filter(|&s| self.occupied[s])
            .collect();
        let rows = UInt32Array::from_iter_values(groups.iter().map(|&s| s as u32));
        let mut columns = vec![keys.keys_of(&groups)];
        for accumulator in &mut self.accumulators {
            let all = accumulator.evaluate(EmitTo::All)?;
            columns.push(take(all.as_ref(), &rows, None)?);
        }
        Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
    }
}

/// A table's intermediate states: per aggregate, state columns with one row
/// per slot.
struct TableStates {
    states: Vec<Vec<ArrayRef>>,
    occupied: Vec<bool>,
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
    // Each table's states are extracted on its own thread.
    let tables: Vec<TableStates> = std::thread::scope(|scope| {
        let handles: Vec<_> = tables
            .into_iter()
            .map(|t| scope.spawn(move || t.into_states()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| worker_panicked())?)
            .collect::<Result<Vec<_>>>()
    })?;
    let blocks = (low / MERGE_BLOCK_SLOTS)..=(high / MERGE_BLOCK_SLOTS);
    let workers = workers.clamp(1, blocks.clone().count());
    let results: Vec<Result<Option<RecordBatch>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let tables = &tables;
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
                    merge_share(tables, &share, keys, aggregates, schema)
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
    tables: &[TableStates],
    share: &[usize],
    keys: DenseKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
) -> Result<Option<RecordBatch>> {
    // Local group numbers for the share's slots that any table occupies.
    let mut local = vec![u32::MAX; keys.slots()];
    let mut groups = Vec::new();
    for &slot in share {
        if tables.iter().any(|t| t.occupied[slot]) {
            local[slot] = groups.len() as u32;
            groups.push(slot);
        }
    }
    if groups.is_empty() {
        return Ok(None);
    }
    let mut accumulators: Vec<Box<dyn GroupsAccumulator>> = aggregates
        .iter()
        .map(|a| a.create_groups_accumulator())
        .collect::<Result<_>>()?;
    for table in tables {
        let rows: Vec<u32> = share
            .iter()
            .filter(|&&slot| table.occupied[slot])
            .map(|&slot| slot as u32)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let group_indices: Vec<usize> = rows.iter().map(|&r| local[r as usize] as usize).collect();
        let rows = UInt32Array::from(rows);
        for (accumulator, states) in accumulators.iter_mut().zip(&table.states) {
            let taken = states
                .iter()
                .map(|column| take(column.as_ref(), &rows, None))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            accumulator.merge_batch(&taken, &group_indices, groups.len())?;
        }
    }
    let mut columns = vec![keys.keys_of(&groups)];
    for accumulator in &mut accumulators {
        columns.push(accumulator.evaluate(EmitTo::All)?);
    }
    Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
}
