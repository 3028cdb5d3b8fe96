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
//! Estimates can be wrong (a join's output has none), so a partition whose
//! merged groups pass their share with blocks still unread is split: the
//! groups merged so far and the rest of its blocks go back to the store by
//! the next bits of the hash, and each piece merges on its own.
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

/// One partition's spilled blocks, and how many top bits of the key hash
/// chose it: a split goes on with the bits that follow.
pub struct SpilledPartition {
    blocks: Vec<BlockId>,
    hash_bits: u32,
}

/// What merging a partition gave: its final rows, or the pieces it was
/// split into because its groups outgrew the merge's share of memory.
pub enum Merged {
    Rows(RecordBatch),
    Split(Vec<SpilledPartition>),
}

/// One GROUP BY's spilled states, by partition.
pub struct SpilledGroups {
    store: SpillStore,
    pool: Arc<dyn MemoryPool>,
    partition_bits: u32,
    /// Bytes one partition's merged groups may take: the threshold shared
    /// by the merges that run at once. A partition that outgrows it (its
    /// count was chosen from an estimate) is split again.
    merge_limit: usize,
    partitions: Mutex<Vec<Vec<BlockId>>>,
    /// State columns per aggregate, fixed by the first spill.
    state_widths: OnceLock<Vec<usize>>,
    spilled: AtomicBool,
    metrics: SpillMetrics,
}

/// What `EXPLAIN ANALYZE` shows of a GROUP BY's spilling.
pub struct SpillMetrics {
    pub spilled_tables: Count,
    pub spilled_bytes: Count,
    pub resplit_partitions: Count,
}

impl SpilledGroups {
    pub fn new(
        store: SpillStore,
        pool: Arc<dyn MemoryPool>,
        partitions: usize,
        merge_limit: usize,
        metrics: SpillMetrics,
    ) -> Self {
        assert!(
            partitions.is_power_of_two() && partitions >= 2,
            "spill partitions are chosen by at least one hash bit"
        );
        SpilledGroups {
            store,
            pool,
            partition_bits: partitions.trailing_zeros(),
            merge_limit,
            partitions: Mutex::new(vec![Vec::new(); partitions]),
            state_widths: OnceLock::new(),
            spilled: AtomicBool::new(false),
            metrics,
        }
    }

    /// Whether any table has spilled; then every table must, and the result
    /// comes from the partitions' merges.
    pub fn has_spilled(&self) -> bool {
        self.spilled.load(Ordering::Acquire)
    }

    /// Splits a table's groups by partition into the store.
    pub fn put(&self, rows: GroupRows) -> Result<()> {
        let GroupRows { keys, states } = rows;
        self.spilled.store(true, Ordering::Release);
        self.metrics.spilled_tables.add(1);
        if keys.first().is_none_or(|k| k.is_empty()) {
            return Ok(());
        }
        let widths: Vec<usize> = states.iter().map(Vec::len).collect();
        if *self.state_widths.get_or_init(|| widths.clone()) != widths {
            return internal_err!("a GROUP BY's tables spilled states of different shapes");
        }
        let key_count = keys.len();
        let columns: Vec<ArrayRef> = keys
            .into_iter()
            .chain(states.into_iter().flatten())
            .collect();
        let pieces = self.store_pieces(&columns, key_count, 0, self.partition_bits)?;
        let mut partitions = self.partitions.lock();
        for (partition, id) in pieces {
            partitions[partition].push(id);
        }
        Ok(())
    }

    /// Every partition that holds blocks, for the final merges; the store
    /// keeps the blocks until each is merged.
    pub fn take_partitions(&self) -> Vec<SpilledPartition> {
        std::mem::take(&mut *self.partitions.lock())
            .into_iter()
            .filter(|blocks| !blocks.is_empty())
            .map(|blocks| SpilledPartition {
                blocks,
                hash_bits: self.partition_bits,
            })
            .collect()
    }

    /// Merges every block of `partition` into final rows of `schema` (keys
    /// first, of `key_schema`, then one result per aggregate); or, once its
    /// groups pass the merge limit with blocks still to read, splits the
    /// groups merged so far and the blocks left by the next bits of the hash.
    pub fn merge(
        &self,
        partition: SpilledPartition,
        key_schema: &SchemaRef,
        aggregates: &[Arc<AggregateFunctionExpr>],
        schema: &SchemaRef,
    ) -> Result<Merged> {
        let widths = self
            .state_widths
            .get()
            .expect("a partition with blocks had a spill that fixed the widths");
        let reservation = MemoryConsumer::new("StrataAggregateMerge").register(&self.pool);
        let mut group_values = new_group_values(Arc::clone(key_schema), &GroupOrdering::None)?;
        let mut states = GroupStates::for_each(aggregates)?;
        let key_count = key_schema.fields().len();
        let block_count = partition.blocks.len();
        let mut blocks = partition.blocks.into_iter();
        let mut groups = Vec::new();
        while let Some(id) = blocks.next() {
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
            let size = group_values.size() + GroupStates::total_size(&states);
            let splittable = blocks.len() > 0 && partition.hash_bits < u64::BITS;
            if size > self.merge_limit && splittable {
                // Groups keep arriving at the rate seen so far, at most.
                let expected = size.saturating_mul(block_count) / (block_count - blocks.len());
                let merged = GroupRows::new(group_values.emit(EmitTo::All)?, &mut states)?;
                drop(group_values);
                drop(states);
                let pieces = self.split(merged, blocks.collect(), partition.hash_bits, expected)?;
                return Ok(Merged::Split(pieces));
            }
            reservation.try_resize(size)?;
        }
        let mut columns = group_values.emit(EmitTo::All)?;
        drop(group_values);
        for state in &mut states {
            columns.push(state.groups().evaluate(EmitTo::All)?);
        }
        Ok(Merged::Rows(RecordBatch::try_new(
            Arc::clone(schema),
            columns,
        )?))
    }

    /// A partition's groups merged so far, and its blocks not yet read,
    /// split into enough pieces that each should merge within the limit.
    fn split(
        &self,
        merged: GroupRows,
        rest: Vec<BlockId>,
        hash_bits: u32,
        expected: usize,
    ) -> Result<Vec<SpilledPartition>> {
        let bits = expected
            .div_ceil(self.merge_limit.max(1))
            .next_power_of_two()
            .clamp(2, MAX_PARTITIONS)
            .trailing_zeros()
            .min(u64::BITS - hash_bits);
        let key_count = merged.keys.len();
        let mut pieces: Vec<SpilledPartition> = (0..1 << bits)
            .map(|_| SpilledPartition {
                blocks: Vec::new(),
                hash_bits: hash_bits + bits,
            })
            .collect();
        let columns: Vec<ArrayRef> = merged
            .keys
            .into_iter()
            .chain(merged.states.into_iter().flatten())
            .collect();
        let mut stored = self.store_pieces(&columns, key_count, hash_bits, bits)?;
        drop(columns);
        for id in rest {
            let batch = decode_batch(self.store.take(id)?)?;
            stored.extend(self.store_pieces(batch.columns(), key_count, hash_bits, bits)?);
        }
        for (piece, id) in stored {
            pieces[piece].blocks.push(id);
        }
        self.metrics.resplit_partitions.add(1);
        Ok(pieces
            .into_iter()
            .filter(|p| !p.blocks.is_empty())
            .collect())
    }

    /// Stores the rows of `columns` (`key_count` keys first, then states)
    /// by piece: the `bits` bits of each key's hash after its first `skip`.
    fn store_pieces(
        &self,
        columns: &[ArrayRef],
        key_count: usize,
        skip: u32,
        bits: u32,
    ) -> Result<Vec<(usize, BlockId)>> {
        assert!(
            bits >= 1 && skip + bits <= u64::BITS,
            "a piece is chosen by hash bits not yet used"
        );
        let rows = columns.first().map_or(0, |c| c.len());
        let mut hashes = vec![0u64; rows];
        create_hashes(
            &columns[..key_count],
            &QualityRandomState::with_seed(SPILL_SEED),
            &mut hashes,
        )?;
        let mut rows_by_piece = vec![Vec::new(); 1 << bits];
        for (row, hash) in hashes.iter().enumerate() {
            rows_by_piece[((hash << skip) >> (u64::BITS - bits)) as usize].push(row as u32);
        }
        drop(hashes);
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .enumerate()
                .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        let mut stored = Vec::new();
        for (piece, rows) in rows_by_piece.iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let batch = RecordBatch::try_new(Arc::clone(&schema), take_rows(columns, rows)?)?;
            let bytes = encode_batch(&batch)?;
            drop(batch);
            stored.push((piece, self.store.put(&bytes)?));
            self.metrics.spilled_bytes.add(bytes.len());
        }
        Ok(stored)
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
