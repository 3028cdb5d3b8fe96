//! Where a Strata process keeps what outlives it, laid out as ClickHouse
//! lays out its `path`: `metadata/<database>/<table>.sql` holds each table's
//! CREATE statement and `data/<database>/<table>/` its parts. Without
//! `--path` the directory is temporary and removed when the process ends.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use strata_common::{ErrorCode, Result, StrataError};

#[derive(Debug)]
pub struct DataPath {
    root: PathBuf,
    /// Holds a temporary root, removed on drop.
    _temporary: Option<tempfile::TempDir>,
}

impl DataPath {
    /// The directory `root`, created if missing.
    pub fn open(root: &Path) -> Result<DataPath> {
        for dir in [root.join("metadata"), root.join("data")] {
            fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        }
        Ok(DataPath {
            root: root.to_path_buf(),
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

    pub fn table_data(&self, database: &str, table: &str) -> PathBuf {
        self.root
            .join("data")
            .join(escape(database))
            .join(escape(table))
    }

    /// Databases with stored metadata, and each one's table definitions.
    pub fn stored(&self) -> Result<Vec<(String, Vec<String>)>> {
        let metadata = self.root.join("metadata");
        let mut databases = Vec::new();
        for entry in read_dir_sorted(&metadata)? {
            if !entry.is_dir() {
                continue;
            }
            let database = unescape(&file_name(&entry));
            let mut statements = Vec::new();
            for file in read_dir_sorted(&entry)? {
                let name = file_name(&file);
                if name.ends_with(".sql.tmp") {
                    fs::remove_file(&file).map_err(|e| io_error(&file, e))?;
                } else if name.ends_with(".sql") {
                    statements.push(fs::read_to_string(&file).map_err(|e| io_error(&file, e))?);
                }
            }
            databases.push((database, statements));
        }
        Ok(databases)
    }

    pub fn create_database(&self, database: &str) -> Result<()> {
        let dir = self.metadata_dir(database);
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))
    }

    pub fn drop_database(&self, database: &str) -> Result<()> {
        for dir in [
            self.metadata_dir(database),
            self.root.join("data").join(escape(database)),
        ] {
            if dir.exists() {
                fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
            }
        }
        Ok(())
    }

    /// Stores a table's CREATE statement: written aside, synced, renamed.
    pub fn store_table(&self, database: &str, table: &str, statement: &str) -> Result<()> {
        let dir = self.metadata_dir(database);
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let path = dir.join(format!("{}.sql", escape(table)));
        let temporary = dir.join(format!("{}.sql.tmp", escape(table)));
        let mut file = fs::File::create(&temporary).map_err(|e| io_error(&temporary, e))?;
        file.write_all(statement.as_bytes())
            .and_then(|_| file.sync_all())
            .map_err(|e| io_error(&temporary, e))?;
        fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        fs::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_error(&dir, e))
    }

    pub fn remove_table(&self, database: &str, table: &str) -> Result<()> {
        let path = self
            .metadata_dir(database)
            .join(format!("{}.sql", escape(table)));
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error(&path, e)),
        }
    }
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
