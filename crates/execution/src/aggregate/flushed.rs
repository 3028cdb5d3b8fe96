//! Radix-partitioned GROUP BY for keys that rarely repeat.
//!
//! A thread's table that has reached [`FLUSH_GROUPS`] groups, with about one
//! input row per group so far, stops growing: its groups (key words and
//! partial states) move into [`PARTITIONS`] hash partitions by the top bits
//! of the key hash, and the table starts again empty. The table so stays in the
//! cache while it is probed, where a table of 10^8 groups would miss it on
//! every row. At the end every partition merges on its own, in cache too:
//! a key lives in one partition only, so a partition's merge is final, and
//! the merge workers share nothing.
//!
//! Whether keys repeat is measured, not assumed: a HyperLogLog sketch counts
//! the distinct keys flushed, and once they are fewer than [`KEPT_SHARE`] of
//! the rows the flushed groups came from, the table keeps its groups and
//! grows as a two-level table instead, since flushing would keep a copy of a
//! group for every window of rows it appears in. Keys drawn at random from
//! K distinct ones stop the flushing after about 0.45 K rows.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{concat, take};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::{Result, resources_err};
use datafusion::logical_expr::EmitTo;
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use strata_functions::aggregate::sketch::UniqSketch;

use super::fixed_table::{Cells, MAX_GROUPS, PREFETCH_DISTANCE, cells_for_keys};
use super::group_states::{GroupRows, GroupStates};
use super::merge::run_workers;
use crate::fixed_keys::{FixedKeys, PackedWord};

/// Groups at which a table whose keys have not repeated flushes: its cells
/// (2^17 of 12 bytes) and a few states per group fit a core's share of the
/// L3 cache.
pub const FLUSH_GROUPS: usize = 1 << 16;
/// Partitions, chosen by the top bits of the key hash: 10^8 keys merge
/// about 390,000 at a time, in cells of 6 MiB (a trial of 1,024, together
/// with other changes, was slower: four times the pieces to merge).
const PARTITIONS: usize = 256;
const PARTITION_SHIFT: u32 = u64::BITS - PARTITIONS.trailing_zeros();
/// Registers of the sketch of flushed keys: 2^12, an error of about 1.6%,
/// plenty for a choice made against a share of 4/5.
const SKETCH_PRECISION: u8 = 12;
/// Distinct keys per row, as a fraction, below which the table stops
/// flushing: unique keys measure 1 within the sketch's error, repeating ones
/// fall below it as soon as a fifth of the rows repeat a key.
const KEPT_SHARE: (u64, u64) = (4, 5);

/// MurmurHash3's finalizer: the table's hash spreads keys over cells and
/// partitions, but its bits below the top are not independent enough for a
/// HyperLogLog's ranks (30,000 sequential keys read over 20% high).
fn mix(mut hash: u64) -> u64 {
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

fn partition_of(hash: u64) -> usize {
    (hash >> PARTITION_SHIFT) as usize
}

/// One flush's groups of one partition: their states, one array per state
/// column, `[aggregate][column]`; their key words are the next `rows` of the
/// partition's words. A flush's pieces are slices of its states sorted by
/// partition, one allocation per state column rather than one per piece.
struct Piece {
    rows: usize,
    states: Vec<Vec<ArrayRef>>,
}

/// The groups a table flushed into one partition: their key words, kept
/// apart from other partitions' so that each is freed once merged.
#[derive(Default)]
struct Partition<W> {
    words: Vec<W>,
    pieces: Vec<Piece>,
}

pub struct Flushed<W> {
    partitions: Vec<Partition<W>>,
    /// Distinct keys flushed, while the table may still flush.
    sketch: UniqSketch,
    /// Input rows the flushed groups were built from.
    rows: usize,
    groups: usize,
    state_bytes: usize,
    /// Whether the table flushes when full; false once its keys repeat.
    open: bool,
}

impl<W: PackedWord> Flushed<W> {
    pub fn new() -> Self {
        Flushed {
            partitions: (0..PARTITIONS).map(|_| Partition::default()).collect(),
            sketch: UniqSketch::new(SKETCH_PRECISION),
            rows: 0,
            groups: 0,
            state_bytes: 0,
            open: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups == 0
    }

    /// Whether a table of `groups` groups should flush now.
    pub fn wants(&self, groups: usize) -> bool {
        self.open && groups >= FLUSH_GROUPS
    }

    pub fn groups(&self) -> usize {
        self.groups
    }

    /// Bytes to reserve for the flushed groups: twice what they hold, since
    /// a spill copies them once more ([`Self::into_rows`]) before it frees
    /// them.
    pub fn bytes(&self) -> usize {
        let words: usize = self.partitions.iter().map(|p| p.words.capacity()).sum();
        2 * (words * size_of::<W>() + self.state_bytes)
    }

    /// Adds a table's groups: `cells` yields each group's (word, group
    /// number), `states` holds every aggregate's state columns by group
    /// number, and the groups were built from `rows` input rows.
    pub fn push(
        &mut self,
        cells: impl Iterator<Item = (W, u32)>,
        groups: usize,
        states: Vec<Vec<ArrayRef>>,
        rows: usize,
    ) -> Result<()> {
        if groups == 0 {
            return Ok(());
        }
        let (order, counts) = self.sort_by_partition(cells, groups);
        let order = UInt32Array::from(order);
        let states = states
            .iter()
            .map(|columns| {
                columns
                    .iter()
                    .map(|column| Ok(take(column.as_ref(), &order, None)?))
                    .collect::<Result<Vec<ArrayRef>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        self.state_bytes += states
            .iter()
            .flatten()
            .map(|c| c.get_array_memory_size())
            .sum::<usize>();
        let mut start = 0;
        for (partition, &rows) in counts.iter().enumerate() {
            if rows == 0 {
                continue;
            }
            let states = states
                .iter()
                .map(|columns| columns.iter().map(|c| c.slice(start, rows)).collect())
                .collect();
            self.partitions[partition]
                .pieces
                .push(Piece { rows, states });
            start += rows;
        }
        self.groups += groups;
        self.rows += rows;
        let distinct = self.sketch.estimate();
        let (numerator, denominator) = KEPT_SHARE;
        if self.open && distinct * denominator < self.rows as u64 * numerator {
            self.open = false;
        }
        Ok(())
    }

    /// A counting sort of the groups by partition: their group numbers
    /// partition by partition, and each partition's count. Appends each
    /// group's word to its partition's and feeds the sketch while the table
    /// may still flush.
    fn sort_by_partition(
        &mut self,
        cells: impl Iterator<Item = (W, u32)>,
        groups: usize,
    ) -> (Vec<u32>, Vec<usize>) {
        let mut counts = vec![0usize; PARTITIONS];
        let mut placed = Vec::with_capacity(groups);
        for (word, group) in cells {
            let hash = word.hash();
            if self.open {
                self.sketch.insert(mix(hash));
            }
            let partition = partition_of(hash);
            counts[partition] += 1;
            self.partitions[partition].words.push(word);
            placed.push((partition as u16, group));
        }
        assert_eq!(placed.len(), groups, "every group has one cell");
        let mut next = Vec::with_capacity(PARTITIONS);
        let mut start = 0;
        for count in &counts {
            next.push(start);
            start += count;
        }
        let mut order = vec![0u32; groups];
        for (partition, group) in placed {
            let slot = &mut next[usize::from(partition)];
            order[*slot] = group;
            *slot += 1;
        }
        (order, counts)
    }

    /// Every flushed group as key and state columns, for a spill.
    pub fn into_rows(self, keys: &FixedKeys) -> Result<GroupRows> {
        let mut words = Vec::with_capacity(self.groups);
        let mut pieces = Vec::new();
        for partition in self.partitions {
            words.extend(partition.words);
            pieces.extend(partition.pieces);
        }
        // Each copy is made once its source can go, so at most one copy of
        // the keys and one of the states exist beside the flushed states.
        let keys = keys.unpack(&words)?;
        drop(words);
        let aggregates = pieces.first().map_or(0, |p| p.states.len());
        let states = (0..aggregates)
            .map(|aggregate| {
                let columns = pieces[0].states[aggregate].len();
                (0..columns)
                    .map(|column| {
                        let parts: Vec<&dyn Array> = pieces
                            .iter()
                            .map(|p| p.states[aggregate][column].as_ref())
                            .collect();
                        Ok(concat(&parts)?)
                    })
                    .collect::<Result<Vec<ArrayRef>>>()
            })
            .collect::<Result<_>>()?;
        Ok(GroupRows { keys, states })
    }
}

impl<W: PackedWord> Default for Flushed<W> {
    fn default() -> Self {
        Self::new()
    }
}

/// Merges every table's flushed groups with `workers` threads, worker `w`
/// taking partitions `w, w + workers, ...`: one batch per partition, key
/// columns first, then each aggregate's result.
pub fn merge_partitions<W: PackedWord>(
    tables: Vec<Flushed<W>>,
    keys: &FixedKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    let workers = workers.clamp(1, PARTITIONS);
    // owned[w][k][t]: table t's share of worker w's k-th partition.
    let mut owned: Vec<Vec<Vec<Partition<W>>>> = (0..workers)
        .map(|w| {
            (w..PARTITIONS)
                .step_by(workers)
                .map(|_| Vec::new())
                .collect()
        })
        .collect();
    for table in tables {
        for (partition, groups) in table.partitions.into_iter().enumerate() {
            owned[partition % workers][partition / workers].push(groups);
        }
    }
    let results = run_workers(owned, |partitions| {
        let mut merge = PartitionMerge::new(aggregates);
        let mut batches = Vec::with_capacity(partitions.len());
        for tables in partitions {
            batches.extend(merge.merge(tables, keys, schema)?);
        }
        Ok(batches)
    })?;
    Ok(results.into_iter().flatten().collect())
}

/// What one merge worker keeps from partition to partition: the cells,
/// cleared, and scratch vectors, so their memory is touched once.
struct PartitionMerge<'a, W> {
    aggregates: &'a [Arc<AggregateFunctionExpr>],
    cells: Option<Cells<W>>,
    hashes: Vec<u64>,
    targets: Vec<usize>,
}

impl<'a, W: PackedWord> PartitionMerge<'a, W> {
    fn new(aggregates: &'a [Arc<AggregateFunctionExpr>]) -> Self {
        PartitionMerge {
            aggregates,
            cells: None,
            hashes: Vec::new(),
            targets: Vec::new(),
        }
    }

    /// One partition's groups, `tables[t]` being table `t`'s, merged in
    /// cells sized once for all of them; `None` if it has none.
    fn merge(
        &mut self,
        tables: Vec<Partition<W>>,
        keys: &FixedKeys,
        schema: &SchemaRef,
    ) -> Result<Option<RecordBatch>> {
        let most_keys: usize = tables.iter().map(|t| t.words.len()).sum();
        if most_keys == 0 {
            return Ok(None);
        }
        if most_keys > MAX_GROUPS {
            return resources_err!("a GROUP BY partition holds at most {MAX_GROUPS} groups");
        }
        let mut cells = self.take_cells(cells_for_keys(most_keys));
        let mut words = Vec::with_capacity(most_keys);
        let mut states = GroupStates::for_each(self.aggregates)?;
        for table in tables {
            let mut rest = table.words.as_slice();
            for piece in table.pieces {
                let (piece_words, after) = rest.split_at(piece.rows);
                rest = after;
                self.find_groups(&mut cells, piece_words, &mut words);
                for (state, columns) in states.iter_mut().zip(&piece.states) {
                    state
                        .groups()
                        .merge_batch(columns, &self.targets, words.len())?;
                }
            }
        }
        self.cells = Some(cells);
        let mut columns = keys.unpack(&words)?;
        for mut state in states {
            columns.push(state.groups().evaluate(EmitTo::All)?);
        }
        Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
    }

    /// Empty cells of at least `capacity`, the last partition's if large
    /// enough.
    fn take_cells(&mut self, capacity: usize) -> Cells<W> {
        match self.cells.take() {
            Some(mut cells) if cells.capacity() >= capacity => {
                cells.clear();
                cells
            }
            _ => Cells::with_capacity(capacity),
        }
    }

    /// Writes the group of each of `piece` into `self.targets`, numbering
    /// new ones next in `words`.
    fn find_groups(&mut self, cells: &mut Cells<W>, piece: &[W], words: &mut Vec<W>) {
        self.hashes.clear();
        self.hashes.extend(piece.iter().map(|w| w.hash()));
        self.targets.clear();
        for (row, (&word, &hash)) in piece.iter().zip(&self.hashes).enumerate() {
            if let Some(&ahead) = self.hashes.get(row + PREFETCH_DISTANCE) {
                cells.prefetch(ahead);
            }
            let new_group = words.len() as u32;
            let group = cells.find_or_insert(word, hash, new_group);
            if group == new_group {
                words.push(word);
            }
            self.targets.push(group as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{AsArray, UInt64Array};
    use datafusion::arrow::datatypes::{DataType, UInt64Type};

    use super::*;

    /// A flush of `words`, group `g` being `words[g]`, with one state column
    /// holding each group's word times 10, built from `rows` rows.
    fn push_words(flushed: &mut Flushed<u64>, words: &[u64], rows: usize) {
        let states: ArrayRef =
            Arc::new(UInt64Array::from_iter_values(words.iter().map(|w| w * 10)));
        let cells = words.iter().enumerate().map(|(g, &w)| (w, g as u32));
        flushed
            .push(cells, words.len(), vec![vec![states]], rows)
            .unwrap();
    }

    #[test]
    fn each_partition_holds_its_keys_with_their_states() {
        let mut flushed = Flushed::<u64>::new();
        let first: Vec<u64> = (0..5000).map(|i| i * 0x9e37_79b9).collect();
        let second: Vec<u64> = (5000..7000).map(|i| i * 0x9e37_79b9).collect();
        push_words(&mut flushed, &first, 5000);
        push_words(&mut flushed, &second, 2000);
        assert_eq!(flushed.groups(), 7000);
        let mut seen = 0;
        for (number, partition) in flushed.partitions.iter().enumerate() {
            assert!(
                partition
                    .words
                    .iter()
                    .all(|w| partition_of(w.hash()) == number)
            );
            let mut words = partition.words.iter();
            for piece in &partition.pieces {
                let states = piece.states[0][0].as_primitive::<UInt64Type>();
                assert_eq!(states.len(), piece.rows);
                for state in states.values() {
                    assert_eq!(*state, words.next().unwrap() * 10);
                }
                seen += piece.rows;
            }
            assert!(words.next().is_none(), "every word has a state");
        }
        assert_eq!(seen, 7000);
        assert!(
            flushed.open,
            "keys that never repeat keep the table flushing"
        );
    }

    #[test]
    fn a_spill_gets_every_flushed_group_once_with_its_state() {
        let mut flushed = Flushed::<u64>::new();
        let words: Vec<u64> = (0..3000).map(|i| i * 7 + 1).collect();
        push_words(&mut flushed, &words[..1000], 1000);
        push_words(&mut flushed, &words[1000..], 2000);
        let keys = FixedKeys::for_types(&[(DataType::UInt64, false)]).unwrap();
        let rows = flushed.into_rows(&keys).unwrap();
        let keys = rows.keys[0].as_primitive::<UInt64Type>();
        let states = rows.states[0][0].as_primitive::<UInt64Type>();
        let mut pairs: Vec<(u64, u64)> = keys
            .values()
            .iter()
            .copied()
            .zip(states.values().iter().copied())
            .collect();
        pairs.sort_unstable();
        let expected: Vec<(u64, u64)> = words.iter().map(|&w| (w, w * 10)).collect();
        assert_eq!(pairs, expected);
    }

    #[test]
    fn keys_that_repeat_stop_the_flushing() {
        let mut flushed = Flushed::<u64>::new();
        let words: Vec<u64> = (0..30_000).collect();
        push_words(&mut flushed, &words, 30_000);
        push_words(&mut flushed, &words, 3_000);
        assert!(flushed.open, "30,000 keys over 33,000 rows");
        push_words(&mut flushed, &words, 12_000);
        assert!(!flushed.open, "30,000 keys over 45,000 rows");
        assert_eq!(flushed.groups(), 90_000);
    }
}
