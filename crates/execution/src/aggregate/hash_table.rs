//! One thread's hash GROUP BY table, and the parallel merge of several.
//!
//! For keys too wide to index an array (64-bit integers, strings, several
//! columns), each input partition interns its keys in its own hash table
//! (DataFusion's `GroupValues`, specialized per key type) and numbers its
//! groups in order of first appearance. The merge partitions every table's
//! groups by a hash of the key: worker `w` owns partition `w` of every table,
//! interns those keys into a table of its own and merges their states. No key
//! reaches two workers, so workers share nothing but read-only inputs.

use std::sync::Arc;

use super::group_states::{
    GroupRows, GroupStates, MergeStates, NativeParts, TableArrays, WorkerStates, distribute,
    update_all,
};
use super::merge::{run_workers, take_rows};
use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::common::hash_utils::{QualityRandomState, create_hashes};
use datafusion::logical_expr::EmitTo;
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_plan::aggregates::group_values::{GroupValues, new_group_values};
use datafusion::physical_plan::aggregates::order::GroupOrdering;

/// The hash that sends a key to its merge worker. It must differ from the
/// one inside the tables, or each worker's table would see keys whose hashes
/// all agree in the low bits.
const PARTITION_SEED: u64 = 0x5bd1_e995_7f4a_7c15;

pub struct HashTable {
    group_values: Box<dyn GroupValues>,
    accumulators: Vec<GroupStates>,
    groups: Vec<usize>,
}

impl HashTable {
    pub fn new(key_schema: &SchemaRef, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(HashTable {
            group_values: new_group_values(Arc::clone(key_schema), &GroupOrdering::None)?,
            accumulators: GroupStates::for_each(aggregates)?,
            groups: Vec::new(),
        })
    }

    /// Adds one batch: its key columns, each aggregate's argument columns and
    /// each aggregate's FILTER mask.
    pub fn update(
        &mut self,
        key_columns: &[ArrayRef],
        arguments: &[Vec<ArrayRef>],
        filters: &[Option<BooleanArray>],
    ) -> Result<()> {
        self.group_values.intern(key_columns, &mut self.groups)?;
        let total = self.group_values.len();
        update_all(
            &mut self.accumulators,
            arguments,
            filters,
            &self.groups,
            total,
        )
    }

    /// Bytes the keys and states hold, for the memory reservation.
    pub fn size(&self) -> usize {
        self.group_values.size()
            + GroupStates::total_size(&self.accumulators)
            + self.groups.capacity() * size_of::<usize>()
    }

    /// The keys, one row per group, and each aggregate's state columns in
    /// the same order: what a spill writes.
    pub fn into_states(mut self) -> Result<GroupRows> {
        let keys = self.group_values.emit(EmitTo::All)?;
        drop(self.group_values);
        GroupRows::new(keys, &mut self.accumulators)
    }

    fn evaluate(mut self, schema: &SchemaRef) -> Result<RecordBatch> {
        let mut columns = self.group_values.emit(EmitTo::All)?;
        for accumulator in &mut self.accumulators {
            columns.push(accumulator.groups().evaluate(EmitTo::All)?);
        }
        Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
    }
}

/// A finished table's keys, each worker's rows of them, and its states.
struct PreparedTable {
    keys: Vec<ArrayRef>,
    rows_by_worker: Vec<Vec<u32>>,
    states: Vec<MergeStates>,
}

fn prepare(mut table: HashTable, workers: usize) -> Result<PreparedTable> {
    let keys = table.group_values.emit(EmitTo::All)?;
    let mut hashes = vec![0u64; keys[0].len()];
    create_hashes(
        &keys,
        &QualityRandomState::with_seed(PARTITION_SEED),
        &mut hashes,
    )?;
    // The high bits, scaled to the worker count, so any count spreads evenly.
    let owners: Vec<usize> = hashes
        .iter()
        .map(|&h| (((h >> 32) * workers as u64) >> 32) as usize)
        .collect();
    let mut rows_by_worker = vec![Vec::new(); workers];
    for (row, &owner) in owners.iter().enumerate() {
        rows_by_worker[owner].push(row as u32);
    }
    let owner = |group: usize| owners[group];
    let states = table
        .accumulators
        .into_iter()
        .map(|a| a.into_merge_states(workers, &owner))
        .collect::<Result<_>>()?;
    Ok(PreparedTable {
        keys,
        rows_by_worker,
        states,
    })
}

/// Merges the tables with `workers` threads; each returns one batch of its
/// keys (key columns first, then each aggregate's result). A single table is
/// evaluated directly, without a merge.
pub fn merge_parallel(
    tables: Vec<HashTable>,
    key_schema: &SchemaRef,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    let mut tables: Vec<HashTable> = tables
        .into_iter()
        .filter(|t| !t.group_values.is_empty())
        .collect();
    match tables.len() {
        0 => return Ok(Vec::new()),
        1 => return Ok(vec![tables.pop().expect("one table").evaluate(schema)?]),
        _ => {}
    }
    let workers = workers.max(1);
    let prepared = run_workers(tables, |table| prepare(table, workers))?;
    let mut keys = Vec::with_capacity(prepared.len());
    let mut rows = Vec::with_capacity(prepared.len());
    let mut states = Vec::with_capacity(prepared.len());
    for table in prepared {
        keys.push(table.keys);
        rows.push(table.rows_by_worker);
        states.push(table.states);
    }
    let (arrays, native) = distribute(states, workers);
    let shared = Shared {
        keys: &keys,
        rows: &rows,
        arrays: &arrays,
        key_schema,
        aggregates,
        schema,
    };
    let inputs: Vec<(usize, NativeParts)> = native.into_iter().enumerate().collect();
    let results = run_workers(inputs, |(worker, native)| {
        shared.merge_partition(worker, native)
    })?;
    Ok(results.into_iter().flatten().collect())
}

/// What every merge worker reads.
struct Shared<'a> {
    keys: &'a [Vec<ArrayRef>],
    rows: &'a [Vec<Vec<u32>>],
    arrays: &'a [TableArrays],
    key_schema: &'a SchemaRef,
    aggregates: &'a [Arc<AggregateFunctionExpr>],
    schema: &'a SchemaRef,
}

impl Shared<'_> {
    /// Merges partition `worker` of every table.
    fn merge_partition(&self, worker: usize, native: NativeParts) -> Result<Option<RecordBatch>> {
        let mut group_values = new_group_values(Arc::clone(self.key_schema), &GroupOrdering::None)?;
        let mut states = WorkerStates::new(self.aggregates, native)?;
        let mut targets = Vec::new();
        for (table, keys) in self.keys.iter().enumerate() {
            let rows = &self.rows[table][worker];
            if rows.is_empty() {
                continue;
            }
            group_values.intern(&take_rows(keys, rows)?, &mut targets)?;
            states.merge_table(self.arrays, table, rows, &targets, group_values.len())?;
        }
        if group_values.is_empty() {
            return Ok(None);
        }
        let mut columns = group_values.emit(EmitTo::All)?;
        columns.extend(states.evaluate()?);
        Ok(Some(RecordBatch::try_new(
            Arc::clone(self.schema),
            columns,
        )?))
    }
}
