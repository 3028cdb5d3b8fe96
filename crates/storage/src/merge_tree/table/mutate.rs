//! Running mutations over a table's parts.
//!
//! Mutation `N` is pending for every active part whose data version is below
//! `N`. A part is mutated once for all its pending mutations, in number
//! order, into a part of the same block range and level named with the last
//! one's number: hard links to the old files when no row matches (found from
//! the granules the primary index and partition bounds leave, and then the
//! conditions); for UPDATEs only, the assigned columns written anew and the
//! other files linked; with a DELETE, the part rewritten. A DELETE that
//! removes every row leaves no part. The old part stays until the new one is in place, so a
//! crash leaves each part before or after; the mutation's file stays, and
//! the next start finishes it.
//!
//! Merges only combine parts that reflect the same mutations (their
//! generation, [`MergeTreeTable::generation`]): a merged part is named with
//! its sources' highest data version, which would otherwise claim mutations
//! for rows that never had them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::execution::memory_pool::MemoryConsumer;
use strata_common::error::{Result, StrataError};

use super::MergeTreeTable;
use crate::merge_tree::data_part::DataPart;
use crate::merge_tree::mutation::{MutationCommand, MutationEntry, any_selected, apply_commands};
use crate::merge_tree::pruning::select_granules;
use crate::part::writer::{ChangedColumn, link_part, write_changed_columns};

/// How long a mutation waits before trying again for a part a merge holds.
const HELD_PART_RETRY: Duration = Duration::from_millis(5);

/// A mutation the table knows: its file's entry, its commands once the
/// engine compiled them, and its last failure.
pub(super) struct MutationState {
    entry: MutationEntry,
    commands: Option<Arc<Vec<MutationCommand>>>,
    failure: Option<MutationFailure>,
}

impl MutationState {
    pub(super) fn loaded(entry: MutationEntry) -> Self {
        MutationState {
            entry,
            commands: None,
            failure: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct MutationFailure {
    pub part: String,
    pub time: SystemTime,
    pub reason: String,
    /// The error code's name.
    pub code: &'static str,
}

impl MutationFailure {
    fn new(part: String, error: &StrataError) -> Self {
        MutationFailure {
            part,
            time: SystemTime::now(),
            reason: error.to_string(),
            code: error.code.name,
        }
    }
}

/// A mutation as `system.mutations` shows it.
#[derive(Debug, Clone)]
pub struct MutationStatus {
    pub entry: MutationEntry,
    /// Active parts it has still to mutate.
    pub parts_to_do: Vec<String>,
    pub failure: Option<MutationFailure>,
}

impl MergeTreeTable {
    /// Registers a mutation: its number comes from the block counter, its
    /// file is written and synced before this returns. Run it with
    /// [`Self::run_mutations`].
    pub fn add_mutation(&self, command: &str, commands: Vec<MutationCommand>) -> Result<u64> {
        self.check_open()?;
        let _guard = self.commit.lock();
        let number = self.next_block.fetch_add(1, Ordering::Relaxed);
        let entry = MutationEntry {
            number,
            command: command.to_string(),
            create_time: SystemTime::now(),
        };
        entry.store(&self.dir)?;
        self.mutations.lock().insert(
            number,
            MutationState {
                entry,
                commands: Some(Arc::new(commands)),
                failure: None,
            },
        );
        Ok(number)
    }

    /// Mutations loaded from their files whose commands are not compiled
    /// yet: the engine compiles each and hands it to [`Self::set_commands`].
    pub fn uncompiled_mutations(&self) -> Vec<MutationEntry> {
        let mutations = self.mutations.lock();
        mutations
            .values()
            .filter(|m| m.commands.is_none())
            .map(|m| m.entry.clone())
            .collect()
    }

    pub fn set_commands(&self, number: u64, commands: Vec<MutationCommand>) {
        if let Some(state) = self.mutations.lock().get_mut(&number) {
            state.commands = Some(Arc::new(commands));
        }
    }

    /// Records that a mutation's commands cannot be compiled (a column it
    /// names was dropped): it stays pending, with the reason shown.
    pub fn set_failure(&self, number: u64, error: &StrataError) {
        if let Some(state) = self.mutations.lock().get_mut(&number) {
            state.failure = Some(MutationFailure::new(String::new(), error));
        }
    }

    /// Every mutation the table keeps, for `system.mutations`.
    pub fn mutation_statuses(&self) -> Vec<MutationStatus> {
        let parts = self.snapshot();
        let mutations = self.mutations.lock();
        mutations
            .values()
            .map(|state| MutationStatus {
                entry: state.entry.clone(),
                parts_to_do: parts
                    .iter()
                    .filter(|p| p.part.name.data_version() < state.entry.number)
                    .map(|p| p.name())
                    .collect(),
                failure: state.failure.clone(),
            })
            .collect()
    }

    /// Whether an active part waits for a mutation whose commands are known.
    pub fn has_mutation_work(&self) -> bool {
        !self.pending_work().is_empty()
    }

    /// KILL MUTATION: forgets mutation `number` and removes its file; parts
    /// it already mutated keep its changes. Returns whether it existed.
    pub fn kill_mutation(&self, number: u64) -> Result<bool> {
        let _guard = self.commit.lock();
        let Some(state) = self.mutations.lock().remove(&number) else {
            return Ok(false);
        };
        state.entry.remove(&self.dir)?;
        Ok(true)
    }

    /// The latest mutation a part's rows reflect: the greatest mutation
    /// number at most its data version, or 0. Parts merge only within one.
    pub fn generation(&self, part: &DataPart) -> u64 {
        let version = part.part.name.data_version();
        self.mutations
            .lock()
            .range(..=version)
            .next_back()
            .map_or(0, |(number, _)| *number)
    }

    /// Applies every pending mutation to every part it is pending for,
    /// until none is left. A part that fails keeps its rows and the error
    /// is recorded on the mutation and returned; later mutations wait for
    /// it (they apply in order), until it is killed.
    pub fn run_mutations(&self) -> Result<()> {
        loop {
            self.check_open()?;
            let work = self.pending_work();
            if work.is_empty() {
                return Ok(());
            }
            let mut progressed = false;
            for (part, pending) in work {
                let target = pending.iter().map(|(n, _)| *n).max().unwrap_or(0);
                let commands: Vec<MutationCommand> = pending
                    .iter()
                    .flat_map(|(_, commands)| commands.iter().cloned())
                    .collect();
                match self.mutate_part(&part, target, &commands) {
                    Ok(done) => progressed |= done,
                    Err(error) => {
                        self.record_failure(pending[0].0, &part, &error);
                        return Err(error);
                    }
                }
            }
            if !progressed {
                std::thread::sleep(HELD_PART_RETRY);
            }
        }
    }

    /// Active parts with their pending mutations, oldest first; a part
    /// waiting for a mutation loaded from its file and not compiled yet is
    /// left out.
    fn pending_work(&self) -> Vec<(Arc<DataPart>, Vec<(u64, Arc<Vec<MutationCommand>>)>)> {
        let mutations = self.mutations.lock();
        self.snapshot()
            .iter()
            .filter_map(|part| {
                let version = part.part.name.data_version();
                let pending: Option<Vec<_>> = mutations
                    .range(version + 1..)
                    .map(|(n, state)| Some((*n, Arc::clone(state.commands.as_ref()?))))
                    .collect();
                let pending = pending.filter(|p| !p.is_empty())?;
                Some((Arc::clone(part), pending))
            })
            .collect()
    }

    fn record_failure(&self, number: u64, part: &DataPart, error: &StrataError) {
        if let Some(state) = self.mutations.lock().get_mut(&number) {
            state.failure = Some(MutationFailure::new(part.name(), error));
        }
    }

    /// Mutates one part to mutation `target` with `commands`. Returns
    /// `false` if a merge holds the part (try again later).
    fn mutate_part(
        &self,
        part: &Arc<DataPart>,
        target: u64,
        commands: &[MutationCommand],
    ) -> Result<bool> {
        let mut name = part.part.name.clone();
        name.mutation = target;
        let Some(running) = self.start_merge(std::slice::from_ref(part), &name, true) else {
            return Ok(false);
        };
        let pool = (self.memory)(&format!("mutate {name}"));
        let reservation = MemoryConsumer::new("MergeTree mutation").register(&pool);
        let candidates = self.candidate_rows(part, commands)?;
        reservation.try_grow(candidates.get_array_memory_size())?;
        let progress = &running.progress;
        progress
            .rows_read
            .store(candidates.num_rows() as u64, Ordering::Relaxed);
        if !any_selected(commands, &candidates)? {
            link_part(&part.part.dir, &self.dir, &name)?;
            let linked =
                DataPart::open(&self.dir.join(name.to_string()), &self.schema, &self.keys)?;
            self.replace_part(part, Some(Arc::new(linked)));
            return Ok(true);
        }
        drop(candidates);
        reservation.free();
        let rows = self.read_all(part)?;
        reservation.try_grow(rows.get_array_memory_size())?;
        progress
            .memory_usage
            .store(reservation.size() as u64, Ordering::Relaxed);
        let mutated = apply_commands(commands, rows)?;
        progress
            .rows_written
            .store(mutated.num_rows() as u64, Ordering::Relaxed);
        let replacement = match (mutated.num_rows(), self.changed_columns(part, commands)) {
            (0, _) => None,
            (_, Some(columns)) => {
                let changed: Vec<ChangedColumn> = columns
                    .iter()
                    .map(|&column| ChangedColumn {
                        field: self.schema.field(column),
                        values: Arc::clone(mutated.column(column)),
                        codec: self.codecs[column],
                    })
                    .collect();
                write_changed_columns(&part.part, &self.dir, &name, &changed)?;
                let dir = self.dir.join(name.to_string());
                Some(Arc::new(DataPart::open(&dir, &self.schema, &self.keys)?))
            }
            (_, None) => Some(self.write_sorted(&name, &mutated, &part.partition)?),
        };
        self.replace_part(part, replacement);
        Ok(true)
    }

    /// The columns `commands` assign, when they only update columns the part
    /// holds in their table type: then only those are written and the rest
    /// of the part is linked. `None` when a DELETE changes the rows.
    fn changed_columns(&self, part: &DataPart, commands: &[MutationCommand]) -> Option<Vec<usize>> {
        let mut columns = Vec::new();
        for command in commands {
            let MutationCommand::Update { assignments, .. } = command else {
                return None;
            };
            for &(column, _) in assignments {
                let field = self.schema.field(column);
                let stored = part.part.column(field.name())?;
                if stored.data_type() != field.data_type() {
                    return None;
                }
                if !columns.contains(&column) {
                    columns.push(column);
                }
            }
        }
        Some(columns)
    }

    /// The rows of `part` in the granules some command's condition may
    /// select, by the partition bounds and the primary index.
    fn candidate_rows(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
    ) -> Result<RecordBatch> {
        let mut granules = BTreeMap::new();
        for command in commands {
            let ranges = select_granules(
                &self.schema,
                &self.keys,
                &[],
                std::slice::from_ref(part),
                Some(command.predicate()),
            )?;
            for range in ranges {
                for granule in range.granules {
                    granules.insert(granule, ());
                }
            }
        }
        let mut batches = Vec::new();
        let granules: Vec<usize> = granules.into_keys().collect();
        for run in granules.chunk_by(|a, b| a + 1 == *b) {
            let range = run[0]..run[run.len() - 1] + 1;
            batches.push(self.read_granules(part, range)?);
        }
        Ok(concat_batches(&self.schema, &batches)?)
    }

    /// Swaps `replacement` in for `part` (or just takes `part` out), unless
    /// the part left the active set meanwhile (TRUNCATE, DROP): then the
    /// replacement is discarded.
    fn replace_part(&self, part: &Arc<DataPart>, replacement: Option<Arc<DataPart>>) {
        let _guard = self.commit.lock();
        let current = self.snapshot();
        let still_active =
            !self.closed.load(Ordering::Acquire) && current.iter().any(|p| Arc::ptr_eq(p, part));
        if !still_active {
            if let Some(replacement) = replacement {
                replacement.retire();
            }
            return;
        }
        let mut next: Vec<Arc<DataPart>> = current
            .iter()
            .filter(|p| !Arc::ptr_eq(p, part))
            .cloned()
            .collect();
        next.extend(replacement);
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
        part.retire();
    }
}
