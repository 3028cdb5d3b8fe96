//! Running mutations over a table's parts.
//!
//! Mutation `N` is pending for every active part whose data version is below
//! `N`. A part is mutated once for all its pending mutations, in number
//! order, into a part of the same block range and level named with the last
//! one's number:
//! - hard links to the old files when no row matches (found from the
//!   granules the primary index and partition bounds leave, then the
//!   conditions);
//! - a lightweight DELETE writes only the `_row_exists` mask, from the
//!   candidate granules; UPDATEs (and MATERIALIZE/CLEAR COLUMN) write only
//!   the columns they assign; both link every other file;
//! - with a DELETE, or on a part with masked rows, every column is written.
//!
//! An UPDATE or DELETE decodes and encodes again only the granules a
//! condition may select or that hold patched rows, a run of granules at a
//! time; the others' compressed blocks are copied as they are. A DELETE
//! rewrites the whole part where the table has skipping indexes (their
//! files cover several granules) or the part has older columns.
//!
//! A part left with no rows leaves no part. The old part stays until the new
//! one is in place, so a crash leaves each part before or after; the
//! mutation's file stays, and the next start finishes it.
//!
//! Merges only combine parts that reflect the same mutations (their
//! generation, [`MergeTreeTable::generation`]): a merged part is named with
//! its sources' highest data version, which would otherwise claim mutations
//! for rows that never had them.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt8Array};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::physical_expr::utils::collect_columns;
use parking_lot::Mutex;
use strata_common::error::{Result, StrataError};
use strata_common::events::{self, Event};

use super::{MergeProgress, MergeTreeTable, count_rewritten};
use crate::merge_tree::data_part::{DataPart, ROW_EXISTS, deleted_rows};
use crate::merge_tree::mutation::null_in_column;
use crate::merge_tree::mutation::{
    MutationCommand, MutationEntry, MutationKind, any_selected, apply_commands,
};
use crate::merge_tree::part_log::PartEventType;
use crate::merge_tree::pruning::{Summaries, select_granules};
use crate::part::name::PartName;
use crate::part::patch::Patches;
use crate::part::writer::{
    ChangedColumn, KeptRows, link_part, write_changed_columns, write_patched, write_with_files,
    write_without_rows,
};

/// A part with its pending mutations' numbers and commands, oldest first.
type PartWork = (Arc<DataPart>, Vec<(u64, Arc<Vec<MutationCommand>>)>);

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
    pub fn add_mutation(
        &self,
        command: &str,
        kind: MutationKind,
        commands: Vec<MutationCommand>,
    ) -> Result<u64> {
        self.check_open()?;
        let _guard = self.commit.lock();
        let number = self.next_block.fetch_add(1, Ordering::Relaxed);
        let entry = MutationEntry {
            number,
            command: command.to_string(),
            create_time: SystemTime::now(),
            kind,
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
    /// until none is left. A part that fails keeps its rows, the error is
    /// recorded on the mutation, and the other parts go on; the first error
    /// is returned. Later mutations of a failed part wait for it (they apply
    /// in order) until it succeeds on a later run or is killed.
    pub fn run_mutations(&self) -> Result<()> {
        let mut failed: Vec<Arc<DataPart>> = Vec::new();
        let mut first_error = None;
        loop {
            self.check_open()?;
            let work: Vec<_> = self
                .pending_work()
                .into_iter()
                .filter(|(part, _)| !failed.iter().any(|f| Arc::ptr_eq(f, part)))
                .collect();
            if work.is_empty() {
                return first_error.map_or(Ok(()), Err);
            }
            let mut progressed = false;
            for ((part, pending), outcome) in self.mutate_parts(&work) {
                match outcome {
                    Ok(done) => {
                        if done {
                            self.clear_failure(pending, part);
                        }
                        progressed |= done;
                    }
                    Err(error) => {
                        self.record_failure(pending[0].0, part, &error);
                        first_error.get_or_insert(error);
                        failed.push(Arc::clone(part));
                        progressed = true;
                    }
                }
            }
            if !progressed {
                std::thread::sleep(HELD_PART_RETRY);
            }
        }
    }

    /// Mutates each part of `work` with its pending mutations, several
    /// parts at a time (one thread per core), and returns each outcome.
    fn mutate_parts<'w>(&self, work: &'w [PartWork]) -> Vec<(&'w PartWork, Result<bool>)> {
        let workers = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(work.len());
        let next = AtomicUsize::new(0);
        let outcomes = Mutex::new(Vec::with_capacity(work.len()));
        // A statement waiting for the mutation counts its workers' events.
        let query = events::current();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    let _scope = events::enter(query.as_ref());
                    while let Some(item) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let (part, pending) = item;
                        let target = pending.iter().map(|(n, _)| *n).max().unwrap_or(0);
                        let commands: Vec<MutationCommand> = pending
                            .iter()
                            .flat_map(|(_, commands)| commands.iter().cloned())
                            .collect();
                        let outcome = self.mutate_part(part, target, &commands);
                        outcomes.lock().push((item, outcome));
                    }
                });
            }
        });
        let outcomes = outcomes.into_inner();
        debug_assert_eq!(outcomes.len(), work.len(), "every part has an outcome");
        outcomes
    }

    /// Active parts with their pending mutations, oldest first; a part
    /// waiting for a mutation loaded from its file and not compiled yet is
    /// left out.
    fn pending_work(&self) -> Vec<PartWork> {
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

    /// A part that failed before and now succeeded clears its failures.
    fn clear_failure(&self, pending: &[(u64, Arc<Vec<MutationCommand>>)], part: &DataPart) {
        let mut mutations = self.mutations.lock();
        for (number, _) in pending {
            if let Some(state) = mutations.get_mut(number)
                && state
                    .failure
                    .as_ref()
                    .is_some_and(|f| f.part == part.name())
            {
                state.failure = None;
            }
        }
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
        let has_column =
            |column: usize| part.part.column(self.schema.field(column).name()).is_some();
        let commands: Vec<MutationCommand> = commands
            .iter()
            .filter_map(|c| c.for_part(has_column))
            .collect();
        let commands = commands.as_slice();
        // A closed table waits for this mutation: give up early.
        self.check_open()?;
        let progress = &running.progress;
        events::add(Event::MutationTotalParts, 1);
        let pool = (self.memory)(&format!("mutate {name}"));
        let reservation = MemoryConsumer::new("MergeTree mutation").register(&pool);
        let replacement = if is_lightweight(commands) {
            match self.patch_part(part, commands, progress, &reservation)? {
                None => Some(self.linked_part(part, &name)?),
                Some(patches) if deleted_rows(&patches) == part.part.rows as usize => None,
                Some(patches) if fits_beside(part, &patches) => {
                    write_patched(&part.part, &self.dir, &name, &patches)?;
                    Some(self.open_written(&name)?)
                }
                Some(_) => {
                    reservation.free();
                    self.rewrite_part(part, &name, commands, progress, &reservation)?
                }
            }
        } else {
            let drops_masked = part.has_deleted_rows()
                && commands
                    .iter()
                    .any(|c| matches!(c, MutationCommand::ApplyDeletedMask));
            if let Some(indexes) = index_builds(commands) {
                Some(self.index_part(part, &name, &indexes, &reservation)?)
            } else if drops_masked || self.any_candidate_selected(part, commands, progress)? {
                self.rewrite_part(part, &name, commands, progress, &reservation)?
            } else {
                Some(self.linked_part(part, &name)?)
            }
        };
        self.swap_parts(
            std::slice::from_ref(part),
            replacement,
            PartEventType::MutatePart,
            progress.started,
        );
        Ok(true)
    }

    /// `part` under the mutated `name` with the data of the skipping
    /// `indexes` (those the table has of these names) written anew and
    /// every other file linked.
    fn index_part(
        &self,
        part: &Arc<DataPart>,
        name: &PartName,
        indexes: &[&str],
        reservation: &MemoryReservation,
    ) -> Result<Arc<DataPart>> {
        let indexes: Vec<_> = self
            .keys
            .indexes
            .iter()
            .filter(|index| indexes.contains(&index.name.as_str()))
            .collect();
        if indexes.is_empty() {
            return self.linked_part(part, name);
        }
        let columns: Vec<usize> = indexes.iter().flat_map(|index| index.columns()).collect();
        // Every row in its place, masked ones too: the index covers granules.
        let rows = self.read_for_conditions(part, 0..part.granules(), &columns, true)?;
        reservation.try_grow(rows.get_array_memory_size())?;
        let granules: Vec<usize> = part
            .part
            .granules
            .iter()
            .map(|&rows| rows as usize)
            .collect();
        let files = indexes
            .iter()
            .map(|index| Ok((index.file_name(), index.build(&rows, &granules)?)))
            .collect::<Result<Vec<_>>>()?;
        write_with_files(&part.part, &self.dir, name, &files)?;
        self.open_written(name)
    }

    /// The same files as `part`'s under the mutated `name`.
    fn linked_part(&self, part: &DataPart, name: &PartName) -> Result<Arc<DataPart>> {
        events::add(Event::MutationUntouchedParts, 1);
        link_part(&part.part, &self.dir, name)?;
        self.open_written(name)
    }

    /// `part` with `commands` applied: only the assigned columns written when
    /// the commands only update, else every row written anew.
    fn rewrite_part(
        &self,
        part: &Arc<DataPart>,
        name: &PartName,
        commands: &[MutationCommand],
        progress: &MergeProgress,
        reservation: &MemoryReservation,
    ) -> Result<Option<Arc<DataPart>>> {
        if let Some(columns) = self.changed_columns(part, commands) {
            self.update_columns(part, name, commands, &columns, progress, reservation)?;
            return self.open_written(name).map(Some);
        }
        if let Some(rewritten) = self.deleted_granules(part, commands)? {
            let rows = self.delete_rows(part, name, commands, &rewritten, progress, reservation)?;
            progress.rows_written.store(rows, Ordering::Relaxed);
            return self.open_written(name).map(Some);
        }
        let rows = self.read_all(part)?;
        reservation.try_grow(rows.get_array_memory_size())?;
        count_mutated(&rows, progress, reservation);
        let mutated = apply_commands(commands, rows)?;
        progress
            .rows_written
            .store(mutated.num_rows() as u64, Ordering::Relaxed);
        self.write_rows(name, &mutated, &part.partition, part.part.disk.as_ref())
    }

    /// The granule runs of `part` where `commands` (with a DELETE) may
    /// remove or change a row, when the part can be written with its other
    /// granules copied: it holds the table's columns in their table types,
    /// the table has no skipping index, and some granule is left out.
    /// Granules holding a patched or masked row are among the runs.
    fn deleted_granules(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
    ) -> Result<Option<Vec<Range<usize>>>> {
        let fields = self.schema.fields();
        let same_columns = part.part.columns.len() == fields.len()
            && part
                .part
                .columns
                .iter()
                .zip(fields.iter())
                .all(|(stored, field)| {
                    stored.name() == field.name() && stored.data_type() == field.data_type()
                });
        if !same_columns || !self.keys.indexes.is_empty() {
            return Ok(None);
        }
        let mut granules = self.command_granules(part, commands)?;
        let patched = part.part.patches.columns().iter();
        granules.extend(granules_of_rows(
            part,
            patched.flat_map(|p| p.rows.values().iter().copied()),
        ));
        if granules.len() == part.granules() {
            return Ok(None);
        }
        Ok(Some(granule_runs(granules)))
    }

    /// Writes `part` under `name` without the rows the DELETE `commands`
    /// remove: the `rewritten` runs read, a run at a time, and encoded
    /// again, the other granules copied. Returns the rows written.
    fn delete_rows(
        &self,
        part: &Arc<DataPart>,
        name: &PartName,
        commands: &[MutationCommand],
        rewritten: &[Range<usize>],
        progress: &MergeProgress,
        reservation: &MemoryReservation,
    ) -> Result<u64> {
        let kept = |granules: Range<usize>| -> Result<KeptRows> {
            let rows = self.read_renamed(part, granules, &HashMap::new())?;
            reservation.try_resize(rows.get_array_memory_size())?;
            count_mutated(&rows, progress, reservation);
            let rows = apply_commands(commands, rows)?;
            let primary_key = self.keys.primary_values(&rows)?;
            Ok(KeptRows { rows, primary_key })
        };
        write_without_rows(
            &part.part,
            &self.dir,
            name,
            &self.codecs,
            &self.keys.primary_types(&self.schema)?,
            self.settings.index_granularity,
            rewritten,
            kept,
        )
    }

    /// Writes `part` under `name` with the `columns` the update `commands`
    /// assign written anew and the rest linked. Only the granules the
    /// commands may change are read, a run at a time, and encoded again; the
    /// others keep their compressed blocks.
    fn update_columns(
        &self,
        part: &Arc<DataPart>,
        name: &PartName,
        commands: &[MutationCommand],
        columns: &[usize],
        progress: &MergeProgress,
        reservation: &MemoryReservation,
    ) -> Result<()> {
        let changed: Vec<ChangedColumn> = columns
            .iter()
            .map(|&column| ChangedColumn {
                field: self.schema.field(column),
                codec: self.codecs[column],
            })
            .collect();
        let stale: Vec<String> = self
            .keys
            .indexes
            .iter()
            .filter(|index| index.columns().iter().any(|c| columns.contains(c)))
            .map(|index| index.file_name())
            .collect();
        let read = read_columns(commands);
        let values = |granules: Range<usize>| -> Result<Vec<ArrayRef>> {
            // Every row in its place, masked ones too.
            let rows = self.read_for_conditions(part, granules, &read, true)?;
            reservation.try_resize(rows.get_array_memory_size())?;
            count_mutated(&rows, progress, reservation);
            let mutated = apply_commands(commands, rows)?;
            columns
                .iter()
                .map(|&column| {
                    let field = self.schema.field(column);
                    let values = Arc::clone(mutated.column(column));
                    if !field.is_nullable() && values.null_count() > 0 {
                        return Err(null_in_column(field.name()));
                    }
                    Ok(values)
                })
                .collect()
        };
        let rewritten = self.rewritten_granules(part, commands, columns)?;
        write_changed_columns(
            &part.part, &self.dir, name, &changed, &rewritten, values, &stale,
        )?;
        progress
            .rows_written
            .store(part.part.rows, Ordering::Relaxed);
        Ok(())
    }

    /// The granule runs of `part` where the update `commands` may change a
    /// value of `columns`: those a command's condition may select (by the
    /// keys alone after a command that assigns, as the part's summaries do
    /// not know the values it set), and those holding patched values of
    /// `columns`, which the new files take in. Every granule when the part
    /// lacks one of `columns`.
    fn rewritten_granules(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
        columns: &[usize],
    ) -> Result<Vec<Range<usize>>> {
        let names: Vec<&str> = columns
            .iter()
            .map(|&c| self.schema.field(c).name().as_str())
            .collect();
        if names.iter().any(|name| part.part.column(name).is_none()) {
            return Ok(granule_runs(0..part.granules()));
        }
        let mut granules = self.command_granules(part, commands)?;
        let patched = names
            .iter()
            .filter_map(|name| part.part.patches.column(name));
        granules.extend(granules_of_rows(
            part,
            patched.flat_map(|p| p.rows.values().iter().copied()),
        ));
        Ok(granule_runs(granules))
    }

    /// The granules some command's condition may select, each command's
    /// pruned by the keys alone after a command that assigns (the part's
    /// summaries do not know the values it set).
    fn command_granules(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
    ) -> Result<BTreeSet<usize>> {
        let mut granules = BTreeSet::new();
        for (n, command) in commands.iter().enumerate() {
            let summaries = match commands[..n].iter().any(|c| c.assignments().is_some()) {
                true => Summaries::KeysOnly,
                false => Summaries::Written,
            };
            let command = std::slice::from_ref(command);
            granules.extend(self.candidate_granule_set(part, command, summaries)?);
        }
        Ok(granules)
    }

    /// The patch lightweight `commands` (DELETE or UPDATE) make to `part`,
    /// folded over the part's own, or `None` when no row changes. Each
    /// command reads only the granules the index leaves for its condition,
    /// and sees the rows as the commands before it left them.
    fn patch_part(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
        progress: &MergeProgress,
        reservation: &MemoryReservation,
    ) -> Result<Option<Patches>> {
        let mut pending = Patches::default();
        for (n, command) in commands.iter().enumerate() {
            let columns = read_columns(std::slice::from_ref(command));
            // Values an earlier command changed are not in the part's
            // granule bounds and indexes.
            let summaries = match commands[..n].iter().any(|c| c.assignments().is_some()) {
                true => Summaries::KeysOnly,
                false => Summaries::Written,
            };
            for range in self.candidate_granules(part, std::slice::from_ref(command), summaries)? {
                let first_row = part.part.first_row(range.start);
                let rows = self.read_for_conditions(part, range.clone(), &columns, true)?;
                progress
                    .rows_read
                    .fetch_add(rows.num_rows() as u64, Ordering::Relaxed);
                let rows = overlay(&pending, rows, first_row, &columns)?;
                let exists = existing(part, &pending, range)?;
                let patch = command.patch(&rows, exists.as_ref(), first_row, &self.schema)?;
                pending = pending.fold(&patch)?;
                reservation.try_resize(pending.memory_size())?;
            }
        }
        if pending.is_empty() {
            return Ok(None);
        }
        Ok(Some(part.part.patches.fold(&pending)?))
    }

    /// The columns `commands` assign, when they only update columns the part
    /// holds in their table type: then only those are written and the rest
    /// of the part is linked. `None` when a DELETE changes the rows.
    fn changed_columns(&self, part: &DataPart, commands: &[MutationCommand]) -> Option<Vec<usize>> {
        let mut columns = Vec::new();
        for command in commands {
            let assignments = command.assignments()?;
            for &(column, _) in assignments {
                // A column the part lacks is added to it.
                let field = self.schema.field(column);
                let stored = part.part.column(field.name());
                if stored.is_some_and(|stored| stored.data_type() != field.data_type()) {
                    return None;
                }
                if !columns.contains(&column) {
                    columns.push(column);
                }
            }
        }
        Some(columns)
    }

    /// The granule ranges of `part` some command's condition may select,
    /// by the partition bounds, the primary index and, with `summaries`,
    /// the part's summaries of its values.
    pub(super) fn candidate_granules(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
        summaries: Summaries,
    ) -> Result<Vec<Range<usize>>> {
        Ok(granule_runs(
            self.candidate_granule_set(part, commands, summaries)?,
        ))
    }

    fn candidate_granule_set(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
        summaries: Summaries,
    ) -> Result<BTreeSet<usize>> {
        let mut granules = BTreeSet::new();
        for predicate in commands.iter().filter_map(MutationCommand::predicate) {
            let ranges = select_granules(
                &self.schema,
                &self.keys,
                &[],
                std::slice::from_ref(part),
                Some(predicate.pruning()),
                summaries,
            )?
            .ranges;
            granules.extend(ranges.into_iter().flat_map(|range| range.granules));
        }
        Ok(granules)
    }

    /// Whether a condition selects a row of the candidate granules (the
    /// masked ones left out), read block by block with only the columns the
    /// conditions read, up to the first block that has one.
    fn any_candidate_selected(
        &self,
        part: &Arc<DataPart>,
        commands: &[MutationCommand],
        progress: &MergeProgress,
    ) -> Result<bool> {
        let columns = condition_columns(commands);
        // The first command that changes a row finds it on the values as
        // written, which is all this needs to know.
        for range in self.candidate_granules(part, commands, Summaries::Written)? {
            let rows = self.read_for_conditions(part, range, &columns, false)?;
            progress
                .rows_read
                .fetch_add(rows.num_rows() as u64, Ordering::Relaxed);
            if any_selected(commands, &rows)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Granules a mutation evaluates its conditions over at once: 128 of the
/// default 8,192 rows, about a million rows.
const CONDITION_GRANULES: usize = 128;

/// `granules` (ascending) as runs of adjacent granules, cut to blocks that
/// stay in cache.
fn granule_runs(granules: impl IntoIterator<Item = usize>) -> Vec<Range<usize>> {
    let granules: Vec<usize> = granules.into_iter().collect();
    granules
        .chunk_by(|a, b| a + 1 == *b && b % CONDITION_GRANULES != 0)
        .map(|run| run[0]..run[run.len() - 1] + 1)
        .collect()
}

/// The granules of `part` holding `rows` (row numbers in the part).
fn granules_of_rows(part: &DataPart, rows: impl Iterator<Item = u64>) -> BTreeSet<usize> {
    let starts: Vec<u64> = part
        .part
        .granules
        .iter()
        .scan(0, |start, &rows| {
            let first = *start;
            *start += rows;
            Some(first)
        })
        .collect();
    rows.map(|row| starts.partition_point(|&start| start <= row) - 1)
        .collect()
}

/// Counts `rows`, read to be mutated, in the events and the progress.
fn count_mutated(rows: &RecordBatch, progress: &MergeProgress, reservation: &MemoryReservation) {
    let counted = [Event::MutatedRows, Event::MutatedUncompressedBytes];
    count_rewritten(rows, counted, progress, reservation);
}

/// The indexes to build, when `commands` only build indexes.
fn index_builds(commands: &[MutationCommand]) -> Option<Vec<&str>> {
    commands
        .iter()
        .map(|command| match command {
            MutationCommand::BuildIndex { name } => Some(name.as_str()),
            _ => None,
        })
        .collect()
}

/// Whether every command is a lightweight DELETE or UPDATE, written as a
/// patch.
fn is_lightweight(commands: &[MutationCommand]) -> bool {
    commands.iter().all(|c| {
        matches!(
            c,
            MutationCommand::DeleteMask { .. } | MutationCommand::Patch { .. }
        )
    })
}

/// The most of a part's rows a patch keeps for one column (1 in 4): past
/// it the part is rewritten, which reads faster and stores less.
const MAX_PATCHED_SHARE: usize = 4;

/// Whether `patches` is small enough to keep beside `part`.
fn fits_beside(part: &DataPart, patches: &Patches) -> bool {
    let limit = (part.part.rows as usize / MAX_PATCHED_SHARE).max(1);
    patches.columns().iter().all(|c| c.rows.len() <= limit)
}

/// `rows` (granules from row `first_row` on) with `pending` applied to the
/// table columns `columns`.
fn overlay(
    pending: &Patches,
    rows: RecordBatch,
    first_row: u64,
    columns: &[usize],
) -> Result<RecordBatch> {
    if pending.is_empty() {
        return Ok(rows);
    }
    let schema = rows.schema();
    let mut arrays = rows.columns().to_vec();
    for &column in columns {
        let name = schema.field(column).name();
        arrays[column] = pending.apply(name, first_row, Arc::clone(&arrays[column]))?;
    }
    Ok(RecordBatch::try_new(schema, arrays)?)
}

/// Which rows of `granules` of `part` exist once `pending` applies too.
fn existing(
    part: &DataPart,
    pending: &Patches,
    granules: Range<usize>,
) -> Result<Option<BooleanArray>> {
    let stored = part.row_exists(granules.clone())?;
    if pending.column(ROW_EXISTS).is_none() {
        return Ok(stored);
    }
    let rows = part.part.granules[granules.clone()].iter().sum::<u64>() as usize;
    let flags: ArrayRef = Arc::new(match stored {
        Some(exists) => UInt8Array::from_iter_values(exists.values().iter().map(u8::from)),
        None => UInt8Array::from(vec![1u8; rows]),
    });
    let first_row = part.part.first_row(granules.start);
    let flags = pending.apply(ROW_EXISTS, first_row, flags)?;
    let flags = flags
        .as_any()
        .downcast_ref::<UInt8Array>()
        .expect("_row_exists is UInt8");
    Ok(Some(flags.iter().map(|f| Some(f != Some(0))).collect()))
}

/// The table columns the commands' conditions read.
fn condition_columns(commands: &[MutationCommand]) -> Vec<usize> {
    let mut columns: Vec<usize> = commands
        .iter()
        .filter_map(MutationCommand::predicate)
        .flat_map(|predicate| {
            collect_columns(predicate.rows())
                .into_iter()
                .map(|c| c.index())
        })
        .collect();
    columns.sort_unstable();
    columns.dedup();
    columns
}

/// The table columns `commands` read: their conditions, their values and
/// the columns they assign (an unselected row keeps its value).
fn read_columns(commands: &[MutationCommand]) -> Vec<usize> {
    let mut columns = condition_columns(commands);
    for command in commands {
        if let Some(assignments) = command.assignments() {
            for (column, value) in assignments {
                columns.push(*column);
                columns.extend(collect_columns(value).iter().map(|c| c.index()));
            }
        }
    }
    columns.sort_unstable();
    columns.dedup();
    columns
}
