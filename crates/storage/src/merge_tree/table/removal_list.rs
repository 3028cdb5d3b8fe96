//! Changes to the part set that must survive a crash whole: an INSERT's
//! parts are visible together or not at all, and a TRUNCATE takes every
//! part or none. Both go through a removal list, a file in the table's
//! directory naming parts that opening the table removes; the file itself
//! is removed once it no longer applies.
//!
//! An INSERT writes each part whole under a `tmp_` name and renames it into
//! place as its block finishes, but appends (and syncs) the part's name to
//! the insert's list first; the commit removes the list. So a part in place
//! is either committed or named by a list, and a crash between the first
//! rename and the commit takes the whole insert away. A TRUNCATE writes its
//! whole list under a `tmp_` name and renames it into place, so a crash
//! leaves the list complete or absent, then removes the parts and the list.
//! Its list also names the parts merges replaced within the dropped blocks
//! that a query still reads; while one is on disk the list stays, for the
//! next open to apply, since nothing else would keep them from loading.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use parking_lot::Mutex;
use strata_common::error::Result;

use crate::part::name::PartName;
use crate::part::writer::{io_error, sync_directory};
use crate::part::{TEMPORARY_PREFIX, remove_part_directory};

const LIST_PREFIX: &str = "removal_list_";

/// Parts that opening the table removes while this list exists.
#[derive(Debug)]
pub struct RemovalList {
    path: PathBuf,
    /// Opened with the first part; `None` while the insert has written none.
    file: Mutex<Option<File>>,
    /// When the insert or drop began, for `system.part_log`.
    pub(super) started: Instant,
}

impl RemovalList {
    pub(super) fn new(table_dir: &Path, number: u64) -> RemovalList {
        RemovalList {
            path: table_dir.join(format!("{LIST_PREFIX}{number}.txt")),
            file: Mutex::new(None),
            started: Instant::now(),
        }
    }

    /// Adds `part`; durable when this returns.
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

    /// Puts the list in place naming all of `parts` at once: a crash leaves
    /// it whole or absent, never a prefix (a partial TRUNCATE).
    pub(super) fn record_all(&self, parts: &[PartName]) -> Result<()> {
        let mut file = self.file.lock();
        assert!(file.is_none(), "a list is published whole only once");
        let file_name = self.path.file_name().expect("a list has a file name");
        let temporary = self
            .path
            .with_file_name(format!("{TEMPORARY_PREFIX}{}", file_name.to_string_lossy()));
        let text: String = parts.iter().map(|part| format!("{part}\n")).collect();
        let mut written = File::create(&temporary).map_err(|e| io_error(&temporary, e))?;
        written
            .write_all(text.as_bytes())
            .and_then(|_| written.sync_data())
            .map_err(|e| io_error(&temporary, e))?;
        fs::rename(&temporary, &self.path).map_err(|e| io_error(&self.path, e))?;
        sync_parent(&self.path)?;
        *file = Some(written);
        Ok(())
    }

    /// Removes the list: its parts are now the table's (an insert's commit)
    /// or already removed.
    pub(super) fn finish(&self) -> Result<()> {
        if self.file.lock().take().is_none() {
            return Ok(());
        }
        fs::remove_file(&self.path).map_err(|e| io_error(&self.path, e))?;
        sync_parent(&self.path)
    }
}

/// Removes the parts every remaining list names, then the lists.
pub(super) fn apply_removal_lists(table_dir: &Path) -> Result<()> {
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
        // A name cut short by a crash was never put in place.
        for name in names.lines().filter(|n| PartName::parse(n).is_ok()) {
            let part = table_dir.join(name);
            if part.exists() {
                // Its objects go with the sweep that follows when the table opens.
                remove_part_directory(&part, None).map_err(|e| io_error(&part, e))?;
            }
        }
    }
    if lists.is_empty() {
        return Ok(());
    }
    // The parts are gone for good before their lists are.
    sync_directory(table_dir)?;
    for list in &lists {
        fs::remove_file(list).map_err(|e| io_error(list, e))?;
    }
    sync_directory(table_dir)
}

fn sync_parent(path: &Path) -> Result<()> {
    sync_directory(
        path.parent()
            .expect("a list lives in the table's directory"),
    )
}
