//! Where a Strata process keeps what outlives it, laid out as ClickHouse's
//! Atomic databases lay out their `path`: `metadata/<database>/<table>.sql`
//! holds each table's CREATE statement after a `-- uuid:` line, and
//! `store/<uuid prefix>/<uuid>/` holds its parts. Data is found by the UUID,
//! not the name, so RENAME moves one metadata file and no data, and the file
//! name is the table's name. A table being dropped has its metadata file in
//! `metadata_dropped/<uuid>.sql` until its data is gone. Without `--path`
//! the directory is temporary and removed when the process ends. Either way
//! the process owns the directory through its `status` file ([`StatusFile`])
//! while it runs.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use strata_common::{ErrorCode, Result, StrataError};
use uuid::Uuid;

use crate::status_file::StatusFile;

#[derive(Debug)]
pub struct DataPath {
    root: PathBuf,
    _owner: StatusFile,
    /// Holds a temporary root, removed on drop.
    _temporary: Option<tempfile::TempDir>,
}

impl DataPath {
    /// The directory `root`, created if missing, owned by this process until
    /// dropped; another owner is refused before anything in it changes.
    pub fn open(root: &Path) -> Result<DataPath> {
        fs::create_dir_all(root).map_err(|e| io_error(root, e))?;
        let owner = StatusFile::lock(root)?;
        for dir in [root.join("metadata"), root.join("store")] {
            fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        }
        Ok(DataPath {
            root: root.to_path_buf(),
            _owner: owner,
            _temporary: None,
        })
    }

    /// A fresh temporary directory.
    pub fn temporary() -> Result<DataPath> {
        let dir = tempfile::Builder::new()
            .prefix("strata-")
            .tempdir()
            .map_err(|e| io_error(&std::env::temp_dir(), e))?;
        let mut path = DataPath::open(dir.path())?;
        path._temporary = Some(dir);
        Ok(path)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn metadata_dir(&self, database: &str) -> PathBuf {
        self.root.join("metadata").join(escape(database))
    }

    fn metadata_file(&self, database: &str, table: &str) -> PathBuf {
        self.metadata_dir(database)
            .join(format!("{}.sql", escape(table)))
    }

    /// The directory of the table with `uuid`'s data.
    pub fn table_data(&self, uuid: &Uuid) -> PathBuf {
        let text = uuid.to_string();
        self.root.join("store").join(&text[..3]).join(text)
    }

    /// Databases with stored metadata, and each one's tables.
    pub fn stored(&self) -> Result<Vec<(String, Vec<StoredTable>)>> {
        let metadata = self.root.join("metadata");
        let mut databases = Vec::new();
        for entry in read_dir_sorted(&metadata)? {
            if !entry.is_dir() {
                continue;
            }
            let database = unescape(&file_name(&entry));
            let mut tables = Vec::new();
            for file in read_dir_sorted(&entry)? {
                let name = file_name(&file);
                if name.ends_with(".sql.tmp") {
                    fs::remove_file(&file).map_err(|e| io_error(&file, e))?;
                } else if let Some(table) = name.strip_suffix(".sql") {
                    let text = fs::read_to_string(&file).map_err(|e| io_error(&file, e))?;
                    tables.push(StoredTable::parse(
                        &database,
                        &unescape(table),
                        &text,
                        &file,
                    )?);
                }
            }
            databases.push((database, tables));
        }
        Ok(databases)
    }

    pub fn create_database(&self, database: &str) -> Result<()> {
        let dir = self.metadata_dir(database);
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))
    }

    /// Removes a database's metadata directory; its tables' data is removed
    /// table by table before.
    pub fn drop_database(&self, database: &str) -> Result<()> {
        let dir = self.metadata_dir(database);
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        }
        Ok(())
    }

    /// Stores a table's CREATE statement: written aside, synced, renamed.
    pub fn store_table(&self, table: &StoredTable) -> Result<()> {
        let dir = self.metadata_dir(&table.database);
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let path = self.metadata_file(&table.database, &table.name);
        replace_file(&path, &table.file_text())
    }

    /// Renames a table: its metadata file moves in one step (the file's name
    /// is the table's name), then is rewritten with the new name inside.
    pub fn rename_table(&self, from: &StoredTable, to: &StoredTable) -> Result<()> {
        assert_eq!(from.uuid, to.uuid, "a rename keeps the table's data");
        let target_dir = self.metadata_dir(&to.database);
        fs::create_dir_all(&target_dir).map_err(|e| io_error(&target_dir, e))?;
        let target = self.metadata_file(&to.database, &to.name);
        fs::rename(self.metadata_file(&from.database, &from.name), &target)
            .map_err(|e| io_error(&target, e))?;
        sync_dir(&target_dir)?;
        sync_dir(&self.metadata_dir(&from.database))?;
        self.store_table(to)
    }

    /// `DETACH ... PERMANENTLY`: the definition stays, as
    /// `<table>.sql.detached`, which start-up does not load.
    pub fn detach_table(&self, database: &str, table: &str) -> Result<()> {
        let from = self.metadata_file(database, table);
        let to = self.detached_metadata_file(database, table);
        fs::rename(&from, &to).map_err(|e| io_error(&from, e))?;
        sync_dir(&self.metadata_dir(database))
    }

    /// ATTACH: a permanently detached table's definition loads at start-up
    /// again (one detached until restart has kept its `.sql`).
    pub fn attach_table(&self, database: &str, table: &str) -> Result<()> {
        let detached = self.detached_metadata_file(database, table);
        if !detached.exists() {
            return Ok(());
        }
        let to = self.metadata_file(database, table);
        fs::rename(&detached, &to).map_err(|e| io_error(&detached, e))?;
        sync_dir(&self.metadata_dir(database))
    }

    /// A table's stored definition, whether loaded, detached until restart
    /// or detached for good; `None` if there is none.
    pub fn stored_table(&self, database: &str, table: &str) -> Result<Option<StoredTable>> {
        for file in [
            self.metadata_file(database, table),
            self.detached_metadata_file(database, table),
        ] {
            match fs::read_to_string(&file) {
                Ok(text) => return StoredTable::parse(database, table, &text, &file).map(Some),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_error(&file, e)),
            }
        }
        Ok(None)
    }

    fn detached_metadata_file(&self, database: &str, table: &str) -> PathBuf {
        self.metadata_dir(database)
            .join(format!("{}.sql.detached", escape(table)))
    }

    /// The commit point of DROP TABLE: the table's metadata file moves to
    /// `metadata_dropped/<uuid>.sql` in one step, so a crash before the
    /// data is gone leaves a drop start-up finishes, never a table with
    /// half its files. `None` if the table has no metadata file.
    pub fn begin_drop(&self, database: &str, table: &str) -> Result<Option<Uuid>> {
        let Some(stored) = self.stored_table(database, table)? else {
            return Ok(None);
        };
        let dropped = self.root.join(DROPPED_DIR);
        fs::create_dir_all(&dropped).map_err(|e| io_error(&dropped, e))?;
        let target = dropped_file(&dropped, &stored.uuid);
        let mut moved = false;
        for file in [
            self.metadata_file(database, table),
            self.detached_metadata_file(database, table),
        ] {
            match fs::rename(&file, &target) {
                Ok(()) => moved = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&file, e)),
            }
        }
        sync_dir(&dropped)?;
        sync_dir(&self.metadata_dir(database))?;
        Ok(moved.then_some(stored.uuid))
    }

    /// Removes the local directory of the table with `uuid`'s data, and
    /// returns its path.
    pub fn remove_table_data(&self, uuid: &Uuid) -> Result<PathBuf> {
        let dir = self.table_data(uuid);
        match fs::remove_dir_all(&dir) {
            Ok(()) => Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(dir),
            Err(e) => Err(io_error(&dir, e)),
        }
    }

    /// Ends a drop [`DataPath::begin_drop`] began, once the data is gone.
    pub fn finish_drop(&self, uuid: &Uuid) -> Result<()> {
        let dropped = self.root.join(DROPPED_DIR);
        let file = dropped_file(&dropped, uuid);
        match fs::remove_file(&file) {
            Ok(()) => sync_dir(&dropped),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error(&file, e)),
        }
    }

    /// Tables whose drop began and did not finish (the process died in
    /// between): their data is to be removed before anything else loads.
    pub fn unfinished_drops(&self) -> Result<Vec<Uuid>> {
        let dropped = self.root.join(DROPPED_DIR);
        if !dropped.exists() {
            return Ok(Vec::new());
        }
        Ok(read_dir_sorted(&dropped)?
            .iter()
            .filter_map(|file| file_name(file).strip_suffix(".sql")?.parse().ok())
            .collect())
    }
}

/// Where metadata files of tables being dropped wait for their data to go.
const DROPPED_DIR: &str = "metadata_dropped";

fn dropped_file(dropped: &Path, uuid: &Uuid) -> PathBuf {
    dropped.join(format!("{uuid}.sql"))
}

/// A table's stored definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTable {
    pub database: String,
    /// From the metadata file's name, which a RENAME changes first.
    pub name: String,
    pub uuid: Uuid,
    pub statement: String,
}

const UUID_LINE: &str = "-- uuid: ";

impl StoredTable {
    fn file_text(&self) -> String {
        format!("{UUID_LINE}{}\n{}", self.uuid, self.statement)
    }

    fn parse(database: &str, name: &str, text: &str, file: &Path) -> Result<StoredTable> {
        let broken = || {
            StrataError::new(
                ErrorCode::INCORRECT_DATA,
                format!(
                    "{}: a table's metadata starts with '{UUID_LINE}<uuid>'",
                    file.display()
                ),
            )
        };
        let (first, statement) = text.split_once('\n').ok_or_else(broken)?;
        let uuid = first
            .strip_prefix(UUID_LINE)
            .and_then(|u| Uuid::parse_str(u.trim()).ok())
            .ok_or_else(broken)?;
        Ok(StoredTable {
            database: database.to_string(),
            name: name.to_string(),
            uuid,
            statement: statement.to_string(),
        })
    }
}

/// Writes `text` as the whole of `path`: to `<path>.tmp`, synced, renamed
/// over `path`, the directory synced; a crash leaves the old file or the new.
pub(crate) fn replace_file(path: &Path, text: &str) -> Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut file = fs::File::create(&temporary).map_err(|e| io_error(&temporary, e))?;
    file.write_all(text.as_bytes())
        .and_then(|_| file.sync_all())
        .map_err(|e| io_error(&temporary, e))?;
    fs::rename(&temporary, path).map_err(|e| io_error(path, e))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error(dir, e))
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| io_error(dir, e))?
        .map(|e| e.map(|e| e.path()).map_err(|e| io_error(dir, e)))
        .collect::<Result<_>>()?;
    entries.sort();
    Ok(entries)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// A database or table name as a file name: bytes other than ASCII letters,
/// digits and `_` as `%XX`, as ClickHouse escapes them.
fn escape(name: &str) -> String {
    strata_storage::part::escape_file_name(name)
}

fn unescape(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = name
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

fn io_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
        format!("{}: {error}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_survive_the_file_system() {
        for name in ["plain", "with space", "dots.and/slash", "ünï"] {
            assert_eq!(unescape(&escape(name)), name);
        }
    }
}
