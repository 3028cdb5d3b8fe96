//! The `Set` and `Join` table engines: rows kept in RAM (a [`MemoryTable`]
//! holds them) and unique by a key, for `x IN set_table`, for joins with a
//! `Join` table and for `joinGet`. As ClickHouse keeps them, each INSERT's
//! admitted rows are also written to a numbered file of the table's
//! directory (Arrow IPC here) and read back, in order, when the table opens;
//! `SETTINGS persistent = 0` keeps them in RAM only.
//!
//! Which rows an INSERT admits ([`KeyedRows::admit`]):
//! - `Set`: rows not already there (the key is every column);
//! - `Join(ANY | SEMI | ANTI, ...)`: the first row of each key, or the last
//!   with `join_any_take_last_row = 1` (the older row leaves);
//! - `Join(ALL, ...)`: every row.
//!
//! Replaying the files through the same rule rebuilds the same rows.
//!
//! [`MemoryTable`]: super::memory_table::MemoryTable

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{filter_record_batch, take_record_batch};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::ipc::reader::FileReader;
use datafusion::arrow::ipc::writer::FileWriter;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::sql::sqlparser::ast::Expr as SqlExpr;
use parking_lot::Mutex;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::EngineClause;
use strata_sql::create_table::{JOIN_SETTINGS, SET_SETTINGS};

/// `Join`'s first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    Any,
    All,
    Semi,
    Anti,
}

/// `Join`'s second argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Left,
    Inner,
    Right,
    Full,
}

/// A `Join` table's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinSpec {
    pub strictness: Strictness,
    pub kind: JoinKind,
    pub keys: Vec<String>,
}

/// A `Set` or `Join` engine clause, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedDefinition {
    /// None for `Set`.
    pub join: Option<JoinSpec>,
    /// `SETTINGS` as written, values unquoted.
    pub settings: Vec<(String, String)>,
}

impl KeyedDefinition {
    /// The definition `ENGINE = Set` or `ENGINE = Join(...)` names.
    pub fn from_clause(clause: &EngineClause) -> Result<KeyedDefinition> {
        let keyed = clause.partition_by.is_some()
            || clause.order_by.is_some()
            || clause.primary_key.is_some()
            || clause.sample_by.is_some();
        if keyed {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Engine {} doesn't support PARTITION_BY, PRIMARY_KEY, ORDER_BY or SAMPLE_BY clauses",
                    clause.name
                ),
            ));
        }
        let join = match clause.name.as_str() {
            "Set" if clause.arguments.is_empty() => None,
            "Set" => {
                return Err(StrataError::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Engine Set doesn't support any arguments",
                ));
            }
            _ => Some(join_spec(&clause.arguments)?),
        };
        // Query settings were taken out for the CREATE query itself.
        let own = match join {
            None => SET_SETTINGS,
            Some(_) => JOIN_SETTINGS,
        };
        if let Some((name, _)) = clause
            .settings
            .iter()
            .find(|(name, _)| !own.contains(&name.as_str()))
        {
            return Err(match join {
                None => StrataError::new(
                    ErrorCode::UNKNOWN_SETTING,
                    format!("Unknown setting '{name}': for storage Set"),
                ),
                Some(_) => StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Unknown setting {name} for storage Join"),
                ),
            });
        }
        let settings = clause.settings.clone();
        Ok(KeyedDefinition { join, settings })
    }

    fn flag(&self, name: &str, default: bool) -> bool {
        self.settings
            .iter()
            .rfind(|(n, _)| n == name)
            .map_or(default, |(_, v)| v == "1" || v.eq_ignore_ascii_case("true"))
    }

    /// Whether inserted rows are also written to disk (`persistent`, on by default).
    pub fn persistent(&self) -> bool {
        self.flag("persistent", true)
    }

    /// Whether `joinGet` returns NULL for a missing key (`join_use_nulls`).
    pub fn use_nulls(&self) -> bool {
        self.flag("join_use_nulls", false)
    }

    /// The engine clause as SHOW CREATE TABLE prints it.
    pub fn clause_text(&self) -> String {
        let mut text = match &self.join {
            None => "ENGINE = Set".to_string(),
            Some(spec) => format!(
                "ENGINE = Join({}, {}, {})",
                spec.strictness.word(),
                spec.kind.word(),
                spec.keys.join(", ")
            ),
        };
        if !self.settings.is_empty() {
            let settings: Vec<String> = self
                .settings
                .iter()
                .map(|(name, value)| format!("{name} = {value}"))
                .collect();
            text.push_str(&format!("\nSETTINGS {}", settings.join(", ")));
        }
        text
    }

    pub fn engine_name(&self) -> &'static str {
        match self.join {
            None => "Set",
            Some(_) => "Join",
        }
    }

    /// The columns rows are unique by, None for every row kept.
    fn unique_by(&self, schema: &Schema) -> Result<Option<Vec<usize>>> {
        let Some(spec) = &self.join else {
            return Ok(Some((0..schema.fields().len()).collect()));
        };
        let indices = spec
            .keys
            .iter()
            .map(|key| {
                schema.index_of(key).map_err(|_| {
                    StrataError::new(
                        ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                        format!("Key column ({key}) does not exist in table declaration."),
                    )
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok(match spec.strictness {
            Strictness::All => None,
            Strictness::Any | Strictness::Semi | Strictness::Anti => Some(indices),
        })
    }
}

impl Strictness {
    fn word(self) -> &'static str {
        match self {
            Strictness::Any => "ANY",
            Strictness::All => "ALL",
            Strictness::Semi => "SEMI",
            Strictness::Anti => "ANTI",
        }
    }
}

impl JoinKind {
    fn word(self) -> &'static str {
        match self {
            JoinKind::Left => "LEFT",
            JoinKind::Inner => "INNER",
            JoinKind::Right => "RIGHT",
            JoinKind::Full => "FULL",
        }
    }
}

/// `Join(strictness, kind, key, ...)`'s arguments.
fn join_spec(arguments: &[SqlExpr]) -> Result<JoinSpec> {
    if arguments.len() < 3 {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            "Storage Join requires at least 3 parameters: Join(ANY|ALL|SEMI|ANTI, LEFT|INNER|RIGHT, keys...).",
        ));
    }
    let word = |expr: &SqlExpr| match expr {
        SqlExpr::Identifier(ident) => Some(ident.value.to_ascii_uppercase()),
        _ => None,
    };
    let strictness = match word(&arguments[0]).as_deref() {
        Some("ANY") => Strictness::Any,
        Some("ALL") => Strictness::All,
        Some("SEMI") => Strictness::Semi,
        Some("ANTI") => Strictness::Anti,
        _ => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "First parameter of storage Join must be ANY or ALL or SEMI or ANTI (without quotes).",
            ));
        }
    };
    let kind = match word(&arguments[1]).as_deref() {
        Some("LEFT") => JoinKind::Left,
        Some("INNER") => JoinKind::Inner,
        Some("RIGHT") => JoinKind::Right,
        Some("FULL") => JoinKind::Full,
        _ => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Second parameter of storage Join must be LEFT or INNER or RIGHT or FULL (without quotes).",
            ));
        }
    };
    if strictness == Strictness::Any && kind == JoinKind::Full {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "ANY FULL JOINs are not implemented",
        ));
    }
    let keys = arguments[2..]
        .iter()
        .map(|key| match key {
            SqlExpr::Identifier(ident) => Ok(ident.value.clone()),
            other => Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Parameter of storage Join must be a column name, got {other}"),
            )),
        })
        .collect::<Result<Vec<String>>>()?;
    Ok(JoinSpec {
        strictness,
        kind,
        keys,
    })
}

/// The rows a `Set` or `Join` table keeps: the admission rule and, when
/// persistent, the files.
#[derive(Debug)]
pub struct KeyedRows {
    pub definition: KeyedDefinition,
    schema: SchemaRef,
    /// The columns rows are unique by; None keeps every row.
    unique_by: Option<Vec<usize>>,
    /// A later row of a key replaces the earlier (`join_any_take_last_row`).
    take_last: bool,
    /// The keys of the rows kept, in the row format (unused when every row is kept).
    seen: Mutex<HashSet<Box<[u8]>>>,
    files: Option<RowFiles>,
}

impl KeyedRows {
    /// The rows of a table over `dir`, with the rows its files hold.
    pub fn open(
        definition: KeyedDefinition,
        schema: SchemaRef,
        dir: &Path,
    ) -> Result<(KeyedRows, Vec<RecordBatch>)> {
        let unique_by = definition.unique_by(&schema)?;
        let take_last = definition.flag("join_any_take_last_row", false);
        let (files, stored) = match definition.persistent() {
            true => {
                let (files, stored) = RowFiles::open(dir)?;
                (Some(files), stored)
            }
            false => (None, Vec::new()),
        };
        let rows = KeyedRows {
            definition,
            schema,
            unique_by,
            take_last,
            seen: Mutex::new(HashSet::new()),
            files,
        };
        let mut kept = Vec::new();
        for batch in stored {
            let batch = rows.relabel(&batch)?;
            if let Some(admitted) = rows.admit(batch, &mut kept)? {
                kept.push(admitted);
            }
        }
        Ok((rows, kept))
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// `batch`'s columns under the table's schema (an INSERT's may differ in
    /// names or nullability).
    pub fn relabel(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!(
                    "{} columns where the table has {}",
                    batch.num_columns(),
                    self.schema.fields().len()
                ),
            ));
        }
        Ok(RecordBatch::try_new(
            std::sync::Arc::clone(&self.schema),
            batch.columns().to_vec(),
        )?)
    }

    /// The rows of `batch` the table keeps, with `kept` (the rows already
    /// there) losing those a later row replaces.
    pub fn admit(
        &self,
        batch: RecordBatch,
        kept: &mut Vec<RecordBatch>,
    ) -> Result<Option<RecordBatch>> {
        let Some(unique_by) = &self.unique_by else {
            return Ok((batch.num_rows() > 0).then_some(batch));
        };
        let converter = key_converter(&self.schema, unique_by)?;
        let keys = converter.convert_columns(&key_columns(&batch, unique_by))?;
        let mut seen = self.seen.lock();
        let chosen: Vec<u32> = if self.take_last {
            let mut last: HashMap<&[u8], u32> = HashMap::new();
            for (i, key) in keys.iter().enumerate() {
                last.insert(key.data(), i as u32);
            }
            let mut chosen: Vec<u32> = last.into_values().collect();
            chosen.sort_unstable();
            let replaced: HashSet<&[u8]> = chosen
                .iter()
                .map(|&i| keys.row(i as usize).data())
                .filter(|key| seen.contains(*key))
                .collect();
            if !replaced.is_empty() {
                *kept = without_keys(kept, &converter, unique_by, &replaced)?;
            }
            chosen
        } else {
            let mut chosen = Vec::new();
            for (i, key) in keys.iter().enumerate() {
                if !seen.contains(key.data()) {
                    seen.insert(key.data().into());
                    chosen.push(i as u32);
                }
            }
            chosen
        };
        if self.take_last {
            for &i in &chosen {
                seen.insert(keys.row(i as usize).data().into());
            }
        }
        if chosen.is_empty() {
            return Ok(None);
        }
        if chosen.len() == batch.num_rows() {
            return Ok(Some(batch));
        }
        Ok(Some(take_record_batch(&batch, &UInt32Array::from(chosen))?))
    }

    /// Writes rows an INSERT admitted to the next file, when persistent.
    pub fn persist(&self, batch: &RecordBatch) -> Result<()> {
        match &self.files {
            Some(files) => files.append(batch),
            None => Ok(()),
        }
    }

    /// Forgets every row (TRUNCATE).
    pub fn clear(&self) -> Result<()> {
        self.seen.lock().clear();
        match &self.files {
            Some(files) => files.clear(),
            None => Ok(()),
        }
    }
}

fn key_converter(schema: &Schema, columns: &[usize]) -> Result<RowConverter> {
    let fields = columns
        .iter()
        .map(|&i| SortField::new(schema.field(i).data_type().clone()))
        .collect();
    Ok(RowConverter::new(fields)?)
}

fn key_columns(batch: &RecordBatch, columns: &[usize]) -> Vec<ArrayRef> {
    columns.iter().map(|&i| batch.column(i).clone()).collect()
}

/// `batches` without the rows whose key is one of `keys`.
fn without_keys(
    batches: &[RecordBatch],
    converter: &RowConverter,
    columns: &[usize],
    keys: &HashSet<&[u8]>,
) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let rows = converter.convert_columns(&key_columns(batch, columns))?;
        let keep: BooleanArray = rows
            .iter()
            .map(|row| Some(!keys.contains(row.data())))
            .collect();
        let kept = filter_record_batch(batch, &keep)?;
        if kept.num_rows() > 0 {
            out.push(kept);
        }
    }
    Ok(out)
}

/// A table's rows on disk: `<n>.arrow` per INSERT, written to a temporary
/// name and renamed, so a crash leaves whole files only.
#[derive(Debug)]
struct RowFiles {
    dir: PathBuf,
    next: Mutex<u64>,
}

impl RowFiles {
    /// The files of `dir` (created if missing) and their rows, in order.
    fn open(dir: &Path) -> Result<(RowFiles, Vec<RecordBatch>)> {
        fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        let mut numbered = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
            let path = entry.map_err(|e| io_error(dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            match name.strip_suffix(".arrow").map(str::parse::<u64>) {
                Some(Ok(n)) => numbered.push((n, path)),
                // An interrupted write: never renamed, never counted.
                _ if name.starts_with("tmp_") => {
                    fs::remove_file(&path).map_err(|e| io_error(&path, e))?
                }
                _ => {}
            }
        }
        numbered.sort();
        let mut batches = Vec::new();
        for (_, path) in &numbered {
            let file = fs::File::open(path).map_err(|e| io_error(path, e))?;
            for batch in FileReader::try_new(file, None)? {
                batches.push(batch?);
            }
        }
        let next = numbered.last().map_or(1, |(n, _)| n + 1);
        let files = RowFiles {
            dir: dir.to_path_buf(),
            next: Mutex::new(next),
        };
        Ok((files, batches))
    }

    fn append(&self, batch: &RecordBatch) -> Result<()> {
        let mut next = self.next.lock();
        let temporary = self.dir.join(format!("tmp_{next}.arrow"));
        let file = fs::File::create(&temporary).map_err(|e| io_error(&temporary, e))?;
        let mut writer = FileWriter::try_new(&file, &batch.schema())?;
        writer.write(batch)?;
        writer.finish()?;
        file.sync_all().map_err(|e| io_error(&temporary, e))?;
        let path = self.dir.join(format!("{next}.arrow"));
        fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        *next += 1;
        Ok(())
    }

    fn clear(&self) -> Result<()> {
        let _next = self.next.lock();
        for entry in fs::read_dir(&self.dir).map_err(|e| io_error(&self.dir, e))? {
            let path = entry.map_err(|e| io_error(&self.dir, e))?.path();
            if path.extension().is_some_and(|e| e == "arrow") {
                fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
            }
        }
        Ok(())
    }
}

fn io_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_OPEN_FILE,
        format!("{}: {error}", path.display()),
    )
}
