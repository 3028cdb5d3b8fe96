//! One thread's GROUP BY table for packed fixed-width keys, and the parallel
//! merge of several.
//!
//! The table maps each key word ([`crate::fixed_keys`]) to its group number
//! with open addressing over cells of (word, group). It starts as one array of
//! cells and splits into [`BUCKETS`] arrays, chosen by the hash's top bits,
//! once it holds [`TWO_LEVEL_THRESHOLD`] groups. From then on a resize doubles
//! one bucket, not the whole table, so a table of 10^8 keys never copies
//! itself at once, and the buckets are the merge's unit of work.
//!
//! A table whose keys barely repeat stops growing at
//! [`super::flushed::FLUSH_GROUPS`] groups and flushes them to hash
//! partitions instead, which then merge on their own ([`super::flushed`]).
//!
//! The merge gives bucket `b` of every table to worker `b % workers`: large
//! tables sorted their keys into buckets while building, and a small one
//! splits first, which costs little because it is small. A worker merges one
//! bucket at a time into cells sized for it, so the probes stay in cache, and
//! shares nothing with the others but read-only inputs.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::{Result, resources_err};
use datafusion::logical_expr::EmitTo;
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;

use super::flushed::{Flushed, merge_partitions};
use super::group_states::{
    GroupRows, GroupStates, MergeStates, TableArrays, WorkerStates, distribute, update_all,
};
use super::merge::run_workers;
use crate::fixed_keys::{FixedKeys, PackedWord};

/// Buckets of a two-level table, chosen by the top 8 bits of the hash.
pub const BUCKETS: usize = 256;
const BUCKET_SHIFT: u32 = u64::BITS - BUCKETS.trailing_zeros();
/// Groups at which a table splits into buckets: ClickHouse's default
/// threshold is 100,000 keys; this is the power of two below it.
pub const TWO_LEVEL_THRESHOLD: usize = 1 << 16;
/// Cells of a new array; a power of two, as every capacity is.
const INITIAL_CELLS: usize = 256;
/// Group numbers are u32, and this one marks an empty cell.
const EMPTY: u32 = u32::MAX;
/// The most groups one table numbers.
pub const MAX_GROUPS: usize = EMPTY as usize;
/// How many rows ahead an insert prefetches its cell: enough to cover a
/// cache miss with the work of the rows between.
pub(super) const PREFETCH_DISTANCE: usize = 8;

/// Packed to 4-byte alignment: 12 bytes for a 64-bit word rather than 16,
/// 20 for a 128-bit one rather than 32, so more cells share a cache line.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct Cell<W> {
    word: W,
    group: u32,
}

/// An open-addressing array of cells with linear probing, at most 3/4 full:
/// with a hash that spreads keys evenly, a probe then reads about two
/// cells, both usually in the line of the first, and a table of a given
/// key count is half the size it would be at a load of 1/2, so more of it
/// stays in cache.
pub(super) struct Cells<W> {
    cells: Vec<Cell<W>>,
    len: usize,
}

impl<W: PackedWord> Cells<W> {
    pub(super) fn with_capacity(cells: usize) -> Self {
        assert!(cells.is_power_of_two());
        Cells {
            cells: vec![
                Cell {
                    word: W::default(),
                    group: EMPTY,
                };
                cells
            ],
            len: 0,
        }
    }

    /// The group of `word`, which becomes `new_group` if it is not here yet.
    #[inline(always)]
    pub(super) fn find_or_insert(&mut self, word: W, hash: u64, new_group: u32) -> u32 {
        let mask = self.cells.len() - 1;
        let mut index = hash as usize & mask;
        loop {
            let cell = &mut self.cells[index];
            if cell.group == EMPTY {
                // The load check sits here, not before the probe, so a hit
                // pays nothing for it.
                if 4 * (self.len + 1) > 3 * (mask + 1) {
                    return self.grow_and_insert(word, hash, new_group);
                }
                *cell = Cell {
                    word,
                    group: new_group,
                };
                self.len += 1;
                return new_group;
            }
            if { cell.word } == word {
                return cell.group;
            }
            index = (index + 1) & mask;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_and_insert(&mut self, word: W, hash: u64, new_group: u32) -> u32 {
        self.grow();
        self.find_or_insert(word, hash, new_group)
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, Cells::with_capacity(self.cells.len() * 2));
        for cell in old.occupied() {
            self.find_or_insert(cell.word, cell.word.hash(), cell.group);
        }
    }

    fn occupied(&self) -> impl Iterator<Item = &Cell<W>> {
        self.cells.iter().filter(|c| c.group != EMPTY)
    }

    #[inline]
    pub(super) fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let cell = self
                .cells
                .as_ptr()
                .wrapping_add(hash as usize & (self.cells.len() - 1));
            // SAFETY: prefetching is a hint; it never faults or reads.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(cell.cast())
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    fn bytes(&self) -> usize {
        self.cells.capacity() * size_of::<Cell<W>>()
    }

    pub(super) fn capacity(&self) -> usize {
        self.cells.len()
    }

    /// Empties every cell, keeping the memory.
    pub(super) fn clear(&mut self) {
        self.cells.fill(Cell {
            word: W::default(),
            group: EMPTY,
        });
        self.len = 0;
    }
}

/// Cells that hold `keys` without growing.
pub(super) fn cells_for_keys(keys: usize) -> usize {
    (keys * 4 / 3 + 1).next_power_of_two().max(INITIAL_CELLS)
}

fn bucket_of(hash: u64) -> usize {
    (hash >> BUCKET_SHIFT) as usize
}

/// Key words numbered by first appearance: one array of cells, or
/// [`BUCKETS`] of them once large.
pub struct WordIndex<W> {
    levels: Vec<Cells<W>>,
    groups: usize,
}

impl<W: PackedWord> WordIndex<W> {
    fn new() -> Self {
        WordIndex {
            levels: vec![Cells::with_capacity(INITIAL_CELLS)],
            groups: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.groups
    }

    pub fn is_empty(&self) -> bool {
        self.groups == 0
    }

    pub fn is_two_level(&self) -> bool {
        self.levels.len() == BUCKETS
    }

    /// Writes the group of each word into `groups` (cleared first), adding
    /// groups for new words.
    fn intern(&mut self, words: &[W], groups: &mut Vec<usize>) -> Result<()> {
        if self.groups + words.len() > MAX_GROUPS {
            return resources_err!("a GROUP BY table holds at most {MAX_GROUPS} groups per thread");
        }
        groups.clear();
        groups.resize(words.len(), 0);
        if self.is_two_level() {
            let hashes: Vec<u64> = words.iter().map(|w| w.hash()).collect();
            for (row, (&word, &hash)) in words.iter().zip(&hashes).enumerate() {
                if let Some(&ahead) = hashes.get(row + PREFETCH_DISTANCE) {
                    self.levels[bucket_of(ahead)].prefetch(ahead);
                }
                let cells = &mut self.levels[bucket_of(hash)];
                groups[row] = Self::number(cells, &mut self.groups, word, hash);
            }
        } else {
            // A one-level table has fewer than TWO_LEVEL_THRESHOLD groups,
            // small enough to stay in the core's caches without prefetching.
            let cells = &mut self.levels[0];
            for (group, &word) in groups.iter_mut().zip(words) {
                *group = Self::number(cells, &mut self.groups, word, word.hash());
            }
        }
        if !self.is_two_level() && self.groups >= TWO_LEVEL_THRESHOLD {
            self.split();
        }
        Ok(())
    }

    /// The group of `word` in `cells`, numbering it next if it is new.
    #[inline(always)]
    fn number(cells: &mut Cells<W>, groups: &mut usize, word: W, hash: u64) -> usize {
        let new_group = *groups as u32;
        let group = cells.find_or_insert(word, hash, new_group);
        if group == new_group {
            *groups += 1;
        }
        group as usize
    }

    /// Moves every cell into the bucket its hash's top bits choose.
    fn split(&mut self) {
        let single = self.levels.pop().expect("a one-level index has one array");
        let per_bucket = cells_for_keys(single.len / BUCKETS);
        self.levels = (0..BUCKETS)
            .map(|_| Cells::with_capacity(per_bucket))
            .collect();
        for cell in single.occupied() {
            let hash = cell.word.hash();
            self.levels[bucket_of(hash)].find_or_insert(cell.word, hash, cell.group);
        }
    }

    /// Every group's word and number.
    fn groups(&self) -> impl Iterator<Item = (W, u32)> + '_ {
        self.levels
            .iter()
            .flat_map(Cells::occupied)
            .map(|cell| (cell.word, cell.group))
    }

    /// Forgets every group, keeping the cells' memory.
    fn clear(&mut self) {
        self.levels.iter_mut().for_each(Cells::clear);
        self.groups = 0;
    }

    /// Every word, at the position of its group.
    fn words_by_group(&self) -> Vec<W> {
        let mut words = vec![W::default(); self.groups];
        for cell in self.levels.iter().flat_map(Cells::occupied) {
            words[cell.group as usize] = cell.word;
        }
        words
    }

    fn bytes(&self) -> usize {
        self.levels.iter().map(Cells::bytes).sum()
    }
}

pub struct FixedTable<W> {
    keys: FixedKeys,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    index: WordIndex<W>,
    accumulators: Vec<GroupStates>,
    words: Vec<W>,
    groups: Vec<usize>,
    /// Input rows since the table was last flushed.
    rows: usize,
    flushed: Flushed<W>,
}

impl<W: PackedWord> FixedTable<W> {
    pub fn new(keys: FixedKeys, aggregates: &[Arc<AggregateFunctionExpr>]) -> Result<Self> {
        Ok(FixedTable {
            keys,
            aggregates: aggregates.to_vec(),
            index: WordIndex::new(),
            accumulators: GroupStates::for_each(aggregates)?,
            words: Vec::new(),
            groups: Vec::new(),
            rows: 0,
            flushed: Flushed::new(),
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
        self.keys.pack(key_columns, &mut self.words)?;
        self.index.intern(&self.words, &mut self.groups)?;
        update_all(
            &mut self.accumulators,
            arguments,
            filters,
            &self.groups,
            self.index.len(),
        )?;
        self.rows += self.words.len();
        if self.flushed.wants(self.index.len()) {
            self.flush()?;
        }
        Ok(())
    }

    /// Moves every group to the flushed partitions and empties the table.
    fn flush(&mut self) -> Result<()> {
        let states = self
            .accumulators
            .iter_mut()
            .map(|a| a.groups().state(EmitTo::All))
            .collect::<Result<Vec<_>>>()?;
        self.accumulators = GroupStates::for_each(&self.aggregates)?;
        self.flushed
            .push(self.index.groups(), self.index.len(), states, self.rows)?;
        self.index.clear();
        self.rows = 0;
        Ok(())
    }

    /// Bytes the cells, states and flushed groups hold, for the memory
    /// reservation.
    pub fn size(&self) -> usize {
        self.index.bytes()
            + GroupStates::total_size(&self.accumulators)
            + self.words.capacity() * size_of::<W>()
            + self.groups.capacity() * size_of::<usize>()
            + self.flushed.bytes()
    }

    pub fn is_two_level(&self) -> bool {
        self.index.is_two_level()
    }

    /// Groups moved to partitions so far.
    pub fn flushed_groups(&self) -> usize {
        self.flushed.groups()
    }

    /// The keys, one row per group, and each aggregate's state columns in
    /// the same order: what a spill writes.
    pub fn into_states(mut self) -> Result<GroupRows> {
        if !self.flushed.is_empty() {
            self.flush()?;
            return self.flushed.into_rows(&self.keys);
        }
        let keys = self.keys.unpack(&self.index.words_by_group())?;
        drop(self.index);
        GroupRows::new(keys, &mut self.accumulators)
    }

    fn evaluate(mut self, schema: &SchemaRef) -> Result<RecordBatch> {
        let mut columns = self.keys.unpack(&self.index.words_by_group())?;
        for accumulator in &mut self.accumulators {
            columns.push(accumulator.groups().evaluate(EmitTo::All)?);
        }
        Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
    }
}

/// Merges the tables with `workers` threads; each returns one batch of its
/// buckets' keys (key columns first, then each aggregate's result). A single
/// table is evaluated directly, without a merge.
pub fn merge_parallel<W: PackedWord>(
    tables: Vec<FixedTable<W>>,
    keys: &FixedKeys,
    aggregates: &[Arc<AggregateFunctionExpr>],
    schema: &SchemaRef,
    workers: usize,
) -> Result<Vec<RecordBatch>> {
    if tables.iter().any(|t| !t.flushed.is_empty()) {
        let flushed = run_workers(tables, |mut table| {
            table.flush()?;
            Ok(table.flushed)
        })?;
        return merge_partitions(flushed, keys, aggregates, schema, workers);
    }
    let mut tables: Vec<FixedTable<W>> =
        tables.into_iter().filter(|t| !t.index.is_empty()).collect();
    match tables.len() {
        0 => return Ok(Vec::new()),
        1 => return Ok(vec![tables.pop().expect("one table").evaluate(schema)?]),
        _ => {}
    }
    let workers = workers.clamp(1, BUCKETS);
    let prepared = run_workers(tables, |mut table| {
        if !table.index.is_two_level() {
            table.index.split();
        }
        let mut owners = vec![0u16; table.index.len()];
        for (bucket, cells) in table.index.levels.iter().enumerate() {
            for cell in cells.occupied() {
                owners[cell.group as usize] = (bucket % workers) as u16;
            }
        }
        let owner = |group: usize| usize::from(owners[group]);
        let states = table
            .accumulators
            .into_iter()
            .map(|a| a.into_merge_states(workers, &owner))
            .collect::<Result<Vec<MergeStates>>>()?;
        Ok((table.index, states))
    })?;
    // Worker `w` owns buckets `w, w + workers, ...` of every table, in that
    // order, and frees each once merged.
    let mut buckets: Vec<Vec<Vec<Cells<W>>>> = (0..workers).map(|_| Vec::new()).collect();
    let mut states = Vec::with_capacity(prepared.len());
    for (index, table_states) in prepared {
        let mut owned: Vec<Vec<Cells<W>>> = (0..workers).map(|_| Vec::new()).collect();
        for (bucket, cells) in index.levels.into_iter().enumerate() {
            owned[bucket % workers].push(cells);
        }
        for (worker, cells) in owned.into_iter().enumerate() {
            buckets[worker].push(cells);
        }
        states.push(table_states);
    }
    let (arrays, native) = distribute(states, workers);
    let arrays = &arrays;
    let inputs: Vec<_> = native.into_iter().zip(buckets).collect();
    let results = run_workers(inputs, |(native, buckets)| {
        let mut states = WorkerStates::new(aggregates, native)?;
        let mut words = Vec::new();
        let mut tables: Vec<_> = buckets.into_iter().map(Vec::into_iter).collect();
        while let Some(first) = tables[0].next() {
            let mut bucket = vec![first];
            bucket.extend(
                tables[1..]
                    .iter_mut()
                    .map(|t| t.next().expect("every table has every bucket")),
            );
            merge_bucket(bucket, arrays, &mut states, &mut words)?;
        }
        if words.is_empty() {
            return Ok(None);
        }
        let mut columns = keys.unpack(&words)?;
        columns.extend(states.evaluate()?);
        Ok(Some(RecordBatch::try_new(Arc::clone(schema), columns)?))
    })?;
    Ok(results.into_iter().flatten().collect())
}

/// Merges one bucket of every table (`bucket[t]` is table `t`'s) into a
/// worker's states, whose groups so far have the words `words`; its new
/// groups follow them. The merged cells are sized once for every table's
/// keys and freed at the end, with the tables' cells, so a worker holds one
/// bucket at a time, small enough to stay in cache while it is probed.
fn merge_bucket<W: PackedWord>(
    bucket: Vec<Cells<W>>,
    arrays: &[TableArrays],
    states: &mut WorkerStates,
    words: &mut Vec<W>,
) -> Result<()> {
    let most_keys: usize = bucket.iter().map(|cells| cells.len).sum();
    if most_keys == 0 {
        return Ok(());
    }
    let first_group = words.len();
    if first_group + most_keys > MAX_GROUPS {
        return resources_err!("a GROUP BY merge holds at most {MAX_GROUPS} groups per thread");
    }
    let mut cells = Cells::<W>::with_capacity(cells_for_keys(most_keys));
    let (mut sources, mut targets) = (Vec::new(), Vec::new());
    for (table, table_cells) in bucket.iter().enumerate() {
        sources.clear();
        targets.clear();
        for cell in table_cells.occupied() {
            let new_group = words.len() as u32;
            let group = cells.find_or_insert(cell.word, cell.word.hash(), new_group);
            if group == new_group {
                words.push(cell.word);
            }
            sources.push(cell.group);
            targets.push(group as usize);
        }
        if !sources.is_empty() {
            states.merge_table(arrays, table, &sources, &targets, words.len())?;
        }
    }
    debug_assert_eq!(cells.len, words.len() - first_group);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_survive_growth_and_the_split() {
        let mut index = WordIndex::<u64>::new();
        let mut groups = Vec::new();
        let words: Vec<u64> = (0..3 * TWO_LEVEL_THRESHOLD as u64)
            .map(|i| i.wrapping_mul(0x1000_0000_0001))
            .collect();
        for chunk in words.chunks(5000) {
            index.intern(chunk, &mut groups).unwrap();
        }
        assert!(index.is_two_level());
        assert_eq!(index.len(), words.len());
        // Interning again finds every word's first group.
        for (start, chunk) in words.chunks(777).enumerate() {
            index.intern(chunk, &mut groups).unwrap();
            let expected: Vec<usize> = (start * 777..start * 777 + chunk.len()).collect();
            assert_eq!(groups, expected);
        }
        assert_eq!(index.words_by_group(), words);
    }

    #[test]
    fn a_split_keeps_every_group_in_the_bucket_of_its_hash() {
        for groups_wanted in [1usize, 100, 5000] {
            let mut index = WordIndex::<u128>::new();
            let words: Vec<u128> = (0..groups_wanted as u128).map(|i| i << 64 | 7).collect();
            index.intern(&words, &mut Vec::new()).unwrap();
            assert!(!index.is_two_level());
            index.split();
            assert!(index.is_two_level());
            let mut seen = Vec::new();
            for (bucket, cells) in index.levels.iter().enumerate() {
                for cell in cells.occupied() {
                    assert_eq!(bucket_of(cell.word.hash()), bucket);
                    assert_eq!({ cell.word }, words[cell.group as usize]);
                    seen.push(cell.group);
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..groups_wanted as u32).collect::<Vec<_>>());
        }
    }
}
