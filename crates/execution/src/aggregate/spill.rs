//! GROUP BY larger than its memory: grace partitioning of group states.
//!
//! When a thread's table passes its share of the GROUP BY's spill threshold,
//! or the budget refuses it more, the table leaves memory as rows of
//! (key, partial states), split by a hash of the key into the operator's
//! partitions and put into the spill store: warm compressed blocks in RAM
//! first, then files. The thread goes on with a fresh table. At the end the
//! tables still in memory follow, and each partition merges on its own:
//! a key lives in one partition only, so a partition's merge is final. As
//! many partitions merge at once as there are merge workers, so the memory
//! the merge needs is the spilled states divided by the partition count,
//! times the workers; the partition count is chosen from the input's
//! estimated size and the threshold so that this stays under the threshold.
//!
//! Dense tables (keys of 8 or 16 bits) hold at most 65,536 groups and never
//! spill.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::hash_utils::{QualityRandomState, create_hashes};
use datafusion::common::{Result, internal_err};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool};
use datafusion::logical_expr::EmitTo;
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_plan::aggregates::group_values::new_group_values;
use datafusion::physical_plan::aggregates::order::GroupOrdering;
use datafusion::physical_plan::metrics::Count;
use parking_lot::Mutex;

use super::group_states::{GroupRows, GroupStates};
use super::merge::take_rows;
use crate::spill::{BlockId, SpillStore, decode_batch, encode_batch};

/// The hash that picks a key's spill partition; distinct from the tables'
/// and the merge workers' hashes, so a partition's keys still spread over a
/// table's cells.
const SPILL_SEED: u64 = 0x2545_f491_4f6c_dd1d;
/// Bytes one group is taken to need in a table before any is seen: a packed
/// key's cell at 3/4 load, its key in the states, and a few states.
const GROUP_BYTES_ESTIMATE: usize = 64;
const MIN_PARTITIONS: usize = 16;
const MAX_PARTITIONS: usize = 1024;
/// Partitions when the input's size is unknown.
const UNKNOWN_INPUT_PARTITIONS: usize = 256;

/// Partitions for a GROUP BY over about `estimated_rows` rows whose tables may
/// hold `threshold` bytes, merged by `workers` threads at once: enough that
/// `workers` merged partitions fit the threshold even if every row is its
/// own group.
pub fn partition_count(estimated_rows: Option<usize>, threshold: usize, workers: usize) -> usize {
    let Some(rows) = estimated_rows else {
        return UNKNOWN_INPUT_PARTITIONS;
    };
    let per_partition = (threshold / workers.max(1)).max(1);
    (rows.saturating_mul(GROUP_BYTES_ESTIMATE) / per_partition)
        .saturating_add(1)
        .min(MAX_PARTITIONS)
        .next_power_of_two()
        .max(MIN_PARTITIONS)
}

/// One GROUP BY's spilled states, by partition.
pub struct SpilledGroups {
    store: SpillStore,
    pool: Arc<dyn MemoryPool>,
    partition_bits: u32,
    blocks: Mutex<Vec<Vec<BlockId>>>,
    /// State columns per aggregate, fixed by the first spill.
    state_widths: OnceLock<Vec<usize>>,
    spilled: AtomicBool,
    spilled_tables: Count,
    spilled_bytes: Count,
}

impl SpilledGroups {
    pub fn new(
        store: SpillStore,
        pool: Arc<dyn MemoryPool>,
        partitions: usize,
        spilled_tables: Count,
        spilled_bytes: Count,
    ) -> Self {
        assert!(
            partitions.is_power_of_two() && partitions >= 2,
            "spill partitions are chosen by at least one hash bit"
        );
        SpilledGroups {
            store,
            pool,
            partition_bits: partitions.trailing_zeros(),
            blocks: Mutex::new(vec![Vec::new(); partitions]),
            state_widths: OnceLock::new(),
            spilled: AtomicBool::new(false),
            spilled_tables,
            spilled_bytes,
        }
    }

    pub fn partitions(&self) -> usize {
        1 << self.partition_bits
    }

    /// Whether any table has spilled; then every table must, and the result
    /// comes from the partitions' merges.
    pub fn has_spilled(&self) -> bool {
        self.spilled.load(Ordering::Acquire)
    }

    /// Splits a table's groups by partition into the store.
    pub fn put(&self, rows: GroupRows) -> Result<()> {
        let GroupRows { keys, states } = rows;
        let groups = keys.first().map_or(0, |k| k.len());
        self.spilled.store(true, Ordering::Release);
        self.spilled_tables.add(1);
        if groups == 0 {
            return Ok(());
        }
        let widths: Vec<usize> = states.iter().map(Vec::len).collect();
        if *self.state_widths.get_or_init(|| widths.clone()) != widths {
            return internal_err!("a GROUP BY's tables spilled states of different shapes");
        }
        let mut hashes = vec![0u64; groups];
        create_hashes(
            &keys,
            &QualityRandomState::with_seed(SPILL_SEED),
            &mut hashes,
        )?;
        let shift = u64::BITS - self.partition_bits;
        let mut rows_by_partition = vec![Vec::new(); self.partitions()];
        for (row, hash) in hashes.iter().enumerate() {
            rows_by_partition[(hash >> shift) as usize].push(row as u32);
        }
        drop(hashes);
        let columns: Vec<ArrayRef> = keys
            .into_iter()
            .chain(states.into_iter().flatten())
            .collect();
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .enumerate()
                .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        for (partition, rows) in rows_by_partition.iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let batch = RecordBatch::try_new(Arc::clone(&schema), take_rows(&columns, rows)?)?;
            let bytes = encode_batch(&batch)?;
            drop(batch);
            let id = self.store.put(&bytes)?;
            self.spilled_bytes.add(bytes.len());
            self.blocks.lock()[partition].push(id);
        }
        Ok(())
    }

    /// Merges every spilled block of `partition` into final rows of `schema`
    /// (keys first, of `key_schema`, then one result per aggregate).
    pub fn merge_partition(
        &self,
        partition: usize,
        key_schema: &SchemaRef,
        aggregates: &[Arc<AggregateFunctionExpr>],
        schema: &SchemaRef,
    ) -> Result<Option<RecordBatch>> {
        let ids = std::mem::take(&mut self.blocks.lock()[partition]);
        if ids.is_empty() {
            return Ok(None);
        }
        let widths = self
            .state_widths
            .get()
            .expect("a partition with blocks had a spill that fixed the widths");
        let reservation =
            MemoryConsumer::new(format!("StrataAggregateMerge[{partition}]")).register(&self.pool);
        let mut group_values = new_group_values(Arc::clone(key_schema), &GroupOrdering::None)?;
        let mut states = GroupStates::for_each(aggregates)?;
        let key_count = key_schema.fields().len();
        let mut groups = Vec::new();
        for id in ids {
            let batch = decode_batch(self.store.take(id)?)?;
            let columns = batch.columns();
            group_values.intern(&columns[..key_count], &mut groups)?;
            let total = group_values.len();
            let mut offset = key_count;
            for (state, &width) in states.iter_mut().zip(widths) {
                state
                    .groups()
                    .merge_batch(&columns[offset..offset + width], &groups, total)?;
                offset += width;
            }
            reservation.try_resize(group_values.size() + GroupStates::total_size(&states))?;
        }
        let mut columns = group_values.emit(EmitTo::All)?;
        drop(group_values);
        for state in &mut states {
            columns.push(state.groups().evaluate(EmitTo::All)?);
        }
        Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_grow_with_the_input_and_shrink_with_the_threshold() {
        assert_eq!(partition_count(None, 1 << 20, 2), UNKNOWN_INPUT_PARTITIONS);
        assert_eq!(partition_count(Some(10), 1 << 30, 2), MIN_PARTITIONS);
        let large = partition_count(Some(100_000_000), 200 << 20, 2);
        assert_eq!(large, 64);
        assert!(partition_count(Some(100_000_000), 100 << 20, 2) > large);
        assert!(partition_count(Some(100_000_000), 200 << 20, 8) > large);
        assert_eq!(partition_count(Some(usize::MAX), 1, 1), MAX_PARTITIONS);
    }
}
