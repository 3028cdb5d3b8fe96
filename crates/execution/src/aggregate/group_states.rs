//! One aggregate's per-group states in a thread's table: Strata's in-place
//! states where the function has them, DataFusion's groups accumulator
//! otherwise, and how each is handed to the merge workers.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray};
use datafusion::common::Result;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use strata_functions::aggregate::native::{NativeGroups, native_groups};

use super::merge::take_rows;

pub enum GroupStates {
    DataFusion(Box<dyn GroupsAccumulator>),
    Native(Box<dyn NativeGroups>),
}

/// One aggregate's states of a finished table, ready for the merge.
pub enum MergeStates {
    /// DataFusion's state columns, one row per group, read by every worker.
    Arrays(Vec<ArrayRef>),
    /// One part per worker, holding the states of that worker's groups.
    Native(Vec<Box<dyn NativeGroups>>),
}

impl GroupStates {
    pub fn new(aggregate: &AggregateFunctionExpr) -> Result<Self> {
        Ok(match native_groups(aggregate.fun()) {
            Some(native) => GroupStates::Native(native),
            None => GroupStates::DataFusion(aggregate.create_groups_accumulator()?),
        })
    }

    /// One table's states: one per aggregate, in order.
    pub fn for_each(aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Vec<Self>> {
        aggregates.iter().map(|a| GroupStates::new(a)).collect()
    }

    pub fn total_size(states: &[GroupStates]) -> usize {
        states.iter().map(GroupStates::size).sum()
    }

    pub fn groups(&mut self) -> &mut dyn GroupsAccumulator {
        match self {
            GroupStates::DataFusion(a) => a.as_mut(),
            GroupStates::Native(a) => a.as_mut(),
        }
    }

    pub fn size(&self) -> usize {
        match self {
            GroupStates::DataFusion(a) => a.size(),
            GroupStates::Native(a) => a.size(),
        }
    }

    /// Native states divided among `workers` by `owner(group)`; DataFusion's
    /// as state arrays.
    pub fn into_merge_states(
        self,
        workers: usize,
        owner: &dyn Fn(usize) -> usize,
    ) -> Result<MergeStates> {
        Ok(match self {
            GroupStates::DataFusion(mut a) => MergeStates::Arrays(a.state(EmitTo::All)?),
            GroupStates::Native(a) => MergeStates::Native(a.split(workers, owner)),
        })
    }
}

/// A table's groups as columns: the keys, then each aggregate's partial
/// state (one or more columns per aggregate), all one row per group.
pub struct GroupRows {
    pub keys: Vec<ArrayRef>,
    pub states: Vec<Vec<ArrayRef>>,
}

impl GroupRows {
    /// The table's `keys` with every group's state taken from `accumulators`.
    pub fn new(keys: Vec<ArrayRef>, accumulators: &mut [GroupStates]) -> Result<Self> {
        let states = accumulators
            .iter_mut()
            .map(|a| a.groups().state(EmitTo::All))
            .collect::<Result<_>>()?;
        Ok(GroupRows { keys, states })
    }
}

/// Feeds one batch to every aggregate of a table: row `i` goes to group
/// `groups[i]`, and the table has `total_groups` groups.
pub fn update_all(
    states: &mut [GroupStates],
    arguments: &[Vec<ArrayRef>],
    filters: &[Option<BooleanArray>],
    groups: &[usize],
    total_groups: usize,
) -> Result<()> {
    for ((state, args), filter) in states.iter_mut().zip(arguments).zip(filters) {
        state
            .groups()
            .update_batch(args, groups, filter.as_ref(), total_groups)?;
    }
    Ok(())
}

/// A table's state arrays per aggregate (`None` for native aggregates).
pub type TableArrays = Vec<Option<Vec<ArrayRef>>>;
/// One worker's native parts, `[aggregate][table]`.
pub type NativeParts = Vec<Vec<Box<dyn NativeGroups>>>;

/// Splits each table's merge states into what all workers read (state
/// arrays, `None` for native aggregates) and each worker's own native parts,
/// indexed by worker.
pub fn distribute(
    tables: Vec<Vec<MergeStates>>,
    workers: usize,
) -> (Vec<TableArrays>, Vec<NativeParts>) {
    let aggregates = tables.first().map_or(0, Vec::len);
    let mut native: Vec<NativeParts> = (0..workers)
        .map(|_| (0..aggregates).map(|_| Vec::new()).collect())
        .collect();
    let mut arrays = Vec::with_capacity(tables.len());
    for table in tables {
        let mut table_arrays = Vec::with_capacity(aggregates);
        for (aggregate, states) in table.into_iter().enumerate() {
            match states {
                MergeStates::Arrays(columns) => table_arrays.push(Some(columns)),
                MergeStates::Native(parts) => {
                    assert_eq!(parts.len(), workers, "one native part per worker");
                    table_arrays.push(None);
                    for (worker, part) in parts.into_iter().enumerate() {
                        native[worker][aggregate].push(part);
                    }
                }
            }
        }
        arrays.push(table_arrays);
    }
    (arrays, native)
}

/// A merge worker's states, one entry per aggregate, into which its share of
/// every table merges; a native entry also holds the worker's parts of that
/// aggregate, indexed by table.
pub struct WorkerStates(Vec<WorkerState>);

enum WorkerState {
    DataFusion(Box<dyn GroupsAccumulator>),
    Native(Box<dyn NativeGroups>, Vec<Box<dyn NativeGroups>>),
}

impl WorkerStates {
    pub fn new(aggregates: &[Arc<AggregateFunctionExpr>], native: NativeParts) -> Result<Self> {
        let states = aggregates
            .iter()
            .zip(native)
            .map(|(aggregate, parts)| {
                Ok(if parts.is_empty() {
                    WorkerState::DataFusion(aggregate.create_groups_accumulator()?)
                } else {
                    let fresh = native_groups(aggregate.fun())
                        .expect("a function with native parts has native states");
                    WorkerState::Native(fresh, parts)
                })
            })
            .collect::<Result<_>>()?;
        Ok(WorkerStates(states))
    }

    /// Merges groups `sources` of table `table` into this worker's groups
    /// `targets`, of which there are `total`.
    pub fn merge_table(
        &mut self,
        arrays: &[TableArrays],
        table: usize,
        sources: &[u32],
        targets: &[usize],
        total: usize,
    ) -> Result<()> {
        debug_assert_eq!(sources.len(), targets.len());
        let mut source_groups = Vec::new();
        for (index, state) in self.0.iter_mut().enumerate() {
            match state {
                WorkerState::DataFusion(accumulator) => {
                    let columns = arrays[table][index]
                        .as_ref()
                        .expect("an aggregate has the same kind of states in every table");
                    accumulator.merge_batch(&take_rows(columns, sources)?, targets, total)?;
                }
                WorkerState::Native(accumulator, parts) => {
                    if source_groups.is_empty() {
                        source_groups = sources.iter().map(|&s| s as usize).collect();
                    }
                    accumulator.merge_groups(
                        parts[table].as_mut(),
                        targets,
                        &source_groups,
                        total,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Each aggregate's results, in group order.
    pub fn evaluate(self) -> Result<Vec<ArrayRef>> {
        self.0
            .into_iter()
            .map(|state| match state {
                WorkerState::DataFusion(mut a) => a.evaluate(EmitTo::All),
                WorkerState::Native(mut a, _) => a.evaluate(EmitTo::All),
            })
            .collect()
    }
}
