//! Mutations: `ALTER TABLE ... DELETE WHERE` and `UPDATE c = e WHERE`, as
//! commands applied to a part's rows, and the `mutation_<N>.txt` file that
//! keeps each one in the table's directory until it is killed.
//!
//! A mutation takes its number from the table's block counter, so it applies
//! to the parts whose blocks came before it (inserts after it take higher
//! numbers) and not yet reflected in their data version (see
//! [`PartName::data_version`](crate::part::name::PartName::data_version)).
//! The commands arrive compiled by the engine: physical expressions over the
//! table's columns.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, RecordBatch, UInt8Array, UInt64Array,
};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{
    and, cast, filter, filter_record_batch, not, prep_null_mask_filter,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Literal;
use strata_common::error::{ErrorCode, Result, StrataError};

use crate::merge_tree::data_part::ROW_EXISTS;
use crate::part::TEMPORARY_PREFIX;
use crate::part::patch::{ColumnPatch, Patches};
use crate::part::writer::{io_error, sync_directory};

const FILE_PREFIX: &str = "mutation_";
const FILE_SUFFIX: &str = ".txt";

/// A command's WHERE over the table's columns, twice: `rows` to evaluate
/// over the rows read (it may be a specialized form, such as a string column
/// compared with a constant), and `pruning` as analyzed, which the primary
/// index, granule bounds and skipping indexes can read.
#[derive(Debug, Clone)]
pub struct Condition {
    rows: Arc<dyn PhysicalExpr>,
    pruning: Arc<dyn PhysicalExpr>,
}

impl Condition {
    pub fn new(rows: Arc<dyn PhysicalExpr>, pruning: Arc<dyn PhysicalExpr>) -> Self {
        Condition { rows, pruning }
    }

    /// A condition already in the form pruning reads.
    pub fn plain(predicate: Arc<dyn PhysicalExpr>) -> Self {
        Condition::new(Arc::clone(&predicate), predicate)
    }

    /// True for every row (CLEAR COLUMN, MATERIALIZE COLUMN).
    pub fn always() -> Self {
        Condition::plain(Arc::new(Literal::new(ScalarValue::Boolean(Some(true)))))
    }

    pub fn rows(&self) -> &Arc<dyn PhysicalExpr> {
        &self.rows
    }

    pub fn pruning(&self) -> &Arc<dyn PhysicalExpr> {
        &self.pruning
    }
}

/// One command of a mutation, over the table's columns.
#[derive(Debug, Clone)]
pub enum MutationCommand {
    /// Removes the rows `predicate` is true for.
    Delete { predicate: Condition },
    /// Sets each `(column, value)` in the rows `predicate` is true for; every
    /// value is computed from the row as it was before this command.
    Update {
        predicate: Condition,
        assignments: Vec<(usize, Arc<dyn PhysicalExpr>)>,
    },
    /// A lightweight DELETE: masks the rows `predicate` is true for in the
    /// part's `_row_exists` column, as a patch; merges drop them later.
    DeleteMask { predicate: Condition },
    /// A lightweight UPDATE (`UPDATE t SET ...`): an `Update` written as a
    /// patch of the rows it changes rather than as whole columns.
    Patch {
        predicate: Condition,
        assignments: Vec<(usize, Arc<dyn PhysicalExpr>)>,
    },
    /// `APPLY DELETED MASK`: rewrites the parts that have masked rows
    /// without them.
    ApplyDeletedMask,
    /// `MATERIALIZE COLUMN`: writes `column` as `value` (its DEFAULT) in the
    /// parts written before it was added; parts that hold it are unchanged.
    FillColumn {
        column: usize,
        value: Arc<dyn PhysicalExpr>,
    },
    /// `MATERIALIZE INDEX`: writes the data of the table's skipping index
    /// `name` beside every part's other files, which stay linked.
    BuildIndex { name: String },
}

impl MutationCommand {
    /// The condition of the rows the command changes; none for APPLY
    /// DELETED MASK, which changes only rows already masked.
    pub fn predicate(&self) -> Option<&Condition> {
        match self {
            MutationCommand::Delete { predicate }
            | MutationCommand::Update { predicate, .. }
            | MutationCommand::Patch { predicate, .. }
            | MutationCommand::DeleteMask { predicate } => Some(predicate),
            MutationCommand::ApplyDeletedMask
            | MutationCommand::FillColumn { .. }
            | MutationCommand::BuildIndex { .. } => None,
        }
    }

    /// The command as it applies to a part holding `has_column` of the
    /// table's columns: a column fill becomes an UPDATE of every row where
    /// the part lacks the column, and nothing where it has it.
    pub fn for_part(&self, has_column: impl Fn(usize) -> bool) -> Option<MutationCommand> {
        match self {
            MutationCommand::FillColumn { column, .. } if has_column(*column) => None,
            MutationCommand::FillColumn { column, value } => Some(MutationCommand::Update {
                predicate: Condition::always(),
                assignments: vec![(*column, Arc::clone(value))],
            }),
            other => Some(other.clone()),
        }
    }

    /// The columns the command assigns and their values, for an UPDATE.
    pub fn assignments(&self) -> Option<&[(usize, Arc<dyn PhysicalExpr>)]> {
        match self {
            MutationCommand::Update { assignments, .. }
            | MutationCommand::Patch { assignments, .. } => Some(assignments),
            _ => None,
        }
    }

    /// Applies the command to `rows` (every table column, in order, the
    /// masked rows already left out).
    fn apply(&self, rows: RecordBatch) -> Result<RecordBatch> {
        let Some(predicate) = self.predicate() else {
            return Ok(rows);
        };
        let selected = selected(predicate.rows(), &rows)?;
        if selected.true_count() == 0 {
            return Ok(rows);
        }
        match self {
            MutationCommand::Delete { .. } | MutationCommand::DeleteMask { .. } => {
                Ok(filter_record_batch(&rows, &not(&selected)?)?)
            }
            MutationCommand::ApplyDeletedMask
            | MutationCommand::FillColumn { .. }
            | MutationCommand::BuildIndex { .. } => Ok(rows),
            MutationCommand::Update { assignments, .. }
            | MutationCommand::Patch { assignments, .. } => {
                let mut columns = rows.columns().to_vec();
                for (column, value) in assignments {
                    let field = rows.schema_ref().field(*column).clone();
                    let new = assigned_values(value, &rows, &field)?;
                    let updated = zip(&selected, &new, &rows.column(*column))?;
                    if !field.is_nullable() && updated.null_count() > 0 {
                        return Err(null_in_column(field.name()));
                    }
                    columns[*column] = updated;
                }
                Ok(RecordBatch::try_new(rows.schema(), columns)?)
            }
        }
    }

    /// The patch a lightweight command (DELETE or UPDATE) makes to `rows`:
    /// table columns in `schema`'s order, every row of the part from
    /// `first_row` on (masked ones too, so positions hold), of which only
    /// those `exists` leaves in may change.
    pub fn patch(
        &self,
        rows: &RecordBatch,
        exists: Option<&BooleanArray>,
        first_row: u64,
        schema: &Schema,
    ) -> Result<Patches> {
        let Some(predicate) = self.predicate() else {
            return Ok(Patches::default());
        };
        let mut selected = selected(predicate.rows(), rows)?;
        if let Some(exists) = exists {
            selected = and(&selected, exists)?;
        }
        let offsets: UInt64Array = selected
            .values()
            .set_indices()
            .map(|row| first_row + row as u64)
            .collect();
        if offsets.is_empty() {
            return Ok(Patches::default());
        }
        let mut columns = Vec::new();
        if let MutationCommand::DeleteMask { .. } = self {
            let field = Field::new(ROW_EXISTS, DataType::UInt8, false);
            let zeros: ArrayRef = Arc::new(UInt8Array::from(vec![0u8; offsets.len()]));
            columns.push(ColumnPatch::new(field, offsets.clone(), zeros));
        }
        for (column, value) in self.assignments().unwrap_or_default() {
            let field = schema.field(*column);
            let new = assigned_values(value, rows, field)?;
            let new = filter(&new, &selected)?;
            if !field.is_nullable() && new.null_count() > 0 {
                return Err(null_in_column(field.name()));
            }
            columns.push(ColumnPatch::new(field.clone(), offsets.clone(), new));
        }
        Ok(Patches::new(columns))
    }
}

/// An assignment's values for every row of `rows`, in `field`'s type.
fn assigned_values(
    value: &Arc<dyn PhysicalExpr>,
    rows: &RecordBatch,
    field: &Field,
) -> Result<ArrayRef> {
    let new = value.evaluate(rows)?.into_array(rows.num_rows())?;
    if new.data_type() == field.data_type() {
        return Ok(new);
    }
    Ok(cast(&new, field.data_type())?)
}

/// An UPDATE set a non-Nullable column to NULL.
pub(crate) fn null_in_column(column: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
        format!("Cannot set column {column} to NULL: its type is not Nullable"),
    )
}

/// Applies `commands` in order to `rows`.
pub fn apply_commands(commands: &[MutationCommand], rows: RecordBatch) -> Result<RecordBatch> {
    commands
        .iter()
        .try_fold(rows, |rows, command| command.apply(rows))
}

/// Whether any row of `rows` is selected by one of `commands`' predicates.
pub fn any_selected(commands: &[MutationCommand], rows: &RecordBatch) -> Result<bool> {
    for predicate in commands.iter().filter_map(MutationCommand::predicate) {
        if selected(predicate.rows(), rows)?.true_count() > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The rows `predicate` is true for; NULL selects nothing, as in WHERE.
fn selected(predicate: &Arc<dyn PhysicalExpr>, rows: &RecordBatch) -> Result<BooleanArray> {
    let values: ArrayRef = predicate.evaluate(rows)?.into_array(rows.num_rows())?;
    let Some(flags) = values.as_any().downcast_ref::<BooleanArray>() else {
        return Err(StrataError::new(
            ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER,
            format!(
                "Illegal type {} of a mutation's WHERE, it must be a condition",
                values.data_type()
            ),
        ));
    };
    Ok(match flags.null_count() {
        0 => flags.clone(),
        _ => prep_null_mask_filter(flags),
    })
}

/// A mutation as its file keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct MutationEntry {
    pub number: u64,
    /// The commands as `system.mutations` shows them.
    pub command: String,
    pub create_time: SystemTime,
    pub kind: MutationKind,
}

/// What statement made a mutation, which decides how its UPDATEs apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutationKind {
    /// `ALTER TABLE ... UPDATE | DELETE ...` or `DELETE FROM`.
    Alter,
    /// `UPDATE ... SET` (or an ALTER UPDATE run lightweight): its updates
    /// are patches.
    LightweightUpdate,
}

impl MutationKind {
    fn text(self) -> &'static str {
        match self {
            MutationKind::Alter => "alter",
            MutationKind::LightweightUpdate => "lightweight update",
        }
    }
}

impl MutationEntry {
    /// The file's name, which `system.mutations` shows as `mutation_id`.
    pub fn file_name(&self) -> String {
        format!("{FILE_PREFIX}{}{FILE_SUFFIX}", self.number)
    }

    /// Writes the entry's file, synced, under its final name in one step.
    pub fn store(&self, dir: &Path) -> Result<()> {
        let seconds = self
            .create_time
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let command = self.command.replace('\\', "\\\\").replace('\n', "\\n");
        let kind = self.kind.text();
        let text = format!(
            "format version: 1\ncreate time: {seconds}\nkind: {kind}\ncommands: {command}\n"
        );
        let path = dir.join(self.file_name());
        let temporary = dir.join(format!("{TEMPORARY_PREFIX}{}", self.file_name()));
        fs::write(&temporary, text)
            .and_then(|_| fs::File::open(&temporary)?.sync_all())
            .map_err(|e| io_error(&temporary, e))?;
        fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        sync_directory(dir)
    }

    /// Removes the entry's file (KILL MUTATION).
    pub fn remove(&self, dir: &Path) -> Result<()> {
        let path = dir.join(self.file_name());
        fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
        sync_directory(dir)
    }

    /// The mutations stored in `dir`, by number.
    pub fn load_all(dir: &Path) -> Result<Vec<MutationEntry>> {
        let mut entries = Vec::new();
        for file in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
            let file = file.map_err(|e| io_error(dir, e))?;
            let name = file.file_name().to_string_lossy().to_string();
            let Some(number) = name
                .strip_prefix(FILE_PREFIX)
                .and_then(|rest| rest.strip_suffix(FILE_SUFFIX))
                .and_then(|number| number.parse::<u64>().ok())
            else {
                continue;
            };
            let text = fs::read_to_string(file.path()).map_err(|e| io_error(&file.path(), e))?;
            entries.push(parse_entry(number, &text).ok_or_else(|| {
                StrataError::new(
                    ErrorCode::CORRUPTED_DATA,
                    format!("Cannot read mutation file {}", file.path().display()),
                )
            })?);
        }
        entries.sort_by_key(|entry| entry.number);
        Ok(entries)
    }
}

fn parse_entry(number: u64, text: &str) -> Option<MutationEntry> {
    let mut seconds = None;
    let mut command = None;
    let mut kind = MutationKind::Alter;
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("create time: ") {
            seconds = value.trim().parse::<u64>().ok();
        } else if let Some(value) = line.strip_prefix("kind: ") {
            kind = [MutationKind::Alter, MutationKind::LightweightUpdate]
                .into_iter()
                .find(|k| k.text() == value.trim())?;
        } else if let Some(value) = line.strip_prefix("commands: ") {
            command = Some(unescape(value));
        }
    }
    Some(MutationEntry {
        number,
        command: command?,
        create_time: SystemTime::UNIX_EPOCH + Duration::from_secs(seconds?),
        kind,
    })
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::common::ScalarValue;
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};

    fn rows() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    None,
                    Some("z"),
                    Some("w"),
                ])),
            ],
        )
        .unwrap()
    }

    fn a_greater_than(value: i64) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(
            Arc::new(Column::new("a", 0)),
            Operator::Gt,
            Arc::new(Literal::new(ScalarValue::Int64(Some(value)))),
        ))
    }

    #[test]
    fn delete_then_update_see_each_others_results() {
        let commands = vec![
            MutationCommand::Delete {
                predicate: Condition::plain(a_greater_than(3)),
            },
            MutationCommand::Update {
                predicate: Condition::plain(a_greater_than(1)),
                assignments: vec![(
                    1,
                    Arc::new(Literal::new(ScalarValue::Utf8(Some("u".to_string())))),
                )],
            },
        ];
        let out = apply_commands(&commands, rows()).unwrap();
        let s = out
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(out.num_rows(), 3);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![Some("x"), Some("u"), Some("u")]
        );
        assert!(any_selected(&commands, &rows()).unwrap());
        let none = [MutationCommand::Delete {
            predicate: Condition::plain(a_greater_than(10)),
        }];
        assert!(!any_selected(&none, &rows()).unwrap());
    }

    #[test]
    fn null_in_a_non_nullable_column_is_refused() {
        let command = MutationCommand::Update {
            predicate: Condition::plain(a_greater_than(0)),
            assignments: vec![(0, Arc::new(Literal::new(ScalarValue::Int64(None))))],
        };
        let error = apply_commands(&[command], rows()).unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN);
    }

    #[test]
    fn entries_round_trip_through_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let entry = MutationEntry {
            number: 7,
            command: "UPDATE s = 'a\\nb' WHERE a = 1".to_string(),
            create_time: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            kind: MutationKind::LightweightUpdate,
        };
        entry.store(dir.path()).unwrap();
        assert_eq!(
            MutationEntry::load_all(dir.path()).unwrap(),
            vec![entry.clone()]
        );
        entry.remove(dir.path()).unwrap();
        assert!(MutationEntry::load_all(dir.path()).unwrap().is_empty());
    }
}
