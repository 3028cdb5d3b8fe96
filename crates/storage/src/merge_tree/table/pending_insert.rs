//! An INSERT's parts are visible together or not at all, across crashes
//! too. Each part is written whole under a `tmp_` name and renamed into
//! place as its block finishes, but before that rename its name is appended
//! (and synced) to the insert's list, `uncommitted_insert_<n>.txt` in the
//! table's directory. The commit removes the list; opening the table
//! removes every part a remaining list names, then the list. So a part in
//! place is either committed or named by a list, and a crash between the
//! first rename and the commit takes the whole insert away.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use strata_common::error::Result;

use crate::part::name::PartName;
use crate::part::remove_part_directory;
use crate::part::writer::io_error;

const LIST_PREFIX: &str = "uncommitted_insert_";

/// The list of one INSERT's parts not yet committed.
#[derive(Debug)]
pub struct PendingInsert {
    path: PathBuf,
    /// Opened with the first part; `None` while the insert has written none.
    file: Mutex<Option<File>>,
}

impl PendingInsert {
    pub(super) fn new(table_dir: &Path, number: u64) -> PendingInsert {
        PendingInsert {
            path: table_dir.join(format!("{LIST_PREFIX}{number}.txt")),
            file: Mutex::new(None),
        }
    }

    /// Records `part` before it is put in place; durable when this returns.
    pub(super) fn record(&self, part: &PartName) -> Result<()> {
        let mut file = self.file.lock();
        if file.is_none() {
            let created = OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(&self.path)
                .map_err(|e| io_error(&self.path, e))?;
            sync_parent(&self.path)?;
            *file = Some(created);
        }
        let file = file.as_mut().expect("opened above");
        file.write_all(format!("{part}\n").as_bytes())
            .and_then(|_| file.sync_data())
            .map_err(|e| io_error(&self.path, e))
    }

    /// Removes the list: its parts are now the table's (commit) or already
    /// removed (discard).
    pub(super) fn finish(&self) -> Result<()> {
        if self.file.lock().take().is_none() {
            return Ok(());
        }
        fs::remove_file(&self.path).map_err(|e| io_error(&self.path, e))?;
        sync_parent(&self.path)
    }
}

/// Removes the parts of inserts that never committed, and their lists.
pub(super) fn roll_back_uncommitted(table_dir: &Path) -> Result<()> {
    let mut lists = Vec::new();
    for entry in fs::read_dir(table_dir).map_err(|e| io_error(table_dir, e))? {
        let path = entry.map_err(|e| io_error(table_dir, e))?.path();
        let is_list = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(LIST_PREFIX));
        if is_list {
            lists.push(path);
        }
    }
    for list in &lists {
        let names = fs::read_to_string(list).map_err(|e| io_error(list, e))?;
        // A name cut short by the crash was never renamed into place.
        for name in names.lines().filter(|n| PartName::parse(n).is_ok()) {
            let part = table_dir.join(name);
            if part.exists() {
                remove_part_directory(&part).map_err(|e| io_error(&part, e))?;
            }
        }
    }
    if lists.is_empty() {
        return Ok(());
    }
    // The parts are gone for good before their lists are.
    sync_dir(table_dir)?;
    for list in &lists {
        fs::remove_file(list).map_err(|e| io_error(list, e))?;
    }
    sync_dir(table_dir)
}

fn sync_parent(path: &Path) -> Result<()> {
    sync_dir(
        path.parent()
            .expect("a list lives in the table's directory"),
    )
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error(dir, e))
}
